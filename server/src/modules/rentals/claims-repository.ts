// disputes (owned by rentals): riders' "I returned it" claims and what became of them (claims.ts).
import type { Queryable } from '../../db/db.ts';

export interface DisputeRow {
  id: number;
  order_id: string;
  user_id: number;
  cabinet_id: string;
  claimed_at: Date;
  state: 'matched' | 'open' | 'accepted' | 'rejected';
  evidence: Record<string, unknown>;
  message: string | null;
  created_at: Date;
  decided_at: Date | null;
}

const row = (r: DisputeRow): DisputeRow => ({ ...r, id: Number(r.id), user_id: Number(r.user_id) });

export class ClaimsRepository {
  constructor(private readonly db: Queryable) {}

  /** Inserts the claim; undefined when the order already has an open dispute (one per order). */
  async insert(d: Omit<DisputeRow, 'id' | 'message' | 'decided_at'>) {
    const { rows } = await this.db.query<DisputeRow>(
      `insert into disputes (order_id, user_id, cabinet_id, claimed_at, state, evidence, created_at) values ($1, $2, $3, $4, $5, $6, $7)
       on conflict (order_id) where state = 'open' do nothing returning *`,
      [d.order_id, d.user_id, d.cabinet_id, d.claimed_at, d.state, JSON.stringify(d.evidence), d.created_at],
    );
    return rows[0] && row(rows[0]);
  }

  async latest(orderId: string) {
    const { rows } = await this.db.query<DisputeRow>(
      'select * from disputes where order_id = $1 order by created_at desc, id desc limit 1',
      [orderId],
    );
    return rows[0] && row(rows[0]);
  }

  async hasOpen(orderId: string) {
    const { rows } = await this.db.query('select 1 from disputes where order_id = $1 and state = $2', [
      orderId,
      'open',
    ]);
    return rows.length > 0;
  }

  /** The rider's claims since `since` (the rate limit). */
  async countSince(userId: number, since: Date) {
    const { rows } = await this.db.query<{ n: number }>(
      'select count(*)::int as n from disputes where user_id = $1 and created_at >= $2',
      [userId, since],
    );
    return Number(rows[0]!.n);
  }
}
