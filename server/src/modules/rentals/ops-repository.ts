// The support desk's reads and writes of rentals: the search (keyset pages, newest first, inside the caller's
// agents and venues) and the corrections table (rental_corrections, one row per correction and idempotency key).
import type { Queryable } from '../../db/db.ts';
import type { OrderRow } from './repository.ts';

/** Where the caller may look: every rental (null), or the rentals of venues of these agents (some limited to venues). */
export interface RentalScope {
  agents: string[] | null;
  /** Agents whose rentals are limited to `venues` (a venue partner's). */
  limitedAgents: string[];
  venues: string[];
}

export interface RentalSearch extends RentalScope {
  /** An order id, or a rider among `qUsers`. */
  q?: string;
  qUsers?: number[];
  /** Only these riders / orders (a phone, an e-mail, a card); null: no such filter. */
  userIds: number[] | null;
  orderIds: string[] | null;
  powerbankId?: string;
  cabinetId?: string;
  venueId?: string;
  state?: number;
  from?: Date;
  to?: Date;
}

export type RentalListRow = OrderRow & { agent_id: string | null };

export interface CorrectionRow {
  id: string;
  order_id: string;
  idempotency_key: string;
  request_hash: string;
  kind: 'refund' | 'end' | 'waive' | 'release' | 'reverse';
  amount: number;
  currency: string;
  to_card: number;
  to_wallet: number;
  payment_id: string | null;
  staff_id: string | null;
  reason: string;
  created_at: Date;
}

const num = <
  T extends { amount: number | string; to_card: number | string; to_wallet: number | string; currency: string },
>(
  r: T,
) => ({
  ...r,
  amount: Number(r.amount),
  to_card: Number(r.to_card),
  to_wallet: Number(r.to_wallet),
  currency: String(r.currency).trim(),
});

/** The scope's WHERE over `o` (orders) and `v` (venues), parameters from $1. */
const SCOPE = `($1::text[] is null or (v.agent_id = any($1::text[]) and (v.agent_id <> all($2::text[]) or v.id = any($3::text[]))))`;

export class RentalsOpsRepository {
  constructor(private readonly db: Queryable) {}

  /** Newest first, after the cursor `[created_at, id]`; `limit` rows. */
  async search(f: RentalSearch, after: [string, string] | undefined, limit: number): Promise<RentalListRow[]> {
    const { rows } = await this.db.query<RentalListRow>(
      `select o.*, v.name as venue_name, v.agent_id from orders o join venues v on v.id = o.venue_id
        where ${SCOPE}
          and ($4::text is null or o.id = $4 or o.user_id = any($5::bigint[]))
          and ($6::bigint[] is null or o.user_id = any($6::bigint[]))
          and ($7::text[] is null or o.id = any($7::text[]))
          and ($8::text is null or o.powerbank_id = $8)
          and ($9::text is null or o.cabinet_id = $9 or o.return_cabinet_id = $9)
          and ($10::text is null or o.venue_id = $10)
          and ($11::smallint is null or o.zujie = $11)
          and ($12::timestamptz is null or o.created_at >= $12)
          and ($13::timestamptz is null or o.created_at < $13)
          and ($15::timestamptz is null or (o.created_at, o.id) < ($15::timestamptz, $16::text))
        order by o.created_at desc, o.id desc limit $14`,
      [
        f.agents,
        f.limitedAgents,
        f.venues,
        f.q ?? null,
        f.qUsers ?? [],
        f.userIds,
        f.orderIds,
        f.powerbankId ?? null,
        f.cabinetId ?? null,
        f.venueId ?? null,
        f.state ?? null,
        f.from ?? null,
        f.to ?? null,
        limit,
        after?.[0] ?? null,
        after?.[1] ?? null,
      ],
    );
    return rows.map((r) => ({ ...r, user_id: Number(r.user_id) }));
  }

  /** One rental inside the scope (locked for the caller's unit of work with `lock`), else undefined. */
  async inScope(id: string, s: RentalScope, opts: { lock?: boolean } = {}): Promise<RentalListRow | undefined> {
    const { rows } = await this.db.query<RentalListRow>(
      `select o.*, v.name as venue_name, v.agent_id from orders o join venues v on v.id = o.venue_id
        where ${SCOPE} and o.id = $4${opts.lock ? ' for update of o' : ''}`,
      [s.agents, s.limitedAgents, s.venues, id],
    );
    return rows[0] ? { ...rows[0], user_id: Number(rows[0].user_id) } : undefined;
  }

  async corrections(orderId: string): Promise<CorrectionRow[]> {
    const { rows } = await this.db.query<CorrectionRow>(
      'select * from rental_corrections where order_id = $1 order by created_at, id',
      [orderId],
    );
    return rows.map(num);
  }

  async correctionByKey(orderId: string, key: string): Promise<CorrectionRow | undefined> {
    const { rows } = await this.db.query<CorrectionRow>(
      'select * from rental_corrections where order_id = $1 and idempotency_key = $2',
      [orderId, key],
    );
    return rows[0] ? num(rows[0]) : undefined;
  }

  async insertCorrection(c: Omit<CorrectionRow, 'staff_id'> & { staff_id: string | null }) {
    await this.db.query(
      `insert into rental_corrections (id, order_id, idempotency_key, request_hash, kind, amount, currency, to_card, to_wallet, payment_id, staff_id, reason, created_at)
       values ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,$13)`,
      [
        c.id,
        c.order_id,
        c.idempotency_key,
        c.request_hash,
        c.kind,
        c.amount,
        c.currency,
        c.to_card,
        c.to_wallet,
        c.payment_id,
        c.staff_id,
        c.reason,
        c.created_at,
      ],
    );
  }

  /** A refund lowers the fee the rider sees on the order (what they paid, net of what was given back). */
  async lowerFee(orderId: string, amount: number) {
    await this.db.query('update orders set fee = greatest(0, coalesce(fee, 0) - $2) where id = $1', [orderId, amount]);
  }
}
