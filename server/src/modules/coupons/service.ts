// Coupons: a percentage or a fixed amount off what a paying call charges. A flow that takes `couponNo` reserves
// the coupon's use for its charge before the provider is asked (the limits count it from then), charges the amount
// less the discount, redeems it in the unit of work that records the charge (the ledger's discount entry with it),
// and releases it when the charge is declined, released or never finished. A refused coupon is a 422 in the user's
// language before anything is charged.
import type { Db } from '../../db/db.ts';
import type { Clock } from '../../lib/clock.ts';
import { badRequest, conflict, notFound, refused } from '../../lib/errors.ts';
import { decodeCursor, pageOf } from '../../lib/ops-query.ts';
import { inScope, type Scope } from '#core/opsAccess.ts';
import type { Coupon, CouponCreate, CouponDetail } from '#contract/ops/coupons.ts';
import type { Actor, AuditService } from '../audit/service.ts';
import { PLATFORM, type LedgerService } from '../ledger/service.ts';
import type { CouponRow, CouponStats, CouponsRepository, RedemptionRow } from './repository.ts';

/** What a flow charges, and for what: the coupon applies to it or is refused. */
export interface CouponUse {
  code: string;
  userId: number;
  /** The agent and venue of what is paid (the coupon's scope). */
  agentId: string;
  venueId: string | null;
  currency: string;
  /** What the server computed before the coupon, minor units. */
  gross: number;
  orderId: string;
  purpose: string;
}

/** A reserved use: the charge is `gross - discount`. */
export interface Reservation {
  id: string;
  discount: number;
  gross: number;
}

export interface CouponsDeps {
  db: Db;
  repo: CouponsRepository;
  clock: Clock;
  ledger: LedgerService;
  audit: AuditService;
  agentExists: (id: string) => Promise<boolean>;
}

/** The discount of `c` on `gross` (minor units): never more than the amount, at least one unit. */
export function discountOf(c: Pick<CouponRow, 'kind' | 'percent' | 'amount'>, gross: number): number {
  const d = c.kind === 'percent' ? Math.floor((gross * c.percent!) / 100) : c.amount!;
  return Math.min(gross, Math.max(1, d));
}

export class CouponsService {
  constructor(private readonly d: CouponsDeps) {}

  get repo() {
    return this.d.repo;
  }

  /**
   * Reserves the coupon's use for an order's charge, in the caller's unit of work (or its own), under the coupon's
   * row lock: the last use of a limited coupon goes to one charge only. The same coupon asked again for the same
   * charge (a retry) is the same reservation; a reservation of an earlier attempt with another coupon or amount is
   * released first (that attempt's charge can then no longer redeem it, and is given back).
   */
  async reserve(u: CouponUse): Promise<Reservation> {
    return this.atomic(async () => {
      const c = await this.usable(u, { lock: true });
      const now = this.d.clock.now();
      const prior = await this.d.repo.live(u.orderId, u.purpose);
      if (prior) {
        if (
          prior.coupon_id === c.id &&
          prior.user_id === u.userId &&
          prior.gross === u.gross &&
          prior.status === 'reserved'
        )
          return reservation(prior);
        if (prior.status === 'redeemed') throw conflict('error.coupon.applied');
        await this.d.repo.settle(prior.id, 'released', now);
      }
      await this.withinLimits(c, u.userId);
      return reservation(
        await this.d.repo.insertRedemption({
          coupon_id: c.id,
          user_id: u.userId,
          order_id: u.orderId,
          purpose: u.purpose,
          gross: u.gross,
          discount: discountOf(c, u.gross),
          currency: u.currency,
          created_at: now,
        }),
      );
    });
  }

  /**
   * What the coupon would take off `gross` for this rider now, without reserving anything (the screen shows it before
   * paying; the paying call reserves it and may still refuse it, e.g. its last use taken meanwhile). Refused as reserve is.
   */
  async preview(u: Omit<CouponUse, 'orderId' | 'purpose'>): Promise<number> {
    const c = await this.usable(u);
    await this.withinLimits(c, u.userId);
    return discountOf(c, u.gross);
  }

  /** The coupon of `u`, if it applies to it now (known, running, its currency and scope), else the refusal. */
  private async usable(
    u: Pick<CouponUse, 'code' | 'currency' | 'agentId' | 'venueId'>,
    opts: { lock?: boolean } = {},
  ): Promise<CouponRow> {
    const c = await this.d.repo.byCode(u.code.trim(), opts);
    if (!c) throw refused('error.coupon.unknown');
    const now = this.d.clock.now();
    if (c.paused) throw refused('error.coupon.paused');
    if (now < c.valid_from) throw refused('error.coupon.notYet');
    if (now >= c.valid_to) throw refused('error.coupon.expired');
    if (c.kind === 'fixed' && c.currency !== u.currency)
      throw refused('error.coupon.currency', { currency: c.currency! });
    if ((c.agent_id && c.agent_id !== u.agentId) || (c.venue_id && c.venue_id !== u.venueId))
      throw refused('error.coupon.scope');
    return c;
  }

  /** Refused when the coupon is used up in total or by this rider (reserved uses count). */
  private async withinLimits(c: CouponRow, userId: number) {
    const used = await this.d.repo.uses(c.id, userId);
    if (c.limit_total !== null && used.total >= c.limit_total) throw refused('error.coupon.usedUp');
    if (used.mine >= c.limit_per_user) throw refused('error.coupon.usedByYou');
  }

  /** Releases one reserved use (a charge given back), unless it was redeemed or released already or replaced by another. */
  async releaseUse(id: string): Promise<void> {
    await this.d.repo.settle(id, 'released', this.d.clock.now());
  }

  /** The reserved use of an order's charge for `purpose` (a resumed or guarded payment finds its discount here). */
  async reserved(orderId: string, purpose: string): Promise<Reservation | null> {
    const r = await this.atomic(() => this.d.repo.live(orderId, purpose));
    return r?.status === 'reserved' ? reservation(r) : null;
  }

  /**
   * Redeems a reserved use in the caller's unit of work (the one recording the charge) and writes the discount to the
   * ledger: the platform's discount account (debit) pays the rest of the revenue (credit), so revenue less discounts
   * is what was charged. Refused when the reservation is no longer live (released meanwhile): the charge is not taken.
   */
  async redeem(id: string, orderId: string, currency: string, discount: number): Promise<void> {
    if (!(await this.d.repo.settle(id, 'redeemed', this.d.clock.now()))) throw refused('error.coupon.released');
    const ledger = this.d.ledger;
    await ledger.transfer({
      debit: await ledger.account(PLATFORM, 'discount', currency),
      credit: await ledger.account(PLATFORM, 'revenue', currency),
      amount: discount,
      code: 'coupon',
      orderId,
      at: this.d.clock.now(),
    });
  }

  /** Releases the reserved use of an order's charge (declined, released, never finished); a redeemed one stays. */
  async release(orderId: string, purpose: string): Promise<void> {
    await this.atomic(async () => {
      const r = await this.d.repo.live(orderId, purpose);
      if (r?.status === 'reserved') await this.d.repo.settle(r.id, 'released', this.d.clock.now());
    });
  }

  // The back office.

  /** Creates a coupon (the demo seed too, with `actor` null: no audit entry). */
  async create(scope: Scope, actor: Actor | null, input: CouponCreate): Promise<CouponDetail> {
    const agent = input.agentId ?? null;
    if (!inScope(scope, agent, input.venueId ?? null)) throw notFound('ops.error.notFound');
    if (agent && !(await this.d.agentExists(agent))) throw badRequest('ops.error.agent', { agent });
    const from = new Date(input.validFrom);
    const to = new Date(input.validTo);
    if (!(to > from)) throw badRequest('error.validation.field', { field: 'validTo' });
    if (
      input.kind === 'percent'
        ? input.percent === undefined || input.amount !== undefined || input.currency !== undefined
        : input.amount === undefined || input.currency === undefined || input.percent !== undefined
    ) {
      throw badRequest('error.validation.field', { field: input.kind === 'percent' ? 'percent' : 'amount' });
    }
    return this.atomic(async () => {
      const row = await this.d.repo.insert({
        code: input.code,
        kind: input.kind,
        percent: input.percent ?? null,
        amount: input.amount ?? null,
        currency: input.currency?.toUpperCase() ?? null,
        valid_from: from,
        valid_to: to,
        limit_per_user: input.limitPerUser ?? 1,
        limit_total: input.limitTotal ?? null,
        agent_id: agent,
        venue_id: input.venueId ?? null,
        created_at: this.d.clock.now(),
      });
      if (!row) throw conflict('ops.error.couponTaken', { code: input.code });
      const after = shape(row, EMPTY);
      if (actor)
        await this.d.audit.record(actor, {
          action: 'coupon.create',
          entity: 'coupon',
          entityId: row.id,
          agentId: agent,
          after,
        });
      return { ...after, redemptions: [] };
    });
  }

  /** Pauses or resumes a coupon of the scope (outside it: not found). */
  async setPaused(scope: Scope, actor: Actor, id: string, paused: boolean): Promise<Coupon> {
    return this.d.db.tx(async () => {
      const row = await this.d.repo.byId(id, { lock: true });
      if (!row || !inScope(scope, row.agent_id, row.venue_id)) throw notFound('ops.error.notFound');
      const stats = (await this.d.repo.stats([id])).get(id)!;
      const before = shape(row, stats);
      const after = shape((await this.d.repo.setPaused(id, paused))!, stats);
      await this.d.audit.record(actor, {
        action: paused ? 'coupon.pause' : 'coupon.resume',
        entity: 'coupon',
        entityId: id,
        agentId: row.agent_id,
        before,
        after,
      });
      return after;
    });
  }

  async list(scope: Scope, cursor: string | undefined, limit: number) {
    const agents = scope.kind === 'all' ? null : scope.kind === 'agents' ? scope.agents : [];
    const rows = (await this.d.repo.page(agents, decodeCursor(cursor), limit + 1)).filter((r) =>
      inScope(scope, r.agent_id, r.venue_id),
    );
    const stats = await this.d.repo.stats(rows.map((r) => r.id));
    return pageOf(
      rows,
      limit,
      (r) => [new Date(r.created_at).toISOString(), r.id],
      (r) => shape(r, stats.get(r.id)!),
    );
  }

  /** One coupon with its latest uses. */
  async detail(scope: Scope, id: string): Promise<CouponDetail> {
    const row = await this.d.repo.byId(id);
    if (!row || !inScope(scope, row.agent_id, row.venue_id)) throw notFound('ops.error.notFound');
    const stats = (await this.d.repo.stats([id])).get(id)!;
    const redemptions = (await this.d.repo.redemptions(id, 100)).map((r) => ({
      orderId: r.order_id,
      purpose: r.purpose,
      userId: r.user_id,
      gross: r.gross,
      discount: r.discount,
      currency: r.currency,
      status: r.status,
      at: new Date(r.created_at).toISOString(),
    }));
    return { ...shape(row, stats), redemptions };
  }

  private atomic<T>(fn: () => Promise<T>): Promise<T> {
    return this.d.db.inTx() ? fn() : this.d.db.tx(fn);
  }
}

const EMPTY: CouponStats = { redeemed: 0, reserved: 0, given: {} };
const reservation = (r: RedemptionRow): Reservation => ({ id: r.id, discount: r.discount, gross: r.gross });

function shape(r: CouponRow, s: CouponStats): Coupon {
  return {
    id: r.id,
    code: r.code,
    kind: r.kind,
    ...(r.percent !== null ? { percent: r.percent } : {}),
    ...(r.amount !== null ? { amount: r.amount, currency: r.currency! } : {}),
    validFrom: new Date(r.valid_from).toISOString(),
    validTo: new Date(r.valid_to).toISOString(),
    limitPerUser: r.limit_per_user,
    ...(r.limit_total !== null ? { limitTotal: r.limit_total } : {}),
    agentId: r.agent_id,
    venueId: r.venue_id,
    paused: r.paused,
    redeemed: s.redeemed,
    reserved: s.reserved,
    given: s.given,
  };
}
