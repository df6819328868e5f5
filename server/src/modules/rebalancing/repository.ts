// Rebalancing's SQL (migrations/20270103120000_rebalancing.sql): the stock of the cabinets in a scope, counting a
// move marked done as made until the cabinet reports after it, and the moves done.
import type { Queryable } from '../../db/db.ts';
import { scopeSql, type ScopeParams } from '../../lib/ops-query.ts';

export interface StockRow {
  id: string;
  agent_id: string;
  venue_id: string;
  venue_name: string;
  lat: number;
  lng: number;
  slots: number;
  powerbanks: number;
  online: boolean;
}

export interface MoveRow {
  id: string;
  agent_id: string;
  from_cabinet: string;
  to_cabinet: string;
  powerbanks: number;
  done_by: string;
  done_at: Date;
  reason: string;
}

export interface CabinetRef {
  id: string;
  agent_id: string | null;
  venue_id: string | null;
  slots: number;
}

const AGENT = `coalesce(c.agent_id, v.agent_id, 'powerly')`;
const SCOPE = scopeSql('coalesce(c.agent_id, v.agent_id)', 'c.venue_id');

export class RebalancingRepository {
  constructor(private readonly db: Queryable) {}

  /**
   * Every cabinet at a venue in the scope (of one agent, when given): its slots, its power banks (plus or minus the
   * moves done since `movesSince` it has not reported after) and whether it is online (heard from since `liveSince`).
   */
  async stock(scope: ScopeParams, agentId: string | null, liveSince: Date, movesSince: Date): Promise<StockRow[]> {
    const { rows } = await this.db.query<StockRow>(
      `select c.id, ${AGENT} as agent_id, c.venue_id, v.name as venue_name, v.lat, v.lng, c.slot_count as slots,
          ((select count(*) from powerbanks p where p.cabinet_id = c.id and p.state = 'in_cabinet')
           + coalesce((select sum(case when m.to_cabinet = c.id then m.powerbanks else -m.powerbanks end) from rebalance_moves m
                        where (m.from_cabinet = c.id or m.to_cabinet = c.id) and m.done_at >= $4
                          and (c.last_seen_at is null or c.last_seen_at <= m.done_at)), 0))::int as powerbanks,
          coalesce(c.online and c.last_seen_at >= $3, false) as online
         from cabinets c join venues v on v.id = c.venue_id
        where ${SCOPE} and ($5::text is null or ${AGENT} = $5)
        order by c.id`,
      [scope.agents, scope.pairs, liveSince, movesSince, agentId],
    );
    return rows.map((r) => ({
      ...r,
      slots: Number(r.slots),
      powerbanks: Math.max(0, Number(r.powerbanks)),
      lat: Number(r.lat),
      lng: Number(r.lng),
    }));
  }

  async cabinet(id: string): Promise<CabinetRef | undefined> {
    const { rows } = await this.db.query<CabinetRef>(
      `select c.id, coalesce(c.agent_id, v.agent_id) as agent_id, c.venue_id, c.slot_count as slots
         from cabinets c left join venues v on v.id = c.venue_id where c.id = $1`,
      [id],
    );
    return rows[0] ? { ...rows[0], slots: Number(rows[0].slots) } : undefined;
  }

  async insertMove(m: Omit<MoveRow, 'id'>): Promise<MoveRow> {
    const { rows } = await this.db.query<MoveRow>(
      `insert into rebalance_moves (agent_id, from_cabinet, to_cabinet, powerbanks, done_by, done_at, reason)
       values ($1, $2, $3, $4, $5, $6, $7) returning *`,
      [m.agent_id, m.from_cabinet, m.to_cabinet, m.powerbanks, m.done_by, m.done_at, m.reason],
    );
    return { ...rows[0]!, id: String(rows[0]!.id) };
  }

  /** The latest moves done from cabinets in the scope (of one agent, when given), newest first. */
  async done(scope: ScopeParams, agentId: string | null, since: Date, limit: number): Promise<MoveRow[]> {
    const { rows } = await this.db.query<MoveRow>(
      `select m.* from rebalance_moves m join cabinets c on c.id = m.from_cabinet left join venues v on v.id = c.venue_id
        where ${SCOPE} and m.done_at >= $3 and ($4::text is null or m.agent_id = $4)
        order by m.done_at desc, m.id desc limit $5`,
      [scope.agents, scope.pairs, since, agentId, limit],
    );
    return rows.map((r) => ({ ...r, id: String(r.id) }));
  }
}
