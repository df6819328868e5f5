// The audit log: every back-office write records who, when, from where, what (the entity, its id, the row before
// and after) and the reason typed, in the write's own unit of work, so a write is never without its entry.
import type { Clock } from '../../lib/clock.ts';
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

const EXPORT_PAGE = 500;
export const CSV_COLUMNS = ['id', 'at', 'staff_id', 'staff_email', 'ip', 'user_agent', 'action', 'entity', 'entity_id', 'agent_id', 'before', 'after', 'reason'] as const;

/** One CSV field (RFC 4180), with spreadsheet formulas neutralised (a leading = + - @ is prefixed with '). */
export function csvField(v: unknown): string {
  let s = v == null ? '' : v instanceof Date ? v.toISOString() : typeof v === 'object' ? JSON.stringify(v) : String(v as string);
  if (/^[=+\-@\t\r]/.test(s)) s = `'${s}`;
  return /[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

export class AuditService {
  constructor(private readonly repo: AuditRepository, private readonly clock: Clock) {}

  /** Records one write; call it inside the write's unit of work. */
  async record(actor: Actor, r: AuditRecord): Promise<void> {
    await this.repo.insert({
      at: this.clock.now(), staff_id: actor.staffId, staff_email: actor.email, ip: actor.ip, user_agent: actor.userAgent.slice(0, 300),
      action: r.action, entity: r.entity, entity_id: r.entityId, agent_id: r.agentId ?? null, before: r.before, after: r.after, reason: actor.reason,
    });
  }

  async list(f: AuditFilterValues, cursor: string | undefined, limit: number) {
    const rows = await this.repo.page(f, decodeCursor(cursor), limit + 1);
    return pageOf(rows, limit, (r) => [new Date(r.at).toISOString(), r.id], toEntry);
  }

  /** The CSV export, page by page (never the whole log in memory). */
  async *csv(f: AuditFilterValues): AsyncGenerator<string> {
    yield `${CSV_COLUMNS.join(',')}\r\n`;
    let after: [string, string] | undefined;
    for (;;) {
      const rows = await this.repo.page(f, after, EXPORT_PAGE);
      if (!rows.length) return;
      yield rows.map((r) => `${CSV_COLUMNS.map((c) => csvField(r[c])).join(',')}\r\n`).join('');
      const last = rows[rows.length - 1]!;
      after = [new Date(last.at).toISOString(), last.id];
      if (rows.length < EXPORT_PAGE) return;
    }
  }
}

function toEntry(r: AuditRow): AuditEntry {
  const opt = <T>(v: T | null) => (v == null ? undefined : v);
  return {
    id: r.id, at: new Date(r.at).toISOString(), staffId: opt(r.staff_id), staffEmail: opt(r.staff_email), ip: opt(r.ip), userAgent: opt(r.user_agent),
    action: r.action, entity: r.entity, entityId: r.entity_id, agentId: opt(r.agent_id), before: opt(r.before), after: opt(r.after), reason: opt(r.reason),
  };
}
