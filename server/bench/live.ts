// `npm run bench:live`: how fast a screen hears what the cabinet did. A whole rental, repeated: the rent call, the
// eject command over MQTT to a simulated cabinet, its `popped` event stored in the inbox and processed, the
// change committed and announced (pg_notify / the in-process channel), pushed on the user's event stream (SSE
// over real HTTP); then a return at the cabinet, the same way back. Prints, measured in this run:
//  - tap to eject: from sending the rent request to its eject command arriving on the cabinet's command topic
//    (an observer subscribed on the broker, as the cabinet is);
//  - tap to popped on the stream: from sending the rent request to the stream's `order` state 1 (includes the
//    simulated cabinet's eject, which has no mechanical delay here);
//  - popped to screen: from the cabinet's `popped` publish (as the observer on its events topic hears it) to the
//    stream's `order` state 1;
//  - return to screen: from the cabinet's `returned` publish to the stream's `order` state 3;
//  - a burst: BURST (100) users renting at once, one per cabinet, among BENCH_CABINETS (200) simulated cabinets:
//    tap to eject and the HTTP answer, p50 / p95 / p99.
// Against embedded PGlite and the embedded broker by default; DATABASE_URL / MQTT_URL for real servers.
import type { LiveEvent } from '#contract/live.ts';
import { buildApp } from '../src/app.ts';
import { openPglite, openPostgres } from '../src/db/db.ts';
import { migrate } from '../src/db/migrate.ts';
import { seed, seedVenue, SEED_VENUES } from '../src/db/seed.ts';
import { SimulatorFleet } from '../src/demo/simulator/fleet.ts';
import { systemClock } from '../src/lib/clock.ts';
import { externalBroker, startEmbeddedBroker } from '../src/mqtt/broker.ts';
import { MqttCabinetLink } from '../src/modules/cabinets/link.ts';
import { topics } from '../src/modules/cabinets/protocol.ts';
import { SandboxCardProvider } from '../src/modules/payments/sandbox.ts';
import { dropSchema, readEventStream } from './lib.ts';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 20);
const BURST = Number(process.env.BENCH_BURST ?? 100);
const CABINETS = Math.max(BURST, Number(process.env.BENCH_CABINETS ?? 200));
const CABINET = 'PWL-LIS-001';
const API = '/cdb-app-api/v1/app';
const PK = 'pk_bench_live';

const url = process.env.DATABASE_URL;
const schema = `bench_live_${process.pid}`;
const db = url ? await openPostgres(url, { schema, max: 10 }) : await openPglite();
await migrate(db);
await seed(db);
// The burst's cabinets: a venue each (priced as Vilnius, a card hold), 4 power banks in 6 slots.
const model = SEED_VENUES.find((v) => v.cabinet.id === 'PWL-VNO-001')!;
const benchCabinets = Array.from({ length: CABINETS }, (_, i) => `PWL-B${String(i + 1).padStart(4, '0')}-001`);
await db.tx(async () => {
  for (const [i, id] of benchCabinets.entries()) {
    await seedVenue(db, { ...model, id: `v-bench-${i + 1}`, name: `Bench ${i + 1}`, cabinet: { id, slots: 6, powerbanks: 4 }, boxes: undefined, stations: undefined });
  }
});
const broker = process.env.MQTT_URL ? undefined : await startEmbeddedBroker({ port: null });
const connector = broker ?? externalBroker(process.env.MQTT_URL!, {});
const prefix = `bench${process.pid}`;
const fleet = await SimulatorFleet.fromDb(db, { connector, prefix, clock: systemClock, heartbeatMs: 15_000, ejectDelayMs: 0 });
const app = await buildApp({
  db, clock: systemClock, fleet, link: new MqttCabinetLink(connector, { prefix, log: console }),
  sandbox: new SandboxCardProvider(db, systemClock, PK), jobPollMs: 200,
  // The burst's hundred sign-ins come from one address: the per-address budgets would refuse them.
  rateLimits: false,
});
const base = await app.listen({ port: 0, host: '127.0.0.1' });
await fleet.start();

const json = async <T>(res: Response) => (await res.json()) as { code: number; data: T };
async function until(what: string, fn: () => Promise<boolean> | boolean, ms = 15_000) {
  const end = Date.now() + ms;
  while (!(await fn())) {
    if (Date.now() > end) throw new Error(`timed out: ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}
await until('cabinet online', async () => (await db.query<{ online: boolean }>('select online from cabinets where id = $1', [CABINET])).rows[0]?.online === true);
// Every cabinet connected before anything is timed.
await until('burst cabinets online', async () => (await db.query<{ n: number }>('select count(*)::int as n from cabinets where online and id = any($1::text[])', [benchCabinets])).rows[0]!.n === CABINETS, 30_000);

// An observer on the cabinet's command topic: when each eject command is published.
const ejects: number[] = [];
const observer = connector.connect({ clientId: `bench-observer-${process.pid}`, clean: true });
const ejectsAt = new Map<string, number>(); // the burst's: first eject per cabinet
const poppedAt: number[] = []; // the cabinet's `popped` events, as published
await observer.subscribeAsync([topics(prefix, '+').commands, topics(prefix, CABINET).events], { qos: 1 });
observer.on('message', (topic, payload) => {
  const type = (JSON.parse(payload.toString()) as { type?: string }).type;
  const at = performance.now();
  if (topic === topics(prefix, CABINET).events) {
    if (type === 'popped') poppedAt.push(at);
    return;
  }
  if (type !== 'eject') return;
  if (topic === topics(prefix, CABINET).commands) ejects.push(at);
  else {
    const id = topic.split('/').at(-2)!;
    if (!ejectsAt.has(id)) ejectsAt.set(id, at);
  }
});

const token = (await json<string>(await fetch(`${base}${API}/saas/tourist/login?code=bench-live-device-0001`, { method: 'POST' }))).data;
const ticket = (await json<{ ticket: string }>(await fetch(`${base}${API}/live/ticket`, { method: 'POST', headers: { token } }))).data.ticket;

// The user's event stream, each event stamped on arrival.
const heard: { at: number; e: LiveEvent }[] = [];
const ctrl = new AbortController();
const stream = await fetch(`${base}${API}/live/events?ticket=${encodeURIComponent(ticket)}`, { headers: { accept: 'text/event-stream' }, signal: ctrl.signal });
readEventStream<LiveEvent>(stream, (e) => heard.push({ at: performance.now(), e }));
await until('stream open', () => heard.length > 0);

const heardAt = (orderId: string, state: number, after: number) =>
  heard.find((h) => h.at >= after && h.e.kind === 'order' && h.e.orderId === orderId && h.e.state === state)?.at;

const ejected: number[] = [];
const popped: number[] = [];
const poppedToScreen: number[] = [];
const returned: number[] = [];
for (let round = 0; round < ROUNDS; round++) {
  const card = (await (await fetch(`${base}/sandbox-pay/v1/tokens`, {
    method: 'POST', headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ publicKey: PK, number: '4242 4242 4242 4242', expMonth: '12', expYear: '2030', cvc: '123' }),
  })).json() as { id: string }).id;
  const tap = performance.now();
  const rent = await json<{ outTradeNo: string }>(await fetch(`${base}${API}/cdb/cabinet/useDepositToRent`, {
    method: 'POST', headers: { token, 'content-type': 'application/json', 'idempotency-key': `bench-live-${process.pid}-${round}` },
    body: JSON.stringify({ qrcode: CABINET, stripeToken: card, paymentId: 'card-sandbox' }),
  }));
  if (rent.code !== 0) throw new Error(`rent failed: ${JSON.stringify(rent)}`);
  const orderId = rent.data.outTradeNo;
  await until('popped on the stream', () => heardAt(orderId, 1, tap) !== undefined);
  popped.push(heardAt(orderId, 1, tap)! - tap);
  const published = poppedAt.find((at) => at >= tap);
  if (published !== undefined) poppedToScreen.push(heardAt(orderId, 1, tap)! - published);
  ejected.push(ejects.find((at) => at >= tap)! - tap);

  const detail = await json<{ pPowerbankId: string }>(await fetch(`${base}${API}/cdb/mine/order/detail?orderId=${orderId}`, { headers: { token } }));
  const back = performance.now();
  await fleet.get(CABINET)!.insert(detail.data.pPowerbankId); // the cabinet publishes `returned`
  await until('returned on the stream', () => heardAt(orderId, 3, back) !== undefined);
  returned.push(heardAt(orderId, 3, back)! - back);
}

// The burst: BURST users, each with a session and a card, tap at the same moment, one cabinet each.
const cardToken = async () => (await (await fetch(`${base}/sandbox-pay/v1/tokens`, {
  method: 'POST', headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ publicKey: PK, number: '4242 4242 4242 4242', expMonth: '12', expYear: '2030', cvc: '123' }),
})).json() as { id: string }).id;
const renters: { token: string; card: string; cabinet: string }[] = [];
for (let i = 0; i < BURST; i++) {
  const t = (await json<string>(await fetch(`${base}${API}/saas/tourist/login?code=bench-burst-${process.pid}-${String(i).padStart(5, '0')}`, { method: 'POST' }))).data;
  renters.push({ token: t, card: await cardToken(), cabinet: benchCabinets[i]! });
}
const burstTap = performance.now();
const answers = await Promise.all(renters.map(async (r, i) => {
  const res = await json<{ outTradeNo: string }>(await fetch(`${base}${API}/cdb/cabinet/useDepositToRent`, {
    method: 'POST', headers: { token: r.token, 'content-type': 'application/json', 'idempotency-key': `bench-burst-${process.pid}-${i}` },
    body: JSON.stringify({ qrcode: r.cabinet, stripeToken: r.card, paymentId: 'card-sandbox' }),
  }));
  if (res.code !== 0) throw new Error(`burst rent failed: ${JSON.stringify(res)}`);
  return performance.now() - burstTap;
}));
await until('every burst eject published', () => renters.every((r) => ejectsAt.has(r.cabinet)), 30_000);
const burstEjects = renters.map((r) => ejectsAt.get(r.cabinet)! - burstTap);

const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.ceil((p / 100) * xs.length) - 1)]!;
const line = (name: string, xs: number[]) =>
  console.info(`${name.padEnd(44)} p50 ${pct(xs, 50).toFixed(0).padStart(4)} ms   p95 ${pct(xs, 95).toFixed(0).padStart(4)} ms   p99 ${pct(xs, 99).toFixed(0).padStart(4)} ms   max ${Math.max(...xs).toFixed(0).padStart(4)} ms`);
console.info(`live updates: ${ROUNDS} rentals at ${CABINET} (Node ${process.version}, database: ${url ? 'PostgreSQL' : 'PGlite in memory'}, broker: ${broker ? 'embedded' : 'MQTT_URL'})`);
line('tap to eject command published', ejected);
line('tap to popped on the stream', popped);
line('popped published to popped on the stream', poppedToScreen);
line('return to returned on the stream', returned);
console.info(`a burst of ${BURST} rentals at once, one per cabinet, ${CABINETS + SEED_VENUES.length} cabinets connected:`);
line('burst: tap to eject command published', burstEjects);
line('burst: tap to HTTP answer', answers);

ctrl.abort();
await observer.endAsync();
await fleet.stop();
await app.close();
await broker?.close();
await db.close();
await dropSchema(url, schema);
