// Mercado Pago's daily reconciliation through the product, against the Mercado Pago test server: the real adapter
// reads the day's payments from the Payment Search API (range date_last_updated, paged by offset/limit) with their
// refunds and fees. A top-up paid with MercadoPago.js's card token and partly refunded to the card
// matches the ledger; a payment the ledger never saw and one Mercado Pago no longer has are listed; a report that
// cannot be read (refused credentials) answers 503 and stores nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ReconciliationShape } from '#contract/ops/money.ts';
import { build, formBody, touristToken, type Built } from './helper.ts';
import { callerConsoles } from './ops/callers.ts';
import type { OpsConsole } from './ops/console.ts';
import { refundTopUp } from './ops/refund-top-up.ts';
import { FakeMercadoPago } from './providers/mercadopago.ts';

const API = '/cdb-app-api/v1/app';
const PID = 'mercadopago:MercadoPago';
let mp: FakeMercadoPago;
let b: Built;
let owner: OpsConsole;
let n = 0;

beforeAll(async () => {
  mp = await new FakeMercadoPago('TEST-access-1', 'TEST-pk-1', 'whsec-1').start();
  b = await build({
    simulator: false,
    paymentMethods: {
      powerly: {
        mercadopago: {
          accessToken: 'TEST-access-1',
          publicKey: 'TEST-pk-1',
          webhookSecret: 'whsec-1',
          apiBase: mp.url,
          sdkUrl: `${mp.url}/js/v2`,
        },
      },
    },
  });
  mp.now = () => b.clock.now();
  owner = (await callerConsoles(b)).get('platformOwner')!;
}, 60_000);
afterAll(async () => {
  await b?.close();
  await mp?.stop();
});

const call = (url: string, token: string, body: Record<string, string | undefined>) =>
  b.app.inject({
    method: 'POST',
    url: `${API}/${url}`,
    headers: { token, 'content-type': 'application/x-www-form-urlencoded', 'idempotency-key': `mprec-${n++}` },
    payload: formBody(body),
  });

/** A wallet top-up paid on the MercadoPago.js screen: our outTradeNo (Mercado Pago's external_reference). */
async function topUp(token: string, amount: string) {
  const payer = (await call('cdb/payment/method/payer', token, { paymentId: PID })).json().data.token as string;
  const r = await call('cdb/payment/multicurrency/recharge', token, {
    amount,
    currency: 'BRL',
    paymentId: PID,
    stripeToken: payer,
    returnUrl: 'http://localhost/#/confirm',
  });
  const outTradeNo = (r.json().data.action as { paymentIntent: string }).paymentIntent;
  const card = await mp.cardToken({ number: '5031 4332 1540 6351', holder: 'APRO' });
  const back = await b.app.inject({
    method: 'POST',
    url: `/payments/return/${outTradeNo}`,
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: formBody({
      token: card,
      paymentMethodId: 'master',
      issuerId: '24',
      installments: '1',
      email: 'ana@example.com.br',
      identificationType: 'CPF',
      identificationNumber: '12345678909',
    }),
  });
  expect(back.statusCode).toBe(303);
  const done = await call('cdb/payment/multicurrency/recharge', token, {
    amount,
    currency: 'BRL',
    paymentId: PID,
    paymentIntent: outTradeNo,
  });
  expect(done.json(), done.body).toMatchObject({ code: 0 });
  return outTradeNo;
}

const day = () => b.clock.now().toISOString().slice(0, 10);
async function reconcile() {
  const res = await owner.call('POST', '/money/reconciliations', { day: day(), reason: 'Mercado Pago check' });
  return {
    res,
    mp:
      res.statusCode === 200
        ? res.json<{ items: ReconciliationShape[] }>().items.find((i) => i.provider === 'mercadopago')
        : undefined,
  };
}

describe("Mercado Pago's reconciliation", () => {
  let paid: string;

  it('matches a day with a payment and its refund', async () => {
    const token = await touristToken(b.app);
    paid = await topUp(token, '20');
    // Given back to the card in part: Mercado Pago refunds it, the ledger moves it back out through its clearing.
    await refundTopUp(b, paid, 500, 'mprec-refund-1');
    expect([...mp.payments.values()].find((p) => p.external_reference === paid)!.transaction_amount_refunded).toBe(5);
    const { mp: r } = await reconcile();
    expect(r?.mismatches).toEqual([]);
    expect(r).toMatchObject({ status: 'matched', lines: 2 });
    const searches = mp.requests.filter((x) => x.path === '/v1/payments/search');
    expect(searches.length).toBeGreaterThan(0);
  });

  it('lists a payment the ledger never saw and one Mercado Pago no longer has', async () => {
    const token = await touristToken(b.app);
    const lost = await topUp(token, '7');
    const lostId = [...mp.payments.values()].find((p) => p.external_reference === lost)!.id;
    mp.payments.delete(lostId);
    // A payment made on the account outside Powerly (say, a payment link).
    const stray = {
      ...[...mp.payments.values()].find((p) => p.external_reference === paid)!,
      id: 42,
      external_reference: 'LINK-42',
      transaction_amount: 3,
      transaction_amount_refunded: 0,
      refunds: [],
      status: 'approved',
    };
    mp.payments.set(42, stray);
    const { mp: r } = await reconcile();
    expect(r?.status).toBe('mismatched');
    const byKind = Object.fromEntries(r!.mismatches.map((m) => [m.kind, m]));
    expect(Object.keys(byKind).sort()).toEqual(['missing_at_provider', 'missing_in_ledger']);
    expect(byKind.missing_in_ledger).toMatchObject({
      refs: ['LINK-42'],
      currency: 'BRL',
      provider: { charged: 300, refunded: 0, fee: 15 },
      ledger: { charged: 0 },
    });
    expect(byKind.missing_in_ledger!.orderId).toBeUndefined();
    expect(byKind.missing_at_provider).toMatchObject({
      refs: [lost],
      currency: 'BRL',
      provider: { charged: 0 },
      ledger: { charged: 700, refunded: 0 },
    });
  });

  it("a report that cannot be read is a 503 and keeps the day's earlier result", async () => {
    (mp as { accessToken: string }).accessToken = 'revoked';
    const { res } = await reconcile();
    expect(res.statusCode, res.body).toBe(503);
    expect(res.json<{ message: string }>().message).toMatch(
      /mercadopago.*unauthorized|unauthorized.*mercadopago|2002/i,
    );
    const { rows } = await b.db.query<{ status: string }>(
      `select status from provider_reconciliations where provider = 'mercadopago' and day = $1`,
      [day()],
    );
    expect(rows).toEqual([{ status: 'mismatched' }]);
  });
});
