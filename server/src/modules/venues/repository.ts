import type { DeviceKind } from '#core/devices.ts';
import type { Queryable } from '../../db/db.ts';
import { EFFECTIVE_PLAN, RETURN_SLOTS, type PlanRow, type VenueRow } from './read-model-repository.ts';

export type { PlanRow, VenueRow } from './read-model-repository.ts';

export interface ShopRow extends VenueRow {
  /** Slots of the venue's online cabinets. */
  slot_count: number;
  /** Power banks ready to rent in the venue's online cabinets. */
  available: number;
  /** Free slots to return a power bank into now, in the venue's online cabinets. */
  return_slots: number;
  online_cabinets: number;
  cabinet_count: number;
}

export interface NearbyShopRow extends ShopRow {
  distance: number;
}

export interface ShopCabinetRow {
  id: string;
  slot_count: number;
  available: number;
  return_slots: number;
  online: boolean;
  last_seen_at: Date | null;
}

/**
 * Stock of the venue row `n` from its cabinets' last reports: only cabinets that are online and were heard from
 * since $live count (an offline cabinet can neither lend nor take back a power bank). `return_slots`: the slots a
 * power bank can go back into now, those of `RETURN_SLOTS` summed (for rider `me`: their own held reservation is free).
 */
const STOCK = (live: string, now: string, me = 'null') => `left join lateral (
    select coalesce(sum(c.slot_count) filter (where c.online and c.last_seen_at >= ${live}), 0)::int as slot_count,
           coalesce(sum(pb.n) filter (where c.online and c.last_seen_at >= ${live}), 0)::int as available,
           coalesce(sum(${RETURN_SLOTS('c', now, me)}) filter (where c.online and c.last_seen_at >= ${live}), 0)::int as return_slots,
           (count(*) filter (where c.online and c.last_seen_at >= ${live}))::int as online_cabinets,
           count(c.id)::int as cabinet_count
      from cabinets c
      left join lateral (select count(*) as n from powerbanks p where p.cabinet_id = c.id and p.state = 'in_cabinet' and p.kind = 'cdb') pb on true
     where c.venue_id = n.id
  ) s on true`;

/** Great-circle distance in metres from ($1, $2) in SQL (same formula as geo.ts haversineMetres). */
const HAVERSINE = `2 * 6371000 * asin(least(1, sqrt(
    power(sin(radians(v.lat - $1) / 2), 2) + cos(radians($1)) * cos(radians(v.lat)) * power(sin(radians(v.lng - $2) / 2), 2))))`;

/** Keeps venues with a power bank to rent, or with a slot to return one into now. */
export type StockFilter = 'rent' | 'return';
const keep = (f: StockFilter | undefined) =>
  f === 'rent' ? 'and s.available > 0' : f === 'return' ? 'and s.return_slots > 0' : '';

export class VenuesRepository {
  constructor(private readonly db: Queryable) {}

  async find(id: string) {
    const { rows } = await this.db.query<VenueRow>('select * from venues where id = $1', [id]);
    return rows[0];
  }

  /** The venue and its price plan in effect at `at`, in one round trip. */
  async withPlan(venueId: string, kind: DeviceKind, at: Date) {
    const { rows } = await this.db.query<
      VenueRow & { plan: PlanRow | string | null; agent_deposit_by_payment: boolean | null }
    >(
      `select v.*, ${EFFECTIVE_PLAN('v', '$2', '$3')} as plan,
              (select ag.deposit_by_payment from agents ag where ag.id = v.agent_id) as agent_deposit_by_payment
         from venues v where v.id = $1`,
      [venueId, kind, at],
    );
    const r = rows[0];
    if (!r) return undefined;
    const { plan, agent_deposit_by_payment, ...venue } = r;
    const parsed = typeof plan === 'string' ? (JSON.parse(plan) as PlanRow) : plan;
    return {
      venue: venue as VenueRow,
      plan: parsed ?? undefined,
      agent: { depositByPayment: agent_deposit_by_payment === true },
    };
  }

  /** The lowest Wi-Fi box deposit of the 'mifi' plans in effect at `at` at venues in `currency` (0: none). */
  async mifiDeposit(currency: string, at: Date) {
    const { rows } = await this.db.query<{ deposit: number | string | null }>(
      `select min((m.plan->>'deposit')::bigint) as deposit from (select ${EFFECTIVE_PLAN('v', `'mifi'`, '$2')} as plan from venues v where v.currency = $1) m`,
      [currency, at],
    );
    return Number(rows[0]?.deposit ?? 0);
  }

  /**
   * Venues within `radius` metres of (lat, lng), nearest first, with their stock. The bounding box (one or two
   * longitude ranges) is answered by the (lat, lng) btree; haversine filters and orders what it returns; stock
   * is computed only for the rows kept.
   */
  async nearby(p: {
    lat: number;
    lng: number;
    radius: number;
    latMin: number;
    latMax: number;
    lngRanges: [number, number][];
    limit: number;
    liveSince: Date;
    now: Date;
    filter?: StockFilter;
    me?: number;
  }) {
    const [a, b] = p.lngRanges;
    const r2 = b ?? a!; // a second range equal to the first when there is only one: same SQL, one plan
    const { rows } = await this.db.query<NearbyShopRow>(
      `select n.*, s.slot_count, s.available, s.return_slots, s.online_cabinets, s.cabinet_count from (
         select * from (
           select v.*, ${HAVERSINE} as distance from venues v
            where v.state = 'live' and v.lat between $3 and $4 and (v.lng between $5 and $6 or v.lng between $7 and $8)
         ) w where w.distance <= $9 order by w.distance, w.id limit $10
       ) n ${STOCK('$11', '$12', '$13::bigint')} where true ${keep(p.filter)} order by n.distance, n.id`,
      [
        p.lat,
        p.lng,
        p.latMin,
        p.latMax,
        a![0],
        a![1],
        r2[0],
        r2[1],
        p.radius,
        p.limit,
        p.liveSince,
        p.now,
        p.me ?? null,
      ],
    );
    return rows.map((r) => ({ ...r, distance: Number(r.distance) }));
  }

  /**
   * Venues whose name, address or city contains `q` (case-insensitive; all venues when empty), nearest to (lat, lng)
   * first when given, else by name; `filter` keeps those with a power bank to rent or a free slot (online cabinets);
   * `offset` skips that many of them (the next page); `me`: the rider whose own held reservation counts as free.
   */
  async search(p: {
    q: string;
    at?: { lat: number; lng: number };
    filter?: StockFilter;
    limit: number;
    offset?: number;
    liveSince: Date;
    now: Date;
    me?: number;
  }) {
    const like = `%${p.q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    const { rows } = await this.db.query<NearbyShopRow>(
      `select n.*, s.slot_count, s.available, s.return_slots, s.online_cabinets, s.cabinet_count from (
         select v.*, case when $1::float8 is null then null else ${HAVERSINE} end as distance from venues v
          where v.state = 'live' and ($3 = '%%' or v.name ilike $3 or v.address ilike $3 or v.city ilike $3)
       ) n ${STOCK('$4', '$6', '$8::bigint')}
       where true ${keep(p.filter)}
       order by n.distance nulls last, n.name, n.id limit $5 offset $7`,
      [p.at?.lat ?? null, p.at?.lng ?? null, like, p.liveSince, p.limit, p.now, p.offset ?? 0, p.me ?? null],
    );
    return rows.map((r) => ({ ...r, distance: r.distance === null ? null : Number(r.distance) }));
  }

  /** One venue with its stock, distance from (lat, lng) when given; `me`: the rider whose own held reservation is free. */
  async shop(id: string, at: { lat: number; lng: number } | undefined, liveSince: Date, now: Date, me?: number) {
    const { rows } = await this.db.query<NearbyShopRow>(
      `select n.*, s.slot_count, s.available, s.return_slots, s.online_cabinets, s.cabinet_count from (
         select v.*, case when $1::float8 is null then null else ${HAVERSINE} end as distance from venues v where v.id = $3
       ) n ${STOCK('$4', '$5', '$6::bigint')}`,
      [at?.lat ?? null, at?.lng ?? null, id, liveSince, now, me ?? null],
    );
    const r = rows[0];
    return r ? { ...r, distance: r.distance === null ? null : Number(r.distance) } : undefined;
  }

  /** The cabinets of a venue with what each holds (`me`: as for `shop`). */
  async cabinetsOf(venueId: string, now: Date, me?: number) {
    const { rows } = await this.db.query<ShopCabinetRow>(
      `select c.id, c.slot_count, c.online, c.last_seen_at,
         (select count(*)::int from powerbanks p where p.cabinet_id = c.id and p.state = 'in_cabinet' and p.kind = 'cdb') as available,
         ${RETURN_SLOTS('c', '$2', '$3::bigint')}::int as return_slots
       from cabinets c where c.venue_id = $1 order by c.id`,
      [venueId, now, me ?? null],
    );
    return rows;
  }
}
