// The Wi-Fi line and the devices of a cabinet through the ops API: who may do what where (the catalogue is the
// platform's; boxes and devices are in scope by their cabinet), regions, packages with a price per currency, boxes
// put in a cabinet, a power station placed in a slot, and a box's password rotated by an operator: sent through
// the simulated cabinet, in effect once the box confirms it, audited with the reason. The app, the role × scope
// table's calls and the bodies: ops/mifi.ts.
import { describe, expect, it } from 'vitest';
import type { OpsCabinet } from '#contract/ops/cabinets.ts';
import type { BoxDepositShape, MifiBoxPage, MifiBoxShape, MifiRegionShape, MifiSkuPage } from '#contract/ops/mifi.ts';
import { SimulatedCabinet } from '../src/demo/simulator/cabinet.ts';
import { touristToken, waitFor } from './helper.ts';
import { accessTable, type Caller } from './ops/callers.ts';
import {
  allConsoles,
  as,
  b,
  boxBody,
  country,
  postRegion,
  postSku,
  riderPackages,
  stationBody,
  TABLE,
  tableCalls,
  useMifiOps,
  why,
} from './ops/mifi.ts';

useMifiOps();

describe('the Wi-Fi line of the ops API', () => {
  accessTable(TABLE, allConsoles, tableCalls());

  it('keeps regions and packages with a price per currency, paged and filtered on the server', async () => {
    const o = as('platformOwner');
    const region = await postRegion(o, 'baltics', 'Baltics', [
      country('LV', 'Latvia', 'Europe/Riga'),
      country('EE', 'Estonia', 'Europe/Tallinn'),
    ]);
    expect(region.json()).toMatchObject({ id: 'baltics', countries: [{ code: 'EE' }, { code: 'LV' }] });
    const bad = await postRegion(o, 'baltics2', 'B', [country('LV', 'L', 'Mars/Olympus')], { lang: 'lt-LT' });
    expect(bad.statusCode).toBe(400);
    const sku = await postSku(o, {
      id: 'lv-7d',
      regionId: 'baltics',
      countryCode: 'LV',
      name: 'Latvia 7 days',
      days: 7,
      prices: [
        { currency: 'EUR', price: 1900 },
        { currency: 'USD', price: 2100 },
      ],
      reason: 'launch',
    });
    expect(sku.json()).toMatchObject({
      id: 'lv-7d',
      prices: [
        { currency: 'EUR', price: 1900 },
        { currency: 'USD', price: 2100 },
      ],
    });
    const page = (await as('readOnlyA').call('GET', '/mifi/skus?regionId=baltics&sort=-name')).json<MifiSkuPage>();
    expect(page.items.map((s) => s.id)).toEqual(['lv-7d']);
    const log = (await o.call('GET', '/audit?entity=mifi-sku&entityId=lv-7d')).json<{
      items: Array<{ action: string; reason: string }>;
    }>();
    expect(log.items.map((e) => [e.action, e.reason])).toEqual([['mifi.sku-create', 'launch']]);
  });

  it('edits a region: its name and countries with the version read; a stale save, a sold country or one of another region is refused', async () => {
    const o = as('platformOwner');
    await postRegion(o, 'nordics', 'Nordics', [country('SE', 'Sweden', 'Europe/Stockholm')]);
    await postSku(o, {
      id: 'se-3d',
      regionId: 'nordics',
      countryCode: 'SE',
      name: 'Sweden 3 days',
      days: 3,
      prices: [{ currency: 'EUR', price: 900 }],
      reason: 'launch',
    });
    const read = (await o.call('GET', '/mifi/regions'))
      .json<{ items: MifiRegionShape[] }>()
      .items.find((r) => r.id === 'nordics')!;
    expect(read.version).toBe(1);
    const sweden = { code: 'SE', name: 'Sverige', timeZone: 'Europe/Stockholm', flagUrl: '' };
    const norway = { code: 'NO', name: 'Norway', timeZone: 'Europe/Oslo', flagUrl: '' };
    const saved = await o.call(
      'PATCH',
      '/mifi/regions/nordics',
      { name: 'Nordic countries', countries: [sweden, norway], reason: 'Norway launches' },
      { 'if-match': '"v1"' },
    );
    expect(saved.statusCode).toBe(200);
    expect(saved.headers.etag).toBe('"v2"');
    expect(saved.json()).toMatchObject({
      name: 'Nordic countries',
      version: 2,
      countries: [
        { code: 'NO', name: 'Norway' },
        { code: 'SE', name: 'Sverige' },
      ],
    });
    // Someone else's save first: 409, nothing overwritten.
    const stale = await o.call(
      'PATCH',
      '/mifi/regions/nordics',
      { name: 'Late', countries: [sweden], reason: 'late save' },
      { 'if-match': '"v1"' },
    );
    expect(stale.statusCode).toBe(409);
    // Sweden has a package: it cannot leave the region. Lithuania is Europe's. An unknown time zone is a 400.
    const sold = await o.call(
      'PATCH',
      '/mifi/regions/nordics',
      { name: 'N', countries: [norway], reason: 'drop Sweden' },
      { 'if-match': '"v2"', lang: 'pt-PT' },
    );
    expect(sold.statusCode).toBe(409);
    expect(sold.json<{ message: string }>().message).toContain('SE');
    const taken = await o.call(
      'PATCH',
      '/mifi/regions/nordics',
      {
        name: 'N',
        countries: [sweden, { code: 'LT', name: 'Lithuania', timeZone: 'Europe/Vilnius', flagUrl: '' }],
        reason: 'typo',
      },
      { 'if-match': '"v2"' },
    );
    expect(taken.statusCode).toBe(400);
    expect(
      (
        await o.call(
          'PATCH',
          '/mifi/regions/nordics',
          { name: 'N', countries: [{ ...sweden, timeZone: 'Mars/Olympus' }], reason: 'typo' },
          { 'if-match': '"v2"' },
        )
      ).statusCode,
    ).toBe(400);
    expect(
      (
        await o.call(
          'PATCH',
          '/mifi/regions/atlantis',
          { name: 'A', countries: [], reason: 'none' },
          { 'if-match': '"v1"' },
        )
      ).statusCode,
    ).toBe(404);
    // Norway can go again (nothing is sold for it).
    expect(
      (
        await o.call(
          'PATCH',
          '/mifi/regions/nordics',
          { name: 'Nordics', countries: [sweden], reason: 'Norway postponed' },
          { 'if-match': '"v2"' },
        )
      ).statusCode,
    ).toBe(200);
    const now = (await o.call('GET', '/mifi/regions'))
      .json<{ items: MifiRegionShape[] }>()
      .items.find((r) => r.id === 'nordics')!;
    expect(now).toMatchObject({ name: 'Nordics', version: 3, countries: [{ code: 'SE' }] });
    const log = (await o.call('GET', '/audit?entity=mifi-region&entityId=nordics&action=mifi.region-update')).json<{
      items: Array<{ reason: string; before: { name: string }; after: { name: string } }>;
    }>();
    expect(log.items.map((e) => [e.reason, e.before.name, e.after.name])).toEqual([
      ['Norway postponed', 'Nordic countries', 'Nordics'],
      ['Norway launches', 'Nordics', 'Nordic countries'],
    ]);
  });

  it('keeps a box deposit per currency, any ISO currency (CNY too), saved with its version; the rider is asked for it', async () => {
    const o = as('platformOwner');
    const made = await o.call('PUT', '/mifi/box-deposits/CNY', { amount: 30000, reason: 'boxes in China' });
    expect(made.statusCode).toBe(200);
    expect(made.headers.etag).toBe('"v1"');
    expect(made.json()).toMatchObject({ currency: 'CNY', amount: 30000, version: 1 });
    // A second creation of the same currency, or a save from a stale read: 409, nothing overwritten.
    expect((await o.call('PUT', '/mifi/box-deposits/CNY', { amount: 1, reason: 'again' })).statusCode).toBe(409);
    expect(
      (
        await o.call('PUT', '/mifi/box-deposits/CNY', { amount: 32000, reason: 'new price' }, { 'if-match': '"v1"' })
      ).json(),
    ).toMatchObject({ amount: 32000, version: 2 });
    const stale = await o.call(
      'PUT',
      '/mifi/box-deposits/CNY',
      { amount: 1, reason: 'late save' },
      { 'if-match': '"v1"' },
    );
    expect(stale.statusCode).toBe(409);
    // Not a currency, or no amount: 400 in the caller's language.
    const bad = await o.call('PUT', '/mifi/box-deposits/XXZ', { amount: 100, reason: why }, { lang: 'lt-LT' });
    expect(bad.statusCode).toBe(400);
    expect((await o.call('PUT', '/mifi/box-deposits/EUR', { amount: 0, reason: why })).statusCode).toBe(400);
    expect(
      (await as('readOnlyA').call('GET', '/mifi/box-deposits'))
        .json<{ items: BoxDepositShape[] }>()
        .items.find((d) => d.currency === 'CNY'),
    ).toMatchObject({ amount: 32000 });
    const log = (await o.call('GET', '/audit?entity=mifi-box-deposit&entityId=CNY')).json<{
      items: Array<{ action: string; reason: string; before: unknown; after: unknown }>;
    }>();
    expect(log.items.map((e) => [e.reason, e.before ?? null, e.after])).toEqual([
      ['new price', { amount: 30000 }, { amount: 32000 }],
      ['boxes in China', null, { amount: 30000 }],
    ]);

    // The rider buying a package in CNY is asked for that deposit (no venue has a Wi-Fi plan in CNY).
    await postSku(o, {
      id: 'eu-cny',
      regionId: 'europe',
      countryCode: null,
      name: 'Europe 1 day',
      days: 1,
      prices: [{ currency: 'CNY', price: 5000 }],
      reason: 'launch',
    });
    const token = await touristToken(b.app);
    expect(await riderPackages(token, 'eu-cny', 'CNY')).toMatchObject([
      { skuId: 'eu-cny', currency: 'CNY', price: 50, depositAmount: 320 },
    ]);
  });

  it('edits a package: names per language, prices, off sale; a stale save is a 409; the rider sees each change', async () => {
    const o = as('platformOwner');
    await postSku(o, {
      id: 'lv-1d',
      regionId: 'europe',
      countryCode: null,
      name: 'Daily',
      days: 1,
      prices: [{ currency: 'EUR', price: 500 }],
      reason: 'launch',
    });
    const token = await touristToken(b.app, undefined, 'lt-LT');
    const riderSees = (lang: string) => riderPackages(token, 'lv-1d', 'EUR', lang);
    const edited = await o.call(
      'PATCH',
      '/mifi/skus/lv-1d',
      {
        names: { 'lt-LT': 'Diena' },
        prices: [
          { currency: 'EUR', price: 600 },
          { currency: 'CNY', price: 4500 },
        ],
        reason: 'new prices',
      },
      { 'if-match': '"v1"' },
    );
    expect(edited.statusCode).toBe(200);
    expect(edited.headers.etag).toBe('"v2"');
    expect(edited.json()).toMatchObject({
      names: { 'lt-LT': 'Diena' },
      version: 2,
      enabled: true,
      prices: [
        { currency: 'CNY', price: 4500 },
        { currency: 'EUR', price: 600 },
      ],
    });
    expect(await riderSees('lt-LT')).toMatchObject([{ packageName: expect.stringContaining('-Diena-'), price: 6 }]);
    expect(await riderSees('en-US')).toMatchObject([{ packageName: expect.stringContaining('-Daily-') }]);
    // A save from the first read, a bad plan, a duplicate currency: nothing changes.
    expect(
      (await o.call('PATCH', '/mifi/skus/lv-1d', { enabled: false, reason: 'late' }, { 'if-match': '"v1"' }))
        .statusCode,
    ).toBe(409);
    expect((await o.call('PATCH', '/mifi/skus/lv-1d', { enabled: false, reason: 'no version' })).statusCode).toBe(428);
    expect(
      (await o.call('PATCH', '/mifi/skus/lv-1d', { planKind: 'unlimited', reason: 'try it' }, { 'if-match': '"v2"' }))
        .statusCode,
    ).toBe(400);
    expect(
      (
        await o.call(
          'PATCH',
          '/mifi/skus/lv-1d',
          {
            prices: [
              { currency: 'EUR', price: 1 },
              { currency: 'EUR', price: 2 },
            ],
            reason: 'try it',
          },
          { 'if-match': '"v2"' },
        )
      ).statusCode,
    ).toBe(400);
    expect(
      (await o.call('PATCH', '/mifi/skus/nope', { enabled: false, reason: 'try it' }, { 'if-match': '"v1"' }))
        .statusCode,
    ).toBe(404);
    // Off sale: no longer offered to the rider; back on sale: offered again.
    expect(
      (
        await o.call('PATCH', '/mifi/skus/lv-1d', { enabled: false, reason: 'season over' }, { 'if-match': '"v2"' })
      ).json(),
    ).toMatchObject({ enabled: false, version: 3 });
    expect(await riderSees('en-US')).toEqual([]);
    await o.call('PATCH', '/mifi/skus/lv-1d', { enabled: true, reason: 'season again' }, { 'if-match': '"v3"' });
    expect(await riderSees('en-US')).toHaveLength(1);
    const log = (await o.call('GET', '/audit?entity=mifi-sku&entityId=lv-1d')).json<{
      items: Array<{ action: string; reason: string; before: { enabled: boolean } }>;
    }>();
    expect(log.items.slice(0, 2).map((e) => [e.action, e.reason, e.before.enabled])).toEqual([
      ['mifi.sku-update', 'season again', false],
      ['mifi.sku-update', 'season over', true],
    ]);
  });

  it('lists boxes by the scope of their cabinet, never with their password', async () => {
    const o = as('platformOwner');
    await o.call(
      'POST',
      '/mifi/boxes',
      boxBody('MF-B-1', 'Powerly-B1', 'secret-pass', { cabinetId: 'CAB-B1', slot: 1 }),
    );
    await o.call('POST', '/mifi/boxes', boxBody('MF-LOOSE', 'Powerly-L', 'secret-pass'));
    const ids = async (c: Caller) =>
      (await as(c).call('GET', '/mifi/boxes?limit=200')).json<MifiBoxPage>().items.map((x) => x.sn);
    expect(await ids('adminB')).toEqual(['MF-B-1']);
    expect(await ids('adminA')).not.toContain('MF-B-1');
    expect(await ids('platformOwner')).toEqual(expect.arrayContaining(['MF-B-1', 'MF-LOOSE']));
    expect((await as('platformOwner').call('GET', '/mifi/boxes?q=loose')).body).not.toContain('secret-pass');
    expect((await as('adminA').call('POST', '/mifi/boxes', boxBody('MF-A-LOOSE', 'x', 'secret-pass'))).statusCode).toBe(
      403,
    );
    expect(
      (await as('platformOwner').call('POST', '/mifi/boxes/MF-LOOSE/password', { reason: 'handover' })).statusCode,
    ).toBe(409);
  });

  it('places a power station in a slot: the cabinet shows it, a taken slot is refused', async () => {
    const tech = as('technicianA');
    const placed = await tech.call('POST', '/cabinets/CAB-A1/devices', stationBody('PS-ONE', 40, 'delivered'));
    expect(placed.json<OpsCabinet>().slots[39]).toMatchObject({
      deviceId: 'PS-ONE',
      kind: 'station',
      state: 'in_cabinet',
    });
    expect(
      (await tech.call('POST', '/cabinets/CAB-A1/devices', stationBody('PS-TWO', 40, 'delivered'))).statusCode,
    ).toBe(400);
  });

  it("rotates a box's password through its cabinet: in effect once the box confirms it", async () => {
    const o = as('platformOwner');
    expect(
      (await o.call('POST', '/cabinets', { id: 'SIM-W', slots: 2, venueId: 'V001', reason: why })).statusCode,
    ).toBe(200);
    await o.call(
      'POST',
      '/mifi/boxes',
      boxBody('MF-SIM', 'Powerly-SIM', 'first-pass', { cabinetId: 'SIM-W', slot: 1 }),
    );
    const sim = new SimulatedCabinet({
      cabinetId: 'SIM-W',
      slots: ['MF-SIM', null],
      connector: b.connector,
      prefix: b.prefix,
      clock: b.clock,
      heartbeatMs: 60_000,
      kinds: new Map([['MF-SIM', 'mifi']]),
    });
    await sim.start();
    try {
      const tech = as('technicianA');
      const r = await tech.call('POST', '/mifi/boxes/MF-SIM/password', { reason: 'guest complained' });
      expect(r.json<MifiBoxShape>()).toMatchObject({ sn: 'MF-SIM', cabinetId: 'SIM-W', password: 'rotating' });
      await b.app.powerly.jobs.runDue();
      const done = await waitFor(async () => {
        const box = (await tech.call('GET', '/mifi/boxes?q=MF-SIM')).json<MifiBoxPage>().items[0]!;
        return box.password === 'set' ? box : undefined;
      }, 'the box confirmed its new password');
      expect(done.passwordChangedAt).not.toBeNull();
      const { rows } = await b.db.query<{ password: string }>('select password from mifi_boxes where sn = $1', [
        'MF-SIM',
      ]);
      expect(rows[0]!.password).not.toBe('first-pass');
      expect(sim.wifiPassword('MF-SIM')).toBe(rows[0]!.password);
      const log = (await o.call('GET', '/audit?entity=mifi-box&entityId=MF-SIM')).json<{
        items: Array<{ action: string; reason: string }>;
      }>();
      expect(log.items[0]).toMatchObject({ action: 'mifi.box-password-rotate', reason: 'guest complained' });
    } finally {
      await sim.stop();
    }
  });
});
