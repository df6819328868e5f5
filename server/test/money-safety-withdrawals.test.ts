// Money, the withdrawals: each leak observed on the old code has a case here that failed there.
//  - concurrent refund-to-card withdrawals are checked under the lock of the card payment they count;
//  - a forged payout webhook signed with the old public sandbox secret is refused;
//  - a payout whose process died inside the sandbox provider still gets its outcome.
// The other cases are in money-safety.test.ts.
import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { build, cardToken, touristToken, type Built } from './helper.ts';
import { providerOwner, userOwner } from '../src/modules/ledger/service.ts';
import { checkLedger } from '../src/modules/wallet/reconcile.ts';
import { JOB_SANDBOX_PAYOUT_ARRIVAL } from '../src/modules/payments/sandbox.ts';
import { moneyCalls } from './money-safety-helpers.ts';

let b: Built;
beforeAll(async () => {
  b = await build({ simulator: false });
});
afterAll(async () => b?.close());

const { key, post } = moneyCalls(() => b);

describe('refund-to-card withdrawals', () => {
  it('three at once against one 10-unit card payment: one accepted', async () => {
    const token = await touristToken(b.app);
    const user = await b.app.powerly.auth.authenticate(token);
    expect(
      (
        await post(
          'cdb/payment/multicurrency/recharge',
          token,
          { amount: '10', currency: 'EUR', paymentId: 'card-sandbox', stripeToken: await cardToken(b.app) },
          key(),
        )
      ).json().code,
    ).toBe(0);
    // More balance from elsewhere (not a card payment), so that only the card payment's refundable amount limits.
    const l = b.app.powerly.ledger;
    await l.transfer({
      debit: await l.account(providerOwner('manual-test'), 'clearing', 'EUR'),
      credit: await l.account(userOwner(user.id), 'wallet', 'EUR'),
      amount: 2000,
      code: 'adjustment',
      orderId: null,
      at: b.clock.now(),
    });
    const res = await Promise.all(
      [1, 2, 3].map(() =>
        post(
          'cdb/mine/tixian/create',
          token,
          { refundType: 0, amount: '10', currency: 'EUR', autoAudit: 1, amountType: 'balance' },
          key(),
        ),
      ),
    );
    expect(res.map((r) => r.json().code).filter((c) => c === 0)).toHaveLength(1);
    const { rows } = await b.db.query<{ s: string }>(
      `select coalesce(sum(amount), 0)::text as s from withdrawals where user_id = $1 and refund_type = 0`,
      [user.id],
    );
    expect(Number(rows[0]!.s)).toBe(1000);
  });
});
describe('withdrawal payouts: a forged webhook', () => {
  it('signed with the sandbox secret that used to be a constant in the public source, is refused', async () => {
    const token = await touristToken(b.app);
    expect(
      (
        await post(
          'cdb/payment/multicurrency/recharge',
          token,
          { amount: '10', currency: 'EUR', paymentId: 'card-sandbox', stripeToken: await cardToken(b.app) },
          key(),
        )
      ).json().code,
    ).toBe(0);
    const r = await post('cdb/mine/tixian/create', token, { refundType: 0, amount: '10', currency: 'EUR' }, key());
    const wd = (await b.app.powerly.wallet.findWithdrawal(r.json().data.tixianOrderId))!;
    expect(wd.provider_ref).toBeTruthy();
    // The attacker: a payout.failed for this payout, signed the way the sandbox signs, with the old public secret.
    const raw = JSON.stringify({ id: `evt_forged_${wd.id}`, type: 'payout.failed', data: { ref: wd.provider_ref } });
    const t = Math.floor(b.clock.now().getTime() / 1000);
    const sig = `t=${t},v1=${createHmac('sha256', 'whsec_sandbox_powerly').update(`${t}.${raw}`).digest('hex')}`;
    const res = await b.app.inject({
      method: 'POST',
      url: '/webhooks/payments/sandbox',
      headers: { 'content-type': 'application/json', 'sandbox-signature': sig },
      payload: raw,
    });
    expect(res.statusCode).toBe(400);
    expect((await b.app.powerly.wallet.findWithdrawal(wd.id))?.status).toBe('pending');
    const user = await b.app.powerly.auth.authenticate(token);
    expect((await b.app.powerly.wallet.walletOf(user.id, 'EUR')).balance).toBe(0); // not put back
    // This installation's own secret is random, and the same for every process on the database.
    const { rows } = await b.db.query<{ value: string }>(
      `select value from installation_secrets where name = 'sandbox.webhook-secret'`,
    );
    expect(rows[0]!.value).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });
});

describe('withdrawal payouts: the process dies inside the sandbox provider', () => {
  it('between the payout and its arrival: the retried submit still brings the outcome (the hold never stays pending)', async () => {
    const token = await touristToken(b.app);
    expect(
      (
        await post(
          'cdb/payment/multicurrency/recharge',
          token,
          { amount: '10', currency: 'EUR', paymentId: 'card-sandbox', stripeToken: await cardToken(b.app) },
          key(),
        )
      ).json().code,
    ).toBe(0);
    // The sandbox provider accepts the payout and schedules its arrival (a job); the process stops in between, as
    // the wallet model test's killed server once did (the payout stayed in transit with no arrival, for ever).
    const jobs = b.app.powerly.jobs;
    const enqueue = jobs.enqueue.bind(jobs);
    jobs.enqueue = (kind, payload, runAt) => {
      if (kind !== JOB_SANDBOX_PAYOUT_ARRIVAL) return enqueue(kind, payload, runAt);
      jobs.enqueue = enqueue;
      return Promise.reject(new Error('process stopped'));
    };
    const r = await post(
      'cdb/mine/tixian/create',
      token,
      { refundType: 0, amount: '10', currency: 'EUR', autoAudit: 1 },
      key(),
    );
    expect(r.json()).toMatchObject({ code: 0, data: { status: 'pending' } });
    const id = r.json().data.tixianOrderId;
    expect((await b.app.powerly.wallet.findWithdrawal(id))?.provider_ref).toBeNull(); // the submit failed: its job retries it
    await jobs.runDue(); // the submit job (a new process)
    await jobs.runDue(); // the payout's arrival
    expect((await b.app.powerly.wallet.findWithdrawal(id))?.status).toBe('paid');
    const user = await b.app.powerly.auth.authenticate(token);
    expect(await b.app.powerly.wallet.walletOf(user.id, 'EUR')).toMatchObject({ balance: 0 });
    expect(await checkLedger(b.db)).toEqual([]);
  });
});
