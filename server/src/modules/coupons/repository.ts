// Owns coupons and coupon_redemptions (the only SQL on them).
import type { Queryable } from '../../db/db.ts';

export interface CouponRow {
  id: string;
  code: string;
  kind: 'percent' | 'fixed';
  percent: number | null;
  /** Minor units of `currency` (fixed coupons). */
  amount: number | null;
  currency: string | null;
  valid_from: Date;
  valid_to: Date;
  limit_per_user: number;
  limit_total: number | null;
  agent_id: string | null;
  venue_id: string | null;
  paused: boolean;
  created_at: Date;
}

export interface CouponStats {
  redeemed: number;
  reserved: number;
  /** Minor units given, per currency. */
  given: Record<string, number>;
}

export interface RedemptionRow {
  id: string;
  coupon_id: string;
  user_id: number;
  order_id: string;
  purpose: string;
  gross: number;
  discount: number;
  currency: string;
  status: 'reserved' | 'redeemed' | 'released';
  created_at: Date;
  settled_at: Date | null;
}

export type NewCoupon = Omit<CouponRow, 'id' | 'paused'>;

const COUPON = `id::text as id, code, kind, percent, amount::float8 as amount, trim(currency) as currency, valid_from, valid_to, limit_per_user,
  limit_total, agent_id, venue_id, paused, created_at`;
const REDEMPTION = `id::text as id, coupon_id::text as coupon_id, user_id::float8 as user_id, order_id, purpose, gross::float8 as gross,
  discount::float8 as discount, trim(currency) as currency, status, created_at, settled_at`;

export class CouponsRepository {
  constructor(private readonly db: Queryable) {}

  async insert(c: NewCoupon): Promise<CouponRow | undefined> {
    const { rows } = await this.db.query<CouponRow>(
      `insert into coupons (code, kind, percent, amount, currency, valid_from, valid_to, limit_per_user, limit_total, agent_id, venue_id, created_at)
       values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) on conflict (code) do nothing returning ${COUPON}`,
      [
        c.code,
        c.kind,
        c.percent,
        c.amount,
        c.currency,
        c.valid_from,
        c.valid_to,
        c.limit_per_user,
        c.limit_total,
        c.agent_id,
        c.venue_id,
        c.created_at,
      ],
    );
    return rows[0];
  }

  async byCode(code: string, opts: { lock?: boolean } = {}): Promise<CouponRow | undefined> {
    const { rows } = await this.db.query<CouponRow>(
      `select ${COUPON} from coupons where code = $1${opts.lock ? ' for update' : ''}`,
      [code],
    );
    return rows[0];
  }

  async byId(id: string, opts: { lock?: boolean } = {}): Promise<CouponRow | undefined> {
    if (!/^\d{1,18}$/.test(id)) return undefined;
    const { rows } = await this.db.query<CouponRow>(
      `select ${COUPON} from coupons where id = $1${opts.lock ? ' for update' : ''}`,
      [id],
    );
    return rows[0];
  }

  async setPaused(id: string, paused: boolean): Promise<CouponRow | undefined> {
    const { rows } = await this.db.query<CouponRow>(
      `update coupons set paused = $2 where id = $1 returning ${COUPON}`,
      [id, paused],
    );
    return rows[0];
  }

  /** A page of coupons of these agents (null: every coupon), newest first, after the cursor (created_at, id). */
  async page(agents: string[] | null, after: [string, string] | undefined, limit: number): Promise<CouponRow[]> {
    const { rows } = await this.db.query<CouponRow>(
      `select ${COUPON} from coupons where ($1::text[] is null or agent_id = any($1::text[]))
         and ($2::timestamptz is null or (created_at, id) < ($2::timestamptz, $3::bigint))
       order by created_at desc, id desc limit $4`,
      [agents, after?.[0] ?? null, after?.[1] ?? null, limit],
    );
    return rows;
  }

  /** Uses that count against the limits (reserved or redeemed): in total and by one user. */
  async uses(couponId: string, userId: number): Promise<{ total: number; mine: number }> {
    const { rows } = await this.db.query<{ total: number; mine: number }>(
      `select count(*)::int as total, (count(*) filter (where user_id = $2))::int as mine
       from coupon_redemptions where coupon_id = $1 and status <> 'released'`,
      [couponId, userId],
    );
    return rows[0] ?? { total: 0, mine: 0 };
  }

  async stats(ids: string[]): Promise<Map<string, CouponStats>> {
    const out = new Map<string, CouponStats>(ids.map((id) => [id, { redeemed: 0, reserved: 0, given: {} }]));
    if (!ids.length) return out;
    const { rows } = await this.db.query<{
      coupon_id: string;
      status: string;
      currency: string;
      n: number;
      given: number;
    }>(
      `select coupon_id::text as coupon_id, status, trim(currency) as currency, count(*)::int as n, sum(discount)::float8 as given
       from coupon_redemptions where coupon_id = any($1::bigint[]) and status <> 'released' group by 1, 2, 3`,
      [ids],
    );
    for (const r of rows) {
      const s = out.get(r.coupon_id)!;
      if (r.status === 'redeemed') {
        s.redeemed += r.n;
        s.given[r.currency] = (s.given[r.currency] ?? 0) + r.given;
      } else s.reserved += r.n;
    }
    return out;
  }

  /** The live (reserved or redeemed) use of an order's charge for `purpose`, locked for the caller's unit of work. */
  async live(orderId: string, purpose: string): Promise<RedemptionRow | undefined> {
    const { rows } = await this.db.query<RedemptionRow>(
      `select ${REDEMPTION} from coupon_redemptions where order_id = $1 and purpose = $2 and status <> 'released' for update`,
      [orderId, purpose],
    );
    return rows[0];
  }

  async insertRedemption(r: Omit<RedemptionRow, 'id' | 'status' | 'settled_at'>): Promise<RedemptionRow> {
    const { rows } = await this.db.query<RedemptionRow>(
      `insert into coupon_redemptions (coupon_id, user_id, order_id, purpose, gross, discount, currency, status, created_at)
       values ($1, $2, $3, $4, $5, $6, $7, 'reserved', $8) returning ${REDEMPTION}`,
      [r.coupon_id, r.user_id, r.order_id, r.purpose, r.gross, r.discount, r.currency, r.created_at],
    );
    return rows[0]!;
  }

  async settle(id: string, status: 'redeemed' | 'released', at: Date): Promise<boolean> {
    const res = await this.db.query(
      `update coupon_redemptions set status = $2, settled_at = $3 where id = $1 and status = 'reserved'`,
      [id, status, at],
    );
    return res.rowCount === 1;
  }

  async redemptions(couponId: string, limit: number): Promise<RedemptionRow[]> {
    const { rows } = await this.db.query<RedemptionRow>(
      `select ${REDEMPTION} from coupon_redemptions where coupon_id = $1 order by created_at desc, id desc limit $2`,
      [couponId, limit],
    );
    return rows;
  }
}
