// Price plans through the ops API: the fleet's plan operations (plans.ts) inside the caller's scope (a plan of a
// venue or agent outside it is not found), each write audited with its reason, and the fee preview. A plan has no
// version column: its ETag is a digest of the plan as read, and a save checks it under the row's lock.
import type { PlanDraftPreview } from '#contract/ops/fleet.ts';
import type { FeePreview, Plan, PlanCreate, PlanUpdate } from '#contract/ops-fleet.ts';
import { inScope, type Scope } from '#core/opsAccess.ts';
import type { Db } from '../../db/db.ts';
import { AppError, notFound } from '../../lib/errors.ts';
import { sha256 } from '../../lib/ids.ts';
import { staleVersion } from '../../lib/ops-concurrency.ts';
import { Problems } from '../../lib/validate.ts';
import type { Actor, AuditService } from '../audit/service.ts';
import type { VenuesAdminService } from './admin.ts';
import type { PricePlansService } from './plans.ts';
import type { VenuesOpsRepository } from './ops-repository.ts';

/** The ETag of a plan as read: any change to it changes the tag. */
export const planTag = (p: Plan) => `"p${sha256(JSON.stringify(p)).slice(0, 24)}"`;

export interface PlansOpsDeps {
  db: Db;
  plans: PricePlansService;
  venues: VenuesAdminService;
  repo: VenuesOpsRepository;
  audit: AuditService;
}

export class PlansOps {
  constructor(private readonly d: PlansOpsDeps) {}

  /** The agent a venue belongs to, when the venue is inside the scope (else undefined). */
  private async venueAgent(
    scope: Scope,
    venueId: string,
  ): Promise<{ agentId: string | null; currency: string } | undefined> {
    const v = await this.d.venues.get(venueId).catch(() => undefined);
    return v && inScope(scope, v.agentId, v.id) ? { agentId: v.agentId, currency: v.currency } : undefined;
  }

  private async owned(scope: Scope, owner: { venueId?: string | null; agentId?: string | null }) {
    if (owner.venueId) return (await this.venueAgent(scope, owner.venueId)) !== undefined;
    return (
      !!owner.agentId && inScope(scope, owner.agentId) && !(scope.kind === 'agents' && scope.venues[owner.agentId])
    );
  }

  async list(scope: Scope, owner: { venueId?: string; agentId?: string }): Promise<{ items: Plan[] }> {
    if (!owner.venueId === !owner.agentId)
      new Problems().add(owner.venueId ? 'agentId' : 'venueId', owner.venueId ? 'invalid' : 'required').throwIfAny();
    if (!(await this.owned(scope, owner))) throw notFound('ops.error.notFound');
    return { items: await this.d.plans.list(owner.venueId ? { venueId: owner.venueId } : { agentId: owner.agentId! }) };
  }

  async get(scope: Scope, id: number): Promise<Plan> {
    const p = await this.d.plans.get(id).catch(() => undefined);
    if (!p || !(await this.owned(scope, p))) throw notFound('ops.error.notFound');
    return p;
  }

  async create(scope: Scope, actor: Actor, body: PlanCreate): Promise<Plan> {
    if ((body.venueId || body.agentId) && !(await this.owned(scope, body))) {
      new Problems().add(body.venueId ? 'venueId' : 'agentId', 'notFound').throwIfAny();
    }
    return this.d.db.tx(async () => {
      const after = await this.d.plans.create(body);
      await this.d.audit.record(actor, {
        action: 'plan.create',
        entity: 'price_plan',
        entityId: String(after.id),
        agentId: await this.agentOf(after),
        after,
      });
      return after;
    });
  }

  /** Changes a plan not yet in effect, read with `tag` (If-Match); 409 when it changed since or is in effect. */
  async update(scope: Scope, actor: Actor, id: number, tag: string | undefined, change: PlanUpdate): Promise<Plan> {
    if (!tag) throw new AppError(428, 'ops.error.ifMatch');
    return this.d.db.tx(async () => {
      await this.d.repo.lockPlan(id);
      const before = await this.get(scope, id);
      if (planTag(before) !== tag.replace(/^W\//, '')) throw staleVersion();
      const after = await this.d.plans.update(id, change);
      await this.d.audit.record(actor, {
        action: 'plan.update',
        entity: 'price_plan',
        entityId: String(id),
        agentId: await this.agentOf(after),
        before,
        after,
      });
      return after;
    });
  }

  async preview(scope: Scope, id: number, minutes: number[]): Promise<FeePreview> {
    await this.get(scope, id);
    return this.d.plans.preview(id, { minutes });
  }

  /** The fees of a plan being edited: in its venue's currency, or the currency named for an agent's plan. */
  async previewDraft(scope: Scope, body: PlanDraftPreview): Promise<FeePreview> {
    const { venueId, agentId, currency } = body.plan;
    let cur = currency;
    if (venueId) {
      const v = await this.venueAgent(scope, venueId);
      if (!v) new Problems().add('plan.venueId', 'notFound').throwIfAny();
      cur = v!.currency;
    } else if (agentId && !(await this.owned(scope, { agentId })))
      new Problems().add('plan.agentId', 'notFound').throwIfAny();
    if (!cur) new Problems().add('plan.currency', 'required').throwIfAny();
    return this.d.plans.previewDraft(body.plan, cur!, { minutes: body.minutes });
  }

  private async agentOf(p: Plan): Promise<string | null> {
    return p.agentId ?? (p.venueId ? (await this.d.venues.get(p.venueId)).agentId : null);
  }
}
