// Rebalancing through the ops API: the cabinets out of balance and the moves suggested (nearest first, never across
// agents, never into an offline cabinet), a move marked done (audited) counting as made until its cabinets report
// after it, bad moves refused in the caller's words, and the role × scope table.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RebalancingShape } from '#contract/ops/rebalancing.ts';
import { build, type Built } from './helper.ts';
import { accessTable, callerConsoles, type Caller } from './ops/callers.ts';
import type { OpsConsole } from './ops/console.ts';

let b: Built;
let consoles = new Map<Caller, OpsConsole>();

/** A venue copied from the seeded one, at a place, for an agent. */
const venue = (id: string, agent: string, lat: number, lng: number) =>
  b.db.query(
    `insert into venues select (jsonb_populate_record(null::venues, to_jsonb(v) || jsonb_build_object('id', $1::text, 'name', $1::text, 'agent_id', $2::text, 'lat', $3::float8, 'lng', $4::float8))).*
     from venues v where v.id = 'v-vno-gedimino'`,
    [id, agent, lat, lng],
  );
/** A cabinet of 8 slots holding `banks` power banks, heard from now (or long ago: offline). */
async function cabinet(id: string, venueId: string, agent: string, banks: number, online = true) {
  await b.db.query(
    `insert into cabinets select (jsonb_populate_record(null::cabinets, to_jsonb(c) || jsonb_build_object('id', $1::text, 'venue_id', $2::text, 'agent_id', $3::text,
       'slot_count', 8, 'online', $4::boolean, 'last_seen_at', $5::timestamptz))).* from cabinets c where c.id = 'PWL-VNO-001'`,
    [id, venueId, agent, online, online ? b.clock.now() : new Date(b.clock.now().getTime() - 86_400_000)],
  );
  for (let s = 1; s <= banks; s++)
    await b.db.query(`insert into powerbanks (id, state, cabinet_id, slot) values ($1, 'in_cabinet', $2, $3)`, [
      `${id}-${s}`,
      id,
      s,
    ]);
}

beforeAll(async () => {
  b = await build({ simulator: false });
  consoles = await callerConsoles(b);
  await venue('VA1', 'agent-a', 54.6872, 25.2797);
  await venue('VA2', 'agent-a', 54.688, 25.281); // about 100 m from VA1
  await venue('VA3', 'agent-a', 54.8985, 23.9036); // Kaunas, about 90 km away
  await venue('VB1', 'agent-b', 54.6875, 25.28);
  await cabinet('CA-FULL', 'VA1', 'agent-a', 8);
  await cabinet('CA-NEAR', 'VA2', 'agent-a', 0);
  await cabinet('CA-FAR', 'VA3', 'agent-a', 1);
  await cabinet('CA-OFF', 'VA3', 'agent-a', 0, false);
  await cabinet('CB-FULL', 'VB1', 'agent-b', 8);
});
afterAll(() => b.close());

const view = async (c: OpsConsole, q = 'agentId=agent-a') => {
  const r = await c.call('GET', `/rebalancing?${q}`);
  expect(r.statusCode, r.body).toBe(200);
  return r.json<RebalancingShape>();
};

describe('rebalancing', () => {
  it('suggests the nearest move within the agent, counts a move done until the cabinets report, and audits it', async () => {
    const tech = consoles.get('technicianA')!;
    const before = await view(tech);
    expect(before.cabinets.map((c) => [c.id, c.balance, c.powerbanks, c.online])).toEqual([
      ['CA-FAR', 'under', 1, true],
      ['CA-FULL', 'over', 8, true],
      ['CA-NEAR', 'under', 0, true],
      ['CA-OFF', 'under', 0, false],
    ]);
    // CA-FULL can spare 4 (down to half): all to the cabinet 100 m away, none to the far one; agent B's full cabinet
    // next door gives nothing to agent A, and the offline cabinet receives nothing.
    expect(before.moves).toEqual([
      { agentId: 'agent-a', from: 'CA-FULL', to: 'CA-NEAR', powerbanks: 4, distanceM: expect.any(Number) },
    ]);
    expect(before.moves[0]!.distanceM).toBeGreaterThan(50);
    expect(before.moves[0]!.distanceM).toBeLessThan(200);
    expect((await view(consoles.get('platformOwner')!, '')).cabinets.map((c) => c.id)).toContain('CB-FULL');

    const done = await tech.call('POST', '/rebalancing/moves', {
      from: 'CA-FULL',
      to: 'CA-NEAR',
      powerbanks: 4,
      reason: 'morning round',
    });
    expect(done.statusCode, done.body).toBe(201);
    expect(done.json()).toMatchObject({
      agentId: 'agent-a',
      from: 'CA-FULL',
      to: 'CA-NEAR',
      powerbanks: 4,
      doneBy: 'technicianA@example.com',
      reason: 'morning round',
    });
    const after = await view(tech);
    expect(after.moves).toEqual([]);
    expect(after.cabinets.map((c) => c.id)).toEqual(['CA-FAR', 'CA-OFF']);
    expect(after.done.map((m) => [m.from, m.to, m.powerbanks])).toEqual([['CA-FULL', 'CA-NEAR', 4]]);
    const audit = (await consoles.get('platformOwner')!.call('GET', '/audit?entity=rebalance_move')).json<{
      items: { action: string; reason: string; entityId: string }[];
    }>().items;
    expect(audit[0]).toMatchObject({
      action: 'rebalance_move.done',
      reason: 'morning round',
      entityId: done.json<{ id: string }>().id,
    });

    // CA-FULL reports after the move still holding 8: its own count wins again, and the move is suggested anew (less
    // the 4 the cabinet near it still counts as received).
    b.clock.advance(1000);
    await b.db.query(`update cabinets set last_seen_at = $1 where id = 'CA-FULL'`, [b.clock.now()]);
    const reported = await view(tech);
    expect(reported.cabinets.find((c) => c.id === 'CA-FULL')).toMatchObject({ powerbanks: 8, balance: 'over' });
    expect(reported.moves).toEqual([
      { agentId: 'agent-a', from: 'CA-FULL', to: 'CA-FAR', powerbanks: 3, distanceM: expect.any(Number) },
    ]);
  });

  it('refuses a move within one cabinet, across agents or above the slots, and bands the wrong way round', async () => {
    const owner = consoles.get('platformOwner')!;
    const move = (from: string, to: string, powerbanks: number) =>
      owner.call(
        'POST',
        '/rebalancing/moves',
        { from, to, powerbanks, reason: 'checking' },
        { 'accept-language': 'lt-LT' },
      );
    for (const [from, to, n] of [
      ['CA-FULL', 'CA-FULL', 1],
      ['CA-FULL', 'CB-FULL', 1],
      ['CA-FULL', 'CA-NEAR', 9],
    ] as const) {
      const r = await move(from, to, n);
      expect(r.statusCode, `${from} → ${to} × ${n}`).toBe(400);
      expect(r.json<{ message: string }>().message).toMatch(/spint|įkrovikl/);
    }
    expect((await move('CA-FULL', 'NO-SUCH', 1)).statusCode).toBe(404);
    expect((await owner.call('GET', '/rebalancing?lowPct=60&highPct=40')).statusCode).toBe(400);
    expect(
      (
        await consoles
          .get('technicianA')!
          .call('POST', '/rebalancing/moves', { from: 'CB-FULL', to: 'CA-NEAR', powerbanks: 1, reason: 'not mine' })
      ).statusCode,
    ).toBe(404);
  });
});

type Op = 'view agent A' | 'mark a move of agent A done';
//                 none platformOwner adminA adminB supportA financeA technicianA readOnlyA partnerA
const TABLE: Record<Op, number[]> = {
  'view agent A': [401, 200, 200, 404, 200, 403, 200, 200, 403],
  'mark a move of agent A done': [401, 201, 201, 404, 403, 403, 201, 403, 403],
};
describe('rebalancing by role and scope', () => {
  accessTable(TABLE, () => consoles, {
    'view agent A': (c) => c.call('GET', '/rebalancing?agentId=agent-a'),
    'mark a move of agent A done': (c) =>
      c.call('POST', '/rebalancing/moves', { from: 'CA-FAR', to: 'CA-OFF', powerbanks: 1, reason: 'van run' }),
  });
});
