// Flutterwave's daily reconciliation through the product, against the Flutterwave test server: the real adapter
// reads the day's charges (GET /v3/transactions, every page of meta.page_info) and refunds (GET /v3/refunds, each
// refund's charge verified for its tx_ref). A mobile-money top-up confirmed on the phone and partly refunded
// matches the ledger; a charge the ledger never saw and one Flutterwave does not list are each listed; a report
// that cannot be read (a key Flutterwave refuses) answers 503 and stores nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ReconciliationShape } from '#contract/ops/money.ts';
import { build, formBody, touristToken, type Built } from './helper.ts';
import { callerConsoles } from './ops/callers.ts';
import type { OpsConsole } from './ops/console.ts';
import { refundTopUp } from './ops/refund-top-up.ts';
import { FakeFlutterwave } from './providers/flutterwave.ts';

const API = '/cdb-app-api/v1/app';
const PID = 'flutterwave:Flutterwave_Mobile';
const KEYS = { secretKey: 'FLWSECK_TEST-rec', encryptionKey: 'FLWSECK_TEST0123456789ab', secretHash: 'rec-hash' };
let flw: FakeFlutterwave;
let b: Built;
let owner: OpsConsole;
let n = 0;

beforeAll(async () => {
  flw = await new FakeFlutterwave(KEYS).start();
  b = await build({
    simulator: false,
    paymentMethods: { powerly: { flutterwave: { ...KEYS, apiBase: flw.base, defaultEmail: 'pay@powerly.example' } } },
  });
  flw.now = () => b.clock.now();
  owner = (await callerConsoles(b)).get('platformOwner')!;
}, 60_000);
afterAll(async () => {
  await b?.close();
  await flw?.stop();
});

const call = (url: string, token: string, body: Record<string, string | undefined>) =>
  b.app.inject({
    method: 'POST',
    url: `${API}/${url}`,
    headers: { token, 'content-type': 'application/x-www-form-urlencoded', 'idempotency-key': `flwrec-${n++}` },
    payload: formBody(body),
  });

/** A wallet top-up with M-Pesa through Flutterwave, confirmed on the phone: our outTradeNo (Flutterwave's tx_ref). */
async function topUp(token: string, amount: string) {
  const payer = await call('cdb/payment/method/payer', token, { paymentId: PID, phoneNumber: '254709929220' });
  expect(payer.json(), payer.body).toMatchObject({ code: 0 });
  const r = await call('cdb/payment/multicurrency/recharge', token, {
    amount,
    currency: 'KES',
    paymentId: PID,
    stripeToken: payer.json().data.token as string,
  });
  expect(r.json(), r.body).toMatchObject({ code: 0 });
  const outTradeNo = (r.json().data.action as { paymentIntent: string }).paymentIntent;
  flw.approve(outTradeNo);
  const done = await call('cdb/payment/multicurrency/recharge', token, {
    amount,
    currency: 'KES',
    paymentId: PID,
    paymentIntent: outTradeNo,
  });
  expect(done.json(), done.body).toMatchObject({ code: 0, data: { pCurrencyType: 'KES' } });
  return outTradeNo;
}

const day = () => b.clock.now().toISOString().slice(0, 10);
async function reconcile() {
  const res = await owner.call('POST', '/money/reconciliations', { day: day(), reason: 'Flutterwave check' });
  return {
    res,
    flw:
      res.statusCode === 200
        ? res.json<{ items: ReconciliationShape[] }>().items.find((i) => i.provider === 'flutterwave')
        : undefined,
  };
}

describe("Flutterwave's reconciliation", () => {
  it('matches a day with a payment and its refund', async () => {
    const token = await touristToken(b.app);
    const paid = await topUp(token, '150');
    await refundTopUp(b, paid, 5000, 'flwrec-refund-1');
    expect(flw.refunds.map((r) => r.amount_refunded)).toEqual([50]);
    const { flw: r, res } = await reconcile();
    expect(res.statusCode, res.body).toBe(200);
    expect(r?.mismatches).toEqual([]);
    expect(r).toMatchObject({ status: 'matched', lines: 2 });
    const paths = flw.requests.map((x) => x.path.split('?')[0]);
    expect(paths).toContain('/v3/transactions');
    expect(paths).toContain('/v3/refunds');
  });

  it('lists a charge the ledger never saw and one Flutterwave does not list', async () => {
    const token = await touristToken(b.app);
    const lost = await topUp(token, '70');
    flw.txs.delete(flw.byTxRef(lost)!.id);
    // A charge on the account outside Powerly (say, a payment link), successful.
    const other = await topUp(await touristToken(b.app), '30');
    const link = flw.byTxRef(other)!;
    flw.txs.set(999_001, { ...link, id: 999_001, tx_ref: 'LINK-1', amount: 40 });
    const { flw: r } = await reconcile();
    expect(r?.status).toBe('mismatched');
    const byKind = Object.fromEntries(r!.mismatches.map((m) => [m.kind, m]));
    expect(Object.keys(byKind).sort()).toEqual(['missing_at_provider', 'missing_in_ledger']);
    expect(byKind.missing_in_ledger).toMatchObject({
      refs: ['LINK-1'],
      currency: 'KES',
      provider: { charged: 4000, refunded: 0, fee: 56 },
      ledger: { charged: 0 },
    });
    expect(byKind.missing_at_provider).toMatchObject({
      refs: [lost],
      currency: 'KES',
      provider: { charged: 0 },
      ledger: { charged: 7000, refunded: 0 },
    });
  });

  it("a report that cannot be read is a 503 and keeps the day's earlier result", async () => {
    (flw as { keys: typeof KEYS }).keys = { ...KEYS, secretKey: 'rotated' };
    const { res } = await reconcile();
    expect(res.statusCode, res.body).toBe(503);
    expect(res.json<{ message: string }>().message).toMatch(/flutterwave/);
    const { rows } = await b.db.query<{ status: string }>(
      `select status from provider_reconciliations where provider = 'flutterwave' and day = $1`,
      [day()],
    );
    expect(rows).toEqual([{ status: 'mismatched' }]);
  });
});
