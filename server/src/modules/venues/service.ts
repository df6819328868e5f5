// A venue's price strategy on the wire (operator contract, major units) and as the PricePlan that charges.
// The plan is always derived from the wire strategy with planFromWire, so the server charges exactly what the
// client previews with the same function.
import type { OpeningHours } from '#contract/ops-fleet.ts';
import type { DeviceKind } from '#core/devices.ts';
import { openAt } from '#core/hours.ts';
import { toMajor } from '#core/money.ts';
import { planFromWire, type PricePlan, type WirePriceStrategy } from '#core/pricing.ts';
import { notFound } from '../../lib/errors.ts';
import { systemClock, type Clock } from '../../lib/clock.ts';
import { boundingBox, viewRadiusMetres } from './geo.ts';
import { VenuesRepository, type PlanRow, type ShopRow, type StockFilter, type VenueRow } from './repository.ts';

export { haversineMetres } from './geo.ts';

export { currencySymbol } from '#core/money.ts';

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
  /** What renting reads of the venue's agent: whether its deposits are always paid (agents.deposit_by_payment). */
  agent: { depositByPayment: boolean };
}

/** A venue with its plan, as the wire strategy and the PricePlan that charges (404 without a plan). */
export function pricedVenue(
  venue: VenueRow | undefined,
  planRow: PlanRow | undefined,
  agent = { depositByPayment: false },
): PricedVenue {
  if (!venue || !planRow) throw notFound('error.cabinetNotFound');
  const wire = wireStrategy(planRow, venue.currency);
  return {
    venue,
    planRow,
    wire,
    plan: planFromWire(wire, venue.currency),
    agent: { depositByPayment: agent.depositByPayment },
  };
}

/**
 * Why a rental's deposit at `priced` must be paid (through confirm: a card hold or a top-up) rather than held from
 * a wallet of available `balance` (minor units): 'balance', the wallet does not cover the deposit; 'agent', the
 * venue's agent has its deposits always paid (deposit_by_payment) and the wallet does not also cover the overtime
 * fee. Null: the wallet may pay it. The one rule of the scan (chongzhi, yajinChongzhi) and of borrowing with the
 * wallet (useBalanceToRent, refused with error.depositByPayment for 'agent').
 */
export function depositPaymentReason(
  priced: Pick<PricedVenue, 'plan' | 'agent'>,
  balance: number,
): 'balance' | 'agent' | null {
  if (balance < priced.plan.deposit) return 'balance';
  if (priced.agent.depositByPayment && balance < priced.plan.overtimeAmount) return 'agent';
  return null;
}

/** The time zone of an agent's opening hours (its return settings, read by notify); undefined: UTC. */
export type ZoneOf = (agentId: string | null) => Promise<string | undefined>;

/** Who asks: the signed-in rider (their own held return reservation is a free slot for them), or nobody. */
export interface Asker {
  userId?: number;
}

/**
 * The cabinets' liveness rule (cabinets/liveness.ts, given at wiring: the cabinets use the venues, so the venues do
 * not import them): online cabinets are those heard from since `since()`.
 */
export interface LivenessRule {
  since(): Date;
  isLive(c: { online: boolean; last_seen_at: Date | string | null }): boolean;
}

export class VenuesService {
  constructor(
    private readonly repo: VenuesRepository,
    private readonly liveness: LivenessRule,
    private readonly clock: Clock = systemClock,
    private readonly zoneOf: ZoneOf = async () => undefined,
  ) {}

  /**
   * Each venue's time zone, the one its opening hours are in: its agent's (src/core/hours.ts), UTC when its agent has
   * none. The one rule of the map's "can return here now" and of the grace period's openings (rentals' grace.ts).
   */
  private async zoned<T extends { agent_id?: string | null }>(rows: T[]): Promise<(T & { time_zone: string })[]> {
    const zones = new Map<string | null, string>();
    for (const a of new Set(rows.map((r) => r.agent_id ?? null))) zones.set(a, (await this.zoneOf(a)) ?? 'UTC');
    return rows.map((r) => ({ ...r, time_zone: zones.get(r.agent_id ?? null)! }));
  }

  /**
   * "Can return here now": of venues with a free return slot, those open at `now` (opening hours in their own time
   * zone, `zoned`; a venue without hours is always open).
   */
  private async openNow<T extends ShopRow>(rows: T[], now: Date): Promise<T[]> {
    const zoned = await this.zoned(rows);
    return rows.filter((r, i) =>
      openAt((r.opening_hours ?? null) as OpeningHours | null, zoned[i]!.time_zone, now.getTime()),
    );
  }

  /** The Wi-Fi box deposit in a currency: the 'mifi' plan of a venue in that currency (0 when none has one). */
  async mifiDeposit(currency: string): Promise<number> {
    return this.repo.mifiDeposit(currency, this.clock.now());
  }

  /** The venue with its plan of `kind` in effect now (a rental snapshots it: orders.plan). */
  async priced(venueId: string, kind: DeviceKind = 'cdb'): Promise<PricedVenue> {
    const found = await this.repo.withPlan(venueId, kind, this.clock.now());
    return pricedVenue(found?.venue, found?.plan, found?.agent);
  }

  /**
   * Live venues within `radius` metres of (lat, lng), nearest first, with their stock now, their opening hours and
   * the time zone those are in (each venue's own: the grace period rule, modules/rentals/grace.ts).
   */
  async within(lat: number, lng: number, radius: number, limit: number) {
    return this.zoned(
      await this.repo.nearby({
        lat,
        lng,
        radius,
        ...boundingBox(lat, lng, radius),
        limit,
        liveSince: this.liveness.since(),
        now: this.clock.now(),
      }),
    );
  }

  /**
   * The map (cdb/shop/listnear, …/trial): venues inside the view around (lat, lng) for the sent zoom, nearest
   * first (great-circle distance in metres), at most `limit`, with live stock.
   */
  async nearby(
    lat: number,
    lng: number,
    zoomLevel: number | undefined,
    limit: number,
    filter?: StockFilter,
    who: Asker = {},
  ) {
    const radius = viewRadiusMetres(zoomLevel);
    const box = boundingBox(lat, lng, radius);
    const now = this.clock.now();
    const rows = await this.repo.nearby({
      lat,
      lng,
      radius,
      ...box,
      limit,
      liveSince: this.liveness.since(),
      now,
      filter,
      me: who.userId,
    });
    return (filter === 'return' ? await this.openNow(rows, now) : rows).map((s) => toWireShop(s, s.distance));
  }

  /** Venue search over all venues (cdb/shop/search): see ShopSearchQuery in src/contract/venues.ts. */
  async search(q: { q?: string; lat?: number; lng?: number; filter?: StockFilter; limit?: number }, who: Asker = {}) {
    const at = q.lat !== undefined && q.lng !== undefined ? { lat: q.lat, lng: q.lng } : undefined;
    const limit = q.limit ?? 20;
    const now = this.clock.now();
    const page = (offset: number) =>
      this.repo.search({
        q: (q.q ?? '').trim(),
        at,
        filter: q.filter,
        limit,
        offset,
        liveSince: this.liveness.since(),
        now,
        me: who.userId,
      });
    if (q.filter !== 'return') return (await page(0)).map((s) => toWireShop(s, s.distance));
    // Closed venues are left out after the query: read on, page by page, until `limit` open ones or the end.
    const kept: Awaited<ReturnType<typeof page>> = [];
    for (let offset = 0; kept.length < limit; offset += limit) {
      const rows = await page(offset);
      kept.push(...(await this.openNow(rows, now)));
      if (rows.length < limit) break;
    }
    return kept.slice(0, limit).map((s) => toWireShop(s, s.distance));
  }

  /** Shop detail (cdb/shop/listnear/dtl): the venue, its stock and each cabinet's state (for `who`, as the map). */
  async detail(shopId: string, at: { lat: number; lng: number } | undefined, who: Asker = {}) {
    const now = this.clock.now();
    const s = await this.repo.shop(shopId, at, this.liveness.since(), now, who.userId);
    if (!s) throw notFound('error.shopNotFound');
    const cabinets = await this.repo.cabinetsOf(shopId, now, who.userId);
    return {
      ...toWireShop(s, s.distance),
      shopContent: s.description,
      city: s.city,
      cabinets: cabinets.map((c) => {
        const online = this.liveness.isLive(c);
        return {
          cabinetID: c.id,
          online,
          freeNum: online ? c.available : 0,
          batteryNum: online ? c.slot_count : 0,
          returnNum: online ? c.return_slots : 0,
        };
      }),
    };
  }
}

/** Shop: batteryNum = slots, freeNum = power banks ready to rent, so returnable = batteryNum − freeNum. */
function toWireShop(s: ShopRow, distance: number | null) {
  return {
    shopid: s.id,
    newID: s.id,
    shopName: s.name,
    shopAddress1: s.address,
    shopTime: s.hours,
    shopBanner: s.logo_url,
    infoStatus: s.online_cabinets > 0 ? 1 : 0,
    distance: distance === null ? -1 : Math.round(distance),
    cabinetNum: s.cabinet_count,
    batteryNum: s.slot_count,
    freeNum: s.available,
    returnNum: s.return_slots,
    latitude: s.lat,
    longitude: s.lng,
    currency: s.currency,
  };
}
