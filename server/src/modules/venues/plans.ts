// Price plans made by the fleet's operations: per venue or per agent (then for the agent's venues in the plan's
// currency), each charging from its effective time on; every pricing type the flows show (src/core/pricing.ts,
// docs/pricing.md). A rental charges the plan in effect when it started (orders.plan is its snapshot), so a new
// plan never changes a running rental. A plan in effect is never rewritten: a new one replaces it from its time.
import {
  FeePreviewRequest,
  PlanCreate,
  PlanUpdate,
  PRICE_UNITS,
  type FeePreview,
  type Plan,
} from '#contract/ops-fleet.ts';
import type { DeviceKind } from '#core/devices.ts';
import { buyOutFee, overtimeMinutes, planFromWire, rentalFee, MINUTE_MS } from '#core/pricing.ts';
import type { Clock } from '../../lib/clock.ts';
import { conflict, notFound } from '../../lib/errors.ts';
import { Problems, schemaProblems, validate } from '../../lib/validate.ts';
import type { PlanInsert, VenuesAdminRepository } from './admin-repository.ts';
import type { PlanRow } from './repository.ts';
import { wireStrategy } from './service.ts';

type PlanFieldsIn = Omit<PlanCreate, 'venueId' | 'agentId' | 'currency' | 'effectiveFrom'>;

export function toPlan(r: PlanRow): Plan {
  return {
    id: r.id,
    venueId: r.venue_id,
    agentId: r.agent_id,
    currency: r.currency,
    deviceKind: r.device_kind,
    type: r.kind === 2 ? 'tiered' : 'unit',
    unitPrice: r.unit_price,
    unitLength: r.unit_length,
    priceUnit: PRICE_UNITS[r.price_unit] ?? 'minute',
    freeMinutes: r.free_minutes,
    dailyCap: r.daily_cap,
    deposit: r.deposit,
    depositType: r.deposit_type === 1 ? 'wallet' : 'preauth',
    overtimeAmount: r.overtime_amount,
    overtimeDays: r.overtime_days,
    tiers: r.tiers,
    effectiveFrom: new Date(r.effective_from).toISOString(),
  };
}

function columns(f: PlanFieldsIn): Omit<PlanInsert, 'venue_id' | 'agent_id' | 'currency' | 'effective_from'> {
  return {
    device_kind: f.deviceKind,
    kind: f.type === 'tiered' ? 2 : 1,
    unit_price: f.unitPrice,
    unit_length: f.unitLength,
    price_unit: PRICE_UNITS.indexOf(f.priceUnit),
    free_minutes: f.freeMinutes ?? 0,
    daily_cap: f.dailyCap,
    deposit: f.deposit,
    overtime_amount: f.overtimeAmount,
    overtime_days: f.overtimeDays,
    deposit_type: f.depositType === 'wallet' ? 1 : 0,
    tiers: f.tiers ?? [],
  };
}

/** Rules across fields: a tiered plan's rows in order without overlap; an effective time that is a time. */
function planProblems(p: Problems, f: Partial<PlanFieldsIn> & { effectiveFrom?: string }) {
  if (f.type === 'tiered' && !(f.tiers ?? []).length) p.add('tiers', 'required');
  let end = -1;
  (f.tiers ?? []).forEach((t, i) => {
    if (t.endMinute <= t.startMinute || t.startMinute < end) p.add(`tiers.${i}`, 'order');
    end = t.endMinute;
  });
  if (f.effectiveFrom !== undefined && !Number.isFinite(Date.parse(f.effectiveFrom))) p.add('effectiveFrom', 'invalid');
}

export interface PricePlansDeps {
  repo: VenuesAdminRepository;
  clock: Clock;
  /** The agent's currencies, or undefined when there is no such agent (the embed module's agents service). */
  agentCurrencies(id: string): Promise<string[] | undefined>;
}

export class PricePlansService {
  constructor(private readonly d: PricePlansDeps) {}

  async get(id: number): Promise<Plan> {
    const r = await this.d.repo.plan(id);
    if (!r) throw notFound('error.fleet.notFound', { id });
    return toPlan(r);
  }

  /** A venue's or an agent's plans, newest effective time first per device kind. */
  async list(owner: { venueId: string } | { agentId: string }, kind?: DeviceKind): Promise<Plan[]> {
    return (await this.d.repo.plansOf(owner, kind)).map(toPlan);
  }

  async create(input: unknown): Promise<Plan> {
    const p = schemaProblems(PlanCreate, input);
    p.throwIfAny();
    const c = input as PlanCreate;
    if (!c.venueId === !c.agentId) p.add(c.venueId ? 'agentId' : 'venueId', c.venueId ? 'invalid' : 'required');
    planProblems(p, c);
    p.throwIfAny();
    let currency: string;
    if (c.venueId) {
      const venue = await this.d.repo.venue(c.venueId);
      if (!venue) p.add('venueId', 'notFound').throwIfAny();
      currency = venue!.currency;
      if (c.currency && c.currency !== currency) p.add('currency', 'currency').throwIfAny();
    } else {
      const currencies = await this.d.agentCurrencies(c.agentId!);
      if (!currencies) p.add('agentId', 'notFound').throwIfAny();
      if (!c.currency) p.add('currency', 'required').throwIfAny();
      currency = c.currency!;
      if (currencies!.length && !currencies!.includes(currency)) p.add('currency', 'currency').throwIfAny();
    }
    const effectiveFrom = c.effectiveFrom ? new Date(c.effectiveFrom) : this.d.clock.now();
    const row: PlanInsert = {
      venue_id: c.venueId ?? null,
      agent_id: c.agentId ?? null,
      currency,
      effective_from: effectiveFrom,
      ...columns(c),
    };
    const id = await this.d.repo.insertPlan(row);
    if (id === undefined) p.add('effectiveFrom', 'duplicate').throwIfAny();
    return toPlan({ ...row, id: id! });
  }

  /** Changes a plan that is not in effect yet (409 once it is: make a new plan from a later time instead). */
  async update(id: number, input: unknown): Promise<Plan> {
    const p = schemaProblems(PlanUpdate, input);
    p.throwIfAny();
    const u = input as PlanUpdate;
    planProblems(p, { ...u, type: u.type ?? undefined });
    p.throwIfAny();
    const cur = await this.get(id);
    const merged = { ...cur, ...u };
    planProblems(p, merged);
    p.throwIfAny();
    const row: PlanInsert = {
      venue_id: cur.venueId,
      agent_id: cur.agentId,
      currency: cur.currency,
      effective_from: new Date(merged.effectiveFrom),
      ...columns(merged),
    };
    if (row.device_kind !== cur.deviceKind) p.add('deviceKind', 'invalid').throwIfAny();
    const res = await this.d.repo.updatePlan(id, row, this.d.clock.now());
    if (res === 'inEffect') throw conflict('error.fleet.planInEffect');
    if (res === 'taken') p.add('effectiveFrom', 'duplicate').throwIfAny();
    return toPlan({ ...row, id });
  }

  /** The fees for given durations under a saved plan, computed by the one fee rule (src/core/pricing.ts). */
  async preview(id: number, request: unknown): Promise<FeePreview> {
    const r = await this.d.repo.plan(id);
    if (!r) throw notFound('error.fleet.notFound', { id });
    return previewFees(r, validate(FeePreviewRequest, request).minutes);
  }

  /** The same for a plan not saved yet (what the console shows while a plan is edited). */
  previewDraft(input: unknown, currency: string, request: unknown): FeePreview {
    const p = schemaProblems(PlanCreate, input);
    const c = input as PlanCreate;
    if (!p.any) planProblems(p, c);
    p.throwIfAny();
    const row: PlanRow = {
      id: 0,
      venue_id: null,
      agent_id: null,
      currency,
      effective_from: new Date(0),
      ...columns(c),
    };
    return previewFees(row, validate(FeePreviewRequest, request).minutes);
  }
}

/** The plan as it charges (the scan's wire strategy, then planFromWire, as a rental does) over the durations. */
export function previewFees(r: PlanRow, minutes: number[]): FeePreview {
  const plan = planFromWire(wireStrategy(r, r.currency), r.currency);
  return {
    currency: r.currency,
    fees: minutes.map((m) => ({ minutes: m, fee: rentalFee(plan, m * MINUTE_MS) })),
    buyOutAfterMinutes: overtimeMinutes(plan),
    buyOutFee: buyOutFee(plan),
  };
}
