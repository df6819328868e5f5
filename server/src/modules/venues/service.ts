// A venue's price strategy on the wire (operator contract, major units) and as the PricePlan that charges.
// The plan is always derived from the wire strategy with planFromWire, so the server charges exactly what the
// client previews with the same function.
import { toMajor } from '../../../../src/core/money.ts';
import { planFromWire, type PricePlan, type WirePriceStrategy } from '../../../../src/core/pricing.ts';
import type { Queryable } from '../../db/db.ts';
import { notFound } from '../../lib/errors.ts';
import { VenuesRepository, type PlanRow, type VenueRow } from './repository.ts';

const SYMBOLS: Record<string, string> = { CNY: '¥', EUR: '€', USD: '$', GBP: '£', CHF: 'CHF' };
export const currencySymbol = (c: string) => SYMBOLS[c] ?? c;

export function wireStrategy(plan: PlanRow, currency: string): Required<WirePriceStrategy> {
  const m = (v: number) => toMajor(Number(v), currency);
  return {
    pType: plan.kind,
    pPrice: m(plan.unit_price),
    pPriceMinute: plan.unit_length,
    priceUnit: plan.price_unit,
    pFreeuseMinute: plan.free_minutes,
    pDayAmount: m(plan.daily_cap),
    pDepositAmount: m(plan.deposit),
    pOvertimeAmount: m(plan.overtime_amount),
    pOvertimeDay: plan.overtime_days,
    priceStrategyDetail: plan.tiers.map((t, i) => ({
      pId: i + 1,
      pStartMinute: t.startMinute,
      pEndMinute: t.endMinute,
      pTotalFee: m(t.totalFee),
    })),
  };
}

export interface PricedVenue {
  venue: VenueRow;
  planRow: PlanRow;
  wire: Required<WirePriceStrategy>;
  plan: PricePlan;
}

export class VenuesService {
  constructor(private readonly repo: VenuesRepository) {}

  async priced(venueId: string, q?: Queryable): Promise<PricedVenue> {
    const found = await this.repo.withPlan(venueId, q);
    const venue = found?.venue;
    const planRow = found?.plan;
    if (!venue || !planRow) throw notFound('error.cabinetNotFound');
    const wire = wireStrategy(planRow, venue.currency);
    return { venue, planRow, wire, plan: planFromWire(wire, venue.currency) };
  }
}
