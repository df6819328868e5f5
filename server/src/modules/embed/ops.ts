// Agents through the ops API: the list inside the caller's scope (a venue partner sees its venues' agent, to read
// the embed's setup, never to change it), one agent with its ETag, and changes (If-Match) with their audit entry. A new agent is a platform-wide act: only staff of every
// agent make one.
import type { AgentChangeBody, AgentListQuery } from '#contract/ops/fleet.ts';
import type { Agent, AgentCreate } from '#contract/ops-fleet.ts';
import { inScope, type Scope } from '#core/opsAccess.ts';
import type { Db } from '../../db/db.ts';
import { AppError, notFound } from '../../lib/errors.ts';
import { decodeCursor, pageOf } from '../../lib/ops-query.ts';
import type { Actor, AuditService } from '../audit/service.ts';
import { FLEET_ID } from '../../lib/ops-query.ts';
import type { AgentsService } from './agents.ts';
import type { AgentsOpsRepository } from './ops-repository.ts';

/** Readable: the agents of the scope, a venue partner's agent included. */
const readable = (scope: Scope, id: string) =>
  scope.kind === 'all' || (scope.kind === 'agents' && scope.agents.includes(id));
/** Changeable: the agents of the scope but a venue partner's. */
const changeable = (scope: Scope, id: string) => inScope(scope, id) && !(scope.kind === 'agents' && scope.venues[id]);

export class AgentsOps {
  constructor(private readonly d: { db: Db; agents: AgentsService; repo: AgentsOpsRepository; audit: AuditService }) {}

  async list(scope: Scope, q: AgentListQuery) {
    const limit = q.limit ?? 50;
    const rows = await this.d.repo.list({
      scope,
      q: q.q,
      sort: q.sort,
      after: decodeCursor(q.cursor, FLEET_ID),
      limit: limit + 1,
    });
    return pageOf(
      rows,
      limit,
      (r) => [r.sort_key, r.id],
      (r) => ({
        id: r.id,
        name: r.name,
        country: r.country?.trim() ?? null,
        currencies: r.currencies.map((c) => c.trim()),
        origins: r.origins,
        depositByPayment: r.deposit_by_payment === true,
        version: r.version,
      }),
    );
  }

  async get(scope: Scope, id: string): Promise<Agent> {
    if (!readable(scope, id)) throw notFound('ops.error.notFound');
    return this.d.agents.get(id).catch(() => {
      throw notFound('ops.error.notFound');
    });
  }

  async create(scope: Scope, actor: Actor, body: AgentCreate): Promise<Agent> {
    if (scope.kind !== 'all') throw new AppError(403, 'ops.error.forbidden');
    return this.d.db.tx(async () => {
      const after = await this.d.agents.create(body);
      await this.d.audit.record(actor, {
        action: 'agent.create',
        entity: 'agent',
        entityId: after.id,
        agentId: after.id,
        after,
      });
      return after;
    });
  }

  async update(
    scope: Scope,
    actor: Actor,
    id: string,
    version: number,
    change: Omit<AgentChangeBody, 'reason'>,
  ): Promise<Agent> {
    if (!changeable(scope, id)) throw notFound('ops.error.notFound');
    return this.d.db.tx(async () => {
      const before = await this.get(scope, id);
      const after = await this.d.agents.update(id, { ...change, version });
      await this.d.audit.record(actor, {
        action: 'agent.update',
        entity: 'agent',
        entityId: id,
        agentId: id,
        before,
        after,
      });
      return after;
    });
  }
}
