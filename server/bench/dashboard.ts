// `npm run bench:dashboard`: the dashboard at the network's scale, measured in one run.
//  - seeds BENCH_DASHBOARD_RENTALS (1,000,000) rentals over 90 days at BENCH_DASHBOARD_CABINETS (10,000) cabinets of
//    1 000 venues and 10 agents, in bulk (generate_series; the summaries' trigger marks the buckets as it would for
//    any write), with 3 % still out, 2 % failed ejects and 10 % returned at another venue;
//  - times the refresh that computes the summaries from nothing (every bucket marked), then the steady state: 1 000
//    rentals returned now, and the refresh that follows them;
//  - times the dashboard's reads (the ops API's service, as a request calls it) for the platform, one agent and one
//    venue, over 30 and 90 days: p50 and p95 of BENCH_DASHBOARD_READS (50) each.
// PostgreSQL from DATABASE_URL (its own schema, dropped at the end); PGlite without it (slower: one process).
import { openPglite, openPostgres } from '../src/db/db.ts';
import { migrate } from '../src/db/migrate.ts';
import { seed } from '../src/db/seed.ts';
import { JobRunner } from '../src/jobs/runner.ts';
import { DashboardService } from '../src/modules/dashboard/service.ts';
import type { Scope } from '#core/opsAccess.ts';
import { dropSchema } from './lib.ts';

const RENTALS = Number(process.env.BENCH_DASHBOARD_RENTALS ?? 1_000_000);
const CABINETS = Number(process.env.BENCH_DASHBOARD_CABINETS ?? 10_000);
const READS = Number(process.env.BENCH_DASHBOARD_READS ?? 50);
const VENUES = Math.max(1, Math.floor(CABINETS / 10));
const AGENTS = 10;
const DAYS = 90;

const url = process.env.DATABASE_URL;
const schema = `bench_dashboard_${process.pid}`;
const db = url ? await openPostgres(url, { schema, max: 10 }) : await openPglite();
await migrate(db);
await seed(db);
const clock = { now: () => new Date() };
const log = {
  info() {},
  warn() {},
  error(...a: unknown[]) {
    console.error(...a);
  },
};
const dashboard = new DashboardService({ db, clock, jobs: new JobRunner(db, clock, log) });
const ms = (t: number) => `${(performance.now() - t).toFixed(0)} ms`;

// The fleet: copies of a seeded venue and cabinet (every column the seed sets), agents ba-0…ba-9.
let t = performance.now();
await db.query(
  `insert into agents (id, name) select 'ba-' || g, 'Bench agent ' || g from generate_series(0, ${AGENTS - 1}) g`,
);
await db.query(
  `insert into venues select (jsonb_populate_record(null::venues, to_jsonb(v) || jsonb_build_object('id', 'bv-' || g, 'name', 'Bench venue ' || g, 'agent_id', 'ba-' || (g % ${AGENTS})))).*
   from venues v, generate_series(0, ${VENUES - 1}) g where v.id = 'v-vno-gedimino'`,
);
await db.query(
  `insert into cabinets select (jsonb_populate_record(null::cabinets, to_jsonb(c) || jsonb_build_object('id', 'bc-' || g, 'venue_id', 'bv-' || (g / 10), 'agent_id', 'ba-' || ((g / 10) % ${AGENTS})))).*
   from cabinets c, generate_series(0, ${CABINETS - 1}) g where c.id = 'PWL-VNO-001'`,
);
await db.query(
  `insert into powerbanks (id, state, cabinet_id, slot) select 'bp-' || c || '-' || s, 'in_cabinet', 'bc-' || c, s
   from generate_series(0, ${CABINETS - 1}) c, generate_series(1, 6) s`,
);
const { rows: users } = await db.query<{ id: string }>(
  `insert into users (kind, name) values ('tourist', 'bench') returning id`,
);
console.info(
  `fleet: ${AGENTS} agents, ${VENUES} venues, ${CABINETS} cabinets, ${CABINETS * 6} power banks in ${ms(t)}`,
);

// The rentals: spread over the last 90 days and the cabinets; durations 30–180 min.
t = performance.now();
const now = Date.now();
const CHUNK = 250_000;
for (let from = 0; from < RENTALS; from += CHUNK) {
  await db.query(
    `insert into orders (id, user_id, cabinet_id, venue_id, zujie, settled, deposit_type, currency, plan, wire_strategy, deposit, created_at, borrowed_at,
       returned_at, return_cabinet_id, fee, use_minutes, note)
     select 'bo-' || g, $1, 'bc-' || (g % ${CABINETS}), 'bv-' || ((g % ${CABINETS}) / 10),
       case when g % 50 = 0 then 2 when g % 33 = 0 then 1 else 3 end, g % 33 <> 0, 1, 'EUR', '{}', '{}', 0,
       s.created, case when g % 50 = 0 then null else s.created + interval '4 seconds' end,
       case when g % 50 = 0 or g % 33 = 0 then null else s.created + make_interval(mins => s.minutes) end,
       case when g % 50 = 0 or g % 33 = 0 then null when g % 10 = 0 then 'bc-' || ((g + 5000) % ${CABINETS}) else 'bc-' || (g % ${CABINETS}) end,
       case when g % 50 = 0 or g % 33 = 0 then null else 100 * (1 + s.minutes / 30) end,
       case when g % 50 = 0 or g % 33 = 0 then null else s.minutes end,
       case when g % 50 = 0 then 'eject failed: bench' end
     from generate_series($2::int, $3::int) g,
       lateral (select to_timestamp($4::double precision) - make_interval(secs => (g::bigint * 7919) % ${DAYS * 86400}) as created, 30 + (g % 151) as minutes) s`,
    [users[0]!.id, from, Math.min(RENTALS, from + CHUNK) - 1, now / 1000 - 3 * 3600],
  );
}
if (url) await db.query('analyze');
const marks = (await dashboard.repo.state()).pending;
console.info(`rentals: ${RENTALS.toLocaleString('en-US')} inserted in ${ms(t)} (the trigger marked ${marks} buckets)`);

t = performance.now();
const all = await dashboard.refresh();
const fullMs = performance.now() - t;
const summaryRows = (await db.query<{ n: number }>('select count(*)::int as n from dashboard_daily')).rows[0]!.n;
console.info(`refresh from nothing: ${all} marks, ${summaryRows} summary rows, ${fullMs.toFixed(0)} ms`);
if (url) await db.query('analyze');

// The steady state: 1 000 open rentals returned now, then the refresh that takes them in.
t = performance.now();
await db.query(
  `update orders set zujie = 3, settled = true, returned_at = now(), return_cabinet_id = cabinet_id, fee = 300, use_minutes = 60
   where id in (select id from orders where zujie = 1 and not settled limit 1000)`,
);
const updateMs = performance.now() - t;
t = performance.now();
const some = await dashboard.refresh();
console.info(`1 000 returns now: update ${updateMs.toFixed(0)} ms; refresh of their ${some} marks ${ms(t)}`);
t = performance.now();
await dashboard.refresh();
console.info(`refresh with nothing marked (today's fleet counts only): ${ms(t)}`);

const day = (d: number) => new Date(now - d * 86_400_000).toISOString().slice(0, 10);
const platform: Scope = { kind: 'all' };
const agent: Scope = { kind: 'agents', agents: ['ba-3'], venues: {} };
const partner: Scope = { kind: 'agents', agents: ['ba-3'], venues: { 'ba-3': ['bv-13', 'bv-23'] } };
const cases: [string, Scope, Parameters<DashboardService['read']>[1]][] = [
  ['platform, 30 days', platform, { from: day(29), to: day(0) }],
  ['platform, 90 days', platform, { from: day(89), to: day(0) }],
  ['one agent, 30 days', agent, { from: day(29), to: day(0) }],
  ['one agent, 90 days', agent, { from: day(89), to: day(0) }],
  ['one venue, 90 days', agent, { from: day(89), to: day(0), venueId: 'bv-13' }],
  ['a venue partner (2 venues), 90 days', partner, { from: day(89), to: day(0) }],
];
console.info(
  `dashboard reads (${READS} each, after 3 warm-ups; the whole answer: series, revenue, fleet, top venues):`,
);
for (const [name, scope, q] of cases) {
  for (let i = 0; i < 3; i++) await dashboard.read(scope, q);
  const times: number[] = [];
  for (let i = 0; i < READS; i++) {
    const s = performance.now();
    await dashboard.read(scope, q);
    times.push(performance.now() - s);
  }
  times.sort((a, b) => a - b);
  const p = (q: number) => times[Math.min(times.length - 1, Math.ceil(q * times.length) - 1)]!.toFixed(1);
  console.info(`  ${name.padEnd(38)} p50 ${p(0.5).padStart(7)} ms   p95 ${p(0.95).padStart(7)} ms`);
}
await db.close();
await dropSchema(url, schema);
