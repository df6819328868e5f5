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
//  - two bursts: BURST (100) users renting at once, one per cabinet, among BENCH_CABINETS (200) simulated cabinets:
//    tap to eject and the HTTP answer, p50 / p95 / p99. Each has scanned its cabinet before (as the app does), so
//    its tap goes on the connection its scan opened. The CPU time of each process from the taps until every rental
//    started (its `popped` processed), per rental. The first burst is the rent path's first run on most of the
//    pool's connections (each parses its statements and compiles rental_start once) and in the JIT; the second,
//    on cabinets of their own, is the server warm: what a rental costs a server that has been running.
// The single rentals are timed after BENCH_WARMUP (3) not counted (the first after start, JIT-cold and with no
// statement prepared yet on the pool's connections, is printed on its own). The simulated cabinets eject at once
// (BENCH_EJECT_DELAY_MS, default 0: their `popped` events compete with the burst; the demo's cabinets take 800 ms,
// as a real latch does). BENCH_API_PROF=1 writes a CPU profile of the API process to /tmp/prof.
// Against embedded PGlite and the embedded broker by default; DATABASE_URL / MQTT_URL for real servers.
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { LiveEvent } from '#contract/live.ts';
import { SimulatorFleet, type FleetInventory } from '../src/demo/simulator/fleet.ts';
import { systemClock } from '../src/lib/clock.ts';
import { externalBroker } from '../src/mqtt/broker.ts';
import { topics } from '../src/modules/cabinets/protocol.ts';
import { cpuOf, processesOf, readEventStream } from './lib.ts';
import { serverTimesOf, statementsOf } from './statements.ts';
import { availableParallelism } from 'node:os';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 20);
/** Rentals before the timed ones, not counted (JIT, each pooled connection's prepared statements): the first is printed on its own. */
const WARMUP = Number(process.env.BENCH_WARMUP ?? 3);
const BURST = Number(process.env.BENCH_BURST ?? 100);
const CABINETS = Math.max(2 * BURST, Number(process.env.BENCH_CABINETS ?? 200));
const CABINET = 'PWL-LIS-001';
const API = '/cdb-app-api/v1/app';

// The API in a process of its own (live-api.ts): this one is the load generator, the observers and the fleet.
const api = fork(fileURLToPath(new URL('./live-api.ts', import.meta.url)), {
  execArgv: [
    '--import',
    'tsx',
    ...(process.env.BENCH_STATEMENTS ? ['--import', fileURLToPath(new URL('./statements.ts', import.meta.url))] : []),
    ...(process.env.BENCH_API_PROF ? ['--cpu-prof', '--cpu-prof-dir=/tmp/prof'] : []),
  ],
  env: {
    ...process.env,
    BENCH_CABINETS: String(CABINETS),
    ...(process.env.BENCH_STATEMENTS ? { BENCH_STATEMENTS_API: '1' } : {}),
  },
});
type Ready = {
  base: string;
  mqttUrl: string;
  prefix: string;
  pk: string;
  inventory: FleetInventory;
  cabinets: string[];
  database: string;
  broker: string;
};
const ready = await new Promise<Ready>((resolve, reject) => {
  api.once('message', (m) => resolve(m as Ready));
  api.once('exit', (code) => reject(new Error(`the API process exited (${code})`)));
});
const { base, prefix, pk: PK, cabinets: benchCabinets } = ready;
let nextId = 0;
const pending = new Map<number, (r: { rows?: unknown[]; error?: string }) => void>();
api.on('message', (m: { id?: number; rows?: unknown[]; error?: string }) => {
  if (m.id !== undefined) pending.get(m.id)?.(m);
});
/** A message to the API process, answered with rows. */
const ask = async (m: object) => {
  const id = nextId++;
  const r = await new Promise<{ rows?: unknown[]; error?: string }>((resolve) => {
    pending.set(id, resolve);
    api.send({ id, ...m });
  });
  pending.delete(id);
  if (r.error) throw new Error(r.error);
  return r.rows!;
};
/** A read-only check, run by the API process (it owns the database; PGlite lives in its memory). */
const query = async <R>(sql: string, params: unknown[] = []) => (await ask({ sql, params })) as R[];
const connector = externalBroker(ready.mqttUrl, {});
const fleet = SimulatorFleet.fromInventory(ready.inventory, {
  connector,
  prefix,
  clock: systemClock,
  heartbeatMs: 15_000,
  ejectDelayMs: Number(process.env.BENCH_EJECT_DELAY_MS ?? 0),
});
await fleet.start();

const json = async <T>(res: Response) => (await res.json()) as { code: number; data: T };
async function until(what: string, fn: () => Promise<boolean> | boolean, ms = 15_000) {
  const end = Date.now() + ms;
  while (!(await fn())) {
    if (Date.now() > end) throw new Error(`timed out: ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}
const all = [CABINET, ...benchCabinets];
// Every cabinet connected, and its first heartbeat reconciled, before anything is timed: the fleet's start sends
// 200 heartbeats at once, and a rental's `popped` queued behind them measured the start, not the rental.
await until(
  'cabinets online, first heartbeats in',
  async () =>
    (
      await query<{ n: number }>(
        'select count(*)::int as n from cabinets where online and inventory is not null and id = any($1::text[])',
        [all],
      )
    )[0]!.n === all.length,
  30_000,
);

// An observer on the cabinet's command topic: when each eject command is published. It only measures, so it
// subscribes at QoS 0 (no PUBACK of its own per message: the load it adds is not the product's).
const ejects: number[] = [];
const observer = connector.connect({ clientId: `bench-observer-${process.pid}`, clean: true });
const ejectsAt = new Map<string, number>(); // the burst's: first eject per cabinet
const poppedAt: number[] = []; // the cabinet's `popped` events, as published
await observer.subscribeAsync([topics(prefix, '+').commands, topics(prefix, CABINET).events], { qos: 0 });
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

const token = (
  await json<string>(await fetch(`${base}${API}/saas/tourist/login?code=bench-live-device-0001`, { method: 'POST' }))
).data;
const ticket = (
  await json<{ ticket: string }>(await fetch(`${base}${API}/live/ticket`, { method: 'POST', headers: { token } }))
).data.ticket;

// The user's event stream, each event stamped on arrival.
const heard: { at: number; e: LiveEvent }[] = [];
const ctrl = new AbortController();
const stream = await fetch(`${base}${API}/live/events?ticket=${encodeURIComponent(ticket)}`, {
  headers: { accept: 'text/event-stream' },
  signal: ctrl.signal,
});
readEventStream<LiveEvent>(stream, (e) => heard.push({ at: performance.now(), e }));
await until('stream open', () => heard.length > 0);

const heardAt = (orderId: string, state: number, after: number) =>
  heard.find((h) => h.at >= after && h.e.kind === 'order' && h.e.orderId === orderId && h.e.state === state)?.at;

/** A sandbox card token, as the card form makes. */
const cardToken = async () =>
  (
    (await (
      await fetch(`${base}/sandbox-pay/v1/tokens`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          publicKey: PK,
          number: '4242 4242 4242 4242',
          expMonth: '12',
          expYear: '2030',
          cvc: '123',
        }),
      })
    ).json()) as { id: string }
  ).id;
const ejected: number[] = [];
const popped: number[] = [];
const poppedToScreen: number[] = [];
const returned: number[] = [];
let cold: { eject: number; popped: number } | undefined;
for (let round = 0; round < WARMUP + ROUNDS; round++) {
  const card = await cardToken();
  const tap = performance.now();
  const rent = await json<{ outTradeNo: string }>(
    await fetch(`${base}${API}/cdb/cabinet/useDepositToRent`, {
      method: 'POST',
      headers: { token, 'content-type': 'application/json', 'idempotency-key': `bench-live-${process.pid}-${round}` },
      body: JSON.stringify({ qrcode: CABINET, stripeToken: card, paymentId: 'card-sandbox' }),
    }),
  );
  if (rent.code !== 0) throw new Error(`rent failed: ${JSON.stringify(rent)}`);
  const orderId = rent.data.outTradeNo;
  await until('popped on the stream', () => heardAt(orderId, 1, tap) !== undefined);
  const counted = round >= WARMUP;
  if (round === 0) cold = { eject: ejects.find((at) => at >= tap)! - tap, popped: heardAt(orderId, 1, tap)! - tap };
  if (counted) popped.push(heardAt(orderId, 1, tap)! - tap);
  const published = poppedAt.find((at) => at >= tap);
  if (counted && published !== undefined) poppedToScreen.push(heardAt(orderId, 1, tap)! - published);
  if (counted) ejected.push(ejects.find((at) => at >= tap)! - tap);

  const detail = await json<{ pPowerbankId: string }>(
    await fetch(`${base}${API}/cdb/mine/order/detail?orderId=${orderId}`, { headers: { token } }),
  );
  const back = performance.now();
  await fleet.get(CABINET)!.insert(detail.data.pPowerbankId); // the cabinet publishes `returned`
  await until('returned on the stream', () => heardAt(orderId, 3, back) !== undefined);
  if (counted) returned.push(heardAt(orderId, 3, back)! - back);
}

// CPU time by process during the burst: the API, this process, the API's PostgreSQL backends (its pool and listener,
// by their application name) with the server's own processes (WAL writer, checkpointer, …), and Mosquitto. Other
// clients' backends (the machine's PostgreSQL may serve others) are printed apart, not counted.
const backends = async () =>
  ready.database === 'PostgreSQL'
    ? (
        await query<{ pid: number }>(
          "select pid from pg_stat_activity where application_name = current_setting('application_name')",
        )
      ).map((r) => r.pid)
    : [];
const cpuGroups = async () => {
  const pg = await processesOf('postgres');
  const ours = await backends();
  const groups: Record<string, number[]> = {
    API: [api.pid!],
    'bench (load, observers, cabinets)': [process.pid],
    "postgres (the API's connections)": ours,
    'postgres (server processes)': pg.filter((p) => !p.client).map((p) => p.pid),
    mosquitto: (await processesOf('mosquitto')).map((p) => p.pid),
  };
  const others = pg.filter((p) => p.client && !ours.includes(p.pid)).map((p) => p.pid);
  return { groups, others, cpu: await cpuOf([...Object.values(groups).flat(), ...others]) };
};
// The processes are found before the burst (a scan of every process on the machine, dear on a shared one, is then
// not in the window); after it their CPU time is read first, then the processes started meanwhile (a new pooled
// connection's backend) are found and counted from nothing.
const cpuAgain = async (before: Awaited<ReturnType<typeof cpuGroups>>) => {
  const cpu = await cpuOf([...Object.values(before.groups).flat(), ...before.others]);
  const now = await cpuGroups();
  for (const [pid, ms] of now.cpu) if (!cpu.has(pid)) cpu.set(pid, ms);
  return { ...now, cpu };
};
const statements = process.env.BENCH_STATEMENTS ? statementsOf(ask) : undefined;
/** PostgreSQL's own times per statement from now (pg_stat_statements), for the counted burst. */
const serverTimesFromNow =
  statements && ready.database === 'PostgreSQL' ? () => serverTimesOf((sql) => query(sql)) : undefined;

/** BURST riders, each with a session, a card and a scan of its own cabinet (`cabinets`), tap at once. */
async function burst(tag: string, cabinets: string[], counted: boolean) {
  const renters: { token: string; card: string; cabinet: string }[] = [];
  for (let i = 0; i < BURST; i++) {
    const t = (
      await json<string>(
        await fetch(`${base}${API}/saas/tourist/login?code=bench-${tag}-${process.pid}-${String(i).padStart(5, '0')}`, {
          method: 'POST',
        }),
      )
    ).data;
    renters.push({ token: t, card: await cardToken(), cabinet: cabinets[i]! });
  }
  // Each rider scanned the cabinet before tapping, as the app does: the scans, all at once, also open each rider's
  // connection, which the tap then uses (a phone's keep-alive connection), so the burst times the rent calls only.
  await Promise.all(
    renters.map(async (r) => {
      const res = await json<unknown>(
        await fetch(`${base}${API}/cdb/cabinet/checkisok?url=${r.cabinet}`, {
          method: 'POST',
          headers: { token: r.token },
        }),
      );
      if (res.code !== 0) throw new Error(`burst scan failed: ${JSON.stringify(res)}`);
    }),
  );
  const cpuBefore = await cpuGroups();
  const serverTimes = counted ? await serverTimesFromNow?.() : undefined;
  if (counted) await statements?.reset();
  const burstTap = performance.now();
  const answers = await Promise.all(
    renters.map(async (r, i) => {
      const res = await json<{ outTradeNo: string }>(
        await fetch(`${base}${API}/cdb/cabinet/useDepositToRent`, {
          method: 'POST',
          headers: {
            token: r.token,
            'content-type': 'application/json',
            'idempotency-key': `bench-${tag}-${process.pid}-${i}`,
          },
          body: JSON.stringify({ qrcode: r.cabinet, stripeToken: r.card, paymentId: 'card-sandbox' }),
        }),
      );
      if (res.code !== 0) throw new Error(`burst rent failed: ${JSON.stringify(res)}`);
      return { ms: performance.now() - burstTap, tradeNo: res.data.outTradeNo };
    }),
  );
  await until('every burst eject published', () => renters.every((r) => ejectsAt.has(r.cabinet)), 30_000);
  // And every burst rental started (its `popped` processed): the window holds each rental's whole work, not whatever
  // share of the `popped` processing happened to end before the last answer. Asked every 50 ms (each ask is one
  // statement of the API's, counted in the window).
  const tradeNos = answers.map((a) => a.tradeNo);
  for (const end = Date.now() + 30_000; ; await new Promise((r) => setTimeout(r, 50))) {
    const [started] = await query<{ n: number }>(
      'select count(*)::int as n from orders where id = any($1::text[]) and zujie = 1',
      [tradeNos],
    );
    if (Number(started?.n) === BURST) break;
    if (Date.now() > end) throw new Error('timed out: every burst rental started');
  }
  const burstWall = performance.now() - burstTap;
  const cpuAfter = await cpuAgain(cpuBefore);
  return {
    answers,
    burstWall,
    cpuBefore,
    cpuAfter,
    serverTimes,
    ejects: renters.map((r) => ejectsAt.get(r.cabinet)! - burstTap),
  };
}

const first = await burst('burst-first', benchCabinets.slice(BURST, 2 * BURST), false);
const second = await burst('burst', benchCabinets.slice(0, BURST), true);

const pct = (xs: number[], p: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.ceil((p / 100) * xs.length) - 1)]!;
const ms = (x: number) => `${x.toFixed(0).padStart(4)} ms`;
const line = (name: string, xs: number[]) =>
  console.info(
    `${name.padEnd(44)} p50 ${ms(pct(xs, 50))}   p95 ${ms(pct(xs, 95))}   p99 ${ms(pct(xs, 99))}   max ${ms(Math.max(...xs))}`,
  );
console.info(
  `live updates: ${ROUNDS} rentals at ${CABINET} after ${WARMUP} not counted (Node ${process.version}, database: ${ready.database}, broker: ${ready.broker}; the API in its own process, the load, observers and cabinets in this one)`,
);
if (cold && WARMUP > 0)
  console.info(
    `the first rental after the API started (cold, not counted below): tap to eject ${cold.eject.toFixed(0)} ms, tap to popped on the stream ${cold.popped.toFixed(0)} ms`,
  );
line('tap to eject command published', ejected);
line('tap to popped on the stream', popped);
line('popped published to popped on the stream', poppedToScreen);
line('return to returned on the stream', returned);
/** A burst's times and, where /proc is read, its CPU time by process, per rental. */
function report(name: string, r: Awaited<ReturnType<typeof burst>>) {
  line(`${name}: tap to eject command published`, r.ejects);
  line(
    `${name}: tap to HTTP answer`,
    r.answers.map((a) => a.ms),
  );
  if (!r.cpuAfter.cpu.size) return;
  // Where the machine's time went (until every rental started), by process; a process that started meanwhile (a new
  // pooled connection's backend) counts from nothing.
  const delta = (pids: number[]) =>
    pids.reduce((a, pid) => a + (r.cpuAfter.cpu.get(pid) ?? 0) - (r.cpuBefore.cpu.get(pid) ?? 0), 0);
  const spent = Object.entries(r.cpuAfter.groups).map(([k, pids]) => [k, delta(pids)] as const);
  const total = spent.reduce((a, [, v]) => a + v, 0);
  console.info(
    `${name}: CPU time in ${r.burstWall.toFixed(0)} ms of wall time on ${availableParallelism()} CPUs: ${total.toFixed(0)} ms in all, ${(total / BURST).toFixed(1)} ms per rental`,
  );
  console.info(
    `${name}: CPU time per rental, by process: ${spent.map(([k, v]) => `${k} ${(v / BURST).toFixed(1)} ms`).join(', ')} (/proc: ±${(10 / BURST).toFixed(1)} ms per process each)`,
  );
  const others = delta(r.cpuAfter.others);
  if (others > 0)
    console.info(
      `${name}: other clients' PostgreSQL backends (not this bench's, not counted above): ${others.toFixed(0)} ms`,
    );
}
console.info(
  `a first burst of ${BURST} rentals at once, one per cabinet, ${ready.inventory.cabinets.length} cabinets connected (the rent path's first run on most pooled connections, and in the JIT):`,
);
report('first burst', first);
console.info(`then a second burst of ${BURST} rentals at once on ${BURST} other cabinets (the server warm):`);
report('burst', second);
if (statements) {
  const taken = await statements.take();
  const sum = taken.reduce((a, s) => a + s.n, 0);
  console.info(`burst: ${(sum / BURST).toFixed(1)} statements per rental sent by the API (BENCH_STATEMENTS), by text:`);
  for (const s of taken) console.info(`${(s.n / BURST).toFixed(2).padStart(7)}  ${s.sql}`);
}
if (second.serverTimes) {
  const times = await second.serverTimes();
  const top = times.filter((t) => t.toplevel).reduce((a, t) => a + t.ms, 0);
  console.info(
    `burst: PostgreSQL's execution time (pg_stat_statements; lock waits included), ${(top / BURST).toFixed(2)} ms per rental for the statements sent; per rental: calls, ms, the statement (nested: inside a function or trigger)`,
  );
  for (const t of times.slice(0, 40))
    console.info(
      `${(t.calls / BURST).toFixed(2).padStart(7)} ${(t.ms / BURST).toFixed(3).padStart(7)}  ${t.toplevel ? '' : '(nested) '}${t.query.slice(0, 160)}`,
    );
}

ctrl.abort();
await observer.endAsync();
await fleet.stop();
api.send({ stop: true });
await new Promise((resolve) => api.once('exit', resolve));
