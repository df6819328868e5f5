// The desk's reads and decisions of disputes (owned by rentals; the rider's claims are claims-repository.ts): the
// queue inside the caller's agents and venues (keyset pages, oldest first), one dispute with its order, a decision.
import type { Queryable } from '../../db/db.ts';
import type { DisputeRow } from './claims-repository.ts';
import type { RentalScope } from './ops-repository.ts';

export type DeskDisputeRow = DisputeRow & {
  decided_by: string | null;
  note: string | null;
  decided_email: string | null;
  agent_id: string | null;
  zujie: number;
  powerbank_id: string | null;
};

const SCOPE = `($1::text[] is null or (v.agent_id = any($1::text[]) and (v.agent_id <> all($2::text[]) or v.id = any($3::text[]))))`;
const SELECT =
  'select d.*, o.zujie, o.powerbank_id, v.agent_id from disputes d join orders o on o.id = d.order_id join venues v on v.id = o.venue_id';
const row = (r: DeskDisputeRow): DeskDisputeRow => ({
  ...r,
  id: Number(r.id),
  user_id: Number(r.user_id),
  zujie: Number(r.zujie),
});

export class DisputesOpsRepository {
  constructor(private readonly db: Queryable) {}

  async page(
    s: RentalScope,
    f: { state: string | null; cabinetId?: string; userId?: number; after?: [string, string]; limit: number },
  ): Promise<DeskDisputeRow[]> {
    const { rows } = await this.db.query<DeskDisputeRow>(
      `${SELECT} where ${SCOPE} and ($4::text is null or d.state = $4) and ($5::text is null or d.cabinet_id = $5) and ($6::bigint is null or d.user_id = $6)
         and ($7::timestamptz is null or (d.created_at, d.id) > ($7::timestamptz, $8::bigint))
       order by d.created_at, d.id limit $9`,
      [
        s.agents,
        s.limitedAgents,
        s.venues,
        f.state,
        f.cabinetId ?? null,
        f.userId ?? null,
        f.after?.[0] ?? null,
        f.after?.[1] ?? null,
        f.limit,
      ],
    );
    return rows.map(row);
  }

  /** One dispute inside the scope (locked with its order for the caller's unit of work with `lock`). */
  async inScope(id: string, s: RentalScope, opts: { lock?: boolean } = {}): Promise<DeskDisputeRow | undefined> {
    const { rows } = await this.db.query<DeskDisputeRow>(
      `${SELECT} where ${SCOPE} and d.id = $4${opts.lock ? ' for update of d, o' : ''}`,
      [s.agents, s.limitedAgents, s.venues, id],
    );
    return rows[0] && row(rows[0]);
  }

  async decide(
    id: string,
    d: { state: 'accepted' | 'rejected'; message: string; note: string; by: string | null; email: string; at: Date },
  ) {
    await this.db.query(
      `update disputes set state = $2, message = $3, note = $4, decided_by = $5, decided_email = $6, decided_at = $7 where id = $1 and state = 'open'`,
      [id, d.state, d.message, d.note, d.by, d.email, d.at],
    );
  }
}
