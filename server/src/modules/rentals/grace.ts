// Grace periods: a rider whose power bank has nowhere to go — no cabinet within the agent's radius is open with a
// free slot — asks for a grace period, which pauses the rental (its fee, its buy-out and the reminders before them,
// src/core/pricing.ts countedMs) until the next opening nearby. Granted by rule, never by hand: with a place open
// with a free slot in the radius (or a return slot the rider keeps) it is refused with 409 naming that place. Each
// grace period is recorded on the order with what was checked (orders.grace), and the desk's rental timeline shows
// it. Its length: until the first venue nearby with a cabinet online opens; when none opens at a known time (full,
// offline, or no venue in the radius), the agent's grace length; never more than the agent's longest grace. Each
// venue's opening hours are read in its own time zone (the venues module's rule, the map's too): venues in the
// radius may lie across a border from the rental's.
import type { OpeningHours } from '#contract/ops-fleet.ts';
import type { GracePeriod } from '#contract/returns.ts';
import { buyOutAt, pausesOf } from '#core/pricing.ts';
import type { Db } from '../../db/db.ts';
import type { JobRunner } from '../../jobs/runner.ts';
import type { Clock } from '../../lib/clock.ts';
import { conflict } from '../../lib/errors.ts';
import type { UserRow } from '../auth/service.ts';
import { nextOpening, openAt } from '#core/hours.ts';
import { Zujie } from './order-state.ts';
import type { OrderRow, RentalsRepository } from './repository.ts';
import type { RentalsService } from './service.ts';
import { JOB_BUY_OUT } from './shared.ts';

/** The rule's settings of an agent (agent_return_settings, read by notify); the columns' defaults when it has none. */
export interface GraceSettings {
  grace_radius_m: number;
  grace_minutes: number;
  grace_max_minutes: number;
}
export const DEFAULT_GRACE: GraceSettings = { grace_radius_m: 2000, grace_minutes: 60, grace_max_minutes: 720 };

/** A venue near the rider as the venues module reads it (its stock now, its opening hours). */
export interface NearbyVenue {
  id: string;
  name: string;
  distance: number;
  return_slots: number;
  online_cabinets: number;
  opening_hours?: unknown;
  /** The time zone of its opening hours (the venue's own, as the map reads them). */
  time_zone: string;
}

/** At most this many venues in the radius are looked at (nearest first). */
const NEARBY_LIMIT = 200;
const MIN = 60_000;

export interface GraceDeps {
  db: Db;
  clock: Clock;
  jobs: JobRunner;
  rentals: RentalsService;
  orders: RentalsRepository;
  /** Live venues within a radius, nearest first (the venues module's). */
  venues: { within(lat: number, lng: number, radius: number, limit: number): Promise<NearbyVenue[]> };
  /** The agent's return settings of a venue (notify's agent_return_settings). */
  settings: {
    agentSettingsOfVenue(venueId: string): Promise<Partial<GraceSettings> | undefined>;
  };
  /** The rider's held return slot reservation, if any (the cabinets module's). */
  reserved: (userId: number) => Promise<{ venue_name: string; state: string; expires_at: Date } | undefined>;
  /** A grace period moved the order's reminders (notify's NoticeService.rescheduled). */
  notices?: { rescheduled(orderId: string): Promise<void> };
  /** The order changed for its owner's open screens. */
  changed: (userId: number, orderId: string) => Promise<void>;
}

type Verdict =
  | { applies: false; place: { shopId: string; name: string; distanceM: number }; radiusM: number }
  | { applies: true; until: Date; reason: GracePeriod['reason']; nearest: GracePeriod['nearest']; radiusM: number };

export class GraceService {
  constructor(private readonly d: GraceDeps) {}

  /** Whether a grace period applies at (lat, lng) for this order now, and the one running. */
  async check(user: UserRow, input: { orderId: string; lat: number; lng: number }) {
    const order = await this.d.rentals.check(user, input.orderId);
    const now = this.d.clock.now();
    const active = activeGrace(order, now);
    const v = await this.verdict(order, input, now);
    return {
      applies: v.applies,
      radiusM: v.radiusM,
      active: active ? { from: active.from, until: active.until, reason: active.reason } : null,
      until: v.applies ? v.until.toISOString() : null,
      reason: v.applies ? v.reason : null,
      place: v.applies
        ? v.nearest
          ? { shopId: v.nearest.shopId, name: v.nearest.name, distanceM: v.nearest.distanceM }
          : null
        : v.place,
    };
  }

  /**
   * Grants a grace period by the rule, recorded on the order in one unit of work with the buy-out's job for its new
   * time and the reminders moved. Asked again while one runs: that one (nothing new).
   */
  async request(user: UserRow, input: { orderId: string; lat: number; lng: number }): Promise<GracePeriod> {
    await this.d.rentals.check(user, input.orderId);
    return this.d.db.tx(async () => {
      const order = (await this.d.orders.find(input.orderId, { lock: true }))!;
      if (order.settled || order.zujie !== Zujie.renting || order.bought_out_at || !order.borrowed_at)
        throw conflict('error.grace.notRenting');
      const now = this.d.clock.now();
      const running = activeGrace(order, now);
      if (running) return running;
      const held = await this.d.reserved(order.user_id);
      if (held?.state === 'held' && new Date(held.expires_at) > now)
        throw conflict('error.grace.reserved', { place: held.venue_name });
      const v = await this.verdict(order, input, now);
      if (!v.applies) throw conflict('error.grace.returnNearby', { place: v.place.name, distance: v.place.distanceM });
      const g: GracePeriod = {
        from: now.toISOString(),
        until: v.until.toISOString(),
        reason: v.reason,
        radiusM: v.radiusM,
        nearest: v.nearest,
        at: now.toISOString(),
      };
      await this.d.orders.addGrace(order.id, g);
      const pauses = pausesOf([...(order.grace ?? []), g]);
      // The buy-out's job for its new time (the one at the old time finds it not due and does nothing).
      await this.d.jobs.enqueue(
        JOB_BUY_OUT,
        { orderId: order.id },
        buyOutAt(order.plan, new Date(order.borrowed_at), pauses),
      );
      await this.d.notices?.rescheduled(order.id);
      await this.d.changed(order.user_id, order.id);
      return g;
    });
  }

  private async verdict(order: OrderRow, at: { lat: number; lng: number }, now: Date): Promise<Verdict> {
    const s = {
      ...DEFAULT_GRACE,
      ...(await this.d.settings.agentSettingsOfVenue(order.venue_id)),
    };
    const radius = s.grace_radius_m;
    const rows = await this.d.venues.within(at.lat, at.lng, radius, NEARBY_LIMIT);
    const hours = (v: NearbyVenue) => (v.opening_hours ?? null) as OpeningHours | null;
    const t = now.getTime();
    const place = (v: NearbyVenue) => ({ shopId: v.id, name: v.name, distanceM: Math.round(v.distance) });
    const open = rows.find((v) => v.return_slots > 0 && openAt(hours(v), v.time_zone, t));
    if (open) return { applies: false, place: place(open), radiusM: radius };
    const longest = t + s.grace_max_minutes * MIN;
    // The venues with a cabinet online that are closed now: the first of them to open ends the grace period.
    const openings = rows
      .filter((v) => v.online_cabinets > 0 && !openAt(hours(v), v.time_zone, t))
      .map((v) => ({ v, opensAt: nextOpening(hours(v), v.time_zone, t) }))
      .filter((x): x is { v: NearbyVenue; opensAt: number } => x.opensAt !== null)
      .sort((a, b) => a.opensAt - b.opensAt || a.v.distance - b.v.distance);
    const first = openings[0];
    if (first) {
      return {
        applies: true,
        until: new Date(Math.min(first.opensAt, longest)),
        reason: 'closed',
        nearest: { ...place(first.v), opensAt: new Date(first.opensAt).toISOString() },
        radiusM: radius,
      };
    }
    const reason = !rows.length ? 'none' : rows.some((v) => v.online_cabinets > 0) ? 'full' : 'offline';
    const nearest = rows[0] ? { ...place(rows[0]), opensAt: null } : null;
    return {
      applies: true,
      until: new Date(Math.min(t + s.grace_minutes * MIN, longest)),
      reason,
      nearest,
      radiusM: radius,
    };
  }
}

/** The order's grace period running at `now`, if any. */
export function activeGrace(order: Pick<OrderRow, 'grace'>, now: Date): GracePeriod | undefined {
  const t = now.getTime();
  return (order.grace ?? []).find((g) => Date.parse(g.from) <= t && t < Date.parse(g.until));
}
