// The one fee rule, used by the server to charge and by the flows to preview.
// All amounts are integer minor units of plan.currency.
import { toMinor } from './money.ts';
import type { Plan, Tier } from '../contract/rentals.ts';
import type { PriceStrategy, ScanResult } from '../contract/cabinets.ts';

export const MINUTE_MS = 60_000;
export const DAY_MINUTES = 24 * 60;

/** Price units of the operator contract's priceStrategy.priceUnit. */
export const PRICE_UNIT_MINUTES = { 0: 1, 1: 60, 2: DAY_MINUTES } as const;
export type PriceUnit = keyof typeof PRICE_UNIT_MINUTES;

export type { Tier };

/**
 * The plan that charges (its wire shape is the contract's Plan, src/contract/rentals.ts). kind 'unit':
 * ceil(minutes / unitMinutes) × unitPrice, capped per day (dailyCap 0: no cap); 'tiered': the detail row table.
 */
export type PricePlan = Plan;

/** Defaults: rate 1, unit 30, daily cap 6, deposit 25, overtime 25, currency CHF. */
export const DEFAULT_PLAN: PricePlan = {
  kind: 'unit',
  currency: 'CHF',
  unitPrice: 100,
  unitMinutes: 30,
  freeMinutes: 0,
  dailyCap: 600,
  deposit: 2500,
  overtimeAmount: 2500,
  overtimeDays: 2,
  tiers: [],
};

/** Minutes billed for an elapsed time: a started minute counts as a whole one. */
export function billedMinutes(elapsedMs: number): number {
  return Math.max(0, Math.ceil(elapsedMs / MINUTE_MS));
}

/**
 * The rent for `minutes` of use, before the deposit ceiling.
 * - Within the free period: nothing.
 * - 'unit': every full 24 h day costs the daily cap; the rest of the last day costs
 *   ceil(minutes / unitMinutes) × unitPrice, capped at the daily cap.
 * - 'tiered': the row with startMinute < minutes ≤ endMinute gives the fee; no row: overtimeAmount.
 */
export function rentForMinutes(plan: PricePlan, minutes: number): number {
  if (minutes <= plan.freeMinutes || minutes <= 0) return 0;
  if (plan.kind === 'tiered') {
    const row = plan.tiers.find((t) => t.startMinute < minutes && minutes <= t.endMinute);
    return row ? row.totalFee : plan.overtimeAmount;
  }
  const unitCost = (m: number) => Math.ceil(m / plan.unitMinutes) * plan.unitPrice;
  if (plan.dailyCap <= 0) return unitCost(minutes);
  const fullDays = Math.floor(minutes / DAY_MINUTES);
  const rest = minutes - fullDays * DAY_MINUTES;
  return fullDays * plan.dailyCap + Math.min(plan.dailyCap, unitCost(rest));
}

/**
 * The fee charged for an elapsed time. The deposit is the ceiling: when the rent reaches it, the deposit
 * is taken in full.
 */
export function rentalFee(plan: PricePlan, elapsedMs: number): number {
  const rent = rentForMinutes(plan, billedMinutes(elapsedMs));
  return plan.deposit > 0 ? Math.min(rent, plan.deposit) : rent;
}

/**
 * The operator contract's priceStrategy, as the scan returns it (major-unit decimals; src/contract/cabinets.ts).
 * Partial: an operator back end may leave fields out, and planFromWire fills them.
 */
export type WirePriceStrategy = Partial<PriceStrategy>;

/**
 * The cabinet's flat fields (Cabinet), used where the priceStrategy is absent or lacks a field:
 * jifei = rate per unit, jifeiDanwei = unit length in minutes, mianfei = free minutes, fengding = daily cap,
 * yajin = deposit, overtimeAmount = the overtime (non-return) fee.
 */
export type WireCabinetPrice = Partial<
  Pick<ScanResult, 'jifei' | 'jifeiDanwei' | 'mianfei' | 'fengding' | 'yajin' | 'overtimeAmount'>
>;

const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);

/**
 * Wire priceStrategy (plus the cabinet's flat fields) → a PricePlan defaults fill what both lack
 * (rate 1, unit 30 minutes, daily cap 6, deposit 25, overtime 25, overtime days 2, no free minutes).
 * Negative or non-numeric values are treated as absent; a daily cap of 0 means "no cap".
 */
export function planFromWire(
  s: WirePriceStrategy | undefined,
  currency: string,
  flat: WireCabinetPrice = {},
): PricePlan {
  const pos = (v: unknown) => {
    const n = num(v);
    return n != null && n >= 0 ? n : undefined;
  };
  const money = (v: number | undefined, dflt: number) => toMinor(v ?? dflt, currency);
  const unit = pos(s?.priceUnit) ?? 0;
  const perUnit = PRICE_UNIT_MINUTES[(unit in PRICE_UNIT_MINUTES ? unit : 0) as PriceUnit];
  // The flat jifeiDanwei is always minutes; pPriceMinute counts price units (minutes, hours or days).
  const unitMinutes =
    s?.pPriceMinute != null && pos(s.pPriceMinute) ? pos(s.pPriceMinute)! * perUnit : pos(flat.jifeiDanwei) || 30;
  const overtimeDays = pos(s?.pOvertimeDay) || DEFAULT_PLAN.overtimeDays;
  return {
    kind: s?.pType === 2 ? 'tiered' : 'unit',
    currency,
    unitPrice: money(pos(s?.pPrice) ?? pos(flat.jifei), 1),
    unitMinutes: Math.max(1, Math.round(unitMinutes)),
    freeMinutes: Math.floor(pos(s?.pFreeuseMinute) ?? pos(flat.mianfei) ?? 0),
    dailyCap: money(pos(s?.pDayAmount) ?? pos(flat.fengding), 6),
    deposit: money(pos(s?.pDepositAmount) ?? pos(flat.yajin), 25),
    overtimeAmount: money(pos(s?.pOvertimeAmount) ?? pos(flat.overtimeAmount), 25),
    overtimeDays,
    tiers: (s?.priceStrategyDetail ?? [])
      .filter((r) => num(r.pStartMinute) != null && num(r.pEndMinute) != null && pos(r.pTotalFee) != null)
      .map((r) => ({ startMinute: r.pStartMinute, endMinute: r.pEndMinute, totalFee: toMinor(r.pTotalFee, currency) })),
  };
}

// ---- overtime ("An unreturned unit is charged an overtime fee and then need not be returned") ----------

/** Length of the overtime period in minutes: overtime days × 24 h. Past it, the order is bought out. */
export function overtimeMinutes(plan: PricePlan): number {
  return (plan.overtimeDays > 0 ? plan.overtimeDays : DEFAULT_PLAN.overtimeDays) * DAY_MINUTES;
}

// ---- grace periods: time a rental does not count ---------------------------------------------------------------

/** An interval (epoch ms, `from` inclusive, `until` exclusive) in which a rental does not count: a grace period. */
export interface Pause {
  from: number;
  until: number;
}

/** The pauses of an order as recorded (ISO times, as the order's `grace` holds them), in time order. */
export function pausesOf(grace: readonly { from: string; until: string }[] | null | undefined): Pause[] {
  return (grace ?? [])
    .map((g) => ({ from: Date.parse(g.from), until: Date.parse(g.until) }))
    .filter((p) => Number.isFinite(p.from) && Number.isFinite(p.until) && p.until > p.from)
    .sort((a, b) => a.from - b.from || a.until - b.until);
}

/**
 * The time a rental that started at `startMs` counts until `atMs`: the time between them less what of it lies in a
 * pause. Every fee, the buy-out and the reminders are worked out on this time.
 */
export function countedMs(startMs: number, atMs: number, pauses: readonly Pause[] = []): number {
  let paused = 0;
  let reach = startMs;
  for (const p of pauses) {
    const from = Math.max(p.from, reach);
    const until = Math.min(p.until, atMs);
    if (until > from) paused += until - from;
    reach = Math.max(reach, p.until);
  }
  return Math.max(0, atMs - startMs - paused);
}

/** The moment a rental that started at `startMs` has counted `ms` (countedMs's inverse: pauses push it later). */
export function momentAt(startMs: number, ms: number, pauses: readonly Pause[] = []): number {
  let t = startMs;
  let left = Math.max(0, ms);
  for (const p of pauses) {
    if (p.until <= t) continue;
    const from = Math.max(p.from, t);
    if (from - t >= left) break;
    left -= from - t;
    t = p.until;
  }
  return t + left;
}

/** When an order borrowed at `borrowedAt` is bought out if it is still not returned (later by its pauses). */
export function buyOutAt(plan: PricePlan, borrowedAt: Date, pauses: readonly Pause[] = []): Date {
  return new Date(momentAt(borrowedAt.getTime(), overtimeMinutes(plan) * MINUTE_MS, pauses));
}

/**
 * The buy-out charge: the overtime amount. Only the deposit is held, so the deposit is the ceiling here too
 * (with the defaults both are 25).
 */
export function buyOutFee(plan: PricePlan): number {
  return plan.deposit > 0 ? Math.min(plan.overtimeAmount, plan.deposit) : plan.overtimeAmount;
}

/**
 * A bought-out power bank that comes back after all (state 5, or state 3 when the cabinet reports it was in
 * fact returned before the buy-out): the user ends up paying the rent for the time they actually had it,
 * never more than they were charged. Returns the amount to give back.
 */
export function refundAfterBuyOut(plan: PricePlan, charged: number, elapsedMs: number): number {
  return Math.max(0, charged - rentalFee(plan, elapsedMs));
}

/** Pricing-tip slider: max = 2 × overtime days × 24 × 30 minutes (2880 with the default), step 1. */
export function sliderMaxMinutes(plan: PricePlan): number {
  const days = plan.overtimeDays > 0 ? plan.overtimeDays : DEFAULT_PLAN.overtimeDays;
  return 2 * days * 24 * 30;
}

// ---- the fee worked out step by step (the back office's rental timeline) --------------------------------------

/** One step of a fee's computation; every amount is minor units of the plan's currency. */
export type FeeStep =
  | { kind: 'elapsed'; minutes: number }
  | { kind: 'free'; freeMinutes: number }
  | { kind: 'fullDays'; days: number; dailyCap: number; amount: number }
  | { kind: 'units'; minutes: number; units: number; unitMinutes: number; unitPrice: number; amount: number }
  | { kind: 'dailyCap'; dailyCap: number; amount: number }
  | { kind: 'tier'; startMinute: number; endMinute: number; amount: number }
  | { kind: 'noTier'; overtimeAmount: number }
  | { kind: 'depositCeiling'; deposit: number; amount: number }
  | { kind: 'buyOut'; buyOutFee: number; amount: number };

/**
 * rentalFee (and, past the overtime period, the buy-out ceiling) as the steps that reach it, for a person to read:
 * the minutes billed, the free period, the full days at the daily cap, the units of the last day (capped), the
 * tier row, the deposit ceiling. `total` is always what rentalFee charges (min with buyOutFee when `overtime`).
 */
export function explainFee(
  plan: PricePlan,
  elapsedMs: number,
  opts: { overtime?: boolean } = {},
): { steps: FeeStep[]; total: number } {
  const minutes = billedMinutes(elapsedMs);
  const steps: FeeStep[] = [{ kind: 'elapsed', minutes }];
  let rent = 0;
  if (minutes <= plan.freeMinutes || minutes <= 0) {
    steps.push({ kind: 'free', freeMinutes: plan.freeMinutes });
  } else if (plan.kind === 'tiered') {
    const row = plan.tiers.find((t) => t.startMinute < minutes && minutes <= t.endMinute);
    rent = row ? row.totalFee : plan.overtimeAmount;
    steps.push(
      row
        ? { kind: 'tier', startMinute: row.startMinute, endMinute: row.endMinute, amount: row.totalFee }
        : { kind: 'noTier', overtimeAmount: plan.overtimeAmount },
    );
  } else {
    const capped = plan.dailyCap > 0;
    const fullDays = capped ? Math.floor(minutes / DAY_MINUTES) : 0;
    const rest = minutes - fullDays * DAY_MINUTES;
    if (fullDays > 0)
      steps.push({ kind: 'fullDays', days: fullDays, dailyCap: plan.dailyCap, amount: fullDays * plan.dailyCap });
    const units = Math.ceil(rest / plan.unitMinutes);
    const unitAmount = units * plan.unitPrice;
    steps.push({
      kind: 'units',
      minutes: rest,
      units,
      unitMinutes: plan.unitMinutes,
      unitPrice: plan.unitPrice,
      amount: unitAmount,
    });
    const lastDay = capped ? Math.min(plan.dailyCap, unitAmount) : unitAmount;
    if (lastDay < unitAmount) steps.push({ kind: 'dailyCap', dailyCap: plan.dailyCap, amount: lastDay });
    rent = fullDays * plan.dailyCap + lastDay;
  }
  let total = rent;
  if (plan.deposit > 0 && rent > plan.deposit) {
    total = plan.deposit;
    steps.push({ kind: 'depositCeiling', deposit: plan.deposit, amount: total });
  }
  if (opts.overtime && total > buyOutFee(plan)) {
    total = buyOutFee(plan);
    steps.push({ kind: 'buyOut', buyOutFee: total, amount: total });
  }
  return { steps, total };
}
