// Demo data, seeded on first start and idempotent (what exists is left as it is): four venues in three currencies,
// each with a cabinet of power banks, and a real price strategy per venue. Made through the fleet's service
// operations (server/src/fleet.ts), as an operator would. The venues: seed-venues.ts.
import { fleetServices, type Fleet } from '../fleet.ts';
import { systemClock } from '../lib/clock.ts';
import { FieldErrors } from '../lib/validate.ts';
import type { Db } from './db.ts';
import { SEED_VENUES, type SeedVenue } from './seed-venues.ts';

function flag(code: string): string {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="32" height="24"><rect width="32" height="24" rx="3" fill="#1f3a93"/><text x="16" y="16" font-family="Arial" font-size="10" fill="#fff" text-anchor="middle">${code}</text></svg>`;
  return `data:image/svg+xml;base64,${Buffer.from(svg).toString('base64')}`;
}

/** The Wi-Fi package catalogue: three regions, twelve countries, per-day and day-package SKUs in CNY, EUR and USD. */
export const SEED_REGIONS = [
  {
    id: 'asia',
    name: 'Asia',
    countries: [
      ['CN', 'China', 'Asia/Shanghai'],
      ['JP', 'Japan', 'Asia/Tokyo'],
      ['KR', 'South Korea', 'Asia/Seoul'],
      ['TH', 'Thailand', 'Asia/Bangkok'],
      ['SG', 'Singapore', 'Asia/Singapore'],
    ],
  },
  {
    id: 'europe',
    name: 'Europe',
    countries: [
      ['LT', 'Lithuania', 'Europe/Vilnius'],
      ['PT', 'Portugal', 'Europe/Lisbon'],
      ['ES', 'Spain', 'Europe/Madrid'],
      ['FR', 'France', 'Europe/Paris'],
      ['DE', 'Germany', 'Europe/Berlin'],
    ],
  },
  {
    id: 'americas',
    name: 'Americas',
    countries: [
      ['US', 'United States', 'America/New_York'],
      ['BR', 'Brazil', 'America/Sao_Paulo'],
    ],
  },
] as const;
/** Price of one day (or of the whole day package) in minor units per currency. */
const RATE = { CNY: 1500, EUR: 200, USD: 220 } as const;

/** Runs a creation; a "taken" refusal (already seeded) is skipped, so the seed can run on every start. */
async function once(create: () => Promise<unknown>): Promise<void> {
  try {
    await create();
  } catch (err) {
    if (!(err instanceof FieldErrors && err.problems.every((p) => p.code === 'duplicate'))) throw err;
  }
}

async function seedCatalogue(fleet: Fleet) {
  let sort = 0;
  for (const r of SEED_REGIONS) {
    await once(() =>
      fleet.mifi.createRegion({
        id: r.id,
        name: r.name,
        flagUrl: flag(r.name.slice(0, 2).toUpperCase()),
        sort: sort++,
        countries: r.countries.map(([code, name, timeZone]) => ({ code, name, timeZone, flagUrl: flag(code) })),
      }),
    );
    const skus: {
      id: string;
      country: string | null;
      name: string;
      kind: 'days' | 'unlimited' | 'mb';
      value: number;
      isPackage: boolean;
      days: number;
      factor: number;
    }[] = [
      {
        id: `${r.id}-all-7d`,
        country: null,
        name: 'Regional',
        kind: 'days',
        value: 7,
        isPackage: true,
        days: 7,
        factor: 6,
      },
    ];
    for (const [code] of r.countries) {
      skus.push(
        {
          id: `${code.toLowerCase()}-unl`,
          country: code,
          name: 'Daily',
          kind: 'unlimited',
          value: 0,
          isPackage: false,
          days: 1,
          factor: 1,
        },
        {
          id: `${code.toLowerCase()}-500mb`,
          country: code,
          name: 'Light',
          kind: 'mb',
          value: 500,
          isPackage: false,
          days: 1,
          factor: 0.5,
        },
        {
          id: `${code.toLowerCase()}-3d`,
          country: code,
          name: 'Daily',
          kind: 'days',
          value: 3,
          isPackage: true,
          days: 3,
          factor: 2.5,
        },
      );
    }
    for (const k of skus) {
      await once(() =>
        fleet.mifi.createSku({
          id: k.id,
          regionId: r.id,
          countryCode: k.country,
          name: k.name,
          planKind: k.kind,
          planValue: k.value,
          isPackage: k.isPackage,
          days: k.days,
          prices: Object.entries(RATE).map(([currency, rate]) => ({ currency, price: Math.round(rate * k.factor) })),
        }),
      );
    }
  }
}

export async function seed(db: Db): Promise<void> {
  const fleet = fleetServices({ db, clock: systemClock });
  await db.tx(async () => {
    await seedCatalogue(fleet);
    for (const v of SEED_VENUES) await seedVenueWith(fleet, v);
  });
}

/** The seeded plans charge from the start of time: every test clock and demo date sees them. */
const ALWAYS = '1970-01-01T00:00:00.000Z';
const UNITS = ['minute', 'hour', 'day'] as const;

function planInput(venueId: string, deviceKind: 'cdb' | 'station' | 'mifi', p: SeedVenue['plan']) {
  return {
    venueId,
    deviceKind,
    type: 'unit',
    unitPrice: p.unitPrice,
    unitLength: p.unitLength,
    priceUnit: UNITS[p.priceUnit],
    freeMinutes: p.freeMinutes,
    dailyCap: p.dailyCap,
    deposit: p.deposit,
    depositType: p.depositType === 1 ? 'wallet' : 'preauth',
    overtimeAmount: p.overtimeAmount,
    overtimeDays: p.overtimeDays,
    effectiveFrom: ALWAYS,
  };
}

/** One venue with its plans, cabinet, power banks, boxes and stations (idempotent; also the benches' cabinets). */
export async function seedVenue(db: Db, v: SeedVenue): Promise<void> {
  await seedVenueWith(fleetServices({ db, clock: systemClock }), v);
}

async function seedVenueWith(fleet: Fleet, v: SeedVenue): Promise<void> {
  const [open, close] = v.hours.split('-') as [string, string];
  const day = [{ open, close }];
  await once(() =>
    fleet.venues.create({
      id: v.id,
      name: v.name,
      names: { 'en-US': v.name },
      city: v.city,
      country: v.country,
      address: v.address,
      description: v.description,
      logoUrl: v.logo,
      lat: v.lat,
      lng: v.lng,
      currency: v.currency,
      state: 'live',
      openingHours: {
        weekly: { mon: day, tue: day, wed: day, thu: day, fri: day, sat: day, sun: day },
        exceptions: [],
      },
    }),
  );
  await once(() => fleet.plans.create(planInput(v.id, 'cdb', v.plan)));
  if (v.stations) await once(() => fleet.plans.create(planInput(v.id, 'station', v.stations!.plan)));
  if (v.boxes) {
    const deposit = v.boxes.deposit;
    await once(() =>
      fleet.plans.create(
        planInput(v.id, 'mifi', {
          unitPrice: 0,
          unitLength: 1,
          priceUnit: 2,
          freeMinutes: 0,
          dailyCap: 0,
          deposit,
          overtimeAmount: deposit,
          overtimeDays: 30,
          depositType: 1,
        }),
      ),
    );
  }
  try {
    await fleet.cabinets.register({ id: v.cabinet.id, slots: v.cabinet.slots, venueId: v.id });
  } catch (err) {
    // Already seeded: power banks may have moved since.
    if (err instanceof FieldErrors && err.problems.every((p) => p.code === 'duplicate')) return;
    throw err;
  }
  const city = v.cabinet.id.split('-')[1];
  for (let i = 1; i <= v.cabinet.powerbanks; i++) {
    await fleet.cabinets.registerDevice({
      id: `PB-${city}-${String(i).padStart(4, '0')}`,
      cabinetId: v.cabinet.id,
      slot: i,
    });
  }
  const boxes = v.boxes?.serials ?? [];
  for (const [i, sn] of boxes.entries()) {
    await fleet.mifi.createBox({
      sn,
      ssid: `Powerly-${sn.slice(-4)}`,
      password: `pw-${sn.toLowerCase().replace(/[^a-z0-9]/g, '')}`,
      cabinetId: v.cabinet.id,
      slot: v.cabinet.slots - boxes.length + 1 + i,
    });
  }
  const stations = v.stations?.count ?? 0;
  for (let i = 1; i <= stations; i++) {
    await fleet.cabinets.registerDevice({
      id: `PS-${city}-${String(i).padStart(4, '0')}`,
      kind: 'station',
      cabinetId: v.cabinet.id,
      slot: v.cabinet.slots - boxes.length - stations + i,
    });
  }
}
