// The cabinets tables as the back office reads and changes them (ops.ts): a page of cabinets inside a scope with
// their venue, slots, devices, last report and latest operator commands; assignment under a version; the
// operator's commands (cabinet_commands rows without an order).
import type { Queryable } from '../../db/db.ts';
import { orderBy, scopeSql, type ScopeParams, type SortSpec } from '../../lib/ops-query.ts';
import type { CabinetListRow } from './fleet-repository.ts';

export interface OpsCabinetRow extends CabinetListRow {
  agent_id: string | null;
  version: number;
  volume: number | null;
  sort_key: string;
  commands:
    | { id: string; type: string; slot: number | null; at: string; acked: boolean; result: string | null }[]
    | string
    | null;
}

export const CABINET_SORT: SortSpec = {
  id: 'c.id',
  vendor: 'c.vendor',
  venue: "coalesce(v.name, '')",
  lastHeartbeat: `coalesce(to_char(c.last_seen_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US'), '')`,
};

export interface CabinetPageFilter {
  scope: ScopeParams;
  q?: string;
  venueId?: string;
  agentId?: string;
  vendor?: string;
  /** Online by the liveness rule: flagged online and heard from since `since`. */
  online?: boolean;
  since: Date;
  sort?: string;
  after?: [string, string];
  limit: number;
  id?: string;
}

/** The scope's condition on a cabinet `c` ($1 agents, $2 agent/venue pairs). */
const SCOPE_SQL = scopeSql('c.agent_id', 'c.venue_id');

export class CabinetOpsRepository {
  constructor(private readonly db: Queryable) {}

  async page(f: CabinetPageFilter): Promise<OpsCabinetRow[]> {
    const order = orderBy(CABINET_SORT, f.sort, 'c.id');
    const like = f.q ? `%${f.q.toLowerCase().replace(/[\\%_]/g, '\\$&')}%` : null;
    const params: unknown[] = [
      f.scope.agents,
      f.scope.pairs,
      like,
      f.venueId ?? null,
      f.agentId ?? null,
      f.vendor ?? null,
      f.online ?? null,
      f.since,
      f.limit,
      f.id ?? null,
    ];
    const after = f.after
      ? (params.push(f.after[0], f.after[1]), `and (${order.key}, c.id) ${order.desc ? '<' : '>'} ($11, $12)`)
      : '';
    const { rows } = await this.db.query<OpsCabinetRow>(
      `select c.id, c.vendor, c.agent_id, c.venue_id, v.name as venue_name, c.slot_count, c.online, c.last_seen_at, c.inventory, c.version, c.volume,
              ${order.key} as sort_key,
              (exists (select 1 from cabinet_credentials k where k.cabinet_id = c.id)
                or exists (select 1 from cabinet_token_secrets t where t.cabinet_id = c.id)) as has_credentials,
              (select jsonb_agg(jsonb_build_object('id', p.id, 'slot', p.slot, 'kind', p.kind, 'state', p.state) order by p.slot)
                 from powerbanks p where p.cabinet_id = c.id and p.slot is not null) as devices,
              (select jsonb_agg(jsonb_build_object('id', k.id, 'type', k.type, 'slot', (k.payload->>'slot')::int, 'at', k.created_at,
                                                   'acked', k.acked_at is not null, 'result', k.result) order by k.created_at desc)
                 from (select * from cabinet_commands k where k.cabinet_id = c.id and k.order_id is null and k.type like 'ops.%'
                        order by k.created_at desc limit 5) k) as commands
         from cabinets c left join venues v on v.id = c.venue_id
        where ${SCOPE_SQL}
          and ($3::text is null or lower(c.id) like $3)
          and ($4::text is null or c.venue_id = $4)
          and ($5::text is null or c.agent_id = $5)
          and ($6::text is null or c.vendor = $6)
          and ($7::boolean is null or (c.online and c.last_seen_at >= $8) = $7)
          and ($10::text is null or c.id = $10)
          ${after}
        order by ${order.sql} limit $9`,
      params,
    );
    return rows;
  }

  /** The agent of a venue ('' when the venue has none); undefined when there is no such venue. */
  async venueAgent(venueId: string): Promise<string | null | undefined> {
    const { rows } = await this.db.query<{ agent_id: string | null }>('select agent_id from venues where id = $1', [
      venueId,
    ]);
    return rows[0] ? rows[0].agent_id : undefined;
  }

  async setAgent(cabinetId: string, agentId: string | null) {
    await this.db.query('update cabinets set agent_id = $2 where id = $1', [cabinetId, agentId]);
  }

  /** Moves the cabinet to a venue (or none) if it is still at `version`; false when someone changed it since. */
  async assign(cabinetId: string, version: number, venueId: string | null, agentId: string | null): Promise<boolean> {
    const res = await this.db.query(
      'update cabinets set venue_id = $3, agent_id = $4, version = version + 1 where id = $1 and version = $2',
      [cabinetId, version, venueId, agentId],
    );
    return res.rowCount === 1;
  }

  /** Whether an eject aimed at this slot is still unanswered and valid (a rental's or an operator's). */
  async slotBusy(cabinetId: string, slot: number, now: Date): Promise<boolean> {
    const { rows } = await this.db.query(
      `select 1 from cabinet_commands where cabinet_id = $1 and result is null and expires_at > $3 and (payload->>'slot') = $2::text
          and type in ('eject', 'ops.eject') limit 1`,
      [cabinetId, slot, now],
    );
    return rows.length > 0;
  }

  async insertCommand(c: { id: string; cabinetId: string; type: string; payload: unknown; at: Date; expiresAt: Date }) {
    await this.db.query(
      'insert into cabinet_commands (id, cabinet_id, order_id, type, payload, created_at, expires_at) values ($1, $2, null, $3, $4, $5, $6)',
      [c.id, c.cabinetId, c.type, JSON.stringify(c.payload), c.at, c.expiresAt],
    );
  }

  async commandResult(id: string, result: string) {
    await this.db.query('update cabinet_commands set result = coalesce(result, $2) where id = $1', [id, result]);
  }
}
