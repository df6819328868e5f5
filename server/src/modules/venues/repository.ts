import type { Queryable } from '../../db/db.ts';

export interface VenueRow {
  id: string;
  name: string;
  city: string;
  address: string;
  hours: string;
  description: string;
  logo_url: string;
  lat: number;
  lng: number;
  currency: string;
}

export interface PlanRow {
  venue_id: string;
  kind: number;
  unit_price: number;
  unit_length: number;
  price_unit: number;
  free_minutes: number;
  daily_cap: number;
  deposit: number;
  overtime_amount: number;
  overtime_days: number;
  deposit_type: number;
  tiers: { startMinute: number; endMinute: number; totalFee: number }[];
}

export interface ShopRow extends VenueRow {
  slot_count: number;
  available: number;
  online_cabinets: number;
}

export class VenuesRepository {
  constructor(private readonly db: Queryable) {}

  async find(id: string, q: Queryable = this.db) {
    const { rows } = await q.query<VenueRow>('select * from venues where id = $1', [id]);
    return rows[0];
  }

  /** The venue and its price plan in one round trip. */
  async withPlan(venueId: string, q: Queryable = this.db) {
    const { rows } = await q.query<VenueRow & { plan: PlanRow | string | null }>(
      'select v.*, to_jsonb(p) as plan from venues v left join price_plans p on p.venue_id = v.id where v.id = $1',
      [venueId],
    );
    const r = rows[0];
    if (!r) return undefined;
    const { plan, ...venue } = r;
    const parsed = typeof plan === 'string' ? (JSON.parse(plan) as PlanRow) : plan;
    return { venue: venue as VenueRow, plan: parsed ?? undefined };
  }

  async plan(venueId: string, q: Queryable = this.db) {
    const { rows } = await q.query<PlanRow>('select * from price_plans where venue_id = $1', [venueId]);
    return rows[0];
  }

  /** Every venue with its stock (for the map): slots, power banks ready to rent, cabinets online. */
  async shops(q: Queryable = this.db) {
    const { rows } = await q.query<ShopRow>(
      `select v.*,
         (select coalesce(sum(c.slot_count), 0)::int from cabinets c where c.venue_id = v.id) as slot_count,
         (select count(*)::int from powerbanks p join cabinets c on c.id = p.cabinet_id
           where c.venue_id = v.id and p.state = 'in_cabinet') as available,
         (select count(*)::int from cabinets c where c.venue_id = v.id and c.online) as online_cabinets
       from venues v order by v.id`,
    );
    return rows;
  }
}
