// The wallet adjustments' rows (wallet_adjustments): requests of a credit or debit of a rider's wallet, each decided
// once by a second member of staff. The only SQL of adjustments.ts.
import type { Queryable } from '../../db/db.ts';

export interface AdjustmentRow {
  id: string;
  user_id: number;
  agent_id: string;
  currency: string;
  direction: 'credit' | 'debit';
  amount: number;
  reason: string;
  state: 'pending' | 'approved' | 'rejected';
  requested_by: string;
  requested_email: string;
  idempotency_key: string;
  request_hash: string;
  decided_by: string | null;
  decided_email: string | null;
  decision_note: string | null;
  transfer_id: string | null;
  created_at: Date;
  decided_at: Date | null;
}

const row = (r: AdjustmentRow): AdjustmentRow => ({
  ...r,
  id: String(r.id),
  user_id: Number(r.user_id),
  amount: Number(r.amount),
  currency: String(r.currency).trim(),
  requested_by: String(r.requested_by),
  decided_by: r.decided_by == null ? null : String(r.decided_by),
});

export class AdjustmentsRepository {
  constructor(private readonly db: Queryable) {}

  async byKey(staffId: string, key: string): Promise<AdjustmentRow | undefined> {
    const { rows } = await this.db.query<AdjustmentRow>(
      'select * from wallet_adjustments where requested_by = $1 and idempotency_key = $2',
      [staffId, key],
    );
    return rows[0] ? row(rows[0]) : undefined;
  }

  async find(id: string, opts: { lock?: boolean } = {}): Promise<AdjustmentRow | undefined> {
    const { rows } = await this.db.query<AdjustmentRow>(
      `select * from wallet_adjustments where id = $1${opts.lock ? ' for update' : ''}`,
      [id],
    );
    return rows[0] ? row(rows[0]) : undefined;
  }

  async insert(
    a: Omit<
      AdjustmentRow,
      'id' | 'state' | 'decided_by' | 'decided_email' | 'decision_note' | 'transfer_id' | 'decided_at'
    >,
  ): Promise<AdjustmentRow> {
    const { rows } = await this.db.query<AdjustmentRow>(
      `insert into wallet_adjustments (user_id, agent_id, currency, direction, amount, reason, state, requested_by, requested_email, idempotency_key, request_hash, created_at)
       values ($1,$2,$3,$4,$5,$6,'pending',$7,$8,$9,$10,$11) returning *`,
      [
        a.user_id,
        a.agent_id,
        a.currency,
        a.direction,
        a.amount,
        a.reason,
        a.requested_by,
        a.requested_email,
        a.idempotency_key,
        a.request_hash,
        a.created_at,
      ],
    );
    return row(rows[0]!);
  }

  async decide(
    id: string,
    d: { state: 'approved' | 'rejected'; by: string; email: string; note: string; transferId: string | null; at: Date },
  ) {
    await this.db.query(
      `update wallet_adjustments set state = $2, decided_by = $3, decided_email = $4, decision_note = $5, transfer_id = $6, decided_at = $7
        where id = $1 and state = 'pending'`,
      [id, d.state, d.by, d.email, d.note, d.transferId, d.at],
    );
  }

  /** Oldest first (the queue), after the cursor `[created_at, id]`, inside `agents` (null: every agent). */
  async page(f: {
    state: string | null;
    userId: number | null;
    agents: string[] | null;
    after?: [string, string];
    limit: number;
  }): Promise<AdjustmentRow[]> {
    const { rows } = await this.db.query<AdjustmentRow>(
      `select * from wallet_adjustments
        where ($1::text is null or state = $1) and ($2::bigint is null or user_id = $2) and ($3::text[] is null or agent_id = any($3::text[]))
          and ($4::timestamptz is null or (created_at, id) > ($4::timestamptz, $5::bigint))
        order by created_at, id limit $6`,
      [f.state, f.userId, f.agents, f.after?.[0] ?? null, f.after?.[1] ?? null, f.limit],
    );
    return rows.map(row);
  }
}
