// The audit log: every back-office write records who, when, from where, what (the entity, its id, the row before
// and after) and the reason typed, in the write's own unit of work, so a write is never without its entry.
import type { Clock } from '../../lib/clock.ts';
import { csvPages } from '../../lib/csv.ts';
import { decodeCursor, pageOf } from '../../lib/ops-query.ts';
import type { AuditEntry } from '#contract/ops/audit.ts';
import type { AuditFilterValues, AuditRepository, AuditRow } from './repository.ts';

/** Who writes, from where, and why (plugins/ops-api.ts makes it from the request). */
export interface Actor {
  staffId: string | null;
  email: string | null;
  ip: string;
  userAgent: string;
  reason: string | null;
}

export interface AuditRecord {
  action: string;
  entity: string;
  entityId: string;
  agentId?: string | null;
  before?: unknown;
  after?: unknown;
}

export const CSV_COLUMNS = [
  'id',
  'at',
  'staff_id',
  'staff_email',
  'ip',
  'user_agent',
  'action',
  'entity',
  'entity_id',
  'agent_id',
  'before',
  'after',
  'reason',
] as const;

export class AuditService {
  constructor(
    private readonly repo: AuditRepository,
    private readonly clock: Clock,
  ) {}

  /** Records one write; call it inside the write's unit of work. */
  async record(actor: Actor, r: AuditRecord): Promise<void> {
    await this.repo.insert({
      at: this.clock.now(),
      staff_id: actor.staffId,
      staff_email: actor.email,
      ip: actor.ip,
      user_agent: actor.userAgent.slice(0, 300),
      action: r.action,
      entity: r.entity,
      entity_id: r.entityId,
      agent_id: r.agentId ?? null,
      before: r.before,
      after: r.after,
      reason: actor.reason,
    });
  }

  async list(f: AuditFilterValues, cursor: string | undefined, limit: number) {
    const rows = await this.repo.page(f, decodeCursor(cursor), limit + 1);
    return pageOf(rows, limit, (r) => [new Date(r.at).toISOString(), r.id], toEntry);
  }

  /** The CSV export, page by page (never the whole log in memory). */
  csv(f: AuditFilterValues): AsyncGenerator<string> {
    return csvPages({
      columns: CSV_COLUMNS,
      page: (after, limit) => this.repo.page(f, after, limit),
      cursorOf: (r) => [new Date(r.at).toISOString(), r.id],
      records: (rows) => rows.map((r) => CSV_COLUMNS.map((c) => r[c])),
    });
  }
}

function toEntry(r: AuditRow): AuditEntry {
  const opt = <T>(v: T | null) => (v == null ? undefined : v);
  return {
    id: r.id,
    at: new Date(r.at).toISOString(),
    staffId: opt(r.staff_id),
    staffEmail: opt(r.staff_email),
    ip: opt(r.ip),
    userAgent: opt(r.user_agent),
    action: r.action,
    entity: r.entity,
    entityId: r.entity_id,
    agentId: opt(r.agent_id),
    before: opt(r.before),
    after: opt(r.after),
    reason: opt(r.reason),
  };
}
