// The rows and SQL rules of venues and their plans that one-round-trip reads of other modules share (the cabinets'
// scan): public, so that each rule has one place. The venues' own reads use them too (repository.ts).
import type { DeviceKind } from '#core/devices.ts';

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
  /** The country the venue is in (ISO 3166-1 alpha-2, char(2)); null: not set. */
  country?: string | null;
  /** The venue's agent (null: the platform's). */
  agent_id?: string | null;
  /** Weekly opening hours in its agent's time zone (null: always open), src/core/hours.ts. */
  opening_hours?: unknown;
}

export interface PlanRow {
  id: number;
  venue_id: string | null;
  agent_id: string | null;
  device_kind: DeviceKind;
  currency: string;
  effective_from: Date | string;
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

/**
 * The empty slots of the cabinet row `c` a rider can return into at `now`: its slots less those holding a device
 * (any kind, also quarantined), those an operator locked and left empty (its last inventory), and those a held
 * return reservation keeps (modules/cabinets/reservations.ts) — for another rider than `me` (an SQL expression of a
 * user id; null: every held one counts as taken). The one rule of the map, the venue page and the scan.
 */
export const RETURN_SLOTS = (c: string, now: string, me = 'null') => `greatest(0, ${c}.slot_count
    - (select count(*) from powerbanks p where p.cabinet_id = ${c}.id and p.slot is not null and p.state in ('in_cabinet', 'quarantined'))
    - (select count(*) from jsonb_array_elements(case when jsonb_typeof(${c}.inventory) = 'array' then ${c}.inventory else '[]'::jsonb end) e
        where e->>'locked' = 'true' and e->>'powerbankId' is null)
    - (select count(*) from return_reservations r where r.cabinet_id = ${c}.id and r.state = 'held' and r.expires_at > ${now}
        and r.user_id is distinct from ${me}))`;

/**
 * The plan of kind `kind` in effect at `at` for the venue row `v`, as JSON: the venue's own plan with the latest
 * effective time not after `at`, else its agent's in the venue's currency. Every read of a venue's plan uses it.
 */
export const EFFECTIVE_PLAN = (v: string, kind: string, at: string) => `(select to_jsonb(pe) from price_plans pe
   where pe.device_kind = ${kind} and pe.effective_from <= ${at}
     and (pe.venue_id = ${v}.id or (pe.venue_id is null and pe.agent_id = ${v}.agent_id and pe.currency = ${v}.currency))
   order by pe.venue_id is null, pe.effective_from desc limit 1)`;

/** The device kinds the venue row `v` has a plan in effect for at `at`, in order. */
export const PLAN_KINDS = (
  v: string,
  at: string,
) => `(select array_agg(distinct pk.device_kind order by pk.device_kind) from price_plans pk
   where pk.effective_from <= ${at}
     and (pk.venue_id = ${v}.id or (pk.venue_id is null and pk.agent_id = ${v}.agent_id and pk.currency = ${v}.currency)))`;
