// Venues created and updated by the fleet's operations: validated against the contract (src/contract/ops-fleet.ts),
// opening hours per weekday with exceptions (the map's `hours` text is derived from them), an agent that exists,
// and optimistic concurrency (an update names the version it read; a stale one is refused with 409).
import { VenueCreate, VenueUpdate, WEEKDAYS, type OpeningHours, type Venue } from '#contract/ops-fleet.ts';
import type { Clock } from '../../lib/clock.ts';
import { conflict, notFound } from '../../lib/errors.ts';
import { Problems, schemaProblems } from '../../lib/validate.ts';
import type { VenueAdminRow, VenuesAdminRepository } from './admin-repository.ts';

const minutes = (hhmm: string) => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3, 5));
const DAY_NAMES: Record<(typeof WEEKDAYS)[number], string> = {
  mon: 'Mon',
  tue: 'Tue',
  wed: 'Wed',
  thu: 'Thu',
  fri: 'Fri',
  sat: 'Sat',
  sun: 'Sun',
};

/** Problems of opening hours the schema cannot see: empty, overlapping or unordered ranges, impossible or repeated dates. */
export function openingHoursProblems(p: Problems, oh: OpeningHours, at = 'openingHours') {
  const day = (ranges: OpeningHours['weekly']['mon'], path: string) => {
    let end = -1;
    ranges.forEach((r, i) => {
      const o = minutes(r.open);
      const c = minutes(r.close);
      if (o === c) p.add(`${path}.${i}`, 'invalid');
      else if (o < end || (c < o && i !== ranges.length - 1)) p.add(`${path}.${i}`, 'order');
      end = c < o ? 24 * 60 : c;
    });
  };
  for (const d of WEEKDAYS) day(oh.weekly[d], `${at}.weekly.${d}`);
  const seen = new Set<string>();
  oh.exceptions.forEach((e, i) => {
    const t = Date.parse(`${e.date}T00:00:00Z`);
    if (!Number.isFinite(t) || new Date(t).toISOString().slice(0, 10) !== e.date)
      p.add(`${at}.exceptions.${i}.date`, 'invalid');
    else if (seen.has(e.date)) p.add(`${at}.exceptions.${i}.date`, 'duplicate');
    seen.add(e.date);
    day(e.ranges, `${at}.exceptions.${i}.ranges`);
  });
}

/** The map's one-line text: "10:00-22:00" when every day is the same, else the days grouped ("Mon-Fri 08:00-20:00, Sat 10:00-18:00, Sun closed"). */
export function hoursText(oh: OpeningHours): string {
  const of = (d: (typeof WEEKDAYS)[number]) => oh.weekly[d].map((r) => `${r.open}-${r.close}`).join(' ') || 'closed';
  const groups: { from: string; to: string; text: string }[] = [];
  for (const d of WEEKDAYS) {
    const last = groups.at(-1);
    if (last && last.text === of(d)) last.to = DAY_NAMES[d];
    else groups.push({ from: DAY_NAMES[d], to: DAY_NAMES[d], text: of(d) });
  }
  if (groups.length === 1) return groups[0]!.text;
  return groups.map((g) => `${g.from === g.to ? g.from : `${g.from}-${g.to}`} ${g.text}`).join(', ');
}

const logoOk = (u: string) =>
  u === '' ||
  /^https:\/\//.test(u) ||
  /^data:image\/(svg\+xml|png|jpeg|webp);base64,/.test(u) ||
  /^\/media\/[A-Za-z0-9._/-]+$/.test(u);

export function toVenue(r: VenueAdminRow): Venue {
  return {
    id: r.id,
    name: r.name,
    names: r.names as Venue['names'],
    city: r.city,
    country: r.country?.trim() || null,
    address: r.address,
    description: r.description,
    logoUrl: r.logo_url,
    lat: r.lat,
    lng: r.lng,
    currency: r.currency,
    openingHours: (r.opening_hours ?? null) as OpeningHours | null,
    contacts: r.contacts,
    agentId: r.agent_id,
    state: r.state,
    hours: r.hours,
    version: r.version,
    bannerUrl: r.banner_url ?? '',
  };
}

export interface VenuesAdminDeps {
  repo: VenuesAdminRepository;
  clock: Clock;
  /** Whether an agent exists (the embed module's agents service). */
  agentExists(id: string): Promise<boolean>;
}

export class VenuesAdminService {
  constructor(private readonly d: VenuesAdminDeps) {}

  async get(id: string): Promise<Venue> {
    const r = await this.d.repo.venue(id);
    if (!r) throw notFound('error.fleet.notFound', { id });
    return toVenue(r);
  }

  async exists(id: string): Promise<boolean> {
    return (await this.d.repo.venue(id)) !== undefined;
  }

  private async check(p: Problems, v: { openingHours?: OpeningHours; logoUrl?: string; agentId?: string | null }) {
    if (v.openingHours) openingHoursProblems(p, v.openingHours);
    if (v.logoUrl !== undefined && !logoOk(v.logoUrl)) p.add('logoUrl', 'invalid');
    if (v.agentId && !p.any && !(await this.d.agentExists(v.agentId))) p.add('agentId', 'notFound');
    p.throwIfAny();
  }

  async create(input: unknown): Promise<Venue> {
    const p = schemaProblems(VenueCreate, input);
    p.throwIfAny();
    const v = input as VenueCreate;
    await this.check(p, v);
    const row: Omit<VenueAdminRow, 'version'> = {
      id: v.id,
      name: v.name,
      names: v.names ?? {},
      city: v.city,
      country: v.country ?? null,
      address: v.address,
      hours: hoursText(v.openingHours),
      description: v.description ?? '',
      logo_url: v.logoUrl ?? '',
      lat: v.lat,
      lng: v.lng,
      currency: v.currency,
      opening_hours: v.openingHours,
      contacts: v.contacts ?? {},
      agent_id: v.agentId ?? null,
      state: v.state ?? 'draft',
    };
    if (!(await this.d.repo.insertVenue(row, this.d.clock.now()))) p.add('id', 'duplicate').throwIfAny();
    return toVenue({ ...row, version: 1 });
  }

  /** Changes the named fields of a venue read at `version`; 409 when it changed since. */
  async update(id: string, input: unknown): Promise<Venue> {
    const p = schemaProblems(VenueUpdate, input);
    p.throwIfAny();
    const u = input as VenueUpdate;
    await this.check(p, u);
    const cur = await this.d.repo.venue(id);
    if (!cur) throw notFound('error.fleet.notFound', { id });
    const oh = u.openingHours ?? (cur.opening_hours as OpeningHours | null);
    const next: Omit<VenueAdminRow, 'version'> = {
      ...cur,
      ...(u.name !== undefined && { name: u.name }),
      ...(u.names !== undefined && { names: u.names }),
      ...(u.city !== undefined && { city: u.city }),
      ...(u.country !== undefined && { country: u.country }),
      ...(u.address !== undefined && { address: u.address }),
      ...(u.description !== undefined && { description: u.description }),
      ...(u.logoUrl !== undefined && { logo_url: u.logoUrl }),
      ...(u.lat !== undefined && { lat: u.lat }),
      ...(u.lng !== undefined && { lng: u.lng }),
      ...(u.contacts !== undefined && { contacts: u.contacts }),
      ...(u.agentId !== undefined && { agent_id: u.agentId }),
      ...(u.state !== undefined && { state: u.state }),
      opening_hours: oh,
      hours: oh ? hoursText(oh) : cur.hours,
    };
    const version = await this.d.repo.updateVenue(next, u.version, this.d.clock.now());
    if (version === undefined) throw conflict('error.fleet.stale');
    return toVenue({ ...next, version });
  }
}
