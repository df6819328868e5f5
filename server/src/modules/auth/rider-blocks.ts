// Blocking a rider (back office, riders.block): a blocked rider cannot rent a power bank nor buy a Wi-Fi package;
// the rider API refuses those calls with the reason, in the rider's language (blockedRiderGuard). Blocking and
// unblocking are each one unit of work under the rider's row lock with their audit entry. A rider is inside a
// person's scope when they are a customer of one of the person's agents (platform-wide: every rider). A repeat
// of one's own block (or unblock) answers the rider as it is; someone else's block of a blocked rider is a 409.
import type { FastifyRequest, RouteOptions } from 'fastify';
import { inScope, type Scope } from '#core/opsAccess.ts';
import type { RiderShape } from '#contract/ops/riders.ts';
import type { Db } from '../../db/db.ts';
import type { Clock } from '../../lib/clock.ts';
import { conflict, notFound, refused } from '../../lib/errors.ts';
import type { Actor, AuditService } from '../audit/service.ts';
import type { BlockedUserRow, RiderBlocksRepository } from './blocks-repository.ts';

/** The rider API calls a blocked rider is refused: starting a rental, buying or paying a Wi-Fi package. */
export const BLOCKED_ROUTES = [
  '/cdb/cabinet/useDepositToRent',
  '/cdb/cabinet/savedCardToRent',
  '/cdb/cabinet/useBalanceToRent',
  '/chargenow/mifi/rent',
  '/chargenow/mifi/confirm',
];

/** The rider API scope's onRoute hook: the calls above refuse a blocked rider (after requireUser). */
export function blockedRiderGuard(route: RouteOptions) {
  if (!BLOCKED_ROUTES.some((path) => route.url.endsWith(path))) return;
  const refuse = async (req: FastifyRequest) => {
    const u = req.user as Partial<BlockedUserRow> | null;
    if (u?.blocked_at) throw refused('error.rider.blocked', { reason: u.blocked_reason ?? '' });
  };
  route.preHandler = [...[route.preHandler ?? []].flat(), refuse] as RouteOptions['preHandler'];
}

export interface RiderBlocksDeps {
  db: Db;
  clock: Clock;
  repo: RiderBlocksRepository;
  /** The agents a rider is a customer of (an account with it, a rental at its venues: riders-repository.ts). */
  customerOf(userId: string): Promise<string[]>;
  audit: AuditService;
}

export class RiderBlocks {
  constructor(private readonly d: RiderBlocksDeps) {}

  async get(scope: Scope, id: string): Promise<RiderShape> {
    const { row, agents } = await this.inScope(scope, id, await this.d.repo.find(id));
    return shape(row, agents);
  }

  block(scope: Scope, actor: Actor, id: string) {
    return this.change(scope, actor, id, true);
  }

  unblock(scope: Scope, actor: Actor, id: string) {
    return this.change(scope, actor, id, false);
  }

  private async inScope(scope: Scope, id: string, row: BlockedUserRow | undefined) {
    if (!row) throw notFound('error.notFound');
    const agents = await this.d.customerOf(id);
    if (scope.kind !== 'all' && !agents.some((a) => inScope(scope, a))) throw notFound('error.notFound');
    return { row, agents };
  }

  private async change(scope: Scope, actor: Actor, id: string, block: boolean): Promise<RiderShape> {
    const who = actor.email ?? `staff:${actor.staffId ?? '?'}`;
    return this.d.db.tx(async () => {
      const { row, agents } = await this.inScope(scope, id, await this.d.repo.lock(id));
      if (Boolean(row.blocked_at) === block) {
        // Already so: one's own repeat (a block by the same person, any unblock) answers as it is.
        if (!block || row.blocked_by === who) return shape(row, agents);
        throw conflict('error.rider.alreadyBlocked', { by: row.blocked_by ?? '?' });
      }
      await this.d.repo.set(id, block ? { at: this.d.clock.now(), reason: actor.reason ?? '', by: who } : null);
      const after = (await this.d.repo.find(id))!;
      await this.d.audit.record(actor, {
        action: block ? 'rider.block' : 'rider.unblock',
        entity: 'rider',
        entityId: id,
        agentId: agents[0] ?? null,
        before: { blocked: Boolean(row.blocked_at), reason: row.blocked_reason },
        after: { blocked: Boolean(after.blocked_at), reason: after.blocked_reason },
      });
      return shape(after, agents);
    });
  }
}

function shape(r: BlockedUserRow, agents: string[]): RiderShape {
  const opt = (v: string | null | undefined) => (v == null || v === '' ? undefined : v);
  return {
    id: String(r.id),
    kind: r.kind,
    name: r.name,
    email: opt(r.email),
    mobile: opt(r.mobile),
    createdAt: new Date(r.created_at).toISOString(),
    agents,
    blocked: Boolean(r.blocked_at),
    blockedAt: r.blocked_at ? new Date(r.blocked_at).toISOString() : undefined,
    blockedReason: opt(r.blocked_reason),
    blockedBy: opt(r.blocked_by),
  };
}
