// PayPal's daily reconciliation through the product, against the PayPal test server: the real adapter reads the
// day's transactions from Transaction Search (T0006 payments, T1107 refunds, matched by invoice_id). A top-up paid
// with PayPal Checkout and partly refunded matches the ledger; a payment the ledger never saw and one PayPal does
// not list are each listed. PayPal lists a transaction up to three hours late: while its last refresh is before
// the day's end the ops API answers 503 ("not complete yet"), stores nothing, and the day is tried again later.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ReconciliationShape } from '#contract/ops/money.ts';
import { build, formBody, touristToken, type Built } from './helper.ts';
import { callerConsoles } from './ops/callers.ts';
import type { OpsConsole } from './ops/console.ts';
import { keepSignedIn } from './ops/orders.ts';
import { refundTopUp } from './ops/refund-top-up.ts';
import { FakePaypal } from './providers/paypal.ts';

const API = '/cdb-app-api/v1/app';
const PID = 'paypal:paypal';
const APP = { clientId: 'AcRecClient', secret: 'EcRecSecret', webhookIds: ['WH-REC'] };
const HOUR = 3_600_000;
let pp: FakePaypal;
let b: Built;
let owner: OpsConsole;
let n = 0;

beforeAll(async () => {
  pp = await new FakePaypal([APP]).start();
  b = await build({
    simulator: false,
    publicUrl: 'https://powerly.example',
    paymentMethods: {
      powerly: { paypal: { clientId: APP.clientId, clientSecret: APP.secret, webhookId: 'WH-REC', apiBase: pp.url } },
    },
  });
  pp.now = () => b.clock.now().getTime();
  owner = (await callerConsoles(b)).get('platformOwner')!;
}, 60_000);
afterAll(async () => {
  await b?.close();
  await pp?.stop();
});

const call = (url: string, token: string, body: Record<string, string | undefined>) =>
  b.app.inject({
    method: 'POST',
    url: `${API}/${url}`,
    headers: { token, 'content-type': 'application/x-www-form-urlencoded', 'idempotency-key': `pprec-${n++}` },
    payload: formBody(body),
  });

/** A wallet top-up paid with PayPal Checkout (the buyer approves, comes back, the resume captures): our outTradeNo. */
async function topUp(token: string, amount: string) {
  const payer = await call('cdb/payment/method/payer', token, { paymentId: PID });
  expect(payer.json(), payer.body).toMatchObject({ code: 0 });
  const r = await call('cdb/payment/multicurrency/recharge', token, {
    amount,
    currency: 'EUR',
    paymentId: PID,
    stripeToken: payer.json().data.token as string,
    returnUrl: 'http://localhost/#/confirm',
  });
  expect(r.json(), r.body).toMatchObject({ code: 0 });
  const outTradeNo = (r.json().data.action as { paymentIntent: string }).paymentIntent;
  const {
    rows: [row],
  } = await b.db.query<{ provider_ref: string }>('select provider_ref from external_payments where out_trade_no = $1', [
    outTradeNo,
  ]);
  const back = new URL(pp.approve(row!.provider_ref.replace(/^order:/, '')));
  expect((await b.app.inject({ method: 'GET', url: `${back.pathname}${back.search}` })).statusCode).toBe(303);
  const done = await call('cdb/payment/multicurrency/recharge', token, {
    amount,
    currency: 'EUR',
    paymentId: PID,
    paymentIntent: outTradeNo,
  });
  expect(done.json(), done.body).toMatchObject({ code: 0, data: { pCurrencyType: 'EUR' } });
  return outTradeNo;
}

const today = () => b.clock.now().toISOString().slice(0, 10);
async function reconcile(day: string) {
  await keepSignedIn(b);
  const res = await owner.call('POST', '/money/reconciliations', { day, reason: 'PayPal check' });
  return {
    res,
    pp:
      res.statusCode === 200
        ? res.json<{ items: ReconciliationShape[] }>().items.find((i) => i.provider === 'paypal')
        : undefined,
  };
}

describe("PayPal's reconciliation", () => {
  let second: string;

  it('matches a day with a payment and its refund, once PayPal has listed the whole day', async () => {
    const day = today();
    const paid = await topUp(await touristToken(b.app), '20');
    await refundTopUp(b, paid, 500, 'pprec-refund-1');
    b.clock.advance(24 * HOUR);
    const { pp: r, res } = await reconcile(day);
    expect(res.statusCode, res.body).toBe(200);
    expect(r?.mismatches).toEqual([]);
    expect(r).toMatchObject({ status: 'matched', lines: 2 });
    expect(pp.requests.filter((x) => x.method === 'GET' && x.path === '/v1/reporting/transactions')).toHaveLength(1);
  });

  it('lists a payment the ledger never saw and one PayPal does not list', async () => {
    second = today();
    const lost = await topUp(await touristToken(b.app), '7');
    pp.reporting.entries.splice(
      pp.reporting.entries.findIndex((e) => e.invoice_id === lost),
      1,
    );
    // A payment to the account outside Powerly (say, an invoice paid on PayPal's site).
    pp.reporting.entries.push({
      app: APP.clientId,
      id: '7TX00000000000001',
      code: 'T0006',
      time: b.clock.now().toISOString(),
      amountCents: 300,
      feeCents: -59,
      currency: 'EUR',
      invoice_id: 'INV-OUTSIDE',
    });
    b.clock.advance(24 * HOUR);
    const { pp: r } = await reconcile(second);
    expect(r?.status).toBe('mismatched');
    const byKind = Object.fromEntries(r!.mismatches.map((m) => [m.kind, m]));
    expect(Object.keys(byKind).sort()).toEqual(['missing_at_provider', 'missing_in_ledger']);
    expect(byKind.missing_in_ledger).toMatchObject({
      refs: ['INV-OUTSIDE'],
      currency: 'EUR',
      provider: { charged: 300, refunded: 0, fee: 59 },
      ledger: { charged: 0 },
    });
    expect(byKind.missing_at_provider).toMatchObject({
      refs: [lost],
      currency: 'EUR',
      provider: { charged: 0 },
      ledger: { charged: 700, refunded: 0 },
    });
  });

  it('a day PayPal has not listed to its end yet is a 503: nothing stored, tried again later', async () => {
    // Listed only up to 12 hours ago: a little before the day's end.
    pp.reporting.lagMs = b.clock.now().getTime() - Date.parse(`${second}T00:00:00Z`) - 24 * HOUR + HOUR;
    const { res } = await reconcile(second);
    expect(res.statusCode, res.body).toBe(503);
    expect(res.json<{ message: string }>().message).toMatch(/paypal.*not complete yet/i);
    const { rows } = await b.db.query<{ status: string }>(
      `select status from provider_reconciliations where provider = 'paypal' and day = $1`,
      [second],
    );
    expect(rows).toEqual([{ status: 'mismatched' }]);
    // Spanish too (every locale has it).
    await keepSignedIn(b);
    const es = await owner.call(
      'POST',
      '/money/reconciliations',
      { day: second, reason: 'PayPal check' },
      { 'accept-language': 'es-ES' },
    );
    expect(es.json<{ message: string }>().message).toMatch(/paypal.*aún no está completo/i);
  });
});
