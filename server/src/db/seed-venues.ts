// The demo's venues (seed.ts makes them): four venues in three currencies, each with a cabinet of power banks and a
// real price strategy; the benches take their model cabinet from here.

function logo(initials: string, bg: string): string {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="96" height="96" viewBox="0 0 96 96"><rect width="96" height="96" rx="20" fill="${bg}"/><text x="48" y="60" font-family="Arial,Helvetica,sans-serif" font-size="36" font-weight="700" fill="#fff" text-anchor="middle">${initials}</text></svg>`;
  return `data:image/svg+xml;base64,${Buffer.from(svg).toString('base64')}`;
}

export interface SeedVenue {
  id: string;
  name: string;
  city: string;
  /** ISO 3166-1 alpha-2. */
  country: string;
  address: string;
  hours: string;
  description: string;
  logo: string;
  lat: number;
  lng: number;
  currency: string;
  /** Minor units. unitLength × priceUnit (0 min, 1 h, 2 day) is the charge unit. */
  plan: {
    unitPrice: number;
    unitLength: number;
    priceUnit: 0 | 1 | 2;
    freeMinutes: number;
    dailyCap: number;
    deposit: number;
    overtimeAmount: number;
    overtimeDays: number;
    depositType: 0 | 1;
  };
  cabinet: { id: string; slots: number; powerbanks: number };
  /** Wi-Fi boxes (serials) in the last slots, and the box deposit (minor units) of the venue's 'mifi' plan. */
  boxes?: { serials: string[]; deposit: number };
  /** Power stations (spec energyStorageFlag) in the slots after the power banks, with their own plan. */
  stations?: { count: number; plan: SeedVenue['plan'] };
}

export const SEED_VENUES: SeedVenue[] = [
  {
    id: 'v-sh-jingan',
    name: "Jing'an Kerry Centre",
    city: 'Shanghai',
    country: 'CN',
    address: "1515 Nanjing West Road, Jing'an District, Shanghai 200040",
    hours: '10:00-22:00',
    description: 'Ground floor, next to the north entrance.',
    logo: logo('JK', '#c8102e'),
    lat: 31.2247,
    lng: 121.446,
    currency: 'CNY',
    plan: {
      unitPrice: 200,
      unitLength: 30,
      priceUnit: 0,
      freeMinutes: 5,
      dailyCap: 2000,
      deposit: 9900,
      overtimeAmount: 9900,
      overtimeDays: 5,
      depositType: 1,
    },
    cabinet: { id: 'PWL-SH-001', slots: 8, powerbanks: 6 },
  },
  {
    id: 'v-vno-gedimino',
    name: 'GO9 Gedimino 9',
    city: 'Vilnius',
    country: 'LT',
    address: 'Gedimino pr. 9, 01103 Vilnius, Lithuania',
    hours: '08:00-22:00',
    description: 'Level 1, by the information desk.',
    logo: logo('G9', '#006a44'),
    lat: 54.6871,
    lng: 25.2801,
    currency: 'EUR',
    plan: {
      unitPrice: 100,
      unitLength: 1,
      priceUnit: 1,
      freeMinutes: 10,
      dailyCap: 500,
      deposit: 2500,
      overtimeAmount: 2500,
      overtimeDays: 3,
      depositType: 0,
    },
    cabinet: { id: 'PWL-VNO-001', slots: 6, powerbanks: 4 },
  },
  {
    id: 'v-lis-timeout',
    name: 'Time Out Market Lisboa',
    city: 'Lisbon',
    country: 'PT',
    address: 'Av. 24 de Julho 49, 1200-479 Lisboa, Portugal',
    hours: '10:00-24:00',
    description: 'Next to the main bar.',
    logo: logo('TO', '#e4002b'),
    lat: 38.7069,
    lng: -9.1459,
    currency: 'EUR',
    plan: {
      unitPrice: 150,
      unitLength: 30,
      priceUnit: 0,
      freeMinutes: 5,
      dailyCap: 800,
      deposit: 3000,
      overtimeAmount: 3000,
      overtimeDays: 3,
      depositType: 0,
    },
    // Slots 1-6 for power banks (3 free), 7 a power station, 8-9 Wi-Fi boxes.
    cabinet: { id: 'PWL-LIS-001', slots: 9, powerbanks: 3 },
    boxes: { serials: ['MF-LIS-0001', 'MF-LIS-0002'], deposit: 5000 },
    stations: {
      count: 1,
      plan: {
        unitPrice: 300,
        unitLength: 1,
        priceUnit: 1,
        freeMinutes: 0,
        dailyCap: 2000,
        deposit: 15000,
        overtimeAmount: 15000,
        overtimeDays: 3,
        depositType: 0,
      },
    },
  },
  {
    id: 'v-nyc-gct',
    name: 'Grand Central Terminal',
    city: 'New York',
    country: 'US',
    address: '89 E 42nd St, New York, NY 10017, USA',
    hours: '05:30-02:00',
    description: 'Main Concourse, near the information booth.',
    logo: logo('GC', '#1f3a93'),
    lat: 40.7527,
    lng: -73.9772,
    currency: 'USD',
    plan: {
      unitPrice: 150,
      unitLength: 30,
      priceUnit: 0,
      freeMinutes: 0,
      dailyCap: 900,
      deposit: 3000,
      overtimeAmount: 3000,
      overtimeDays: 5,
      depositType: 1,
    },
    // Slots 1-8 for power banks (2 free), 9 a power station, 10 a Wi-Fi box.
    cabinet: { id: 'PWL-NYC-001', slots: 10, powerbanks: 6 },
    boxes: { serials: ['MF-NYC-0001'], deposit: 6000 },
    stations: {
      count: 1,
      plan: {
        unitPrice: 400,
        unitLength: 1,
        priceUnit: 1,
        freeMinutes: 0,
        dailyCap: 2500,
        deposit: 20000,
        overtimeAmount: 20000,
        overtimeDays: 5,
        depositType: 1,
      },
    },
  },
];
