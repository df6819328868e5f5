// Owns audit_log (append-only: the migration's trigger refuses UPDATE, DELETE and TRUNCATE).
import type { Queryable } from '../../db/db.ts';

export interface AuditRow {
  id: string;
  at: Date;
  staff_id: string | null;
  staff_email: string | null;
  ip: string | null;
  user_agent: string | null;
  action: string;
  entity: string;
  entity_id: string;
  agent_id: string | null;
  before: unknown;
  after: unknown;
  reason: string | null;
}

export interface AuditFilterValues {
  entity?: string;
  entityId?: string;
  staffId?: string;
  action?: string;
  from?: Date;
  to?: Date;
  /** Entries of these agents only (null: every entry; entries of no agent are the platform's). */
  agents: string[] | null;
}

const COLUMNS = `id::text as id, at, staff_id::text as staff_id, staff_email, ip, user_agent, action, entity, entity_id, agent_id, before, after, reason`;

/** The filter's WHERE, parameters from $1. */
function where(f: AuditFilterValues): { sql: string; params: unknown[] } {
  return {
    sql: `($1::text is null or entity = $1) and ($2::text is null or entity_id = $2) and ($3::bigint is null or staff_id = $3)
      and ($4::text is null or action = $4) and ($5::timestamptz is null or at >= $5) and ($6::timestamptz is null or at < $6)
      and ($7::text[] is null or agent_id = any($7::text[]))`,
    params: [
      f.entity ?? null,
      f.entityId ?? null,
      f.staffId ?? null,
      f.action ?? null,
      f.from ?? null,
      f.to ?? null,
      f.agents,
    ],
  };
}

export class AuditRepository {
  constructor(private readonly db: Queryable) {}

  async insert(e: Omit<AuditRow, 'id'>): Promise<void> {
    await this.db.query(
      `insert into audit_log (at, staff_id, staff_email, ip, user_agent, action, entity, entity_id, agent_id, before, after, reason)
       values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`,
      [
        e.at,
        e.staff_id,
        e.staff_email,
        e.ip,
        e.user_agent,
        e.action,
        e.entity,
        e.entity_id,
        e.agent_id,
        e.before === undefined ? null : JSON.stringify(e.before),
        e.after === undefined ? null : JSON.stringify(e.after),
        e.reason,
      ],
    );
  }

  /** Newest first, after the cursor `[at, id]`; `limit` rows. */
  async page(f: AuditFilterValues, after: [string, string] | undefined, limit: number): Promise<AuditRow[]> {
    const w = where(f);
    const params = [...w.params, limit, after?.[0] ?? null, after?.[1] ?? null];
    const { rows } = await this.db.query<AuditRow>(
      `select ${COLUMNS} from audit_log where ${w.sql}
         and ($9::timestamptz is null or (at, id) < ($9::timestamptz, $10::bigint))
       order by at desc, audit_log.id desc limit $8`,
      params,
    );
    return rows;
  }
}
