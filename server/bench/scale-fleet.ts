// The simulated fleet and the renters of `npm run bench:scale`, in a process of their own so that the API
// process's memory and CPU are the API's alone. Driven by the bench (server/bench/scale.ts) over IPC:
//  - start: connect `count` simulated cabinets (docs/cabinet-protocol.md v2, SimulatedCabinet) to the broker,
//    a few hundred at a time, each with its power banks in slots 1-4 of 6, heartbeats every `heartbeatMs`;
//  - rent: sign in `n` users, give each a sandbox card token, then send all their rent requests at once, one
//    cabinet each, and answer with each answer's order id (or error) and HTTP latency;
//  - stop: disconnect every cabinet cleanly and clear its retained status on the broker.
import mqtt from 'mqtt';
import { SimulatedCabinet } from '../src/demo/simulator/cabinet.ts';
import { systemClock } from '../src/lib/clock.ts';
import { externalBroker } from '../src/mqtt/broker.ts';
import { topics } from '../src/modules/cabinets/protocol.ts';

export type FleetCommand =
  | { type: 'start'; mqttUrl: string; prefix: string; count: number; heartbeatMs: number }
  | { type: 'rent'; base: string; n: number; pk: string; tag: string }
  | { type: 'stop' };
export type FleetReport =
  | { type: 'progress'; connected: number }
  | { type: 'started'; connected: number; ms: number; rss: number }
  | { type: 'rented'; answers: { cabinet: string; orderId?: string; error?: string; ms: number }[]; rss: number }
  | { type: 'stopped' };

/** The bench's cabinet ids and power bank ids (the bench seeds the same ones). */
export const cabinetId = (i: number) => `PWL-S${String(i + 1).padStart(5, '0')}-001`;
export const powerbankId = (i: number, slot: number) =>
  `PB-S${String(i + 1).padStart(5, '0')}-${String(slot).padStart(4, '0')}`;
export const SLOTS = 6;
export const BANKS = 4;

const API = '/cdb-app-api/v1/app';
const send = (m: FleetReport) => process.send!(m);
let cabinets: SimulatedCabinet[] = [];
let started: Extract<FleetCommand, { type: 'start' }> | undefined;

async function start(c: Extract<FleetCommand, { type: 'start' }>) {
  started = c;
  const t0 = performance.now();
  // Each cabinet its own connection (as in the field); no automatic reconnect storm in the bench.
  const connector = externalBroker(c.mqttUrl);
  const connect = connector.connect.bind(connector);
  const quiet = {
    connect: (o: mqtt.IClientOptions) => connect({ ...o, reconnectPeriod: 5_000, connectTimeout: 60_000 }),
    describe: connector.describe,
  };
  cabinets = Array.from(
    { length: c.count },
    (_, i) =>
      new SimulatedCabinet({
        cabinetId: cabinetId(i),
        slots: Array.from({ length: SLOTS }, (_, s) => (s < BANKS ? powerbankId(i, s + 1) : null)),
        connector: quiet,
        prefix: c.prefix,
        clock: systemClock,
        heartbeatMs: c.heartbeatMs,
        ejectDelayMs: 0,
      }),
  );
  let connected = 0;
  const BATCH = 250;
  for (let i = 0; i < cabinets.length; i += BATCH) {
    await Promise.all(cabinets.slice(i, i + BATCH).map((cab) => cab.start()));
    connected = Math.min(cabinets.length, i + BATCH);
    if (connected % 2_000 === 0 || connected === cabinets.length) send({ type: 'progress', connected });
  }
  send({ type: 'started', connected, ms: performance.now() - t0, rss: process.memoryUsage().rss });
}

async function json<T>(res: Response): Promise<{ code: number; msg?: string; data: T }> {
  return (await res.json()) as { code: number; data: T };
}

/** Runs `fn` over `items` with at most `limit` at a time. */
async function pool<T, R>(items: T[], limit: number, fn: (t: T, i: number) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: limit }, async () => {
      while (next < items.length) {
        const i = next++;
        out[i] = await fn(items[i]!, i);
      }
    }),
  );
  return out;
}

async function rent(c: Extract<FleetCommand, { type: 'rent' }>) {
  // Renters spread over the fleet: every (count / n)-th cabinet.
  const step = Math.max(1, Math.floor(cabinets.length / c.n));
  const targets = Array.from({ length: c.n }, (_, i) => cabinetId((i * step) % cabinets.length));
  const renters = await pool(targets, 20, async (cabinet, i) => {
    const token = (
      await json<string>(
        await fetch(`${c.base}${API}/saas/tourist/login?code=${c.tag}-${String(i).padStart(5, '0')}`, {
          method: 'POST',
        }),
      )
    ).data;
    const card = (
      (await (
        await fetch(`${c.base}/sandbox-pay/v1/tokens`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({
            publicKey: c.pk,
            number: '4242 4242 4242 4242',
            expMonth: '12',
            expYear: '2030',
            cvc: '123',
          }),
        })
      ).json()) as { id: string }
    ).id;
    return { token, card, cabinet };
  });
  const t0 = performance.now();
  const answers = await Promise.all(
    renters.map(async (r, i) => {
      try {
        const res = await json<{ outTradeNo: string }>(
          await fetch(`${c.base}${API}/cdb/cabinet/useDepositToRent`, {
            method: 'POST',
            headers: { token: r.token, 'content-type': 'application/json', 'idempotency-key': `${c.tag}-${i}` },
            body: JSON.stringify({ qrcode: r.cabinet, stripeToken: r.card, paymentId: 'card-sandbox' }),
          }),
        );
        const ms = performance.now() - t0;
        return res.code === 0
          ? { cabinet: r.cabinet, orderId: res.data.outTradeNo, ms }
          : { cabinet: r.cabinet, error: `${res.code} ${res.msg ?? ''}`, ms };
      } catch (err) {
        return { cabinet: r.cabinet, error: String(err), ms: performance.now() - t0 };
      }
    }),
  );
  send({ type: 'rented', answers, rss: process.memoryUsage().rss });
}

async function stop() {
  await pool(cabinets, 250, (cab) => cab.stop());
  // Retained statuses would outlive the run on a persistent broker: clear them (an empty retained message).
  if (started) {
    const c = mqtt.connect(started.mqttUrl, { clientId: `bench-scale-clear-${process.pid}`, clean: true });
    await new Promise<void>((resolve, reject) => {
      c.once('connect', () => resolve());
      c.once('error', reject);
    });
    for (let i = 0; i < cabinets.length; i++)
      await c.publishAsync(topics(started.prefix, cabinetId(i)).status, '', { qos: 1, retain: true });
    await c.endAsync();
  }
  send({ type: 'stopped' });
}

if (process.send) {
  process.on('message', (m: FleetCommand) => {
    const run = m.type === 'start' ? start(m) : m.type === 'rent' ? rent(m) : stop();
    run.catch((err: unknown) => {
      console.error('bench fleet:', err);
      process.exit(1);
    });
  });
  process.on('disconnect', () => process.exit(0));
}
