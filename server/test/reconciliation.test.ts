// The daily reconciliation of each provider's settlements against the ledger: the real Stripe adapter (official
// SDK) reads the balance transactions of the day from the Stripe-compatible test server, every page; a day whose
// charges the ledger holds matches; an amount the provider changed, a transaction the provider lost and a charge the
// ledger never saw are each listed. The sandbox reconciles against its own records; a provider without settlement
// records is "unavailable". A re-run replaces the day (one row per provider and day); the daily job reconciles the
// day before. Platform-wide memberships only.
import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ReconciliationShape } from '#contract/ops/money.ts';
import { build, cabinetsOnline, touristToken, type Built } from './helper.ts';
import { callerConsoles, type Caller } from './ops/callers.ts';
import type { OpsConsole } from './ops/console.ts';
import { settledRental } from './ops/orders.ts';
import { FakeStripe } from './stripe/fake-stripe.ts';

const API = '/cdb-app-api/v1/app';
const SK = 'sk_test_platform';
const ACCOUNT = `${SK}|`;
const CARD = 'stripe:STRIPE_CARD';

let fake: FakeStripe;
let b: Built;
let consoles = new Map<Caller, OpsConsole>();

beforeAll(async () => {
  fake = await new FakeStripe([SK]).start();
  b = await build({
    stripe: {
      account: { secretKey: SK, publishableKey: 'pk_test_platform', webhookSecret: 'whsec_platform' },
      agents: {},
      transport: fake.transport(),
    },
  });
  fake.now = () => Math.floor(b.clock.now().getTime() / 1000);
  consoles = await callerConsoles(b);
  await cabinetsOnline(b, ['PWL-VNO-001']);
}, 60_000);
afterAll(async () => {
  await b?.close();
  await fake?.stop();
});

let n = 0;
const seen = new Set<string>();
/** A wallet top-up charged with Stripe's test card: its payment intent. */
async function topUp(token: string, amount: string) {
  const res = await b.app.inject({
    method: 'POST',
    url: `${API}/cdb/payment/multicurrency/recharge`,
    headers: { token, 'idempotency-key': `recon-${n++}` },
    payload: { amount, currency: 'EUR', paymentId: CARD, stripeToken: 'pm_card_visa' },
  });
  expect(res.json(), res.body).toMatchObject({ code: 0 });
  // The test clock stands still: the new payment is the one not seen before.
  const { rows } = await b.db.query<{ provider_ref: string; order_id: string }>(
    `select provider_ref, order_id from payments where provider = 'stripe' and purpose = 'wallet_topup' and provider_ref <> all($1::text[])`,
    [[...seen]],
  );
  expect(rows).toHaveLength(1);
  seen.add(rows[0]!.provider_ref);
  const pi = fake.get(ACCOUNT, rows[0]!.provider_ref)!;
  return { ref: rows[0]!.provider_ref, orderId: rows[0]!.order_id, charge: String(pi.latest_charge) };
}

const day = () => b.clock.now().toISOString().slice(0, 10);
const run = (c: Caller, body: Record<string, unknown>) => consoles.get(c)!.call('POST', '/money/reconciliations', body);
const of = (items: ReconciliationShape[], provider: string) => items.find((i) => i.provider === provider)!;

describe('the daily reconciliation', () => {
  let a: Awaited<ReturnType<typeof topUp>>;
  let c: Awaited<ReturnType<typeof topUp>>;
  let d: Awaited<ReturnType<typeof topUp>>;

  it('matches a day whose Stripe charges the ledger holds, reading every page of balance transactions', async () => {
    const token = await touristToken(b.app);
    a = await topUp(token, '10');
    c = await topUp(token, '5');
    d = await topUp(token, '7');
    // Pages of two: the adapter follows has_more with starting_after.
    fake.balance.maxPage = 2;
    const res = await run('platformOwner', { day: day(), reason: 'month-end check' });
    expect(res.statusCode, res.body).toBe(200);
    const stripe = of(res.json<{ items: ReconciliationShape[] }>().items, 'stripe');
    expect(stripe).toMatchObject({ status: 'matched', lines: 3, mismatches: [] });
    const pages = fake.requests.filter((r) => r.path === '/v1/balance_transactions');
    expect(pages.length).toBe(2);
  });

  it('lists an amount the provider changed, a transaction it lost and a charge the ledger never saw', async () => {
    fake.balance.alter(ACCOUNT, a.charge, { amount: 999 });
    fake.balance.drop(ACCOUNT, c.charge);
    // A charge made on the account outside Powerly (say, in the dashboard).
    const direct = new Stripe(SK, { ...fake.transport(), telemetry: false });
    const stray = await direct.paymentIntents.create({
      amount: 1234,
      currency: 'eur',
      payment_method: 'pm_card_visa',
      confirm: true,
    });
    const res = await run('platformOwner', { day: day(), reason: 'after the bank statement' });
    const stripe = of(res.json<{ items: ReconciliationShape[] }>().items, 'stripe');
    expect(stripe.status).toBe('mismatched');
    const byKind = Object.fromEntries(stripe.mismatches.map((m) => [m.kind, m]));
    expect(Object.keys(byKind).sort()).toEqual(['amount_differs', 'missing_at_provider', 'missing_in_ledger']);
    expect(byKind.amount_differs).toMatchObject({
      orderId: a.orderId,
      refs: [a.ref],
      currency: 'EUR',
      provider: { charged: 999 },
      ledger: { charged: 1000, refunded: 0 },
    });
    expect(byKind.missing_at_provider).toMatchObject({
      orderId: c.orderId,
      refs: [c.ref],
      provider: { charged: 0 },
      ledger: { charged: 500 },
    });
    expect(byKind.missing_in_ledger).toMatchObject({
      refs: [stray.id],
      provider: { charged: 1234, fee: Math.round(1234 * 0.029) + 30 },
      ledger: { charged: 0 },
    });
    expect(byKind.missing_in_ledger!.orderId).toBeUndefined();
    // The untouched top-up is not listed.
    expect(stripe.mismatches.some((m) => m.orderId === d.orderId)).toBe(false);
  });

  it('keeps one result per provider and day: a re-run replaces it; GET lists the days', async () => {
    const res = await consoles.get('platformOwner')!.call('GET', `/money/reconciliations?from=${day()}&to=${day()}`);
    expect(res.statusCode).toBe(200);
    const items = res.json<{ items: ReconciliationShape[] }>().items;
    expect(items.filter((i) => i.provider === 'stripe')).toHaveLength(1);
    expect(of(items, 'stripe').status).toBe('mismatched');
    const { rows } = await b.db.query<{ n: number }>(
      `select count(*)::int as n from provider_reconciliations where provider = 'stripe' and day = $1`,
      [day()],
    );
    expect(rows[0]!.n).toBe(1);
    // A provider whose API has no settlement records is said so, never "matched".
    for (const i of items.filter((x) => x.provider !== 'stripe' && x.provider !== 'sandbox'))
      expect(i.status).toBe('unavailable');
    const audit = await b.db.query<{ n: number }>(
      `select count(*)::int as n from audit_log where action = 'money.reconcile'`,
    );
    expect(audit.rows[0]!.n).toBe(2);
  });

  it('answers platform-wide staff only; a day that is not one is a 400', async () => {
    const statuses: Partial<Record<Caller, number>> = {};
    for (const c of ['none', 'platformOwner', 'adminA', 'financeA', 'supportA'] as Caller[])
      statuses[c] = (await consoles.get(c)!.call('GET', '/money/reconciliations')).statusCode;
    expect(statuses).toEqual({ none: 401, platformOwner: 200, adminA: 403, financeA: 403, supportA: 403 });
    expect((await run('financeA', { day: day(), reason: 'not mine to run' })).statusCode).toBe(403);
    expect((await run('platformOwner', { day: '2026-02-30', reason: 'no such day' })).statusCode).toBe(400);
    expect(
      (await consoles.get('platformOwner')!.call('GET', '/money/reconciliations?from=2026-13-01')).statusCode,
    ).toBe(400);
  });
  it('the daily job reconciles the day before and schedules the next day', async () => {
    const yesterday = day();
    b.clock.advance(24 * 3_600_000);
    await b.app.powerly.jobs.ensurePending('payments.reconcile-daily', b.clock.now());
    await b.app.powerly.jobs.runDue();
    const { rows } = await b.db.query<{ status: string }>(
      `select status from provider_reconciliations where provider = 'stripe' and day = $1`,
      [yesterday],
    );
    expect(rows).toEqual([{ status: 'mismatched' }]);
    const next = await b.db.query<{ n: number }>(
      `select count(*)::int as n from jobs where kind = 'payments.reconcile-daily' and done_at is null and run_at > $1`,
      [b.clock.now()],
    );
    expect(next.rows[0]!.n).toBe(1);
  });
});

describe("the sandbox's reconciliation", () => {
  let sb: Built;
  let owner: OpsConsole;
  beforeAll(async () => {
    sb = await build();
    owner = (await callerConsoles(sb)).get('platformOwner')!;
  }, 60_000);
  afterAll(async () => sb?.close());

  it('the sandbox reconciles against its own records: a rental held, captured in part and refunded in part', async () => {
    const rental = await settledRental(sb, 'recon-rider-000001');
    const refund = await owner.call(
      'POST',
      `/rentals/${rental.orderId}/refund`,
      { amount: 100, reason: 'rider complaint' },
      {
        'idempotency-key': 'recon-refund-0001',
        'if-match': '"v0"',
      },
    );
    expect(refund.statusCode, refund.body).toBe(200);
    await sb.app.powerly.jobs.runDue();
    const res = await owner.call('POST', '/money/reconciliations', {
      day: sb.clock.now().toISOString().slice(0, 10),
      reason: 'sandbox check',
    });
    const sandbox = of(res.json<{ items: ReconciliationShape[] }>().items, 'sandbox');
    expect(sandbox.mismatches).toEqual([]);
    expect(sandbox).toMatchObject({ status: 'matched', lines: 2 });
  });

  it('keeps every part of a payment refunded in parts, each once however often its call is retried', async () => {
    const rental = await settledRental(sb, 'recon-rider-000002');
    const { rows } = await sb.db.query<{ provider_ref: string }>(
      `select provider_ref from payments where order_id = $1 and status in ('captured', 'partially_captured')`,
      [rental.orderId],
    );
    const ref = rows[0]!.provider_ref;
    const refunded = async () =>
      Number(
        (await sb.db.query<{ n: string }>('select amount_refunded as n from sandbox_intents where id = $1', [ref]))
          .rows[0]!.n,
      );
    const captured = Number(
      (await sb.db.query<{ n: string }>('select amount_captured as n from sandbox_intents where id = $1', [ref]))
        .rows[0]!.n,
    );
    expect(captured).toBeGreaterThan(100);
    const sandbox = sb.app.powerly.sandbox;
    await sandbox.refund(ref, 60, { idempotencyKey: 'part-1' });
    await sandbox.refund(ref, 60, { idempotencyKey: 'part-1' }); // a retried call: the same refund
    await sandbox.refund(ref, 40, { idempotencyKey: 'part-2' });
    expect(await refunded()).toBe(100);
    await expect(sandbox.refund(ref, captured - 100 + 1, { idempotencyKey: 'part-3' })).rejects.toThrow(
      /amount is invalid/,
    );
    await sandbox.refund(ref, captured - 100, { idempotencyKey: 'part-3' });
    expect(await refunded()).toBe(captured);
  });
});
