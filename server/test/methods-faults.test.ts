// The methods beyond the card under faults: the customer who pays at the provider and never comes back to the
// app, the process that dies between the provider's "paid" and the wallet credit (a second process over the same
// database takes over), the payment never finished (released at its deadline), and a customer who pays after
// that release (a real adapter, M-Pesa against the Daraja test server: the late payment is reversed).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { build, touristToken, type Built, formBody } from './helper.ts';
import { checkLedger } from '../src/modules/wallet/reconcile.ts';
import { GUARD_MS } from '../src/modules/payments/guards.ts';
import { ACTION_CHECK_MS, ACTION_TIMEOUT_MS } from '../src/modules/payments/provider.ts';
import { FakeDaraja } from './providers/mpesa.ts';

const API = '/cdb-app-api/v1/app';
let a: Built;
beforeAll(async () => {
  a = await build({ simulator: false });
});
afterAll(async () => a?.close());

let n = 0;
const post = (b: Built, url: string, token: string, body: Record<string, string | undefined>) =>
  b.app.inject({
    method: 'POST',
    url: `${API}/${url}`,
    headers: {
      token,
      'content-type': 'application/x-www-form-urlencoded',
      'idempotency-key': `f-${Date.now()}-${n++}`,
    },
    payload: formBody(body),
  });

async function startTopUp(b: Built, token: string, amount: string) {
  const t = (await post(b, 'cdb/payment/method/payer', token, { paymentId: 'alipay:ALIPAY' })).json().data
    .token as string;
  const started = await post(b, 'cdb/payment/multicurrency/recharge', token, {
    amount,
    currency: 'CNY',
    paymentId: 'alipay:ALIPAY',
    stripeToken: t,
    returnUrl: 'http://localhost/#/wallet',
  });
  expect(started.json(), started.body).toMatchObject({ code: 0, data: { outTradeNo: '' } });
  return started.json().data.action as { clientSecret: string; paymentIntent: string };
}

/** The customer approves on the sandbox's checkout page and is sent back (the app's return is not followed). */
async function approve(b: Built, clientSecret: string) {
  const action = JSON.parse(clientSecret.slice(4)) as { params?: Record<string, string>; url?: string };
  const page = action.params?.sandboxCheckout ?? action.url!;
  const r = await b.app.inject({
    method: 'POST',
    url: page,
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: 'decision=approve',
  });
  expect(r.statusCode).toBe(303);
}

const balance = async (b: Built, token: string) => {
  const wallets = (await b.app.inject({ method: 'GET', url: `${API}/cdb/user/wallet/new`, headers: { token } })).json()
    .data as { pCurrencyType: string; pBalance: number }[];
  return wallets.find((w) => w.pCurrencyType === 'CNY')?.pBalance ?? 0;
};
const guards = async (b: Built) =>
  (
    await b.db.query<{ n: string }>(
      `select count(*)::text as n from jobs where kind = 'payment.charge-guard' and payload->>'flow' = 'wallet_topup' and done_at is null`,
    )
  ).rows[0]!.n;

describe('a top-up the customer paid at the provider', () => {
  it('is credited by its guard when the customer never comes back, once (a late resume gets the same top-up)', async () => {
    const token = await touristToken(a.app);
    const action = await startTopUp(a, token, '7');
    // Polling while the customer is on the provider's page leaves no further guards.
    const before = await guards(a);
    for (let i = 0; i < 3; i++)
      await post(a, 'cdb/payment/multicurrency/recharge', token, {
        amount: '7',
        currency: 'CNY',
        paymentId: 'alipay:ALIPAY',
        paymentIntent: action.paymentIntent,
      });
    expect(await guards(a)).toBe(before);
    await approve(a, action.clientSecret);
    // The first guard (the paying call's) is gone: it would have refunded a payment the customer made on purpose.
    a.clock.advance(GUARD_MS + ACTION_CHECK_MS);
    await a.app.powerly.jobs.runDue();
    expect(await balance(a, token)).toBe(7);
    const late = await post(a, 'cdb/payment/multicurrency/recharge', token, {
      amount: '7',
      currency: 'CNY',
      paymentId: 'alipay:ALIPAY',
      paymentIntent: action.paymentIntent,
    });
    expect(late.json()).toMatchObject({ code: 0, data: { pBalance: 7 } });
    const { rows } = await a.db.query<{ status: string }>(
      `select status from payments where provider = 'alipay' and user_id = (select id from users where id = $1)`,
      [(await a.app.powerly.auth.authenticate(token)).id],
    );
    expect(rows).toEqual([{ status: 'captured' }]);
    expect(await checkLedger(a.db)).toEqual([]);
  });

  it('survives the process dying between the provider\'s "paid" and the credit: another process credits it once', async () => {
    // The first API process, over the same database; it dies mid-request (nothing after the provider's answer runs).
    const p1 = await build({ shareDb: a, simulator: false });
    const token = await touristToken(p1.app);
    const action = await startTopUp(p1, token, '9');
    await approve(p1, action.clientSecret);
    const payments = p1.app.powerly.payments;
    payments.lockCharge = () => Promise.reject(new Error('process killed'));
    const died = await post(p1, 'cdb/payment/multicurrency/recharge', token, {
      amount: '9',
      currency: 'CNY',
      paymentId: 'alipay:ALIPAY',
      paymentIntent: action.paymentIntent,
    });
    expect(died.statusCode).toBe(500);
    await p1.close();
    expect(await balance(a, token)).toBe(0);
    // The surviving process: the guard finds the payment paid and credits it.
    a.clock.advance(ACTION_CHECK_MS + 1000);
    await a.app.powerly.jobs.runDue();
    expect(await balance(a, token)).toBe(9);
    // The app's retry (the customer's resume on the new process) gets that top-up, not a second credit.
    const retry = await post(a, 'cdb/payment/multicurrency/recharge', token, {
      amount: '9',
      currency: 'CNY',
      paymentId: 'alipay:ALIPAY',
      paymentIntent: action.paymentIntent,
    });
    expect(retry.json()).toMatchObject({ code: 0, data: { pBalance: 9 } });
    expect(await checkLedger(a.db)).toEqual([]);
  });

  it('never finished: looked at until its deadline, then released; the customer cannot pay it afterwards', async () => {
    const token = await touristToken(a.app);
    const action = await startTopUp(a, token, '4');
    for (let t = 0; t <= ACTION_TIMEOUT_MS; t += ACTION_CHECK_MS * 5) {
      a.clock.advance(ACTION_CHECK_MS * 5);
      await a.app.powerly.jobs.runDue();
    }
    const {
      rows: [row],
    } = await a.db.query<{ state: string; failure_code: string }>(
      'select state, failure_code from external_payments where out_trade_no = $1',
      [action.paymentIntent],
    );
    expect(row).toEqual({ state: 'cancelled', failure_code: 'released' });
    const {
      rows: [sbx],
    } = await a.db.query<{ state: string }>('select state from sandbox_method_payments where out_trade_no = $1', [
      action.paymentIntent,
    ]);
    expect(sbx!.state).toBe('pending'); // the provider's order itself only lapses on its side
    const r = await post(a, 'cdb/payment/multicurrency/recharge', token, {
      amount: '4',
      currency: 'CNY',
      paymentId: 'alipay:ALIPAY',
      paymentIntent: action.paymentIntent,
    });
    expect(r.statusCode).toBe(422);
    expect(await balance(a, token)).toBe(0);
    expect(await guards(a)).toBe('0');
  });
});

describe('a debt (payType FK) the customer paid at the provider', () => {
  it("is settled by its guard when they never come back, once; the app's late resume gets the same answer", async () => {
    const token = await touristToken(a.app);
    const user = await a.app.powerly.auth.authenticate(token);
    const orderId = `PO${Date.now()}`;
    // A returned rental whose deduction failed: 6.00 CNY left to pay.
    await a.db.query(
      `insert into orders (id, user_id, cabinet_id, venue_id, zujie, settled, deposit_type, currency, plan, wire_strategy, deposit, created_at, debt)
       select $1, $2, c.id, c.venue_id, 2, true, 1, 'CNY', '{}', '{}', 0, now(), 600 from cabinets c where c.id = 'PWL-SH-001'`,
      [orderId, user.id],
    );
    const t = (await post(a, 'cdb/payment/method/payer', token, { paymentId: 'alipay:ALIPAY' })).json().data
      .token as string;
    const pay = (body: Record<string, string>) =>
      a.app.inject({
        method: 'POST',
        url: `${API}/cdb/payment/stripe/multicurrency/payOrder`,
        headers: { token, 'idempotency-key': `fk-${n++}` },
        payload: { outTradeNo: orderId, paymentId: 'alipay:ALIPAY', ...body },
      });
    const started = await pay({ stripeToken: t, returnUrl: 'http://localhost/#/orderDetail' });
    const action = started.json().data.action as { clientSecret: string; paymentIntent: string };
    expect(action.paymentIntent).toBeTruthy();
    await approve(a, action.clientSecret);
    // Back from the provider's page to the screen the customer left.
    const back = await a.app.inject({ method: 'GET', url: `/payments/return/${action.paymentIntent}` });
    expect(back.headers.location).toBe(`/#/orderDetail?payment_intent=${action.paymentIntent}`);
    a.clock.advance(ACTION_CHECK_MS + 1000);
    await a.app.powerly.jobs.runDue();
    const {
      rows: [o],
    } = await a.db.query<{ debt_paid_at: Date | null }>('select debt_paid_at from orders where id = $1', [orderId]);
    expect(o!.debt_paid_at).not.toBeNull();
    const late = await pay({ paymentIntent: action.paymentIntent });
    expect(late.json()).toMatchObject({ code: 0, data: { outTradeNo: orderId } });
    const { rows } = await a.db.query<{ purpose: string; status: string }>(
      'select purpose, status from payments where order_id = $1',
      [orderId],
    );
    expect(rows).toEqual([{ purpose: 'debt', status: 'captured' }]);
    expect(await checkLedger(a.db)).toEqual([]);
  });
});

describe('a payment made after it was released (M-Pesa against the Daraja test server)', () => {
  const SHORT = '174379';
  const PASSKEY = 'bfb279f9aa9bdbcf158e97dd71a467cd2e0c893059b10f78e6b72ada1ed2c919';
  let fake: FakeDaraja;
  let real: Built;
  beforeAll(async () => {
    fake = await new FakeDaraja({
      consumerKey: 'ck',
      consumerSecret: 'cs',
      shortCode: SHORT,
      passkey: PASSKEY,
      initiatorName: 'ops',
      initiatorPassword: 'Init!pw',
    }).start();
    real = await build({
      simulator: false,
      publicUrl: 'https://powerly.example',
      paymentMethods: {
        powerly: {
          mpesa: {
            consumerKey: 'ck',
            consumerSecret: 'cs',
            shortCode: SHORT,
            passkey: PASSKEY,
            callbackToken: 'cb-token',
            apiBase: fake.url,
            initiatorName: 'ops',
            initiatorPassword: 'Init!pw',
            certificate: fake.certificate,
            resultUrl: 'https://powerly.example/webhooks/methods/mpesa',
          },
        },
      },
    });
    fake.now = () => real.clock.now();
    fake.promptMs = 2 * ACTION_TIMEOUT_MS; // a provider whose order stays payable past our deadline
  });
  afterAll(async () => {
    await real?.close();
    await fake?.stop();
  });

  it('is reversed once when its callback arrives, and never credited', async () => {
    const token = await touristToken(real.app);
    const t = (
      await post(real, 'cdb/payment/method/payer', token, { paymentId: 'mpesa:M-PESA', phoneNumber: '254708374149' })
    ).json().data.token as string;
    const started = await post(real, 'cdb/payment/multicurrency/recharge', token, {
      amount: '30',
      currency: 'KES',
      paymentId: 'mpesa:M-PESA',
      stripeToken: t,
    });
    const action = started.json().data.action as { paymentIntent: string };
    for (let i = 0; i <= ACTION_TIMEOUT_MS / ACTION_CHECK_MS; i++) {
      real.clock.advance(ACTION_CHECK_MS);
      await real.app.powerly.jobs.runDue();
    }
    const state = async () =>
      (
        await real.db.query<{ state: string; failure_code: string; provider_ref: string }>(
          'select state, failure_code, provider_ref from external_payments where out_trade_no = $1',
          [action.paymentIntent],
        )
      ).rows[0]!;
    expect(await state()).toMatchObject({ state: 'cancelled', failure_code: 'released' });
    // The customer enters their PIN after all; Daraja's callback reaches us (twice: a redelivery).
    const checkout = (await state()).provider_ref;
    fake.approve(checkout);
    const cb = fake.callback(checkout);
    const path = `/webhooks/methods/mpesa?${new URLSearchParams(cb.query).toString()}`;
    for (let i = 0; i < 2; i++)
      expect(
        (await real.app.inject({ method: 'POST', url: path, headers: cb.headers, payload: cb.rawBody })).statusCode,
      ).toBe(200);
    expect(await state()).toMatchObject({ state: 'cancelled', failure_code: 'released_refunded' });
    expect([...fake.stk.values()].find((s) => s.checkoutId === checkout)?.reversed).toBe(true);
    expect(fake.requests.filter((r) => r.path === '/mpesa/reversal/v1/request')).toHaveLength(1);
    const wallets = (
      await real.app.inject({ method: 'GET', url: `${API}/cdb/user/wallet/new`, headers: { token } })
    ).json().data as { pCurrencyType: string; pBalance: number }[];
    expect(wallets.find((w) => w.pCurrencyType === 'KES')?.pBalance ?? 0).toBe(0);
    expect(await checkLedger(real.db)).toEqual([]);
  });
});
