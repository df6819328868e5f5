// The ops API's agents (docs/api.md "Ops API"): the operators a venue belongs to, their currencies and the exact
// origins allowed to frame the embed. Reading needs fleet.read, writing agents.write (a new agent: platform staff).
import type { Db } from '../../db/db.ts';
import type { Fleet } from '../../fleet.ts';
import type { App } from '../../lib/route.ts';
import { expectedVersion, sendVersion } from '../../lib/ops-concurrency.ts';
import {
  Agent,
  AgentChangeBody,
  AgentCreateBody,
  AgentListQuery,
  AgentPage,
  FleetIdParams,
} from '#contract/ops/fleet.ts';
import { actorOf } from '../../plugins/ops-api.ts';
import type { AuditService } from '../audit/service.ts';
import { AgentsOps } from './ops.ts';
import { AgentsOpsRepository } from './ops-repository.ts';

export function agentsOpsRoutes(o: { db: Db; fleet: Fleet; audit: AuditService }) {
  const agents = new AgentsOps({
    db: o.db,
    agents: o.fleet.agents,
    repo: new AgentsOpsRepository(o.db),
    audit: o.audit,
  });
  return async (ops: App) => {
    ops.get(
      '/agents',
      { config: { permission: 'fleet.read' }, schema: { querystring: AgentListQuery, response: { 200: AgentPage } } },
      async (req) => agents.list(req.opsScope, req.query),
    );

    ops.get(
      '/agents/:id',
      { config: { permission: 'fleet.read' }, schema: { params: FleetIdParams, response: { 200: Agent } } },
      async (req, reply) => {
        const a = await agents.get(req.opsScope, req.params.id);
        sendVersion(reply, a.version);
        return a;
      },
    );

    ops.post(
      '/agents',
      {
        config: { permission: 'agents.write' },
        schema: {
          description: 'Platform staff only (403 otherwise).',
          body: AgentCreateBody,
          response: { 200: Agent },
        },
      },
      async (req, reply) => {
        const { reason, ...agent } = req.body;
        const a = await agents.create(req.opsScope, actorOf(req, reason), agent);
        sendVersion(reply, a.version);
        return a;
      },
    );

    ops.patch(
      '/agents/:id',
      {
        config: { permission: 'agents.write' },
        schema: {
          description: 'Needs If-Match with the ETag read; a save after another one answers 409 and changes nothing.',
          params: FleetIdParams,
          body: AgentChangeBody,
          response: { 200: Agent },
        },
      },
      async (req, reply) => {
        const { reason, ...change } = req.body;
        const a = await agents.update(req.opsScope, actorOf(req, reason), req.params.id, expectedVersion(req), change);
        sendVersion(reply, a.version);
        return a;
      },
    );
  };
}
