// The daily reconciliation's records (provider_reconciliations: one row per provider and day, a re-run replaces it)
// and the payments it matches the provider's lines to (by the provider's reference).
import type { Queryable } from '../../db/db.ts';

export interface ReconciliationRow {
  provider: string;
  day: string;
  status: 'matched' | 'mismatched' | 'unavailable';
  lines: number;
  mismatches: unknown[];
  ran_at: Date;
}

export class ReconciliationRepository {
  constructor(private readonly db: Queryable) {}

  /** The result of a provider's day, replacing an earlier run's (one statement: a crash leaves the old or the new). */
  async save(r: ReconciliationRow) {
    await this.db.query(
      `insert into provider_reconciliations (provider, day, status, lines, mismatches, ran_at) values ($1, $2, $3, $4, $5, $6)
       on conflict (provider, day) do update set status = excluded.status, lines = excluded.lines, mismatches = excluded.mismatches, ran_at = excluded.ran_at`,
      [r.provider, r.day, r.status, r.lines, JSON.stringify(r.mismatches), r.ran_at],
    );
  }

  /** The days from `from` to `to` (inclusive), newest first, each provider in name order. */
  async list(from: string, to: string): Promise<ReconciliationRow[]> {
    const { rows } = await this.db.query<ReconciliationRow & { day: string | Date }>(
      `select provider, to_char(day, 'YYYY-MM-DD') as day, status, lines, mismatches, ran_at from provider_reconciliations
        where day between $1::date and $2::date order by day desc, provider limit 500`,
      [from, to],
    );
    return rows.map((r) => ({ ...r, day: String(r.day), lines: Number(r.lines) }));
  }

  /** The order each payment of `provider` with one of these references pays. */
  async ordersOfRefs(provider: string, refs: string[]): Promise<Map<string, string | null>> {
    if (!refs.length) return new Map();
    const { rows } = await this.db.query<{ provider_ref: string; order_id: string | null }>(
      'select provider_ref, order_id from payments where provider = $1 and provider_ref = any($2::text[])', [provider, refs]);
    return new Map(rows.map((r) => [r.provider_ref, r.order_id]));
  }

  /** The references of the payments of `provider` for these orders. */
  async refsOfOrders(provider: string, orders: string[]): Promise<Map<string, string[]>> {
    const out = new Map<string, string[]>();
    if (!orders.length) return out;
    const { rows } = await this.db.query<{ order_id: string; provider_ref: string }>(
      `select order_id, provider_ref from payments where provider = $1 and order_id = any($2::text[]) and provider_ref is not null
        and status <> 'declined' order by created_at`,
      [provider, orders],
    );
    for (const r of rows) out.set(r.order_id, [...(out.get(r.order_id) ?? []), r.provider_ref]);
    return out;
  }
}
