// The one fee rule (spec §1 and §9), used by the server to charge and by the flows to preview.
// All amounts are integer minor units of plan.currency.
import { toMinor } from './money.ts';

export const MINUTE_MS = 60_000;
export const DAY_MINUTES = 24 * 60;

/** Price units of the operator contract's priceStrategy.priceUnit. */
export const PRICE_UNIT_MINUTES = { 0: 1, 1: 60, 2: DAY_MINUTES } as const;
export type PriceUnit = keyof typeof PRICE_UNIT_MINUTES;

export interface Tier {
  startMinute: number;
  endMinute: number;
  totalFee: number;
}

export interface PricePlan {
  /** 'unit': ceil(minutes / unitMinutes) × unitPrice, capped per day; 'tiered': the detail row table. */
  kind: 'unit' | 'tiered';
  currency: string;
  unitPrice: number;
  unitMinutes: number;
  freeMinutes: number;
  /** Daily cap; 0 means no cap. */
  dailyCap: number;
  deposit: number;
  overtimeAmount: number;
  overtimeDays: number;
  tiers: Tier[];
}

/** Spec §9 defaults: rate 1, unit 30, daily cap 6, deposit 25, overtime 25, currency CHF. */
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
 * is taken in full (spec §1).
 */
export function rentalFee(plan: PricePlan, elapsedMs: number): number {
  const rent = rentForMinutes(plan, billedMinutes(elapsedMs));
  return plan.deposit > 0 ? Math.min(rent, plan.deposit) : rent;
}

/** The operator contract's priceStrategy, as the scan returns it (major-unit decimals). */
export interface WirePriceStrategy {
  pType?: number;
  pPrice?: number;
  pPriceMinute?: number;
  priceUnit?: number;
  pFreeuseMinute?: number;
  pDayAmount?: number;
  pDepositAmount?: number;
  pOvertimeAmount?: number;
  pOvertimeDay?: number;
  priceStrategyDetail?: { pId?: number | string; pStartMinute: number; pEndMinute: number; pTotalFee: number }[];
}

/** Wire priceStrategy (plus the cabinet's fengding / yajin fallbacks) → a PricePlan, spec defaults filling gaps. */
export function planFromWire(
  s: WirePriceStrategy | undefined,
  currency: string,
  fallback: { fengding?: number; yajin?: number; overtimeAmount?: number } = {},
): PricePlan {
  const money = (v: number | undefined, dflt: number) => (v == null ? dflt : toMinor(v, currency));
  const unit = (s?.priceUnit ?? 0) as number;
  const unitLength = s?.pPriceMinute ?? 30;
  const perUnit = PRICE_UNIT_MINUTES[(unit in PRICE_UNIT_MINUTES ? unit : 0) as PriceUnit];
  const dflt = DEFAULT_PLAN;
  return {
    kind: s?.pType === 2 ? 'tiered' : 'unit',
    currency,
    unitPrice: money(s?.pPrice, toMinor(1, currency)),
    unitMinutes: Math.max(1, unitLength * perUnit),
    freeMinutes: s?.pFreeuseMinute ?? 0,
    dailyCap: money(s?.pDayAmount ?? fallback.fengding, toMinor(6, currency)),
    deposit: money(s?.pDepositAmount ?? fallback.yajin, toMinor(25, currency)),
    overtimeAmount: money(s?.pOvertimeAmount ?? fallback.overtimeAmount, toMinor(25, currency)),
    overtimeDays: s?.pOvertimeDay ?? dflt.overtimeDays,
    tiers: (s?.priceStrategyDetail ?? []).map((r) => ({
      startMinute: r.pStartMinute,
      endMinute: r.pEndMinute,
      totalFee: toMinor(r.pTotalFee, currency),
    })),
  };
}
