// The daily reconciliation's records (provider_reconciliations: one row per provider and day, a re-run replaces it),
// the provider's lines of a run (provider_settlement_lines, written page by page) and their comparison with the
// ledger in one statement (finish): the payments they pay by the provider's reference, against the ledger's
// clearing per order (the ledger's own query, clearingByOrderSql).
import type { Queryable } from '../../db/db.ts';
import { clearingByOrderSql } from '../ledger/history-repository.ts';
import type { SettlementLine } from './provider.ts';

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

  /** One page of a run's lines, numbered from `seq` on. */
  async addLines(run: { id: string; provider: string; day: string }, seq: number, lines: SettlementLine[]) {
    if (!lines.length) return;
    await this.db.query(
      `insert into provider_settlement_lines (run, seq, provider, day, ref, source, type, amount, fee, currency)
       select $1, $2 + u.n, $3, $4::date, u.ref, u.source, u.type, u.amount, u.fee, u.currency
         from unnest($5::text[], $6::text[], $7::text[], $8::bigint[], $9::bigint[], $10::text[]) with ordinality as u(ref, source, type, amount, fee, currency, n)`,
      [
        run.id,
        seq,
        run.provider,
        run.day,
        lines.map((l) => l.ref),
        lines.map((l) => l.source),
        lines.map((l) => l.type),
        lines.map((l) => l.amount),
        lines.map((l) => l.fee),
        lines.map((l) => l.currency),
      ],
    );
  }

  /** Forgets a run's lines (a report that could not be read to its end). */
  async dropRun(run: string) {
    await this.db.query('delete from provider_settlement_lines where run = $1', [run]);
  }

  /**
   * Compares a run's `lines` lines with the ledger and stores the day's result, in one statement: the provider's
   * side per order (a payment we do not know: per its own reference) and currency, against what the ledger moved
   * through the provider's clearing in [from, to) (a provider that keeps totals, `cumulative`: those orders' totals).
   * Every difference is listed: missing_in_ledger, amount_differs, fee_differs (where the ledger recorded a fee: it
   * is an estimate recorded with a rental's shares), missing_at_provider. Undefined when a newer run of the day
   * replaced this one's lines meanwhile (its result stands). Then the day's other runs' lines are dropped.
   */
  async finish(run: {
    id: string;
    provider: string;
    day: string;
    from: Date;
    to: Date;
    cumulative: boolean;
    lines: number;
    at: Date;
  }): Promise<ReconciliationRow | undefined> {
    const known = "(select coalesce(array_agg(order_id), '{}') from prov where order_id is not null)::text[]";
    const { rows } = await this.db.query<ReconciliationRow>(
      `with lines as (
         select l.ref, l.source, l.type, l.amount, l.fee, l.currency,
                (select p.order_id from payments p where p.provider = $1 and p.provider_ref = l.ref and p.order_id is not null limit 1) as order_id
           from provider_settlement_lines l where l.run = $3),
       prov as (
         select order_id, case when order_id is null then coalesce(ref, source) end as stray, currency,
                coalesce(sum(amount) filter (where type = 'charge'), 0) as charged, coalesce(-sum(amount) filter (where type = 'refund'), 0) as refunded,
                coalesce(sum(fee), 0) as fee, array_remove(array_agg(distinct ref), null) as refs
           from lines group by 1, 2, 3),
       moved as (${clearingByOrderSql({ provider: '$1::text', from: '$4::timestamptz', to: '$5::timestamptz', orders: 'null::text[]' })}),
       totals as (${clearingByOrderSql({ provider: '$1::text', from: 'null::timestamptz', to: 'null::timestamptz', orders: known })}),
       ledger as (select * from totals where $6::boolean union all select * from moved where not $6::boolean),
       found as (
         select case when l.order_id is null or (l.charged = 0 and l.refunded = 0) then 'missing_in_ledger'
                     when l.charged <> p.charged or l.refunded <> p.refunded then 'amount_differs'
                     when l.fee <> 0 and l.fee <> p.fee then 'fee_differs' end as kind,
                p.order_id, p.refs, p.currency, p.charged as pc, p.refunded as pr, p.fee as pf,
                coalesce(l.charged, 0) as lc, coalesce(l.refunded, 0) as lr, coalesce(l.fee, 0) as lf
           from prov p left join ledger l on l.order_id = p.order_id and l.currency = p.currency
         union all
         select 'missing_at_provider', m.order_id,
                coalesce((select array_agg(x.provider_ref order by x.created_at) from payments x
                           where x.provider = $1 and x.order_id = m.order_id and x.provider_ref is not null and x.status <> 'declined'), '{}'),
                m.currency, 0, 0, 0, m.charged, m.refunded, m.fee
           from moved m
          where (m.charged <> 0 or m.refunded <> 0) and not exists (select 1 from prov p where p.order_id = m.order_id and p.currency = m.currency)),
       result as (
         select count(kind) as n, coalesce(jsonb_agg(jsonb_strip_nulls(jsonb_build_object(
                  'kind', kind, 'orderId', order_id, 'refs', to_jsonb(refs), 'currency', currency,
                  'provider', jsonb_build_object('charged', pc::bigint, 'refunded', pr::bigint, 'fee', pf::bigint),
                  'ledger', jsonb_build_object('charged', lc::bigint, 'refunded', lr::bigint, 'fee', lf::bigint)))
                  order by kind, order_id, currency) filter (where kind is not null), '[]'::jsonb) as mismatches
           from found)
       insert into provider_reconciliations (provider, day, status, lines, mismatches, ran_at)
       select $1, $2::date, case when r.n > 0 then 'mismatched' else 'matched' end, $7::integer, r.mismatches, $8::timestamptz
         from result r where (select count(*) from provider_settlement_lines where run = $3) = $7::integer
       on conflict (provider, day) do update set status = excluded.status, lines = excluded.lines, mismatches = excluded.mismatches, ran_at = excluded.ran_at
       returning provider, to_char(day, 'YYYY-MM-DD') as day, status, lines, mismatches, ran_at`,
      [run.provider, run.day, run.id, run.from, run.to, run.cumulative, run.lines, run.at],
    );
    if (!rows[0]) return undefined;
    await this.db.query('delete from provider_settlement_lines where provider = $1 and day = $2::date and run <> $3', [
      run.provider,
      run.day,
      run.id,
    ]);
    return { ...rows[0], lines: Number(rows[0].lines) };
  }

  /** The stored result of a provider's day. */
  async get(provider: string, day: string): Promise<ReconciliationRow | undefined> {
    const { rows } = await this.db.query<ReconciliationRow>(
      `select provider, to_char(day, 'YYYY-MM-DD') as day, status, lines, mismatches, ran_at from provider_reconciliations where provider = $1 and day = $2::date`,
      [provider, day],
    );
    return rows[0] ? { ...rows[0], lines: Number(rows[0].lines) } : undefined;
  }
}
