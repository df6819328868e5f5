// The fleet's cabinet operations (server/src/modules/cabinets/fleet.ts): registration by serial and vendor,
// assignment, devices in slots, the live list, the CSV import with its dry run, broker credentials issued and
// rotated (the old password refused by the broker, the new one accepted), the Wi-Fi boxes, the operator actions.
import mqtt, { type MqttClient } from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Fleet } from '../src/fleet.ts';
import { FieldErrors } from '../src/lib/validate.ts';
import { cabinetBrokerAuth } from '../src/modules/cabinets/credentials.ts';
import { CabinetCredentialsRepository } from '../src/modules/cabinets/credentials-repository.ts';
import { startEmbeddedBroker, type EmbeddedBroker } from '../src/mqtt/broker.ts';
import { build, markHeardFrom, venueFixture, type Built } from './helper.ts';

let b: Built;
let fleet: Fleet;
beforeAll(async () => {
  b = await build({ simulator: false });
  fleet = b.app.powerly.fleet;
  await fleet.venues.create(venueFixture('v-cab', 54.6, 25.2));
}, 60_000);
afterAll(async () => b?.close());

async function refused(p: Promise<unknown>): Promise<[string, string][]> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(FieldErrors);
  return (err as FieldErrors).problems.map((x) => [x.field, x.code]);
}

describe('cabinets', () => {
  it('are registered by serial (vendor powerly unless named), assigned, and listed with their slots and live state', async () => {
    expect(await refused(fleet.cabinets.register({ id: 'PWL/#', slots: 0, vendor: 'Bad Vendor' }))).toEqual([
      ['id', 'invalid'],
      ['vendor', 'invalid'],
      ['slots', 'range'],
    ]);
    expect(await refused(fleet.cabinets.register({ id: 'PWL-T-001', slots: 4, venueId: 'v-none' }))).toEqual([
      ['venueId', 'notFound'],
    ]);
    const c = await fleet.cabinets.register({ id: 'PWL-T-001', slots: 4 });
    expect(c).toMatchObject({
      vendor: 'powerly',
      venueId: null,
      slotCount: 4,
      online: false,
      lastHeartbeatAt: null,
      hasCredentials: false,
    });
    expect(await refused(fleet.cabinets.register({ id: 'PWL-T-001', slots: 4 }))).toEqual([['id', 'duplicate']]);
    expect((await fleet.cabinets.register({ id: 'ACME-1', vendor: 'acme', slots: 2 })).vendor).toBe('acme');

    expect((await fleet.cabinets.assign('PWL-T-001', { venueId: 'v-cab' })).venueId).toBe('v-cab');
    await fleet.cabinets.registerDevice({ id: 'PB-T-0001', cabinetId: 'PWL-T-001', slot: 1 });
    expect(await refused(fleet.cabinets.registerDevice({ id: 'PB-T-0001', cabinetId: 'PWL-T-001', slot: 1 }))).toEqual([
      ['id', 'duplicate'],
      ['slot', 'duplicate'],
    ]);
    expect(await refused(fleet.cabinets.registerDevice({ id: 'PB-T-0002', cabinetId: 'PWL-T-001', slot: 5 }))).toEqual([
      ['slot', 'range'],
    ]);

    // A heartbeat reported the charge; the cabinet was heard from now.
    await b.app.powerly.cabinets.event('PWL-T-001', {
      v: 1,
      id: 'hb-fleet-1',
      ts: b.clock.now().toISOString(),
      type: 'heartbeat',
      slots: [{ slot: 1, powerbankId: 'PB-T-0001', battery: 87 }],
    });
    await markHeardFrom(b, ['PWL-T-001']);
    const live = await fleet.cabinets.get('PWL-T-001');
    expect(live).toMatchObject({ online: true, lastHeartbeatAt: b.clock.now().toISOString(), venueName: 'v-cab' });
    expect(live.slots[0]).toEqual({ slot: 1, deviceId: 'PB-T-0001', kind: 'cdb', state: 'in_cabinet', charge: 87 });
    expect(live.slots[1]).toEqual({ slot: 2, deviceId: null, kind: null, state: null, charge: null });
    // The seeded fleet is listed too, each cabinet with its venue.
    expect((await fleet.cabinets.list()).find((x) => x.id === 'PWL-LIS-001')).toMatchObject({
      venueId: 'v-lis-timeout',
      slotCount: 9,
    });
  });

  it('import from CSV: a dry run reports every bad row (line, field, message); nothing is imported while a row is bad', async () => {
    const csv = [
      'id,vendor,slots,venueId',
      'CSV-001,,8,v-cab',
      'CSV-002,acme,x,',
      'CSV-001,,8,',
      'PWL-T-001,,4,',
      'CSV-005,,6,v-missing',
      '',
    ].join('\n');
    const dry = await fleet.cabinets.importCsv({ csv, dryRun: true });
    expect(dry.rows).toBe(5);
    expect(dry.imported).toBe(0);
    expect(dry.issues.map((i) => [i.row, i.field, i.code])).toEqual([
      [3, 'slots', 'invalid'],
      [4, 'id', 'duplicate'],
      [5, 'id', 'duplicate'],
      [6, 'venueId', 'notFound'],
    ]);
    expect(dry.issues[0]!.message).toBe('slots is not valid.');
    expect((await fleet.cabinets.importCsv({ csv, dryRun: false })).imported).toBe(0);
    expect((await fleet.cabinets.list()).some((x) => x.id.startsWith('CSV-'))).toBe(false);
    expect((await fleet.cabinets.importCsv({ csv: 'serial,slots\nA,1', dryRun: true })).issues).toMatchObject([
      { row: 1, field: 'header' },
    ]);

    const good = 'id,vendor,slots,venueId\nCSV-001,,8,v-cab\n"CSV-002",acme,6,\n';
    expect(await fleet.cabinets.importCsv({ csv: good, dryRun: true })).toEqual({ rows: 2, imported: 0, issues: [] });
    expect(await fleet.cabinets.importCsv({ csv: good, dryRun: false })).toEqual({ rows: 2, imported: 2, issues: [] });
    expect(await fleet.cabinets.get('CSV-002')).toMatchObject({ vendor: 'acme', slotCount: 6, venueId: null });
  });

  it('Wi-Fi boxes are created with their SSID, in a cabinet slot when one is named', async () => {
    expect(
      await refused(
        fleet.mifi.createBox({ sn: 'MF-T-1', ssid: 'Powerly-T1', password: 'short', cabinetId: 'PWL-T-001' }),
      ),
    ).toEqual([['password', 'range']]);
    expect(
      await refused(
        fleet.mifi.createBox({ sn: 'MF-T-1', ssid: 'Powerly-T1', password: 'long-enough', cabinetId: 'PWL-T-001' }),
      ),
    ).toEqual([['slot', 'required']]);
    await fleet.mifi.createBox({
      sn: 'MF-T-1',
      ssid: 'Powerly-T1',
      password: 'long-enough',
      cabinetId: 'PWL-T-001',
      slot: 4,
    });
    expect((await fleet.cabinets.get('PWL-T-001')).slots[3]).toMatchObject({ deviceId: 'MF-T-1', kind: 'mifi' });
    expect(await refused(fleet.mifi.createBox({ sn: 'MF-T-1', ssid: 'Powerly-T1', password: 'long-enough' }))).toEqual([
      ['sn', 'duplicate'],
    ]);
    expect(
      await refused(
        fleet.mifi.createSku({
          id: 'lt-x',
          regionId: 'europe',
          countryCode: 'US',
          name: 'X',
          planKind: 'days',
          planValue: 1,
          isPackage: true,
          days: 1,
          prices: [
            { currency: 'EUR', price: 100 },
            { currency: 'EUR', price: 200 },
          ],
        }),
      ),
    ).toEqual([
      ['prices.1.currency', 'duplicate'],
      ['countryCode', 'notFound'],
    ]);
  });

  it('the operator actions: nothing dead to retry, a power bank not quarantined is not released', async () => {
    expect(await fleet.deadJobs.list()).toEqual([]);
    expect(await fleet.deadJobs.retry(999_999)).toBe(false);
    expect(await fleet.cabinets.retryEvent('PWL-T-001:nope')).toBe(false);
    expect(await fleet.cabinets.releasePowerbank('PB-T-0001')).toBe(false);
    expect((await fleet.cabinets.inbox()).quarantined).toEqual([]);
  });
});

describe('broker credentials', () => {
  let broker: EmbeddedBroker;
  beforeAll(async () => {
    broker = await startEmbeddedBroker({
      port: 0,
      auth: cabinetBrokerAuth(new CabinetCredentialsRepository(b.db), 'powerly'),
    });
  });
  afterAll(async () => broker?.close());

  const connect = (password: string) =>
    new Promise<MqttClient>((resolve, reject) => {
      const c = mqtt.connect(`mqtt://127.0.0.1:${broker.port}`, {
        protocolVersion: 4,
        reconnectPeriod: 0,
        connectTimeout: 5000,
        clientId: `t-${Math.random()}`,
        username: 'PWL-T-001',
        password,
      });
      c.once('connect', () => resolve(c));
      c.once('error', (e) => {
        c.end(true);
        reject(e);
      });
    });

  it('are issued, then rotated: the broker refuses the old password and accepts the new one', async () => {
    await expect(fleet.cabinets.issueCredentials('NOPE-404')).rejects.toThrow();
    const first = await fleet.cabinets.issueCredentials('PWL-T-001');
    expect(first.username).toBe('PWL-T-001');
    (await connect(first.password)).end(true);
    expect((await fleet.cabinets.get('PWL-T-001')).hasCredentials).toBe(true);

    const second = await fleet.cabinets.issueCredentials('PWL-T-001');
    expect(second.password).not.toBe(first.password);
    await expect(connect(first.password)).rejects.toThrow();
    (await connect(second.password)).end(true);
    const files = await fleet.cabinets.mosquittoFiles('powerly', { username: 'server', password: 'server-secret' });
    expect(files.passwd).toMatch(/^server:\$7\$/m);
    expect(files.passwd).toMatch(/^PWL-T-001:\$7\$/m);
    expect(files.passwd).not.toContain(second.password);
  });
});
