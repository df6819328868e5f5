// The ops API's dead jobs (jobs.manage: admins and owners of the platform; jobs belong to no agent, so a membership
// of one agent is refused with 403): the list, and retry or abandon with a reason, each with its audit entry in the
// action's unit of work. A job that is no longer dead (someone else acted first) is a 404.
import { DeadJobAction, DeadJobActionResponses, DeadJobList, DeadJobParams } from '#contract/ops/jobs.ts';
import { OpsError } from '#contract/ops/common.ts';
import type { FastifyRequest } from 'fastify';
import type { Db } from '../db/db.ts';
import { AppError, notFound } from '../lib/errors.ts';
import type { App } from '../lib/route.ts';
import type { AuditService } from '../modules/audit/service.ts';
import { actorOf } from '../plugins/ops-api.ts';
import type { DeadJobsService } from './dead.ts';

const platformOnly = (req: FastifyRequest) => {
  if (req.opsScope.kind !== 'all') throw new AppError(403, 'ops.error.forbidden');
};

export function deadJobOpsRoutes(o: { db: Db; deadJobs: DeadJobsService; audit: AuditService }) {
  const act =
    (action: 'retry' | 'abandon') =>
    async (req: FastifyRequest<{ Params: { id: string }; Body: { reason: string } }>) => {
      platformOnly(req);
      const actor = actorOf(req, req.body.reason);
      const id = Number(req.params.id);
      await o.db.tx(async () => {
        const job = await o.deadJobs.lock(id);
        if (!job) throw notFound('error.notFound');
        if (action === 'retry') await o.deadJobs.retry(id);
        else await o.deadJobs.abandon(id, actor.email ?? `staff:${actor.staffId ?? '?'}`);
        await o.audit.record(actor, {
          action: `job.${action}`,
          entity: 'job',
          entityId: String(id),
          before: { kind: job.kind, attempts: job.attempts, lastError: job.last_error, state: 'dead' },
          after: { state: action === 'retry' ? 'due' : 'abandoned' },
        });
      });
      return { ok: true as const };
    };
  return async (ops: App) => {
    ops.get(
      '/jobs/dead',
      {
        config: { permission: 'jobs.manage' },
        schema: { description: 'Newest first (up to 200).', response: { 200: DeadJobList, 403: OpsError } },
      },
      async (req) => {
        platformOnly(req);
        const rows = await o.deadJobs.list(200);
        return {
          items: rows.map((j) => ({
            id: String(j.id),
            kind: j.kind,
            payload: j.payload,
            attempts: j.attempts,
            deadAt: new Date(j.dead_at).toISOString(),
            ...(j.last_error ? { lastError: j.last_error } : {}),
          })),
        };
      },
    );
    ops.post(
      '/jobs/dead/:id/retry',
      {
        config: { permission: 'jobs.manage' },
        schema: {
          description: 'Due again now with a fresh attempt budget.',
          params: DeadJobParams,
          body: DeadJobAction,
          response: DeadJobActionResponses,
        },
      },
      act('retry'),
    );
    ops.post(
      '/jobs/dead/:id/abandon',
      {
        config: { permission: 'jobs.manage' },
        schema: {
          description: 'Done without running again (its cause was handled another way).',
          params: DeadJobParams,
          body: DeadJobAction,
          response: DeadJobActionResponses,
        },
      },
      act('abandon'),
    );
  };
}
