// The Wi-Fi line's ops tests' fixtures (ops-mifi.test.ts): the app with two agents' venues and cabinets and a
// signed-in console per caller, the role × scope table of the Wi-Fi line and the call each of its operations makes,
// a package's body and the packages a rider is offered.
import { afterAll, beforeAll, expect } from 'vitest';
import type { BoxDepositShape, MifiRegionShape, MifiSkuPage } from '#contract/ops/mifi.ts';
import { build, markHeardFrom, venueFixture, type Built } from '../helper.ts';
import { callerConsoles, type Caller } from './callers.ts';
import type { OpsConsole } from './console.ts';

export const API = '/cdb-app-api/v1/app';
export const why = 'stock arrived';
export let b: Built;
let consoles = new Map<Caller, OpsConsole>();
export const allConsoles = () => consoles;
export const as = (c: Caller) => consoles.get(c)!;

/** The app of the file (its hooks): venue V001 and cabinet CAB-A1 of agent A (heard from), VB01 and CAB-B1 of B. */
export function useMifiOps() {
  beforeAll(async () => {
    b = await build({ simulator: false });
    consoles = await callerConsoles(b);
    await b.app.powerly.fleet.venues.create(venueFixture('V001', 54.68, 25.28, { agentId: 'agent-a' }));
    await b.app.powerly.fleet.venues.create(venueFixture('VB01', 38.72, -9.14, { agentId: 'agent-b' }));
    for (const [id, venueId] of [
      ['CAB-A1', 'V001'],
      ['CAB-B1', 'VB01'],
    ]) {
      expect(
        (await as('platformOwner').call('POST', '/cabinets', { id, slots: 40, venueId, reason: why })).statusCode,
      ).toBe(200);
    }
    await markHeardFrom(b, ['CAB-A1']);
  }, 60_000);
  afterAll(async () => b?.close());
}

interface SkuFields {
  id: string;
  regionId: string;
  countryCode: string | null;
  name: string;
  days: number;
  prices: { currency: string; price: number }[];
  reason: string;
}
/** Creates a package (POST /mifi/skus) as `c`: a plan of `days` days, sold as a package. */
export const postSku = (c: OpsConsole, p: SkuFields) =>
  c.call('POST', '/mifi/skus', { ...p, planKind: 'days', planValue: p.days, isPackage: true });

/** The packages of a SKU the rider is offered in a currency (chargenow/mifi packageDtlListBySkuId). */
export async function riderPackages(token: string, skuId: string, currency: string, lang?: string) {
  const res = await b.app.inject({
    method: 'POST',
    url: `${API}/chargenow/mifi/query`,
    headers: lang ? { token, lang } : { token },
    payload: { requestMethod: 'POST', url: 'packageDtlListBySkuId', data: JSON.stringify({ skuId, currency }) },
  });
  return JSON.parse(res.json<{ data: string }>().data) as Array<{
    packageName: string;
    price: number;
    [field: string]: unknown;
  }>;
}

type Op =
  | 'list regions'
  | 'create region'
  | 'edit region'
  | 'create package'
  | 'edit package'
  | 'list box deposits'
  | 'set box deposit'
  | 'list boxes'
  | 'create box in A'
  | 'rotate box password in A'
  | 'place station in A';
//                         none owner adminA adminB supportA financeA technicianA readOnlyA partnerA
export const TABLE: Record<Op, number[]> = {
  'list regions': [401, 200, 200, 200, 200, 403, 200, 200, 200],
  'create region': [401, 200, 403, 403, 403, 403, 403, 403, 403],
  'edit region': [401, 200, 403, 403, 403, 403, 403, 403, 403],
  'create package': [401, 200, 403, 403, 403, 403, 403, 403, 403],
  'edit package': [401, 200, 403, 403, 403, 403, 403, 403, 403],
  'list box deposits': [401, 200, 200, 200, 200, 403, 200, 200, 200],
  'set box deposit': [401, 200, 403, 403, 403, 403, 403, 403, 403],
  'list boxes': [401, 200, 200, 200, 200, 403, 200, 200, 200],
  'create box in A': [401, 200, 200, 404, 403, 403, 200, 403, 403],
  'rotate box password in A': [401, 200, 200, 404, 403, 403, 200, 403, 403],
  'place station in A': [401, 200, 200, 404, 403, 403, 200, 403, 403],
};

/** The call each operation of TABLE makes (fresh ids and slots for every call). */
export function tableCalls(): Record<Op, (c: OpsConsole) => Promise<{ statusCode: number }>> {
  let n = 0;
  const slots = { box: 0, rotate: 10, station: 20 };
  return {
    'list regions': (c) => c.call('GET', '/mifi/regions'),
    'create region': (c) =>
      c.call('POST', '/mifi/regions', { id: `r-${++n}`, name: 'Region', flagUrl: '', countries: [], reason: why }),
    'edit region': async (c) => {
      const cur = (await as('platformOwner').call('GET', '/mifi/regions'))
        .json<{ items: MifiRegionShape[] }>()
        .items.find((r) => r.id === 'europe')!;
      return c.call(
        'PATCH',
        '/mifi/regions/europe',
        { name: cur.name, countries: cur.countries, reason: why },
        { 'if-match': `"v${cur.version}"` },
      );
    },
    'create package': (c) =>
      c.call('POST', '/mifi/skus', {
        id: `sku-${++n}`,
        regionId: 'europe',
        countryCode: null,
        name: 'Europe 3 days',
        planKind: 'days',
        planValue: 3,
        isPackage: true,
        days: 3,
        prices: [{ currency: 'EUR', price: 1500 }],
        reason: why,
      }),
    'edit package': async (c) => {
      const [cur] = (await as('platformOwner').call('GET', '/mifi/skus?q=europe-all-7d')).json<MifiSkuPage>().items;
      return c.call(
        'PATCH',
        '/mifi/skus/europe-all-7d',
        { days: cur!.days, reason: why },
        { 'if-match': `"v${cur!.version}"` },
      );
    },
    'list box deposits': (c) => c.call('GET', '/mifi/box-deposits'),
    'set box deposit': async (c) => {
      const current = (await as('platformOwner').call('GET', '/mifi/box-deposits'))
        .json<{ items: BoxDepositShape[] }>()
        .items.find((d) => d.currency === 'GBP');
      return c.call(
        'PUT',
        '/mifi/box-deposits/GBP',
        { amount: 4000 + ++n, reason: why },
        current ? { 'if-match': `"v${current.version}"` } : {},
      );
    },
    'list boxes': (c) => c.call('GET', '/mifi/boxes'),
    'create box in A': (c) =>
      c.call('POST', '/mifi/boxes', {
        sn: `MF-T-${++n}`,
        ssid: `Powerly-${n}`,
        password: 'first-pass',
        cabinetId: 'CAB-A1',
        slot: ++slots.box,
        reason: why,
      }),
    'rotate box password in A': async (c) => {
      const sn = `MF-R-${++n}`;
      await as('platformOwner').call('POST', '/mifi/boxes', {
        sn,
        ssid: sn,
        password: 'first-pass',
        cabinetId: 'CAB-A1',
        slot: ++slots.rotate,
        reason: why,
      });
      return c.call('POST', `/mifi/boxes/${sn}/password`, { reason: 'handover' });
    },
    'place station in A': (c) =>
      c.call('POST', '/cabinets/CAB-A1/devices', {
        id: `PS-${++n}`,
        kind: 'station',
        slot: ++slots.station,
        reason: why,
      }),
  };
}

/** A country of a region's body (no flag). */
export const country = (code: string, name: string, timeZone: string) => ({ code, name, timeZone, flagUrl: '' });

/** Creates a region (POST /mifi/regions, no flag) as `c`. */
export const postRegion = (
  c: OpsConsole,
  id: string,
  name: string,
  countries: unknown[],
  headers: Record<string, string> = {},
) => c.call('POST', '/mifi/regions', { id, name, flagUrl: '', reason: 'new market', countries }, headers);

/** A box's body for POST /mifi/boxes: loose, or put in a cabinet's slot. */
export const boxBody = (sn: string, ssid: string, password: string, place?: { cabinetId: string; slot: number }) => ({
  sn,
  ssid,
  password,
  ...place,
  reason: why,
});

/** A power station's body for POST /cabinets/{id}/devices. */
export const stationBody = (id: string, slot: number, reason: string) => ({ id, kind: 'station', slot, reason });
