// `npm run bench`: throughput and p99 latency of the scan call (POST cdb/cabinet/checkisok: session lookup,
// cabinet, venue, price plan, wallet, open rentals, stock — against embedded PGlite by default) next to a bare Fastify
// route in the same process and run, so the ratio is what matters, not the machine. DATABASE_URL: PostgreSQL.
// The scan is measured as served (one session scanning one cabinet again: the scan's cache answers after the first
// read) and with the cache stopped (each request one database round trip, as a session's first scan).
import Fastify from 'fastify';
import autocannon from 'autocannon';
import { buildApp } from '../src/app.ts';
import { openPglite, openPostgres } from '../src/db/db.ts';
import { migrate } from '../src/db/migrate.ts';
import { seed } from '../src/db/seed.ts';
import { systemClock } from '../src/lib/clock.ts';
import { startEmbeddedBroker } from '../src/mqtt/broker.ts';
import { MqttCabinetLink } from '../src/modules/cabinets/link.ts';
import { dropSchema } from './lib.ts';

const DURATION = Number(process.env.BENCH_SECONDS ?? 5);
const CONNECTIONS = 20;

// Two comparisons, each against a bare route driven the same way. First the scan itself (rate limits off), as the
// issue's target is stated. Then as production runs it, rate limits on (a budget per client address, counted in
// the database): the load then comes from many clients, each request carrying one of CLIENTS addresses through a
// trusted proxy header, which costs the load generator a little per request, so the bare route is driven the
// same way for that ratio.
const CLIENTS = 50_000;
let nextClient = 0;
const clientAddress = () => {
  const n = nextClient++ % CLIENTS;
  return `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`;
};

async function run(name: string, url: string, headers: Record<string, string>, manyClients = false) {
  const r = await autocannon({
    url,
    method: 'POST',
    headers,
    connections: CONNECTIONS,
    duration: DURATION,
    ...(manyClients
      ? {
          requests: [
            {
              setupRequest: (req: { headers?: Record<string, string> }) => ({
                ...req,
                headers: { ...req.headers, ...headers, 'x-forwarded-for': clientAddress() },
              }),
            },
          ],
        }
      : {}),
  });
  if (r.errors || r.non2xx) throw new Error(`${name}: ${r.errors} errors, ${r.non2xx} non-2xx responses`);
  console.info(
    `${name.padEnd(40)} ${r.requests.average.toFixed(0).padStart(7)} req/s   p50 ${r.latency.p50} ms   p99 ${r.latency.p99} ms`,
  );
  return r;
}
const ratio = (what: string, s: Awaited<ReturnType<typeof run>>, b: Awaited<ReturnType<typeof run>>) =>
  console.info(
    `${what}: throughput ${(s.requests.average / b.requests.average).toFixed(3)}×, p99 latency ${(s.latency.p99 / Math.max(1, b.latency.p99)).toFixed(1)}×`,
  );

const url = process.env.DATABASE_URL;
const schema = `bench_${process.pid}`;
const db = url ? await openPostgres(url, { schema, max: 20 }) : await openPglite();
await migrate(db);
await seed(db);
const broker = await startEmbeddedBroker({ port: null });
const link = () => new MqttCabinetLink(broker, { prefix: 'bench', log: console });
const app = await buildApp({ db, clock: systemClock, link: link(), rateLimits: false });
const limited = await buildApp({ db, clock: systemClock, link: link(), trustProxy: ['127.0.0.1'] });
const base = await app.listen({ port: 0, host: '127.0.0.1' });
const limitedBase = await limited.listen({ port: 0, host: '127.0.0.1' });
// No cabinet is connected in the bench: report one heartbeat so the scanned cabinet counts as online.
await app.powerly.cabinets.event('PWL-VNO-001', {
  v: 1,
  id: 'bench-hb',
  ts: new Date().toISOString(),
  type: 'heartbeat',
  slots: [],
});
const token = (
  (await (await fetch(`${base}/cdb-app-api/v1/app/saas/tourist/login`, { method: 'POST' })).json()) as { data: string }
).data;
const scanPath = '/cdb-app-api/v1/app/cdb/cabinet/checkisok?url=PWL-VNO-001';
const probe = (await (await fetch(`${base}${scanPath}`, { method: 'POST', headers: { token } })).json()) as {
  code: number;
};
if (probe.code !== 0) throw new Error(`scan probe failed: ${JSON.stringify(probe)}`);

const bare = Fastify();
bare.post('/bare', async () => ({ code: 0, msg: 'success', data: { cabinetID: 'PWL-VNO-001' } }));
const bareBase = await bare.listen({ port: 0, host: '127.0.0.1' });

console.info(
  `autocannon: ${CONNECTIONS} connections, ${DURATION} s each (Node ${process.version}, database: ${url ? 'PostgreSQL' : 'PGlite in memory'})`,
);
const b = await run('bare Fastify route', `${bareBase}/bare`, {});
const cache = app.powerly.scanCache;
const sc = await run('scan (checkisok), rate limits off', `${base}${scanPath}`, { token });
ratio('scan / bare', sc, b);
console.info(`  the scan's cache: ${cache.hits} answers from it, ${cache.misses} read from the database`);
// The same without the cache: each scan reads the database (one round trip), as the first scan of a session does.
await cache.stop();
const cold = await run('scan, every request a database read', `${base}${scanPath}`, { token });
ratio('scan without the cache / bare', cold, b);
await cache.start();
const bm = await run('bare Fastify route, many clients', `${bareBase}/bare`, {}, true);
const sl = await run('scan, rate limits on, many clients', `${limitedBase}${scanPath}`, { token }, true);
ratio('scan with rate limits / bare (same clients)', sl, bm);

await bare.close();
await app.close();
await limited.close();
await broker.close();
await db.close();
await dropSchema(url, schema);
