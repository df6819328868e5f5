// Cabinets through the ops API: who may do what where (role × scope × operation), registration and assignment
// with optimistic concurrency and the audit log, broker credentials rotated (the broker refuses the old password),
// remote commands that a simulated cabinet really carries out (a reason required, a field technician allowed,
// support refused), the CSV import's dry run against the real one, and the live stream naming what changed.
import mqtt, { type MqttClient } from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CabinetLiveEvent, OpsCabinet, OpsCabinetPage } from '#contract/ops/cabinets.ts';
import { readEventStream } from '../bench/lib.ts';
import { SimulatedCabinet } from '../src/demo/simulator/cabinet.ts';
import { cabinetBrokerAuth } from '../src/modules/cabinets/credentials.ts';
import { CabinetCredentialsRepository } from '../src/modules/cabinets/credentials-repository.ts';
import { startEmbeddedBroker } from '../src/mqtt/broker.ts';
import { SESSION_COOKIE } from '../src/plugins/ops-api.ts';
import { build, markHeardFrom, venueFixture, waitFor, type Built } from './helper.ts';
import { accessTable, callerConsoles, type Caller } from './ops/callers.ts';
import type { OpsConsole } from './ops/console.ts';

let b: Built;
let consoles = new Map<Caller, OpsConsole>();
const as = (c: Caller) => consoles.get(c)!;
const why = 'field visit';

beforeAll(async () => {
  b = await build({ simulator: false });
  consoles = await callerConsoles(b);
  const venues = b.app.powerly.fleet.venues;
  await venues.create(venueFixture('V001', 54.68, 25.28, { agentId: 'agent-a' }));
  await venues.create(venueFixture('V002', 54.69, 25.27, { agentId: 'agent-a' }));
  await venues.create(venueFixture('VB01', 38.72, -9.14, { agentId: 'agent-b' }));
  const owner = as('platformOwner');
  for (const [id, venueId] of [
    ['CAB-A1', 'V001'],
    ['CAB-A2', 'V002'],
    ['CAB-B1', 'VB01'],
  ]) {
    const r = await owner.call('POST', '/cabinets', { id, slots: 4, venueId, reason: why });
    expect(r.statusCode, r.body).toBe(200);
  }
  await markHeardFrom(b, ['CAB-A1']);
}, 60_000);
afterAll(async () => b?.close());

type Op =
  | 'list'
  | 'read at V001'
  | 'read at V002'
  | 'register'
  | 'assign'
  | 'rotate credentials'
  | 'command'
  | 'import dry run';
//                        none owner adminA adminB supportA financeA technicianA readOnlyA partnerA
const TABLE: Record<Op, number[]> = {
  list: [401, 200, 200, 200, 200, 403, 200, 200, 200],
  'read at V001': [401, 200, 200, 404, 200, 403, 200, 200, 200],
  'read at V002': [401, 200, 200, 404, 200, 403, 200, 200, 404],
  register: [401, 200, 200, 400, 403, 403, 200, 403, 403],
  assign: [401, 200, 200, 404, 403, 403, 200, 403, 403],
  'rotate credentials': [401, 200, 200, 404, 403, 403, 200, 403, 403],
  command: [401, 200, 200, 404, 403, 403, 200, 403, 403],
  'import dry run': [401, 200, 200, 200, 403, 403, 200, 403, 403],
};

describe('the cabinets of the ops API', () => {
  let n = 0;
  const etag = async () => (await as('platformOwner').call('GET', '/cabinets/CAB-A1')).headers.etag as string;
  accessTable(TABLE, () => consoles, {
    list: (c) => c.call('GET', '/cabinets'),
    'read at V001': (c) => c.call('GET', '/cabinets/CAB-A1'),
    'read at V002': (c) => c.call('GET', '/cabinets/CAB-A2'),
    register: (c) => c.call('POST', '/cabinets', { id: `CAB-T-${++n}`, slots: 2, venueId: 'V001', reason: why }),
    assign: async (c) =>
      c.call('PATCH', '/cabinets/CAB-A1', { venueId: 'V001', reason: why }, { 'if-match': await etag() }),
    'rotate credentials': (c) => c.call('POST', '/cabinets/CAB-A1/credentials', { reason: why }),
    command: (c) => c.call('POST', '/cabinets/CAB-A1/commands', { type: 'inventory', reason: why }),
    'import dry run': (c) =>
      c.call('POST', '/cabinets/import', {
        csv: 'id,vendor,slots,venueId\nCSV-X,,4,\n',
        dryRun: true,
        agentId: c === as('adminB') ? 'agent-b' : 'agent-a',
        reason: why,
      }),
  });

  it('lists in scope, filtered and sorted on the server, page by page', async () => {
    const page = (c: Caller, q: string) =>
      as(c)
        .call('GET', `/cabinets${q}`)
        .then((r) => r.json<OpsCabinetPage>());
    expect((await page('adminB', '')).items.map((c) => c.id)).toEqual(['CAB-B1']);
    expect((await page('partnerA', '?q=cab-a')).items.map((c) => c.id)).toEqual(['CAB-A1']);
    expect((await page('platformOwner', '?venueId=V002')).items.map((c) => c.id)).toEqual(['CAB-A2']);
    expect((await page('platformOwner', '?q=CAB-&online=true')).items.map((c) => c.id)).toEqual(['CAB-A1']);
    const seen: string[] = [];
    let url = '?q=cab-&sort=-id&limit=2';
    for (;;) {
      const p = await page('adminA', url);
      seen.push(...p.items.map((c) => c.id));
      if (!p.next) break;
      url = `?q=cab-&sort=-id&limit=2&cursor=${p.next}`;
    }
    expect(seen.length).toBeGreaterThan(3);
    expect(seen).toEqual([...seen].sort().reverse());
    expect(seen).not.toContain('CAB-B1');
    expect((await as('adminA').call('GET', '/cabinets?sort=secret')).statusCode).toBe(400);
    expect((await as('adminA').call('GET', '/cabinets?cursor=bm9wZQ')).statusCode).toBe(400);
  });

  it('registers with a reason, assigns under If-Match (the second of two saves gets 409), and audits both', async () => {
    const a = as('adminA');
    expect((await a.call('POST', '/cabinets', { id: 'CAB-N1', slots: 6 })).statusCode).toBe(400);
    const bad = await a.call('POST', '/cabinets', { id: 'bad id!', slots: 0, reason: why }, { lang: 'pt-PT' });
    expect(bad.statusCode).toBe(400);
    expect(bad.json<{ message: string }>().message).not.toMatch(/is not valid|out of range/);
    const made = await a.call('POST', '/cabinets', { id: 'CAB-N1', vendor: 'a8', slots: 6, reason: 'new stock' });
    expect(made.json<OpsCabinet>()).toMatchObject({
      id: 'CAB-N1',
      vendor: 'a8',
      agentId: 'agent-a',
      venueId: null,
      slotCount: 6,
      online: false,
      version: 1,
    });
    expect((await as('adminB').call('GET', '/cabinets/CAB-N1')).statusCode).toBe(404);
    const tag = made.headers.etag as string;
    const first = await a.call(
      'PATCH',
      '/cabinets/CAB-N1',
      { venueId: 'V002', reason: 'installed' },
      { 'if-match': tag },
    );
    expect(first.json<OpsCabinet>()).toMatchObject({ venueId: 'V002', version: 2 });
    const second = await a.call('PATCH', '/cabinets/CAB-N1', { venueId: 'V001', reason: 'moved' }, { 'if-match': tag });
    expect(second.statusCode).toBe(409);
    expect((await a.call('PATCH', '/cabinets/CAB-N1', { venueId: 'V001', reason: 'moved' })).statusCode).toBe(428);
    expect(
      (
        await a.call(
          'PATCH',
          '/cabinets/CAB-N1',
          { venueId: 'VB01', reason: 'moved' },
          { 'if-match': first.headers.etag as string },
        )
      ).statusCode,
    ).toBe(400);
    const log = (await a.call('GET', '/audit?entity=cabinet&entityId=CAB-N1')).json<{
      items: Array<{ action: string; reason: string; staffEmail: string }>;
    }>();
    expect(log.items.map((e) => [e.action, e.reason])).toEqual([
      ['cabinet.assign', 'installed'],
      ['cabinet.register', 'new stock'],
    ]);
    expect(log.items[0]!.staffEmail.toLowerCase()).toBe('admina@example.com');
  });

  it('rotates broker credentials: shown once, the broker refuses the old password and takes the new one', async () => {
    const broker = await startEmbeddedBroker({
      port: 0,
      auth: cabinetBrokerAuth(new CabinetCredentialsRepository(b.db), 'powerly'),
    });
    const connect = (password: string) =>
      new Promise<MqttClient>((resolve, reject) => {
        const c = mqtt.connect(`mqtt://127.0.0.1:${broker.port}`, {
          protocolVersion: 4,
          reconnectPeriod: 0,
          connectTimeout: 5000,
          clientId: `t-${Math.random()}`,
          username: 'CAB-A2',
          password,
        });
        c.once('connect', () => resolve(c));
        c.once('error', (e) => {
          c.end(true);
          reject(e);
        });
      });
    try {
      const tech = as('technicianA');
      const one = (await tech.call('POST', '/cabinets/CAB-A2/credentials', { reason: 'install' })).json<{
        username: string;
        password: string;
      }>();
      expect(one.username).toBe('CAB-A2');
      (await connect(one.password)).end(true);
      const two = await tech.call('POST', '/cabinets/CAB-A2/credentials', { reason: 'leaked' });
      expect(two.headers['cache-control']).toBe('no-store');
      await expect(connect(one.password)).rejects.toThrow();
      (await connect(two.json<{ password: string }>().password)).end(true);
      expect((await tech.call('GET', '/cabinets/CAB-A2')).json<OpsCabinet>().hasCredentials).toBe(true);
      const log = (await tech.call('GET', '/audit?entityId=CAB-A2')).statusCode;
      expect(log).toBe(403); // a technician does not read the audit log; the owner does:
      const entries = (await as('platformOwner').call('GET', '/audit?entity=cabinet&entityId=CAB-A2')).json<{
        items: Array<{ action: string; after: unknown }>;
      }>();
      expect(entries.items.map((e) => e.action).slice(0, 2)).toEqual([
        'cabinet.credentials-rotate',
        'cabinet.credentials-issue',
      ]);
      expect(JSON.stringify(entries.items)).not.toContain(one.password);
    } finally {
      await broker.close();
    }
  });

  it("imports from CSV: a dry run reports each bad row in the operator's language and imports nothing; then the real one", async () => {
    const a = as('adminA');
    const csv = 'id,vendor,slots,venueId\nIMP-1,,8,V001\nIMP-2,,x,\nIMP-3,,4,VB01\n';
    const dry = await a.call('POST', '/cabinets/import', { csv, dryRun: true, reason: 'batch' }, { lang: 'lt-LT' });
    const report = dry.json<{
      rows: number;
      imported: number;
      issues: Array<{ row: number; field: string; message: string }>;
    }>();
    expect(report.rows).toBe(3);
    expect(report.imported).toBe(0);
    expect(report.issues.map((i) => [i.row, i.field])).toEqual([
      [3, 'slots'],
      [4, 'venueId'],
    ]);
    expect(report.issues[0]!.message).not.toBe('slots is not valid.');
    expect((await a.call('GET', '/cabinets?q=imp-')).json<OpsCabinetPage>().items).toEqual([]);
    // A venue of another agent is a bad row: nothing imported.
    const out = await a.call('POST', '/cabinets/import', {
      csv: 'id,vendor,slots,venueId\nIMP-1,,8,V001\nIMP-3,,4,VB01\n',
      dryRun: false,
      reason: 'batch',
    });
    expect(out.json()).toMatchObject({ rows: 2, imported: 0, issues: [{ row: 3, field: 'venueId' }] });
    expect((await a.call('GET', '/cabinets?q=imp-')).json<OpsCabinetPage>().items).toEqual([]);
    const good = await a.call('POST', '/cabinets/import', {
      csv: 'id,vendor,slots,venueId\nIMP-1,,8,V001\nIMP-2,tcp60,4,\n',
      dryRun: false,
      reason: 'batch',
    });
    expect(good.json()).toEqual({ rows: 2, imported: 2, issues: [] });
    const items = (await a.call('GET', '/cabinets?q=imp-')).json<OpsCabinetPage>().items;
    expect(items.map((c) => [c.id, c.agentId, c.venueId, c.vendor])).toEqual([
      ['IMP-1', 'agent-a', 'V001', 'powerly'],
      ['IMP-2', 'agent-a', null, 'tcp60'],
    ]);
  });
});

describe('remote commands to a simulated cabinet, seen live', () => {
  let sim: SimulatedCabinet;
  let base = '';
  beforeAll(async () => {
    const r = await as('technicianA').call('POST', '/cabinets', {
      id: 'SIM-1',
      slots: 4,
      venueId: 'V001',
      reason: 'install',
    });
    expect(r.statusCode).toBe(200);
    await b.app.powerly.fleet.cabinets.registerDevice({ id: 'PB-SIM-1', cabinetId: 'SIM-1', slot: 1 });
    base = await b.app.listen({ port: 0, host: '127.0.0.1' });
  });
  afterAll(async () => sim?.stop());

  const read = () =>
    as('technicianA')
      .call('GET', '/cabinets/SIM-1')
      .then((r) => r.json<OpsCabinet>());

  it('streams the cabinet coming online, then ejects, locks and refuses by role and reason', async () => {
    const ctrl = new AbortController();
    const tech = as('technicianA');
    const res = await fetch(`${base}/ops-api/v1/cabinets/events?id=SIM-1`, {
      headers: { accept: 'text/event-stream', cookie: `${SESSION_COOKIE}=${tech.jar.get(SESSION_COOKIE)}` },
      signal: ctrl.signal,
    });
    expect(res.status).toBe(200);
    const events: CabinetLiveEvent[] = [];
    readEventStream<CabinetLiveEvent>(res, (e) => events.push(e));
    try {
      await waitFor(async () => events.some((e) => e.kind === 'resync'), 'the first resync');
      sim = new SimulatedCabinet({
        cabinetId: 'SIM-1',
        slots: ['PB-SIM-1', null, null, null],
        connector: b.connector,
        prefix: b.prefix,
        clock: b.clock,
        heartbeatMs: 60_000,
      });
      await sim.start();
      await waitFor(async () => events.some((e) => e.kind === 'cabinet' && e.id === 'SIM-1'), 'a live event for SIM-1');
      const online = await waitFor(async () => {
        const c = await read();
        return c.online && c.slots[0]!.charge === 100 ? c : undefined;
      }, 'SIM-1 online with its charge');
      expect(online.slots[0]).toMatchObject({
        deviceId: 'PB-SIM-1',
        state: 'in_cabinet',
        temperature: 24,
        faults: [],
        locked: false,
      });

      expect((await tech.call('POST', '/cabinets/SIM-1/commands', { type: 'eject', slot: 1 })).statusCode).toBe(400);
      expect((await tech.call('POST', '/cabinets/SIM-1/commands', { type: 'eject', reason: why })).statusCode).toBe(
        400,
      );
      expect(
        (await as('supportA').call('POST', '/cabinets/SIM-1/commands', { type: 'eject', slot: 1, reason: why }))
          .statusCode,
      ).toBe(403);
      const before = events.length;
      b.clock.advance(1000);
      const sent = await tech.call('POST', '/cabinets/SIM-1/commands', {
        type: 'eject',
        slot: 1,
        reason: 'bank swollen',
      });
      expect(sent.statusCode, sent.body).toBe(200);
      await waitFor(async () => !sim.holds('PB-SIM-1'), 'the cabinet ejected the bank');
      const after = await waitFor(async () => {
        const c = await read();
        return c.slots[0]!.deviceId === null && c.commands[0]?.state === 'popped' ? c : undefined;
      }, 'slot 1 empty and the eject answered');
      expect(after.commands[0]).toMatchObject({ type: 'eject', slot: 1 });
      expect(events.length).toBeGreaterThan(before);

      b.clock.advance(1000);
      await tech.call('POST', '/cabinets/SIM-1/commands', { type: 'lock', slot: 2, reason: 'broken latch' });
      await waitFor(async () => (await read()).slots[1]!.locked, 'slot 2 locked');
      b.clock.advance(1000);
      await tech.call('POST', '/cabinets/SIM-1/commands', { type: 'eject', slot: 2, reason: 'test the lock' });
      await waitFor(
        async () => (await read()).commands[0]?.state === 'pop-failed:locked',
        'a locked slot refuses to eject',
      );
      b.clock.advance(1000);
      await tech.call('POST', '/cabinets/SIM-1/commands', { type: 'unlock', slot: 2, reason: 'latch fixed' });
      await waitFor(async () => !(await read()).slots[1]!.locked, 'slot 2 unlocked');

      const audit = (await as('adminA').call('GET', '/audit?entity=cabinet&entityId=SIM-1')).json<{
        items: Array<{ action: string; reason: string; after: { slot?: number } }>;
      }>();
      expect(audit.items.map((e) => [e.action, e.reason])).toEqual([
        ['cabinet.unlock', 'latch fixed'],
        ['cabinet.eject', 'test the lock'],
        ['cabinet.lock', 'broken latch'],
        ['cabinet.eject', 'bank swollen'],
        ['cabinet.register', 'install'],
      ]);
      expect(audit.items[3]!.after).toMatchObject({ slot: 1, device: 'PB-SIM-1' });
    } finally {
      ctrl.abort();
    }
  });

  it('restarts the cabinet (it goes and comes back) and refuses commands while it is offline', async () => {
    const tech = as('technicianA');
    b.clock.advance(1000);
    expect(
      (await tech.call('POST', '/cabinets/SIM-1/commands', { type: 'restart', reason: 'frozen screen' })).statusCode,
    ).toBe(200);
    await waitFor(async () => (await read()).commands[0]?.state === 'accepted', 'restart accepted');
    await waitFor(async () => sim.online && (await read()).online, 'back online after the restart');
    await sim.stop();
    await waitFor(async () => !(await read()).online, 'offline');
    const r = await tech.call('POST', '/cabinets/SIM-1/commands', { type: 'inventory', reason: 'check' });
    expect(r.statusCode).toBe(409);
    expect(
      (
        await as('technicianA').call('POST', '/cabinets/IMP-2/commands', {
          type: 'lock',
          slot: 1,
          reason: 'x'.repeat(3),
        })
      ).statusCode,
    ).toBe(409);
  });
});
