// The ops API's cabinet inbox (jobs.manage: admins and owners of the platform; refused messages and unknown power
// banks belong to no agent, so a membership of one agent is refused with 403), the same operations as
// `npm run cabinet:inbox`, which stays: the list, a dead event sent back to processing, a quarantined power bank
// released (lendable in the slot it is in). Each action with a reason and its audit entry in its unit of work; the
// change is compare-and-set, so of two people acting at once one changes it and the other gets a 404 (nothing to act
// on any more), as does a repeat.
import {
  CabinetInbox,
  InboxAction,
  InboxActionResponses,
  InboxEventParams,
  InboxQuery,
  PowerbankParams,
} from '#contract/ops/cabinet-inbox.ts';
import { OpsError } from '#contract/ops/common.ts';
import type { FastifyRequest } from 'fastify';
import type { Db } from '../../db/db.ts';
import { AppError, notFound } from '../../lib/errors.ts';
import type { App } from '../../lib/route.ts';
import { actorOf } from '../../plugins/ops-api.ts';
import type { AuditService } from '../audit/service.ts';
import type { CabinetFleetService } from './fleet.ts';

const platformOnly = (req: FastifyRequest) => {
  if (req.opsScope.kind !== 'all') throw new AppError(403, 'ops.error.forbidden');
};
const iso = (d: Date | string) => new Date(d).toISOString();

export function cabinetInboxOpsRoutes(o: { db: Db; cabinets: CabinetFleetService; audit: AuditService }) {
  return async (ops: App) => {
    ops.get(
      '/cabinet-inbox',
      {
        config: { permission: 'jobs.manage' },
        schema: {
          description:
            'The inbox’s counts, its dead (or pending) events, the refused messages and the quarantined power banks.',
          querystring: InboxQuery,
          response: { 200: CabinetInbox, 400: OpsError, 403: OpsError },
        },
      },
      async (req) => {
        platformOnly(req);
        const { counts, events, rejects, quarantined } = await o.cabinets.inbox(req.query.state ?? 'dead');
        return {
          counts,
          events: events.map((e) => ({
            id: e.id,
            cabinetId: e.cabinet_id,
            type: e.type,
            payload: e.payload,
            state: e.state,
            attempts: e.attempts,
            receivedAt: iso(e.received_at),
            ...(e.last_error ? { lastError: e.last_error } : {}),
          })),
          rejects: rejects.map((r) => ({
            cabinetId: r.cabinet_id,
            reason: r.reason,
            count: r.count,
            lastAt: iso(r.last_at),
            ...(r.last_payload ? { lastPayload: r.last_payload } : {}),
          })),
          quarantined: quarantined.map((b) => ({
            id: b.id,
            ...(b.cabinet_id ? { cabinetId: b.cabinet_id } : {}),
            ...(b.slot != null ? { slot: b.slot } : {}),
            ...(b.seen_at ? { seenAt: iso(b.seen_at) } : {}),
          })),
        };
      },
    );

    ops.post(
      '/cabinet-inbox/events/:id/retry',
      {
        config: { permission: 'jobs.manage' },
        schema: {
          description:
            'A dead event is pending again with a fresh attempt budget (after its cause is fixed); not dead (any more): 404.',
          params: InboxEventParams,
          body: InboxAction,
          response: InboxActionResponses,
        },
      },
      async (req) => {
        platformOnly(req);
        const actor = actorOf(req, req.body.reason);
        await o.db.tx(async () => {
          if (!(await o.cabinets.retryEvent(req.params.id))) throw notFound('error.notFound');
          await o.audit.record(actor, {
            action: 'cabinet.event.retry',
            entity: 'cabinet_event',
            entityId: req.params.id,
            before: { state: 'dead' },
            after: { state: 'pending' },
          });
        });
        return { ok: true as const };
      },
    );

    ops.post(
      '/cabinet-inbox/powerbanks/:id/release',
      {
        config: { permission: 'jobs.manage' },
        schema: {
          description:
            'A quarantined power bank becomes lendable in the slot it is in; not quarantined (any more): 404.',
          params: PowerbankParams,
          body: InboxAction,
          response: InboxActionResponses,
        },
      },
      async (req) => {
        platformOnly(req);
        const actor = actorOf(req, req.body.reason);
        await o.db.tx(async () => {
          if (!(await o.cabinets.releasePowerbank(req.params.id))) throw notFound('error.notFound');
          await o.audit.record(actor, {
            action: 'powerbank.release',
            entity: 'powerbank',
            entityId: req.params.id,
            before: { state: 'quarantined' },
            after: { state: 'in_cabinet' },
          });
        });
        return { ok: true as const };
      },
    );
  };
}
