// The ops API's venues, price plans and agents: who may do what where (role × scope × operation → status), every
// write in the audit log with its reason, the second of two saves refused with 409 and nothing overwritten, bad
// input refused field by field in the operator's language, and lists paged by cursor inside the caller's scope.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { build, planFixture, venueFixture, type Built } from './helper.ts';
import { accessTable, callerConsoles, type Caller } from './ops/callers.ts';
import type { OpsConsole } from './ops/console.ts';

type Op =
  | 'list venues'
  | 'read venue of A'
  | 'read other venue of A'
  | 'create venue for A'
  | 'change venue of A'
  | 'plans of venue of A'
  | 'create plan for venue of A'
  | 'preview a draft plan'
  | 'preview a plan'
  | 'list agents'
  | 'read agent A'
  | 'create agent'
  | 'change agent A';
//                 none platformOwner adminA adminB supportA financeA technicianA readOnlyA partnerA
const TABLE: Record<Op, number[]> = {
  'list venues': [401, 200, 200, 200, 200, 403, 200, 200, 200],
  'read venue of A': [401, 200, 200, 404, 200, 403, 200, 200, 200],
  'read other venue of A': [401, 200, 200, 404, 200, 403, 200, 200, 404],
  'create venue for A': [401, 200, 200, 400, 403, 403, 200, 403, 403],
  'change venue of A': [401, 200, 200, 404, 403, 403, 200, 403, 403],
  'plans of venue of A': [401, 200, 200, 404, 200, 403, 200, 200, 200],
  'create plan for venue of A': [401, 200, 200, 400, 403, 403, 403, 403, 403],
  'preview a draft plan': [401, 200, 200, 400, 200, 403, 200, 200, 200],
  'preview a plan': [401, 200, 200, 404, 200, 403, 200, 200, 200],
  'list agents': [401, 200, 200, 200, 200, 403, 200, 200, 200],
  'read agent A': [401, 200, 200, 404, 200, 403, 200, 200, 200],
  'create agent': [401, 200, 403, 403, 403, 403, 403, 403, 403],
  'change agent A': [401, 200, 200, 404, 403, 403, 403, 403, 403],
};

let b: Built;
let consoles = new Map<Caller, OpsConsole>();
let planId = 0;
let n = 0;
const owner = () => consoles.get('platformOwner')!;
const later = () => new Date(Date.UTC(2030, 0, 1, 0, ++n)).toISOString();

beforeAll(async () => {
  b = await build({ simulator: false });
  consoles = await callerConsoles(b);
  await b.app.powerly.fleet.venues.create(venueFixture('V001', 54.68, 25.28, { agentId: 'agent-a' }));
  await b.app.powerly.fleet.venues.create(
    venueFixture('V002', 54.69, 25.29, { agentId: 'agent-a', name: 'Second of A' }),
  );
  await b.app.powerly.fleet.venues.create(venueFixture('VB1', 54.7, 25.3, { agentId: 'agent-b' }));
  planId = (await b.app.powerly.fleet.plans.create(planFixture({ venueId: 'V001' }))).id;
}, 60_000);
afterAll(() => b?.close());

describe('the fleet in the ops API: role × scope × operation', () => {
  const run: Record<Op, (c: OpsConsole) => Promise<{ statusCode: number }>> = {
    'list venues': (c) => c.call('GET', '/venues'),
    'read venue of A': (c) => c.call('GET', '/venues/V001'),
    'read other venue of A': (c) => c.call('GET', '/venues/V002'),
    'create venue for A': (c) =>
      c.call('POST', '/venues', { ...venueFixture(`VN${++n}`, 54, 25, { agentId: 'agent-a' }), reason: 'new venue' }),
    'change venue of A': async (c) => {
      const read = await owner().call('GET', '/venues/V002');
      return c.call(
        'PATCH',
        '/venues/V002',
        { address: `Street ${++n}`, reason: 'moved' },
        { 'if-match': read.headers.etag as string },
      );
    },
    'plans of venue of A': (c) => c.call('GET', '/plans?venueId=V001'),
    'create plan for venue of A': (c) =>
      c.call('POST', '/plans', { ...planFixture({ venueId: 'V002', effectiveFrom: later() }), reason: 'new prices' }),
    'preview a draft plan': (c) =>
      c.call('POST', '/plans/preview', { plan: planFixture({ venueId: 'V001' }), minutes: [10, 60] }),
    'preview a plan': (c) => c.call('POST', `/plans/${planId}/preview`, { minutes: [10, 60] }),
    'list agents': (c) => c.call('GET', '/agents'),
    'read agent A': (c) => c.call('GET', '/agents/agent-a'),
    'create agent': (c) =>
      c.call('POST', '/agents', {
        id: `ag-new-${++n}`,
        name: 'New agent',
        currencies: ['EUR'],
        origins: [],
        reason: 'new market',
      }),
    'change agent A': async (c) => {
      const read = await owner().call('GET', '/agents/agent-a');
      return c.call(
        'PATCH',
        '/agents/agent-a',
        { origins: [`https://shop${++n}.example`], reason: 'new partner site' },
        { 'if-match': read.headers.etag as string },
      );
    },
  };
  accessTable(TABLE, () => consoles, run);
});

describe('venues through the ops API', () => {
  it('lists only the venues in scope, filtered, sorted and paged by cursor', async () => {
    const page = async (c: Caller, url: string) =>
      (await consoles.get(c)!.call('GET', url)).json<{ items: Array<{ id: string; name: string }>; next?: string }>();
    expect((await page('partnerA', '/venues')).items.map((v) => v.id)).toEqual(['V001']);
    expect((await page('adminB', '/venues')).items.map((v) => v.id)).toEqual(['VB1']);
    expect((await page('adminA', '/venues?q=second')).items.map((v) => v.id)).toEqual(['V002']);
    const seen: string[] = [];
    let url = '/venues?sort=-id&limit=2&agentId=agent-a';
    for (;;) {
      const p = await page('adminA', url);
      seen.push(...p.items.map((v) => v.id));
      if (!p.next) break;
      url = `/venues?sort=-id&limit=2&agentId=agent-a&cursor=${p.next}`;
    }
    expect(seen.length).toBeGreaterThanOrEqual(3);
    expect(seen).toEqual([...seen].sort().reverse());
    expect(new Set(seen).size).toBe(seen.length);
    expect((await owner().call('GET', '/venues?cursor=bogus')).statusCode).toBe(400);
  });

  it("refuses bad input with the field named in the operator's language, and never a 500", async () => {
    const bad = await owner().call(
      'POST',
      '/venues',
      { ...venueFixture('VX', 91, 0), reason: 'test' },
      { lang: 'lt-LT' },
    );
    expect(bad.statusCode).toBe(400);
    expect(bad.json<{ message: string }>().message).toContain('lat');
    expect(bad.json<{ message: string }>().message).not.toContain('out of range');
    const hours = venueFixture('x', 0, 0).openingHours;
    const overlap = {
      ...hours,
      weekly: {
        ...hours.weekly,
        mon: [
          { open: '09:00', close: '13:00' },
          { open: '12:00', close: '18:00' },
        ],
      },
    };
    const res = await owner().call('POST', '/venues', {
      ...venueFixture('VX', 10, 0, { openingHours: overlap }),
      reason: 'test',
    });
    expect(res.statusCode).toBe(400);
    expect(res.json<{ message: string }>().message).toContain('openingHours.weekly.mon.1');
    expect((await owner().call('POST', '/venues', { ...venueFixture('VX', 10, 0) })).statusCode).toBe(400); // no reason
  });

  it('the second of two saves from the same read is a 409 and overwrites nothing; both writes are audited with their reason', async () => {
    const read = await owner().call('GET', '/venues/V001');
    const etag = read.headers.etag as string;
    const first = await consoles
      .get('adminA')!
      .call('PATCH', '/venues/V001', { name: 'First save', reason: 'rename after survey' }, { 'if-match': etag });
    expect(first.statusCode).toBe(200);
    expect(first.headers.etag).not.toBe(etag);
    const second = await owner().call(
      'PATCH',
      '/venues/V001',
      { name: 'Second save', reason: 'other rename' },
      { 'if-match': etag },
    );
    expect(second.statusCode).toBe(409);
    expect((await owner().call('GET', '/venues/V001')).json<{ name: string }>().name).toBe('First save');
    expect((await owner().call('PATCH', '/venues/V001', { name: 'No tag', reason: 'other rename' })).statusCode).toBe(
      428,
    );
    const audit = (await owner().call('GET', '/audit?entity=venue&entityId=V001')).json<{
      items: Array<{
        action: string;
        reason: string;
        staffEmail: string;
        before: { name: string };
        after: { name: string };
      }>;
    }>();
    expect(audit.items).toHaveLength(1);
    expect(audit.items[0]).toMatchObject({
      action: 'venue.update',
      reason: 'rename after survey',
      staffEmail: 'adminA@example.com',
      after: { name: 'First save' },
    });
    expect(audit.items[0]!.before.name).not.toBe('First save');
  });
});

describe('price plans through the ops API', () => {
  it('creates a plan from a time, previews its fees by the fee rule, refuses a stale save, and a plan in effect stays as it is', async () => {
    const plan = {
      ...planFixture({ venueId: 'V001', effectiveFrom: '2031-01-01T00:00:00.000Z', freeMinutes: 5 }),
      reason: 'winter prices',
    };
    const created = await owner().call('POST', '/plans', plan);
    expect(created.statusCode).toBe(200);
    const p = created.json<{ id: number; currency: string }>();
    expect(p.currency).toBe('EUR');
    const preview = (await owner().call('POST', `/plans/${p.id}/preview`, { minutes: [5, 6, 30, 31, 24 * 60] })).json<{
      fees: Array<{ minutes: number; fee: number }>;
    }>();
    // EUR 1 per 30 minutes after 5 free minutes, 6 a day at most.
    expect(preview.fees.map((f) => f.fee)).toEqual([0, 100, 100, 200, 600]);
    const draft = (
      await owner().call('POST', '/plans/preview', {
        plan: planFixture({ venueId: 'V001', freeMinutes: 5 }),
        minutes: [5, 6, 30, 31, 24 * 60],
      })
    ).json<{ fees: unknown }>();
    expect(draft.fees).toEqual(preview.fees);

    const etag = (await owner().call('GET', `/plans/${p.id}`)).headers.etag as string;
    expect(
      (await owner().call('PATCH', `/plans/${p.id}`, { unitPrice: 150, reason: 'raise' }, { 'if-match': etag }))
        .statusCode,
    ).toBe(200);
    expect(
      (await owner().call('PATCH', `/plans/${p.id}`, { unitPrice: 90, reason: 'lower' }, { 'if-match': etag }))
        .statusCode,
    ).toBe(409);
    expect((await owner().call('GET', `/plans/${p.id}`)).json<{ unitPrice: number }>().unitPrice).toBe(150);

    const now = await owner().call('GET', `/plans/${planId}`);
    const inEffect = await owner().call(
      'PATCH',
      `/plans/${planId}`,
      { unitPrice: 1, reason: 'cheaper' },
      { 'if-match': now.headers.etag as string },
    );
    expect(inEffect.statusCode).toBe(409);
    const audit = (await owner().call('GET', `/audit?entity=price_plan&entityId=${p.id}`)).json<{
      items: Array<{ action: string; reason: string }>;
    }>();
    expect(audit.items.map((a) => [a.action, a.reason])).toEqual([
      ['plan.update', 'raise'],
      ['plan.create', 'winter prices'],
    ]);
  });
});

describe('agents through the ops API', () => {
  it("keeps the embed's origins exact, and refuses the second of two saves", async () => {
    const read = await owner().call('GET', '/agents/agent-b');
    const etag = read.headers.etag as string;
    const bad = await owner().call(
      'PATCH',
      '/agents/agent-b',
      { origins: ['https://x.example/path'], reason: 'partner' },
      { 'if-match': etag },
    );
    expect(bad.statusCode).toBe(400);
    expect(bad.json<{ message: string }>().message).toContain('origins.0');
    expect(
      (
        await owner().call(
          'PATCH',
          '/agents/agent-b',
          { origins: ['https://b.example'], reason: 'partner' },
          { 'if-match': etag },
        )
      ).statusCode,
    ).toBe(200);
    expect(
      (
        await owner().call(
          'PATCH',
          '/agents/agent-b',
          { origins: ['https://evil.example'], reason: 'partner' },
          { 'if-match': etag },
        )
      ).statusCode,
    ).toBe(409);
    expect((await b.app.powerly.embed.agent('agent-b'))?.origins).toEqual(['https://b.example']);
  });
});
