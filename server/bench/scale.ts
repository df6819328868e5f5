// `npm run bench:scale`: how many cabinets one API process holds. The API process (this one: buildApp, the cabinet
// link, the inbox) on PostgreSQL (DATABASE_URL; PGlite in memory without it) and an MQTT broker (MQTT_URL, e.g.
// Mosquitto; without it the embedded Aedes broker listening on a local port, which then lives in this process and
// counts in its memory). The simulated cabinets and the renters run in a child process (scale-fleet.ts), so the
// figures below are the API's alone. Prints, measured in this run:
//  - cabinets: BENCH_SCALE_CABINETS (10,000) seeded in bulk, connected, each heartbeating every
//    BENCH_SCALE_HEARTBEAT_MS (30 s); the time until the database has every one online;
//  - over BENCH_SCALE_PERIODS (3) heartbeat periods: the API process's RSS and heap (max), the inbox backlog
//    (pending rows of cabinet_events, max) and the messages being handled in memory, heartbeats handled per
//    second, the lag from a cabinet's event time to the event handled (p50 / p99 / max), cabinets whose last
//    report is older than two heartbeat periods (stale: 0 when nothing falls behind), event loop delay p99;
//  - BENCH_SCALE_RENTALS (1,000) rentals sent at once, one per cabinet spread over the fleet (sandbox card
//    provider): answered, orders renting, anything else (lost), the inbox afterwards, and the ledger invariants
//    (npm run ledger:check's checks) on the run's database.
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { buildApp } from '../src/app.ts';
import { openPglite, openPostgres } from '../src/db/db.ts';
import { migrate } from '../src/db/migrate.ts';
import { seed, seedVenue } from '../src/db/seed.ts';
import { SEED_VENUES } from '../src/db/seed-venues.ts';
import { systemClock } from '../src/lib/clock.ts';
import { externalBroker, startEmbeddedBroker } from '../src/mqtt/broker.ts';
import { MqttCabinetLink } from '../src/modules/cabinets/link.ts';
import { SandboxCardProvider } from '../src/modules/payments/sandbox.ts';
import { checkLedger } from '../src/modules/wallet/reconcile.ts';
import { dropSchema, steadyState } from './lib.ts';
import { BANKS, cabinetId, SLOTS, type FleetCommand, type FleetReport } from './scale-fleet.ts';

const CABINETS = Number(process.env.BENCH_SCALE_CABINETS ?? 10_000);
const HEARTBEAT_MS = Number(process.env.BENCH_SCALE_HEARTBEAT_MS ?? 30_000);
const PERIODS = Number(process.env.BENCH_SCALE_PERIODS ?? 3);
const RENTALS = Math.min(CABINETS, Number(process.env.BENCH_SCALE_RENTALS ?? 1_000));
const PK = 'pk_bench_scale';
const MB = (b: number) => `${(b / 1024 / 1024).toFixed(0)} MB`;

const url = process.env.DATABASE_URL;
const schema = `bench_scale_${process.pid}`;
const db = url ? await openPostgres(url, { schema, max: 10 }) : await openPglite();
await migrate(db);
await seed(db);
// The fleet: one venue (priced as Vilnius, a card hold), CABINETS cabinets with BANKS power banks in SLOTS slots.
const model = SEED_VENUES.find((v) => v.cabinet.id === 'PWL-VNO-001')!;
const seedStart = performance.now();
await seedVenue(db, {
  ...model,
  id: 'v-bench-scale',
  name: 'Bench scale',
  cabinet: { id: cabinetId(0), slots: SLOTS, powerbanks: 0 },
  boxes: undefined,
  stations: undefined,
});
const ids = Array.from({ length: CABINETS }, (_, i) => cabinetId(i));
await db.query(
  `insert into cabinets (id, venue_id, slot_count) select id, 'v-bench-scale', $2 from unnest($1::text[]) id on conflict (id) do nothing`,
  [ids, SLOTS],
);
await db.query(
  `insert into powerbanks (id, state, cabinet_id, slot)
   select 'PB-' || split_part(c, '-', 2) || '-' || lpad(s::text, 4, '0'), 'in_cabinet', c, s from unnest($1::text[]) c, generate_series(1, $2) s`,
  [ids, BANKS],
);
const seedMs = performance.now() - seedStart;

const broker = process.env.MQTT_URL ? undefined : await startEmbeddedBroker({ port: 0, host: '127.0.0.1' });
const mqttUrl = process.env.MQTT_URL ?? `mqtt://127.0.0.1:${broker!.port}`;
const connector = broker ?? externalBroker(mqttUrl, {});
const prefix = `benchscale${process.pid}`;
const link = new MqttCabinetLink(connector, { prefix, log: console });
const app = await buildApp({
  db,
  clock: systemClock,
  link,
  sandbox: new SandboxCardProvider(db, systemClock, PK),
  jobPollMs: 200,
  // The renters' thousand sign-ins come from one address: the per-address budgets would refuse them.
  rateLimits: false,
});
const base = await app.listen({ port: 0, host: '127.0.0.1' });

// The fleet process.
const child = fork(fileURLToPath(new URL('./scale-fleet.ts', import.meta.url)), [], {
  execArgv: ['--import', 'tsx'],
  stdio: 'inherit',
});
const reports: FleetReport[] = [];
const waiters: ((r: FleetReport) => boolean)[] = [];
child.on('message', (r: FleetReport) => {
  if (r.type === 'progress') console.info(`  fleet: ${r.connected} cabinets connected`);
  reports.push(r);
  for (const w of [...waiters]) if (w(r)) waiters.splice(waiters.indexOf(w), 1);
});
child.on('exit', (code) => {
  if (code) {
    console.error(`the fleet process exited with ${code}`);
    process.exit(1);
  }
});
const command = <T extends FleetReport['type']>(c: FleetCommand, until: T) =>
  new Promise<Extract<FleetReport, { type: T }>>((resolve) =>
    waiters.push((r) => (r.type === until ? (resolve(r as Extract<FleetReport, { type: T }>), true) : false)),
  );

const q = async (sql: string, params: unknown[] = []) =>
  Number((await db.query<{ n: number }>(sql, params)).rows[0]!.n);
const onlineCount = () => q(`select count(*)::int as n from cabinets where online and id = any($1::text[])`, [ids]);
const pending = () => q(`select count(*)::int as n from cabinet_events where state = 'pending'`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

console.info(
  `cabinets per process: ${CABINETS} cabinets, heartbeat every ${HEARTBEAT_MS / 1000} s (Node ${process.version}, database: ${url ? 'PostgreSQL' : 'PGlite in memory'}, broker: ${broker ? 'embedded Aedes (in this process)' : `MQTT_URL ${mqttUrl}`})`,
);
console.info(
  `seeded ${CABINETS} cabinets and ${CABINETS * BANKS} power banks in ${(seedMs / 1000).toFixed(1)} s; API process RSS before the fleet ${MB(process.memoryUsage().rss)}`,
);
const connectStart = performance.now();
const startCmd: FleetCommand = { type: 'start', mqttUrl, prefix, count: CABINETS, heartbeatMs: HEARTBEAT_MS };
const started = command(startCmd, 'started');
child.send(startCmd);
const s = await started;
for (let n = await onlineCount(); n < CABINETS; n = await onlineCount()) {
  if (performance.now() - connectStart > 600_000)
    throw new Error(`only ${n} of ${CABINETS} cabinets online after 10 min`);
  await sleep(500);
}
console.info(
  `all ${CABINETS} online in the database ${((performance.now() - connectStart) / 1000).toFixed(1)} s after the fleet started connecting (fleet process connected them in ${(s.ms / 1000).toFixed(1)} s, its RSS ${MB(s.rss)})`,
);

// Steady state: PERIODS heartbeat periods.
const {
  secs,
  stats: st,
  rssMax,
  heapMax,
  backlogMax,
  inFlightMax,
  loopP99Ms,
} = await steadyState(link, pending, PERIODS * HEARTBEAT_MS);
const staleRows = (
  await db.query<{ id: string; online: boolean; last_seen_at: Date | null }>(
    `select id, online, last_seen_at from cabinets where id = any($2::text[]) and (not online or last_seen_at < now() - ($1::int * interval '1 millisecond')) order by id`,
    [2 * HEARTBEAT_MS, ids],
  )
).rows;
const stale = `${staleRows.length}${
  staleRows.length
    ? ` (${staleRows
        .slice(0, 3)
        .map(
          (r) =>
            `${r.id} ${r.online ? 'online' : 'offline'}, last report ${r.last_seen_at ? new Date(r.last_seen_at).toISOString() : 'never'}`,
        )
        .join('; ')})`
    : ''
}`;
const msFmt = (v: number) => (Number.isFinite(v) ? `≤${v}` : `>${30_000}`);
console.info(
  `over ${PERIODS} heartbeat periods (${secs.toFixed(0)} s): API process RSS max ${MB(rssMax)} (now ${MB(process.memoryUsage().rss)}), heap max ${MB(heapMax)}`,
);
console.info(
  `  heartbeats handled ${st.heartbeats} (${(st.heartbeats / secs).toFixed(0)}/s, expected ${(CABINETS / (HEARTBEAT_MS / 1000)).toFixed(0)}/s), lag event time → handled p50 ${msFmt(st.lag.p50)} ms, p99 ${msFmt(st.lag.p99)} ms, max ${st.lag.max.toFixed(0)} ms`,
);
console.info(
  `  backlog: inbox pending max ${backlogMax}, messages in hand max ${inFlightMax}, stale cabinets (no report for ${(2 * HEARTBEAT_MS) / 1000} s) ${stale}; event loop delay p99 ${loopP99Ms.toFixed(1)} ms`,
);

// The rentals: RENTALS at once.
const rentCmd: FleetCommand = { type: 'rent', base, n: RENTALS, pk: PK, tag: `bench-scale-${process.pid}` };
const rentedP = command(rentCmd, 'rented');
link.stats.take();
child.send(rentCmd);
let rentRssMax = 0;
const rssTimer = setInterval(() => (rentRssMax = Math.max(rentRssMax, process.memoryUsage().rss)), 200);
const rented = await rentedP;
const orders = rented.answers.filter((a) => a.orderId).map((a) => a.orderId!);
const renting = () => q(`select count(*)::int as n from orders where id = any($1::text[]) and zujie = 1`, [orders]);
const settleStart = performance.now();
while ((await renting()) < orders.length && performance.now() - settleStart < 120_000) await sleep(250);
const settleMs = performance.now() - settleStart;
clearInterval(rssTimer);
const states = (
  await db.query<{ zujie: number; n: number }>(
    `select zujie, count(*)::int as n from orders where id = any($1::text[]) group by zujie order by zujie`,
    [orders],
  )
).rows;
const rentingN = await renting();
const after = await pending();
const dead = await q(`select count(*)::int as n from cabinet_events where state = 'dead'`);
const violations = await checkLedger(db);
const rst = link.stats.take();
const ms = rented.answers.map((a) => a.ms).sort((a, b) => a - b);
const pct = (p: number) => ms[Math.min(ms.length - 1, Math.ceil(p * ms.length) - 1)]!;
const failed = rented.answers.filter((a) => a.error);
console.info(
  `${RENTALS} rentals at once: ${orders.length} answered with an order, ${failed.length} refused${failed.length ? ` (${[...new Set(failed.map((f) => f.error))].slice(0, 3).join('; ')})` : ''}; HTTP answer p50 ${pct(0.5).toFixed(0)} ms, p99 ${pct(0.99).toFixed(0)} ms`,
);
// Not renting: cancelled (the eject expired before the cabinet took it: the hold is released, see the ledger line)
// or still pending; lost: an order in no state at all (none is expected).
const inState = states.reduce((a, r) => a + Number(r.n), 0);
console.info(
  `  orders renting ${rentingN} of ${orders.length} within ${(settleMs / 1000).toFixed(1)} s (by state: ${states.map((r) => `${r.zujie}: ${r.n}`).join(', ')}; 0 pending, 1 renting, 2 cancelled); not renting ${orders.length - rentingN}, lost ${orders.length - inState}`,
);
console.info(
  `  inbox afterwards: pending ${after}, dead ${dead}; events lag p99 ${msFmt(rst.lag.p99)} ms; API process RSS max during the rentals ${MB(rentRssMax)}; ledger: ${
    violations.length
      ? `${violations.length} VIOLATION(S): ${violations
          .slice(0, 3)
          .map((v) => `${v.invariant}: ${v.detail}`)
          .join('; ')}`
      : 'every invariant holds'
  }`,
);

const stopped = command({ type: 'stop' }, 'stopped');
child.send({ type: 'stop' });
await stopped;
child.disconnect();
await app.close();
await broker?.close();
await db.close();
await dropSchema(url, schema);
if (failed.length || rentingN !== orders.length || violations.length || dead) process.exitCode = 1;
