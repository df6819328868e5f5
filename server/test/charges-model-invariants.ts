// The invariants server/test/charges.model.test.ts checks after every step of its model, on the server and the test
// tree's Stripe server: the ledger sums to zero, no provider payment taken twice or serving two purposes, no money
// from nothing, and (after the guards) no charge stranded at the provider.
import { expect } from 'vitest';
import { ACTION_TIMEOUT_MS } from '../src/modules/payments/provider.ts';
import { ledgerBalanced, type Built } from './helper.ts';
import type { FakeStripe } from './stripe/fake-stripe.ts';

export const SK = 'sk_test_platform';

export type Obj = Record<string, unknown> & {
  id: string;
  status: string;
  amount: number;
  amount_received?: number;
  metadata?: Record<string, string>;
  latest_charge?: unknown;
};

/** The system under test: the server (replaced on a restart), the provider, the riders, the clock's total advance. */
export interface Real {
  b: Built;
  elapsed: number;
  riders: { token: string; id: number }[];
  /** Snapshots of provider payments as first seen (delivered later: out of order). */
  snapshots: Obj[];
}

/** The provider's payment intents (of the platform account). */
export const intents = (fake: FakeStripe) =>
  [...((fake as unknown as { spaces: Map<string, Map<string, Obj>> }).spaces.get(`${SK}|`)?.values() ?? [])].filter(
    (o) => o.object === 'payment_intent',
  );
/** What the provider has refunded of a payment intent. */
export const refunded = (fake: FakeStripe, pi: Obj) => {
  const ch =
    typeof pi.latest_charge === 'string'
      ? (fake.get(`${SK}|`, pi.latest_charge) as { amount_refunded?: number } | undefined)
      : undefined;
  return Number(ch?.amount_refunded ?? 0);
};

/** The invariants after a step; `quiet`: the guards have run, so nothing may be left stranded at the provider. */
export async function invariants(fake: FakeStripe, r: Real, quiet: boolean) {
  const db = r.b.db;
  await ledgerBalanced(r.b.app);
  const { rows: twice } =
    await db.query(`select provider_ref from payments where provider_ref is not null and status in ('authorized', 'captured', 'partially_captured', 'refunded')
    group by provider, provider_ref having count(*) > 1`);
  expect(twice, 'a provider payment taken twice').toEqual([]);
  const { rows: two } =
    await db.query(`select provider_ref from (select provider, provider_ref, purpose from payments where provider_ref is not null
    union all select provider, provider_ref, purpose from payment_starts) x group by provider, provider_ref having count(distinct purpose) > 1`);
  expect(two, 'a provider payment serving two purposes').toEqual([]);
  // No money from nothing: a rider's wallet and held deposits never exceed what the provider captured from them.
  for (const rider of r.riders) {
    const taken = intents(fake)
      .filter((pi) => pi.metadata?.powerlyUserId === String(rider.id))
      .reduce(
        (s, pi) =>
          s +
          Number(pi.amount_received ?? 0) -
          refunded(fake, pi) +
          (pi.status === 'requires_capture' ? Number(pi.amount_capturable ?? 0) : 0),
        0,
      );
    const w = await r.b.app.powerly.ledger.walletOf(rider.id, 'EUR');
    expect(w.balance + w.held, `rider ${rider.id}'s wallet and held deposits`).toBeLessThanOrEqual(taken);
  }
  if (!quiet) return;
  // After the guards: nothing stranded at the provider.
  const rows = (
    await db.query<{ provider_ref: string; status: string; refunded_amount: string; failure_code: string | null }>(
      `select provider_ref, status, refunded_amount, failure_code from payments where provider = 'stripe'`,
    )
  ).rows;
  const ours = new Map(rows.map((x) => [x.provider_ref, x]));
  for (const pi of intents(fake)) {
    const row = ours.get(pi.id);
    const what = `${pi.id} ${pi.status} (ours: ${row?.status ?? 'none'})`;
    if (pi.status === 'succeeded') {
      expect(row && ['captured', 'partially_captured', 'refunded'].includes(row.status), what).toBe(true);
      expect(refunded(fake, pi), `${what}: refunds done`).toBe(Number(row!.refunded_amount));
    } else if (pi.status === 'requires_capture') {
      expect(row?.status, what).toBe('authorized');
    } else if (pi.status === 'requires_action') {
      // The customer's step: resumable only while its timeout runs (the guards of this step have run).
      expect(Number(pi.created) * 1000 + ACTION_TIMEOUT_MS, what).toBeGreaterThan(r.b.clock.now().getTime() - 60_000);
    } else {
      expect(['canceled', 'requires_payment_method'], what).toContain(pi.status);
    }
  }
}
