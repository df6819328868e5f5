// The API process of `npm run bench:live` (started by live.ts with child_process.fork; not run on its own): one
// Powerly API process as in production (buildApp over PostgreSQL or PGlite, the cabinet link on Mosquitto or the
// embedded broker, the sandbox card provider, the job poller), and nothing else. The load generator, the
// observers and the simulated cabinets run in the parent, so what is timed is this process's work, not theirs.
//
// Messages (IPC): to the parent `{ ready, base, mqttUrl, prefix, inventory, cabinets }` once listening, the answer
// `{ id, rows }` to each `{ id, sql, params }` (the bench's read-only checks: cabinets online, heartbeats in);
// `{ stop: true }` closes everything and drops the bench's schema.
import { buildApp } from '../src/app.ts';
import { openPglite, openPostgres } from '../src/db/db.ts';
import { migrate } from '../src/db/migrate.ts';
import { seed, seedVenue } from '../src/db/seed.ts';
import { SEED_VENUES } from '../src/db/seed-venues.ts';
import { systemClock } from '../src/lib/clock.ts';
import { externalBroker, startEmbeddedBroker } from '../src/mqtt/broker.ts';
import { MqttCabinetLink } from '../src/modules/cabinets/link.ts';
import { Liveness } from '../src/modules/cabinets/liveness.ts';
import { CabinetsRepository } from '../src/modules/cabinets/repository.ts';
import { SandboxCardProvider } from '../src/modules/payments/sandbox.ts';
import { dropSchema } from './lib.ts';

const PK = 'pk_bench_live';
/** The burst's cabinets: a venue each (priced as Vilnius, a card hold), 4 power banks in 6 slots. */
const benchCabinetIds = (n: number) =>
  Array.from({ length: n }, (_, i) => `PWL-B${String(i + 1).padStart(4, '0')}-001`);

if (process.send) {
  const send = (m: unknown) => process.send!(m);
  const url = process.env.DATABASE_URL;
  const cabinets = Number(process.env.BENCH_CABINETS ?? 200);
  const schema = `bench_live_${process.pid}`;
  // The pool's connections carry this process's application name: the bench counts the CPU of their backends (the
  // machine's PostgreSQL may serve other clients too).
  const named = url ? new URL(url) : undefined;
  named?.searchParams.set('application_name', `powerly-bench-${process.pid}`);
  const db = named
    ? await openPostgres(named.toString(), { schema, max: Number(process.env.BENCH_POOL ?? 10) })
    : await openPglite();
  await migrate(db);
  await seed(db);
  const model = SEED_VENUES.find((v) => v.cabinet.id === 'PWL-VNO-001')!;
  const ids = benchCabinetIds(cabinets);
  await db.tx(async () => {
    for (const [i, id] of ids.entries()) {
      await seedVenue(db, {
        ...model,
        id: `v-bench-${i + 1}`,
        name: `Bench ${i + 1}`,
        cabinet: { id, slots: 6, powerbanks: 4 },
        boxes: undefined,
        stations: undefined,
      });
    }
  });
  // Without MQTT_URL the embedded broker listens on a port of its own, for the parent's cabinets and observer.
  const broker = process.env.MQTT_URL ? undefined : await startEmbeddedBroker({ port: 0 });
  const mqttUrl = process.env.MQTT_URL ?? `mqtt://127.0.0.1:${broker!.port}`;
  const connector = broker ?? externalBroker(mqttUrl, {});
  const prefix = `bench${process.pid}`;
  const app = await buildApp({
    db,
    clock: systemClock,
    link: new MqttCabinetLink(connector, { prefix, log: console }),
    sandbox: new SandboxCardProvider(db, systemClock, PK),
    jobPollMs: 200,
    // The burst's hundred sign-ins come from one address: the per-address budgets would refuse them.
    rateLimits: false,
  });
  const base = await app.listen({ port: 0, host: '127.0.0.1' });
  const inventory = await new CabinetsRepository(db, new Liveness(systemClock)).inventory();
  process.on('message', (m: { id?: number; sql?: string; params?: unknown[]; stop?: boolean }) => {
    if (!m.sql && !m.stop) return; // another module's message (statements.ts)
    if (m.stop) {
      void (async () => {
        await app.close();
        await broker?.close();
        await db.close();
        await dropSchema(url, schema);
        process.exit(0);
      })();
      return;
    }
    db.query(m.sql!, m.params).then(
      (r) => send({ id: m.id, rows: r.rows }),
      (err: unknown) => send({ id: m.id, error: String(err) }),
    );
  });
  send({
    ready: true,
    pk: PK,
    base,
    mqttUrl,
    prefix,
    inventory,
    cabinets: ids,
    database: url ? 'PostgreSQL' : 'PGlite in memory',
    broker: broker ? 'embedded' : 'MQTT_URL',
  });
}
