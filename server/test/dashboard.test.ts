// The dashboard's summaries and its ops API: figures recomputed from the rentals (started, ended, returned
// elsewhere, failed ejects, revenue per currency), a refresh run again or after a crash never counts twice, and
// every caller sees only its scope (an agent or venue outside it is a 404); the rollups per agent and day and per
// venue and month agree with the venues' daily rows.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DashboardShape } from '#contract/ops/dashboard.ts';
import { build, type Built } from './helper.ts';
import { callerConsoles, type Caller } from './ops/callers.ts';
import type { OpsConsole } from './ops/console.ts';
import { signedIn } from './partners/fixtures.ts';

const D1 = '2026-03-10';
const D2 = '2026-03-11';
const at = (day: string, time: string) => new Date(`${day}T${time}Z`);

describe('the dashboard', () => {
  let b: Built;
  let consoles = new Map<Caller, OpsConsole>();
  let partner: OpsConsole;
  let user = '';
  let n = 0;

  /** A rental row as the rentals service leaves it (the trigger sees the same statements). */
  async function rental(o: {
    venue: string;
    cabinet: string;
    currency?: string;
    created: Date;
    borrowed?: Date;
    returned?: Date;
    returnCabinet?: string;
    fee?: number;
    minutes?: number;
    zujie?: number;
    note?: string;
  }) {
    const id = `dash-${++n}`;
    await b.db.query(
      `insert into orders (id, user_id, cabinet_id, venue_id, zujie, settled, deposit_type, currency, plan, wire_strategy, deposit, created_at, borrowed_at,
         returned_at, return_cabinet_id, fee, use_minutes, note)
       values ($1, $2, $3, $4, $5, $6, 1, $7, '{}', '{}', 0, $8, $9, $10, $11, $12, $13, $14)`,
      [
        id,
        user,
        o.cabinet,
        o.venue,
        o.zujie ?? (o.returned ? 3 : o.borrowed ? 1 : 0),
        Boolean(o.returned) || o.zujie === 2,
        o.currency ?? 'EUR',
        o.created,
        o.borrowed ?? null,
        o.returned ?? null,
        o.returned ? (o.returnCabinet ?? o.cabinet) : null,
        o.fee ?? null,
        o.minutes ?? null,
        o.note ?? null,
      ],
    );
    return id;
  }
  const dashboard = (c: OpsConsole, q = '') => c.call('GET', `/dashboard?from=${D1}&to=${D2}${q}`);
  const figures = async (c: OpsConsole, q = '') => {
    const res = await dashboard(c, q);
    expect(res.statusCode).toBe(200);
    return res.json<DashboardShape>();
  };

  beforeAll(async () => {
    b = await build({ simulator: false });
    consoles = await callerConsoles(b);
    await b.db.query(`update venues set agent_id = 'agent-a' where id in ('v-vno-gedimino', 'v-lis-timeout')`);
    await b.db.query(`update venues set agent_id = 'agent-b' where id = 'v-nyc-gct'`);
    await b.db.query(`update cabinets c set agent_id = v.agent_id from venues v where v.id = c.venue_id`);
    partner = await signedIn(b, 'gedimino@example.com', {
      agentId: 'agent-a',
      role: 'venue_partner',
      venueIds: ['v-vno-gedimino'],
    });
    const { rows } = await b.db.query<{ id: string }>(
      `insert into users (kind, name) values ('tourist', 'dash') returning id`,
    );
    user = String(rows[0]!.id);
    // Vilnius, day 1: a rental returned there the same day, one returned in Lisbon on day 2, one still out, a failed eject.
    await rental({
      venue: 'v-vno-gedimino',
      cabinet: 'PWL-VNO-001',
      created: at(D1, '09:00:00'),
      borrowed: at(D1, '09:00:05'),
      returned: at(D1, '10:00:05'),
      fee: 300,
      minutes: 60,
    });
    await rental({
      venue: 'v-vno-gedimino',
      cabinet: 'PWL-VNO-001',
      created: at(D1, '23:30:00'),
      borrowed: at(D1, '23:30:04'),
      returned: at(D2, '01:30:04'),
      returnCabinet: 'PWL-LIS-001',
      fee: 500,
      minutes: 120,
    });
    await rental({
      venue: 'v-vno-gedimino',
      cabinet: 'PWL-VNO-001',
      created: at(D2, '12:00:00'),
      borrowed: at(D2, '12:00:03'),
    });
    await rental({
      venue: 'v-vno-gedimino',
      cabinet: 'PWL-VNO-001',
      created: at(D2, '13:00:00'),
      zujie: 2,
      note: 'eject failed: slot jammed',
    });
    // Lisbon (agent A) and New York (agent B), in their currencies.
    await rental({
      venue: 'v-lis-timeout',
      cabinet: 'PWL-LIS-001',
      created: at(D2, '08:00:00'),
      borrowed: at(D2, '08:00:02'),
      returned: at(D2, '08:30:02'),
      fee: 200,
      minutes: 30,
    });
    await rental({
      venue: 'v-nyc-gct',
      cabinet: 'PWL-NYC-001',
      currency: 'USD',
      created: at(D1, '15:00:00'),
      borrowed: at(D1, '15:00:02'),
      returned: at(D1, '17:00:02'),
      fee: 700,
      minutes: 120,
    });
    await b.app.powerly.dashboard.refresh();
  });
  afterAll(() => b.close());

  it('sums each day and currency from the rentals: started, ended, returned elsewhere, failed ejects, revenue', async () => {
    const f = await figures(consoles.get('platformOwner')!);
    expect(f.pending).toBe(0);
    expect(
      f.days.map((d) => [d.day, d.rentals, d.returns, d.returnsElsewhere, d.failedEjects, d.rentedMinutes]),
    ).toEqual([
      [D1, 3, 2, 0, 0, 180],
      [D2, 2, 2, 1, 1, 150],
    ]);
    expect(f.revenue).toEqual([
      { day: D1, currency: 'EUR', amount: 300 },
      { day: D1, currency: 'USD', amount: 700 },
      { day: D2, currency: 'EUR', amount: 700 },
    ]);
    expect(f.totals).toMatchObject({
      rentals: 5,
      returns: 4,
      returnsElsewhere: 1,
      failedEjects: 1,
      rentedMinutes: 330,
      averageMinutes: 83,
    });
    expect(f.totals.revenue).toEqual([
      { currency: 'EUR', amount: 1000 },
      { currency: 'USD', amount: 700 },
    ]);
    expect(f.topVenues.map((v) => [v.venueId, v.rentals])).toEqual([
      ['v-vno-gedimino', 3],
      ['v-lis-timeout', 1],
      ['v-nyc-gct', 1],
    ]);
  });

  it('running the refresh again, or every bucket marked again, or after a crash halfway, never counts twice', async () => {
    const before = await figures(consoles.get('platformOwner')!);
    expect(await b.app.powerly.dashboard.refresh()).toBe(0);
    await b.db.query(`update orders set note = note where id like 'dash-%'`); // marks every bucket again
    const repo = b.app.powerly.dashboard.repo;
    const ids = await repo.marks(1000);
    expect(ids.length).toBeGreaterThan(0);
    // A refresh that dies after recomputing, before committing: nothing of it stays, the marks neither go.
    await expect(
      b.db.tx(async () => {
        await repo.recompute(ids);
        throw new Error('process killed');
      }),
    ).rejects.toThrow('process killed');
    expect((await figures(consoles.get('platformOwner')!)).pending).toBe(ids.length);
    expect(await b.app.powerly.dashboard.refresh()).toBe(ids.length);
    expect(await b.app.powerly.dashboard.refresh()).toBe(0);
    const after = await figures(consoles.get('platformOwner')!);
    expect({ ...after, refreshedAt: null }).toEqual({ ...before, refreshedAt: null });
  });

  it('follows a rental that ends later, and the fleet behind utilisation', async () => {
    await b.db.query(
      `update orders set zujie = 3, settled = true, returned_at = $1, return_cabinet_id = 'PWL-VNO-001', fee = 100, use_minutes = 20 where id = 'dash-3'`,
      [at(D2, '12:20:03')],
    );
    b.clock.advance(at(D2, '18:00:00').getTime() - b.clock.now().getTime());
    await b.app.powerly.dashboard.refresh();
    const f = await figures(consoles.get('adminA')!, '&venueId=v-vno-gedimino');
    expect(f.days.map((d) => [d.day, d.rentals, d.returns, d.rentedMinutes])).toEqual([
      [D1, 2, 1, 60],
      [D2, 1, 2, 140],
    ]);
    expect(f.totals.revenue).toEqual([{ currency: 'EUR', amount: 900 }]);
    // Today's count of Vilnius's power banks (the seed's four), and D1 before any count takes the first one.
    expect(f.days.map((d) => d.powerbanks)).toEqual([4, 4]);
    expect(f.days[1]!.utilisation).toBeCloseTo(140 / (4 * 1440), 6);
  });

  it('is scoped: an agent sees its own, a venue partner its venues; another agent or venue is a 404', async () => {
    const a = await figures(consoles.get('adminA')!);
    expect(a.totals.revenue).toEqual([{ currency: 'EUR', amount: 1100 }]);
    expect(a.topVenues.map((v) => v.venueId).sort()).toEqual(['v-lis-timeout', 'v-vno-gedimino']);
    const bee = await figures(consoles.get('adminB')!);
    expect(bee.totals).toMatchObject({ rentals: 1, revenue: [{ currency: 'USD', amount: 700 }] });
    const p = await figures(partner);
    expect(p.topVenues.map((v) => v.venueId)).toEqual(['v-vno-gedimino']);
    expect((await figures(partner, '&agentId=agent-a')).totals).toEqual(p.totals);
    expect((await dashboard(consoles.get('adminB')!, '&agentId=agent-a')).statusCode).toBe(404);
    expect((await dashboard(consoles.get('adminB')!, '&venueId=v-vno-gedimino')).statusCode).toBe(404);
    expect((await dashboard(partner, '&venueId=v-lis-timeout')).statusCode).toBe(404);
    expect((await dashboard(consoles.get('adminA')!, '&venueId=no-such-venue')).statusCode).toBe(404);
    expect((await dashboard(consoles.get('adminA')!, '&agentId=agent-a&venueId=v-nyc-gct')).statusCode).toBe(404);
    expect((await figures(consoles.get('platformOwner')!, '&agentId=agent-b')).totals.rentals).toBe(1);
    expect((await dashboard(consoles.get('none')!)).statusCode).toBe(401);
  });

  it("reads whole months and whole agents from the rollups, which agree with the venues' rows after every change", async () => {
    const owner = consoles.get('platformOwner')!;
    // Rentals over three months: February's end, all of January (a whole month in the range), a day in December.
    for (const [venue, cabinet, day] of [
      ['v-lis-timeout', 'PWL-LIS-001', '2026-01-05'],
      ['v-lis-timeout', 'PWL-LIS-001', '2026-01-31'],
      ['v-lis-timeout', 'PWL-LIS-001', '2026-02-27'],
      ['v-nyc-gct', 'PWL-NYC-001', '2025-12-20'],
      ['v-vno-gedimino', 'PWL-VNO-001', '2026-01-15'],
    ] as const) {
      await rental({
        venue,
        cabinet,
        currency: venue === 'v-nyc-gct' ? 'USD' : 'EUR',
        created: at(day, '10:00:00'),
        borrowed: at(day, '10:00:02'),
        returned: at(day, '11:00:02'),
        fee: 100,
        minutes: 60,
      });
    }
    await b.app.powerly.dashboard.refresh();
    const direct = async (from: string, to: string, agent?: string) =>
      (
        await b.db.query<{ venue_id: string; rentals: number; revenue: number }>(
          `select venue_id, sum(rentals)::int as rentals, sum(revenue)::int as revenue from dashboard_daily
        where day between $1 and $2 and ($3::text is null or agent_id = $3) group by venue_id order by sum(rentals) desc, venue_id`,
          [from, to, agent ?? null],
        )
      ).rows;
    const check = async (from: string, to: string, q = '', agent?: string) => {
      const res = await owner.call('GET', `/dashboard?from=${from}&to=${to}${q}`);
      expect(res.statusCode).toBe(200);
      const f = res.json<DashboardShape>();
      const want = await direct(from, to, agent);
      expect(f.topVenues.map((v) => [v.venueId, v.rentals])).toEqual(want.map((r) => [r.venue_id, r.rentals]));
      expect(f.totals.rentals).toBe(want.reduce((n, r) => n + r.rentals, 0));
      return f;
    };
    const f = await check('2025-12-15', '2026-03-11');
    expect(f.topVenues.find((v) => v.venueId === 'v-lis-timeout')!.rentals).toBe(4);
    await check('2026-01-01', '2026-02-28', '&agentId=agent-a', 'agent-a');
    await check('2026-01-31', '2026-03-01');
    // A January rental moved to another agent's venue: the months and the agents' days follow it.
    await b.db.query(
      `update orders set venue_id = 'v-nyc-gct', currency = 'USD' where venue_id = 'v-lis-timeout' and created_at = $1`,
      [at('2026-01-05', '10:00:00')],
    );
    await b.app.powerly.dashboard.refresh();
    expect((await check('2025-12-01', '2026-02-28')).topVenues.find((v) => v.venueId === 'v-nyc-gct')!.rentals).toBe(2);
    await check('2026-01-01', '2026-01-31', '&agentId=agent-b', 'agent-b');
    const agents = (
      await b.db.query<{ n: number }>(
        `select count(*)::int as n from (select agent_id, day, currency, sum(rentals) as r from dashboard_daily group by 1, 2, 3
         except select agent_id, day, currency, rentals from dashboard_agent_daily) x`,
      )
    ).rows[0]!.n;
    expect(agents).toBe(0);
    // The venues' running sums are the sums of their daily rows up to each day, and the agents' fleet the venues'.
    const running = (
      await b.db.query<{ n: number }>(
        `select count(*)::int as n from (
         select agent_id, venue_id, currency, day, count(*) over w as buckets, sum(rentals) over w as rentals,
           sum(rented_minutes) over w as rented_minutes, sum(revenue) over w as revenue
           from dashboard_daily window w as (partition by venue_id, currency order by day)
         except select agent_id, venue_id, currency, day, buckets, rentals, rented_minutes, revenue from dashboard_venue_running) x`,
      )
    ).rows[0]!.n;
    expect(running).toBe(0);
    const sums = await b.db.query<{ a: number; b: number }>(
      `select (select count(*)::int from dashboard_venue_running) as a, (select count(*)::int from dashboard_daily) as b`,
    );
    expect(sums.rows[0]!.a).toBe(sums.rows[0]!.b);
    const fleets = (
      await b.db.query<{ n: number }>(
        `select count(*)::int as n from (select agent_id, day, sum(powerbanks)::int from dashboard_fleet_daily group by 1, 2
         except select agent_id, day, powerbanks from dashboard_agent_fleet_daily) x`,
      )
    ).rows[0]!.n;
    expect(fleets).toBe(0);
  });

  it("maps the cabinets of the scope with their stock and state; another agent's or venue's is a 404", async () => {
    const map = async (c: OpsConsole, q = '') => {
      const res = await c.call('GET', `/dashboard/cabinets${q}`);
      expect(res.statusCode, res.body).toBe(200);
      return res.json<{
        items: { id: string; venueId: string; powerbanks: number; slots: number; online: boolean }[];
      }>().items;
    };
    const mine = await map(partner);
    expect(mine.map((c) => [c.id, c.venueId, c.powerbanks])).toEqual([['PWL-VNO-001', 'v-vno-gedimino', 4]]);
    expect((await map(consoles.get('adminA')!)).map((c) => c.venueId).sort()).toEqual([
      'v-lis-timeout',
      'v-vno-gedimino',
    ]);
    expect((await map(consoles.get('platformOwner')!, '?agentId=agent-b')).map((c) => c.id)).toEqual(['PWL-NYC-001']);
    expect((await map(consoles.get('platformOwner')!, '?venueId=v-lis-timeout')).map((c) => c.id)).toEqual([
      'PWL-LIS-001',
    ]);
    expect((await consoles.get('adminB')!.call('GET', '/dashboard/cabinets?agentId=agent-a')).statusCode).toBe(404);
    expect((await partner.call('GET', '/dashboard/cabinets?venueId=v-lis-timeout')).statusCode).toBe(404);
  });

  it("refuses a reversed or too long range, and a malformed day, in the operator's language", async () => {
    const owner = consoles.get('platformOwner')!;
    expect((await owner.call('GET', `/dashboard?from=${D2}&to=${D1}`)).statusCode).toBe(400);
    const long = await owner.call('GET', '/dashboard?from=2024-01-01&to=2026-01-01', undefined, {
      'accept-language': 'lt-LT',
    });
    expect(long.statusCode).toBe(400);
    expect(long.json<{ message: string }>().message).toContain('366');
    expect((await owner.call('GET', '/dashboard?from=2026-13-01')).statusCode).toBe(400);
  });
});
