// The ops API's audit log: a filtered, cursor-paged list and a streamed CSV export. An operator sees the entries
// of their agents (and, platform-wide, every entry).
import type { FastifyRequest } from 'fastify';
import { sendCsv } from '../../lib/csv.ts';
import type { App } from '../../lib/route.ts';
import { AuditExportQuery, AuditListQuery, AuditPage } from '#contract/ops/audit.ts';
import type { AuditFilterValues } from './repository.ts';
import type { AuditService } from './service.ts';

type Filter = { entity?: string; entityId?: string; staffId?: string; action?: string; from?: string; to?: string };

function filterOf(req: FastifyRequest, q: Filter): AuditFilterValues {
  const s = req.opsScope;
  return {
    entity: q.entity,
    entityId: q.entityId,
    staffId: q.staffId,
    action: q.action,
    from: q.from ? new Date(q.from) : undefined,
    to: q.to ? new Date(q.to) : undefined,
    agents: s.kind === 'all' ? null : s.kind === 'agents' ? s.agents : [],
  };
}

export function auditOpsRoutes(o: { audit: AuditService }) {
  return async (ops: App) => {
    ops.get(
      '/audit',
      { config: { permission: 'audit.read' }, schema: { querystring: AuditListQuery, response: { 200: AuditPage } } },
      async (req) => o.audit.list(filterOf(req, req.query), req.query.cursor, req.query.limit ?? 50),
    );

    ops.get(
      '/audit.csv',
      {
        config: { permission: 'audit.export' },
        schema: { summary: 'Export the audit log as CSV', querystring: AuditExportQuery, produces: ['text/csv'] },
      },
      async (req, reply) => sendCsv(reply, 'audit', o.audit.csv(filterOf(req, req.query))),
    );
  };
}
