// Wallet: top-up, withdrawal (held until the provider's payout event), movements, the shared idempotency mechanism
// and the reconciliation check. Each validation rule for withdrawals has a case. Saved cards: saved-card-pay.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { build, cardToken, touristToken, type Built } from './helper.ts';
import { walletCalls } from './wallet-helpers.ts';
import { checkLedger } from '../src/modules/wallet/reconcile.ts';

let b: Built;
beforeAll(async () => {
  b = await build({ simulator: false });
  // A registered agent (the embed's agents): a top-up names only an agent that exists.
  await b.app.powerly.embed.saveAgent({ id: 'agent-7', name: 'Agent 7', origins: [] });
});
afterAll(async () => b?.close());

const { post, get, key, topUp, wallet, invariants } = walletCalls(() => b);

describe('top-up', () => {
  it('charges the card through the provider and credits the wallet of that currency and agent', async () => {
    const token = await touristToken(b.app);
    const res = await topUp(token, '30', 'EUR');
    expect(res.json()).toMatchObject({
      code: 0,
      data: { outTradeNo: expect.stringMatching(/^PO/), pBalance: 30, pCurrencyType: 'EUR' },
    });
    expect((await wallet(token, 'EUR'))?.pBalance).toBe(30);
    await topUp(token, '10.5', 'USD', { agentId: 'agent-7' });
    expect((await wallet(token, 'USD', 'agent-7'))?.pBalance).toBe(10.5);
    expect((await wallet(token, 'USD'))?.pBalance ?? 0).toBe(0); // another agent's wallet is another wallet
    const { rows } = await b.db.query<{ status: string; purpose: string }>(
      `select status, purpose from payments where order_id = $1`,
      [res.json().data.outTradeNo],
    );
    expect(rows).toEqual([{ status: 'captured', purpose: 'wallet_topup' }]);
    await invariants();
  });

  it('refuses bad amounts, unknown currencies and declined cards without moving money', async () => {
    const token = await touristToken(b.app);
    for (const amount of ['0', '-5', 'abc', '1.234', '']) {
      const r = await topUp(token, amount, 'EUR');
      expect(r.statusCode, amount).toBe(400);
    }
    expect((await topUp(token, '10.5', 'XAF')).statusCode).toBe(400); // XAF has no minor unit
    expect((await topUp(token, '10', 'ISK')).json().code).toBe(400);
    expect((await topUp(token, '20000', 'EUR')).json().code).toBe(422);
    const declined = await post(
      'cdb/payment/multicurrency/recharge',
      token,
      {
        amount: '10',
        currency: 'EUR',
        paymentId: 'card-sandbox',
        stripeToken: await cardToken(b.app, '4000 0000 0000 0002'),
      },
      key(),
    );
    expect(declined.json()).toMatchObject({ code: 422, msg: 'Your card was declined.' });
    expect((await wallet(token, 'EUR'))?.pBalance ?? 0).toBe(0);
    const noKey = await post('cdb/payment/multicurrency/recharge', token, {
      amount: '10',
      currency: 'EUR',
      paymentId: 'card-sandbox',
      stripeToken: 'x',
    });
    expect(noKey.statusCode).toBe(400);
    await invariants();
  });
});

describe('idempotency (one mechanism for every money-moving call)', () => {
  it('replays the stored response, 422 for the same key with other parameters, 409 while the first runs', async () => {
    const token = await touristToken(b.app);
    const k = key();
    const body = { amount: '10', currency: 'EUR', paymentId: 'card-sandbox', stripeToken: await cardToken(b.app) };
    const first = await post('cdb/payment/multicurrency/recharge', token, body, k);
    const replay = await post('cdb/payment/multicurrency/recharge', token, body, k);
    expect(replay.json()).toEqual(first.json());
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect((await wallet(token, 'EUR'))?.pBalance).toBe(10); // applied once
    const other = await post('cdb/payment/multicurrency/recharge', token, { ...body, amount: '11' }, k);
    expect(other.statusCode).toBe(422);

    // Hold the provider mid-flight: a concurrent duplicate gets 409, then the first completes.
    let release!: () => void;
    b.sandbox.gate = new Promise<void>((r) => (release = r));
    const k2 = key();
    const body2 = { amount: '5', currency: 'EUR', paymentId: 'card-sandbox', stripeToken: await cardToken(b.app) };
    const inFlight = post('cdb/payment/multicurrency/recharge', token, body2, k2);
    await new Promise((r) => setTimeout(r, 50));
    const dup = await post('cdb/payment/multicurrency/recharge', token, body2, k2);
    expect(dup.statusCode).toBe(409);
    b.sandbox.gate = null;
    release();
    expect((await inFlight).json().code).toBe(0);
    expect((await wallet(token, 'EUR'))?.pBalance).toBe(15);

    // Withdrawals too: a replayed create holds once.
    const k3 = key();
    const w = { refundType: 0, amount: '5', currency: 'EUR', amountType: 'balance', autoAudit: 1 };
    const c1 = await post('cdb/mine/tixian/create', token, w, k3);
    const c2 = await post('cdb/mine/tixian/create', token, w, k3);
    expect(c1.json().code).toBe(0);
    expect(c2.json()).toEqual(c1.json());
    expect((await wallet(token, 'EUR'))?.pBalance).toBe(10);
    await invariants();
  });
});

describe('recovery after a crash between the money move and the stored response', () => {
  it('a re-run of the same request (key taken over) credits a top-up once and creates one withdrawal', async () => {
    const token = await touristToken(b.app);
    const auth = await b.app.powerly.auth.authenticate(token);
    const funds = b.app.powerly.wallet;
    const k = key();
    const stripeToken = await cardToken(b.app);
    const first = await funds.topUp(auth, {
      amount: '25',
      currency: 'EUR',
      paymentId: 'card-sandbox',
      stripeToken,
      key: k,
    });
    // The process died before the idempotency key was completed: the retry runs the service again.
    const again = await funds.topUp(auth, {
      amount: '25',
      currency: 'EUR',
      paymentId: 'card-sandbox',
      stripeToken,
      key: k,
    });
    expect(again.outTradeNo).toBe(first.outTradeNo);
    expect((await wallet(token, 'EUR'))?.pBalance).toBe(25);
    const wk = key();
    const w1 = await funds.withdrawals.create(auth, { refundType: 0, amount: '5', currency: 'EUR', key: wk });
    const w2 = await funds.withdrawals.create(auth, { refundType: 0, amount: '5', currency: 'EUR', key: wk });
    expect(w2.tixianOrderId).toBe(w1.tixianOrderId);
    expect((await wallet(token, 'EUR'))?.pBalance).toBe(20);
    await invariants();
  });
});

describe('withdrawal', () => {
  it('apply: amount > 0 and not above the balance; refund types and payout channels per currency', async () => {
    const token = await touristToken(b.app);
    await topUp(token, '20', 'EUR');
    expect((await post('cdb/mine/tixian/apply', token, { amount: '0', currency: 'EUR' })).statusCode).toBe(400);
    expect((await post('cdb/mine/tixian/apply', token, { amount: 'x', currency: 'EUR' })).statusCode).toBe(400);
    const over = await post('cdb/mine/tixian/apply', token, { amount: '20.01', currency: 'EUR' }, undefined, 'zh-CN');
    expect(over.json()).toMatchObject({ code: 422, msg: expect.stringContaining('余额不足') }); // the client's mapping
    const ok = (await post('cdb/mine/tixian/apply', token, { amount: '20', currency: 'EUR' })).json();
    expect(ok.data.refundTypes).toEqual([0, 1]); // 0: back to the top-up card (auto-audit)
    expect(ok.data.channels[0]).toMatchObject({ channelName: 'SEPA bank transfer', paymentId: 'payout-sepa' });
    expect(
      ok.data.channels[0].payoutConfig.map(
        (f: { fieldName: string; fieldType: string }) => `${f.fieldName}:${f.fieldType}`,
      ),
    ).toEqual(['accountHolder:input', 'iban:input', 'country:picker']);
  });

  it('refund type 0 holds the amount; the payout event posts it (funds leave the wallet once)', async () => {
    const token = await touristToken(b.app);
    await topUp(token, '20', 'EUR');
    b.clock.advance(1000); // the movements list is newest first
    const r = await post(
      'cdb/mine/tixian/create',
      token,
      { refundType: 0, amount: '12', currency: 'EUR', autoAudit: 1, amountType: 'balance' },
      key(),
    );
    expect(r.json()).toMatchObject({
      code: 0,
      data: { tixianOrderId: expect.stringMatching(/^TX/), pBalance: 8, status: 'pending' },
    });
    const id = r.json().data.tixianOrderId;
    expect((await b.app.powerly.wallet.findWithdrawal(id))?.status).toBe('pending');
    await invariants();
    await b.app.powerly.jobs.runDue();
    expect((await b.app.powerly.wallet.findWithdrawal(id))?.status).toBe('paid');
    expect((await wallet(token, 'EUR'))?.pBalance).toBe(8);
    const list = (await get('cdb/user/wallet/list?currency=EUR', token)).json().data.page;
    expect(
      list.records.map((m: { type: string; amount: number; status: string }) => [m.type, m.amount, m.status]),
    ).toEqual([
      ['withdrawal', -12, 'paid'],
      ['wallet_topup', 20, 'done'],
    ]);
    await invariants();
  });

  it('payout channel: every field required and pickers take their values; a failed payout releases the hold', async () => {
    const token = await touristToken(b.app);
    await topUp(token, '50', 'USD');
    const ch = (acct: Record<string, string>) =>
      post(
        'cdb/mine/tixian/create',
        token,
        {
          refundType: 1,
          amount: '40',
          currency: 'USD',
          receiverAccount: JSON.stringify({ paymentId: 'payout-ach', accountData: acct }),
        },
        key(),
      );
    const full = {
      accountHolder: 'Ana Silva',
      routingNumber: '011000015',
      accountNumber: '1234567890',
      accountType: 'checking',
    };
    const missing = await ch({ ...full, routingNumber: ' ' });
    expect(missing.json()).toMatchObject({ code: 400, msg: 'All information is required.' });
    expect((await ch({ ...full, accountType: 'gold' })).json().code).toBe(400);
    expect(
      (
        await post(
          'cdb/mine/tixian/create',
          token,
          { refundType: 1, amount: '40', currency: 'USD', receiverAccount: '{' },
          key(),
        )
      ).json().code,
    ).toBe(400);
    // The sandbox bounces payouts to accounts ending in 0002.
    const bounced = await ch({ ...full, accountNumber: '4444440002' });
    expect(bounced.json().data.pBalance).toBe(10);
    expect((await post('cdb/mine/tixian/apply', token, { amount: '40', currency: 'USD' })).json().code).toBe(422); // held
    await b.app.powerly.jobs.runDue();
    expect((await b.app.powerly.wallet.findWithdrawal(bounced.json().data.tixianOrderId))?.status).toBe('rejected');
    expect((await wallet(token, 'USD'))?.pBalance).toBe(50); // released
    const paid = await ch(full);
    await b.app.powerly.jobs.runDue();
    expect((await b.app.powerly.wallet.findWithdrawal(paid.json().data.tixianOrderId))?.status).toBe('paid');
    expect((await wallet(token, 'USD'))?.pBalance).toBe(10);
    // Not above the balance (the hold refuses an overdraw).
    const over = await ch(full);
    expect(over.json().code).toBe(422);
    await invariants();
  });

  it('legacy remark (CNY) needs name, bank card and phone; XAF needs no remark; NGN has no withdrawal support', async () => {
    const token = await touristToken(b.app);
    await topUp(token, '100', 'CNY');
    const cny = (await post('cdb/mine/tixian/apply', token, { amount: '10', currency: 'CNY' })).json().data;
    expect(cny).toMatchObject({ checkNeedRemark: true, channels: [] });
    expect(cny.refundTypes).toContain(2);
    const remark = (r: object | string) =>
      post(
        'cdb/mine/tixian/create',
        token,
        {
          refundType: 2,
          amount: '10',
          currency: 'CNY',
          checkNeedRemark: 'true',
          remark: typeof r === 'string' ? r : JSON.stringify(r),
        },
        key(),
      );
    expect((await remark({ name: 'Li Lei', bankCard: '', phone: '13800138000' })).json().code).toBe(400);
    expect((await remark('')).json().code).toBe(400);
    expect((await remark({ name: 'Li Lei', bankCard: '12ab', phone: '13800138000' })).json().code).toBe(400);
    expect((await remark({ name: 'Li Lei', bankCard: '6222 0212 3456 7890', phone: 'call me' })).json().code).toBe(400);
    expect((await remark({ name: 'Li Lei', bankCard: '6222 0212 3456 7890', phone: '13800138000' })).json().code).toBe(
      0,
    );

    await topUp(token, '5000', 'XAF');
    const xaf = (await post('cdb/mine/tixian/apply', token, { amount: '1000', currency: 'XAF' })).json().data;
    expect(xaf).toMatchObject({ checkNeedRemark: false, channels: [] });
    expect(
      (await post('cdb/mine/tixian/create', token, { refundType: 2, amount: '1000', currency: 'XAF' }, key())).json()
        .code,
    ).toBe(0);

    await topUp(token, '100', 'NGN');
    const ngn = (await post('cdb/mine/tixian/apply', token, { amount: '10', currency: 'NGN' })).json().data;
    expect(ngn.refundTypes).toEqual([]);
    expect(
      (await post('cdb/mine/tixian/create', token, { refundType: 1, amount: '10', currency: 'NGN' }, key())).json(),
    ).toMatchObject({ code: 422, msg: expect.stringContaining('contact us') });
    await b.app.powerly.jobs.runDue();
    await invariants();
  });
});

describe('provider webhook', () => {
  it('verifies the signature and applies each event id once', async () => {
    const token = await touristToken(b.app);
    await topUp(token, '10', 'EUR');
    const r = await post('cdb/mine/tixian/create', token, { refundType: 0, amount: '10', currency: 'EUR' }, key());
    const wd = (await b.app.powerly.wallet.findWithdrawal(r.json().data.tixianOrderId))!;
    const raw = JSON.stringify({ id: `evt_test_${wd.id}`, type: 'payout.paid', data: { ref: wd.provider_ref } });
    const hook = (sig: string) =>
      b.app.inject({
        method: 'POST',
        url: '/webhooks/payments/sandbox',
        headers: { 'content-type': 'application/json', 'sandbox-signature': sig },
        payload: raw,
      });
    expect((await hook('t=1,v1=' + '0'.repeat(64))).statusCode).toBe(400);
    const tampered = b.sandbox.sign(raw.replace('payout.paid', 'payout.failed'));
    expect((await hook(tampered)).statusCode).toBe(400);
    expect((await hook(b.sandbox.sign(raw))).json()).toEqual({ received: true, result: 'applied' });
    expect((await hook(b.sandbox.sign(raw))).json()).toEqual({ received: true, result: 'duplicate' });
    // The sandbox's own (later) delivery for the same payout finds it settled and changes nothing.
    await b.app.powerly.jobs.runDue();
    expect((await b.app.powerly.wallet.findWithdrawal(wd.id))?.status).toBe('paid');
    expect((await wallet(token, 'EUR'))?.pBalance).toBe(0);
    await invariants();
  });
});

describe('reconciliation', () => {
  it('checkLedger reports a tampered balance and an unbalanced currency', async () => {
    await invariants();
    await b.db.query(
      `update ledger_accounts set credits_posted = credits_posted + 1 where id = (select min(id) from ledger_accounts where owner_type = 'user' and kind = 'wallet')`,
    );
    const v = await checkLedger(b.db);
    expect(v.map((x) => x.invariant)).toEqual(
      expect.arrayContaining(['currency sums to zero', 'account balances match transfers']),
    );
    await b.db.query(
      `update ledger_accounts set credits_posted = credits_posted - 1 where id = (select min(id) from ledger_accounts where owner_type = 'user' and kind = 'wallet')`,
    );
    await invariants();
  });
});
