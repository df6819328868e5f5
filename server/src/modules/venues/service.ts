// A venue's price strategy on the wire (operator contract, major units) and as the PricePlan that charges.
// The plan is always derived from the wire strategy with planFromWire, so the server charges exactly what the
// client previews with the same function.
import { toMajor } from '../../../../src/core/money.ts';
import { planFromWire, type PricePlan, type WirePriceStrategy } from '../../../../src/core/pricing.ts';
import type { Queryable } from '../../db/db.ts';
import { notFound } from '../../lib/errors.ts';
import { VenuesRepository, type PlanRow, type ShopRow, type VenueRow } from './repository.ts';

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

  /** Venues nearest first (great-circle distance in metres), with what a map card shows. */
  async nearby(lat: number, lng: number, limit: number) {
    const shops = await this.repo.shops();
    return shops
      .map((s) => ({ s, distance: Math.round(haversineMetres(lat, lng, s.lat, s.lng)) }))
      .sort((a, b) => a.distance - b.distance)
      .slice(0, limit)
      .map(({ s, distance }) => toWireShop(s, distance));
  }
}

export function haversineMetres(lat1: number, lng1: number, lat2: number, lng2: number): number {
  const r = (d: number) => (d * Math.PI) / 180;
  const a = Math.sin(r(lat2 - lat1) / 2) ** 2 + Math.cos(r(lat1)) * Math.cos(r(lat2)) * Math.sin(r(lng2 - lng1) / 2) ** 2;
  return 2 * 6_371_000 * Math.asin(Math.min(1, Math.sqrt(a)));
}

/** Spec §3 Shop: batteryNum = slots, freeNum = power banks ready to rent, so returnable = batteryNum − freeNum. */
function toWireShop(s: ShopRow, distance: number) {
  return {
    shopid: s.id,
    newID: s.id,
    shopName: s.name,
    shopAddress1: s.address,
    shopTime: s.hours,
    shopBanner: s.logo_url,
    infoStatus: s.online_cabinets > 0 ? 1 : 0,
    distance,
    batteryNum: s.slot_count,
    freeNum: s.available,
    latitude: s.lat,
    longitude: s.lng,
    currency: s.currency,
  };
}
