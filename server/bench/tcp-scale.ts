// `npm run bench:tcp`: how many cabinets of the binary TCP family one API process holds. The API process (this one:
// buildApp, the cabinet link with the TCP gateway on a local port, the inbox) on PostgreSQL (DATABASE_URL; PGlite in
// memory without it) and an MQTT broker (MQTT_URL; without it the embedded Aedes broker, in this process). The
// cabinets run in a child process (tcp-fleet.ts), so the figures are the API's alone. Prints, measured in this run:
//  - BENCH_TCP_CABINETS (5,000) cabinets seeded, connected and logged in; the time until the database has every
//    one online;
//  - over BENCH_TCP_PERIODS (3) heartbeat periods of BENCH_TCP_HEARTBEAT_MS (30 s): the API process's RSS and heap
//    (max), the inbox backlog (pending rows of cabinet_events, max) and the messages in hand, heartbeats handled per
//    second (each TCP heartbeat is answered with an inventory request, whose answer is the internal heartbeat), the
//    lag from a cabinet's report to its handling (p50 / p99 / max), cabinets whose last report is older than two
//    periods (stale: 0 when nothing falls behind), connections the server closed, event loop delay p99.
// Exits non-zero when a cabinet is not online, one is stale, or the backlog does not drain.
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
import { TcpGateway } from '../src/modules/cabinets/vendors/tcp60/gateway.ts';
import { dropSchema, steadyState } from './lib.ts';
import { bankId, boxId, TCP_BANKS, TCP_SLOTS, type TcpFleetCommand, type TcpFleetReport } from './tcp-fleet.ts';

const CABINETS = Number(process.env.BENCH_TCP_CABINETS ?? 5_000);
const HEARTBEAT_MS = Number(process.env.BENCH_TCP_HEARTBEAT_MS ?? 30_000);
const PERIODS = Number(process.env.BENCH_TCP_PERIODS ?? 3);
const SECRET = 'bench-tcp-secret';
const PREFIX = 'BX-';
const MB = (b: number) => `${(b / 1024 / 1024).toFixed(0)} MB`;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const url = process.env.DATABASE_URL;
const schema = `bench_tcp_${process.pid}`;
const db = url ? await openPostgres(url, { schema, max: 10 }) : await openPglite();
await migrate(db);
await seed(db);
const model = SEED_VENUES.find((v) => v.cabinet.id === 'PWL-VNO-001')!;
const ids = Array.from({ length: CABINETS }, (_, i) => `${PREFIX}${boxId(i)}`);
const seedStart = performance.now();
await seedVenue(db, {
  ...model,
  id: 'v-bench-tcp',
  name: 'Bench TCP',
  cabinet: { id: ids[0]!, slots: TCP_SLOTS, powerbanks: 0 },
  boxes: undefined,
  stations: undefined,
});
await db.query(
  `insert into cabinets (id, venue_id, slot_count) select id, 'v-bench-tcp', $2 from unnest($1::text[]) id on conflict (id) do nothing`,
  [ids, TCP_SLOTS],
);
const banks = ids.flatMap((c, i) =>
  Array.from({ length: TCP_BANKS }, (_, s) => ({ id: bankId(i, s + 1), c, slot: s + 1 })),
);
await db.query(
  `insert into powerbanks (id, state, cabinet_id, slot) select id, 'in_cabinet', c, slot from unnest($1::text[], $2::text[], $3::int[]) as t(id, c, slot)`,
  [banks.map((b) => b.id), banks.map((b) => b.c), banks.map((b) => b.slot)],
);
const seedMs = performance.now() - seedStart;

const broker = process.env.MQTT_URL ? undefined : await startEmbeddedBroker({ port: 0, host: '127.0.0.1' });
const connector = broker ?? externalBroker(process.env.MQTT_URL!, {});
const prefix = `benchtcp${process.pid}`;
const quiet = { info: () => undefined, warn: console.warn, error: console.error };
const gateway = new TcpGateway({
  port: 0,
  host: '127.0.0.1',
  secret: SECRET,
  idPrefix: PREFIX,
  log: quiet,
  bridge: { connector, prefix },
  idleMs: 3 * HEARTBEAT_MS,
});
const link = new MqttCabinetLink(connector, { prefix, log: quiet, gateways: [gateway] });
const app = await buildApp({ db, clock: systemClock, link, jobPollMs: 200, rateLimits: false });
await app.ready();
const port = gateway.port;
if (!port) throw new Error('the TCP gateway is not listening');

const child = fork(fileURLToPath(new URL('./tcp-fleet.ts', import.meta.url)), [], {
  execArgv: ['--import', 'tsx'],
  stdio: 'inherit',
});
child.on('exit', (code) => {
  if (code) {
    console.error(`the cabinet process exited with ${code}`);
    process.exit(1);
  }
});
const next = <T extends TcpFleetReport['type']>(type: T) =>
  new Promise<Extract<TcpFleetReport, { type: T }>>((resolve) => {
    const on = (r: TcpFleetReport) => {
      if (r.type !== type) return;
      child.off('message', on);
      resolve(r as Extract<TcpFleetReport, { type: T }>);
    };
    child.on('message', on);
  });
const q = async (sql: string, params: unknown[] = []) =>
  Number((await db.query<{ n: number }>(sql, params)).rows[0]!.n);
const onlineCount = () => q(`select count(*)::int as n from cabinets where online and id = any($1::text[])`, [ids]);
const pending = () => q(`select count(*)::int as n from cabinet_events where state = 'pending'`);

console.info(
  `TCP cabinets per process: ${CABINETS} cabinets of the binary TCP family, heartbeat every ${HEARTBEAT_MS / 1000} s (Node ${process.version}, database: ${url ? 'PostgreSQL' : 'PGlite in memory'}, broker: ${broker ? 'embedded Aedes (in this process)' : 'MQTT_URL'})`,
);
console.info(
  `seeded ${CABINETS} cabinets and ${CABINETS * TCP_BANKS} power banks in ${(seedMs / 1000).toFixed(1)} s; API process RSS before the cabinets ${MB(process.memoryUsage().rss)}`,
);
const connectStart = performance.now();
const started = next('started');
child.send({
  type: 'start',
  port,
  secret: SECRET,
  count: CABINETS,
  heartbeatMs: HEARTBEAT_MS,
} satisfies TcpFleetCommand);
const s = await started;
let online = await onlineCount();
while (online < CABINETS && performance.now() - connectStart < 600_000) {
  await sleep(500);
  online = await onlineCount();
}
console.info(
  `${s.connected} logged in (${s.refused} refused) in ${(s.ms / 1000).toFixed(1)} s; ${online} online in the database ${((performance.now() - connectStart) / 1000).toFixed(1)} s after the first connection (cabinet process RSS ${MB(s.rss)})`,
);

const {
  secs,
  stats: st,
  rssMax,
  heapMax,
  backlogMax,
  inFlightMax,
  loopP99Ms,
} = await steadyState(link, pending, PERIODS * HEARTBEAT_MS);
const stale = await q(
  `select count(*)::int as n from cabinets where id = any($2::text[]) and (not online or last_seen_at < now() - ($1::int * interval '1 millisecond'))`,
  [2 * HEARTBEAT_MS, ids],
);
let backlogAfter = await pending();
for (let i = 0; i < 20 && backlogAfter > 0; i++) {
  await sleep(500);
  backlogAfter = await pending();
}
const counted = next('counted');
child.send({ type: 'count' } satisfies TcpFleetCommand);
const f = await counted;
const msFmt = (v: number) => (Number.isFinite(v) ? `≤${v}` : '>30000');
console.info(
  `over ${PERIODS} heartbeat periods (${secs.toFixed(0)} s): API process RSS max ${MB(rssMax)} (now ${MB(process.memoryUsage().rss)}), heap max ${MB(heapMax)}`,
);
console.info(
  `  heartbeats handled ${st.heartbeats} (${(st.heartbeats / secs).toFixed(0)}/s, expected ${(CABINETS / (HEARTBEAT_MS / 1000)).toFixed(0)}/s; the cabinets sent ${f.heartbeats} heartbeats and ${f.inventories} inventories in the whole run), lag report → handled p50 ${msFmt(st.lag.p50)} ms, p99 ${msFmt(st.lag.p99)} ms, max ${st.lag.max.toFixed(0)} ms`,
);
console.info(
  `  backlog: inbox pending max ${backlogMax} (after ${backlogAfter}), messages in hand max ${inFlightMax}, stale cabinets ${stale}, connections closed by the server ${f.closedByServer}; event loop delay p99 ${loopP99Ms.toFixed(1)} ms`,
);

// A stop with every cabinet connected (a deploy): the connections close, the cabinets are not marked offline.
const closeStart = performance.now();
await app.close();
console.info(
  `  the API process stopped in ${((performance.now() - closeStart) / 1000).toFixed(1)} s with its ${CABINETS} cabinets connected`,
);
const stopped = next('stopped');
child.send({ type: 'stop' } satisfies TcpFleetCommand);
await stopped;
child.disconnect();
await broker?.close();
await db.close();
await dropSchema(url, schema);
if (online < CABINETS || stale || backlogAfter || f.closedByServer) process.exitCode = 1;
