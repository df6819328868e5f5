// Venues through the ops API: the fleet's venue operations (admin.ts) inside the caller's scope (a venue of
// another agent is not found), each write in one unit of work with its audit entry (before, after, reason).
import type { VenueChangeBody, VenueListQuery } from '#contract/ops/fleet.ts';
import type { Venue, VenueCreate } from '#contract/ops-fleet.ts';
import { inScope, type Scope } from '#core/opsAccess.ts';
import type { Db } from '../../db/db.ts';
import { notFound } from '../../lib/errors.ts';
import { decodeCursor, FLEET_ID, pageOf } from '../../lib/ops-query.ts';
import { Problems } from '../../lib/validate.ts';
import type { Actor, AuditService } from '../audit/service.ts';
import { toVenue, type VenuesAdminService } from './admin.ts';
import type { VenuesOpsRepository } from './ops-repository.ts';

/** Whether a caller may put an object under `agentId` (null: the platform's, only for platform-wide staff). */
export function mayOwn(scope: Scope, agentId: string | null | undefined): boolean {
  return scope.kind === 'all' || (agentId != null && inScope(scope, agentId));
}

export interface VenuesOpsDeps {
  db: Db;
  venues: VenuesAdminService;
  repo: VenuesOpsRepository;
  audit: AuditService;
}

export class VenuesOps {
  constructor(private readonly d: VenuesOpsDeps) {}

  async list(scope: Scope, q: VenueListQuery) {
    const limit = q.limit ?? 50;
    const rows = await this.d.repo.list({
      scope,
      q: q.q,
      state: q.state,
      agentId: q.agentId,
      sort: q.sort,
      after: decodeCursor(q.cursor, FLEET_ID),
      limit: limit + 1,
    });
    return pageOf(rows, limit, (r) => [r.sort_key, r.id], toVenue);
  }

  /** A venue inside the scope; 404 outside it, as if it did not exist. */
  async get(scope: Scope, id: string): Promise<Venue> {
    const v = await this.d.venues.get(id).catch(() => undefined);
    if (!v || !inScope(scope, v.agentId, v.id)) throw notFound('ops.error.notFound');
    return v;
  }

  async create(scope: Scope, actor: Actor, body: VenueCreate): Promise<Venue> {
    if (!mayOwn(scope, body.agentId))
      new Problems().add('agentId', body.agentId ? 'notFound' : 'required').throwIfAny();
    return this.d.db.tx(async () => {
      const after = await this.d.venues.create(body);
      await this.d.audit.record(actor, {
        action: 'venue.create',
        entity: 'venue',
        entityId: after.id,
        agentId: after.agentId,
        after,
      });
      return after;
    });
  }

  /** Changes a venue read at `version` (If-Match); 409 when someone saved it since. */
  async update(
    scope: Scope,
    actor: Actor,
    id: string,
    version: number,
    change: Omit<VenueChangeBody, 'reason'>,
  ): Promise<Venue> {
    if (change.agentId !== undefined && !mayOwn(scope, change.agentId))
      new Problems().add('agentId', change.agentId ? 'notFound' : 'required').throwIfAny();
    return this.d.db.tx(async () => {
      const before = await this.get(scope, id);
      const after = await this.d.venues.update(id, { ...change, version });
      await this.d.audit.record(actor, {
        action: 'venue.update',
        entity: 'venue',
        entityId: id,
        agentId: after.agentId,
        before,
        after,
      });
      return after;
    });
  }
}
