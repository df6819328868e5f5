// The venues and price_plans tables for the fleet's operations: venues created and updated with a version
// (compare-and-set), price plans per venue or per agent with their effective time.
import type { DeviceKind } from '#core/devices.ts';
import type { Queryable } from '../../db/db.ts';
import type { PlanRow, VenueRow } from './repository.ts';

/** A venue as the fleet's operations see it: the map's row and what only operators edit. */
export interface VenueAdminRow extends VenueRow {
  names: Partial<Record<string, string>>;
  opening_hours: unknown;
  contacts: Partial<Record<string, string>>;
  agent_id: string | null;
  state: 'draft' | 'live' | 'closed';
  version: number;
  /** Set by an upload (venues/images.ts), never by create or update. */
  banner_url?: string;
}

export type PlanInsert = Omit<PlanRow, 'id'>;

const VENUE_COLS = [
  'name',
  'names',
  'city',
  'country',
  'address',
  'hours',
  'description',
  'logo_url',
  'lat',
  'lng',
  'opening_hours',
  'contacts',
  'agent_id',
  'state',
] as const;
const PLAN_COLS = [
  'kind',
  'unit_price',
  'unit_length',
  'price_unit',
  'free_minutes',
  'daily_cap',
  'deposit',
  'overtime_amount',
  'overtime_days',
  'deposit_type',
  'tiers',
  'effective_from',
] as const;
const jsonCols = new Set(['names', 'opening_hours', 'contacts', 'tiers']);
const arg = (col: string, v: unknown) => (jsonCols.has(col) && v !== null ? JSON.stringify(v) : v);
const planRow = (r: PlanRow): PlanRow => ({
  ...r,
  id: Number(r.id),
  currency: r.currency.trim(),
  unit_price: Number(r.unit_price),
  daily_cap: Number(r.daily_cap),
  deposit: Number(r.deposit),
  overtime_amount: Number(r.overtime_amount),
});

export class VenuesAdminRepository {
  constructor(private readonly db: Queryable) {}

  async venue(id: string) {
    const { rows } = await this.db.query<VenueAdminRow>('select * from venues where id = $1', [id]);
    const r = rows[0];
    return r ? { ...r, currency: r.currency.trim(), lat: Number(r.lat), lng: Number(r.lng) } : undefined;
  }

  /** Inserts a venue at version 1; false when the id is taken. */
  async insertVenue(v: Omit<VenueAdminRow, 'version'>, at: Date): Promise<boolean> {
    const cols = ['id', 'currency', ...VENUE_COLS];
    const res = await this.db.query(
      `insert into venues (${cols.join(', ')}, updated_at) values (${cols.map((_, i) => `$${i + 1}`).join(', ')}, $${cols.length + 1}) on conflict (id) do nothing`,
      [...cols.map((c) => arg(c, v[c as keyof typeof v])), at],
    );
    return res.rowCount === 1;
  }

  /** Writes the venue if it is still at `version`: the new version, or undefined when it is stale. */
  async updateVenue(v: Omit<VenueAdminRow, 'version'>, version: number, at: Date): Promise<number | undefined> {
    const sets = VENUE_COLS.map((c, i) => `${c} = $${i + 3}`).join(', ');
    const { rows } = await this.db.query<{ version: number }>(
      `update venues set ${sets}, version = version + 1, updated_at = $${VENUE_COLS.length + 3} where id = $1 and version = $2 returning version`,
      [v.id, version, ...VENUE_COLS.map((c) => arg(c, v[c])), at],
    );
    return rows[0]?.version;
  }

  async plan(id: number) {
    const { rows } = await this.db.query<PlanRow>('select * from price_plans where id = $1', [id]);
    return rows[0] ? planRow(rows[0]) : undefined;
  }

  /** A venue's or an agent's plans, newest effective time first. */
  async plansOf(owner: { venueId: string } | { agentId: string }, kind?: DeviceKind) {
    const [col, id] = 'venueId' in owner ? ['venue_id', owner.venueId] : ['agent_id', owner.agentId];
    const { rows } = await this.db.query<PlanRow>(
      `select * from price_plans where ${col} = $1 and ($2::text is null or device_kind = $2) order by device_kind, effective_from desc, id desc`,
      [id, kind ?? null],
    );
    return rows.map(planRow);
  }

  /** Inserts a plan; undefined when the owner already has a plan of that kind from that very time. */
  async insertPlan(p: PlanInsert) {
    const cols = ['venue_id', 'agent_id', 'device_kind', 'currency', ...PLAN_COLS];
    const { rows } = await this.db.query<{ id: string }>(
      `insert into price_plans (${cols.join(', ')}) values (${cols.map((_, i) => `$${i + 1}`).join(', ')}) on conflict do nothing returning id`,
      cols.map((c) => arg(c, p[c as keyof PlanInsert])),
    );
    return rows[0] ? Number(rows[0].id) : undefined;
  }

  /** Rewrites a plan not yet in effect at `now` (false: it is in effect, or the new time is taken). */
  async updatePlan(id: number, p: PlanInsert, now: Date): Promise<'ok' | 'inEffect' | 'taken'> {
    const sets = PLAN_COLS.map((c, i) => `${c} = $${i + 3}`).join(', ');
    try {
      const res = await this.db.query(`update price_plans set ${sets} where id = $1 and effective_from > $2`, [
        id,
        now,
        ...PLAN_COLS.map((c) => arg(c, p[c])),
      ]);
      return res.rowCount === 1 ? 'ok' : 'inEffect';
    } catch (err) {
      if ((err as { code?: string }).code === '23505') return 'taken';
      throw err;
    }
  }
}
