// The cabinet delivery tests' fixtures (cabinet-delivery.test.ts): servers closed after each test, a rent with the
// test card, an order's detail and row, a power bank's row, an event as a cabinet sends it, a rental whose power
// bank has popped, an order's eject (command, slot, power bank), and a Mosquitto of the test's own.
import type { ChildProcess } from 'node:child_process';
import { afterEach, expect } from 'vitest';
import { uuid } from '../src/lib/ids.ts';
import type { CabinetEvent } from '../src/modules/cabinets/protocol.ts';
import { build, cabinetsOnline, cardToken, waitFor, type Built } from './helper.ts';
import { MOSQUITTO, freePort, startMosquitto as startBroker } from './processes.ts';

export { MOSQUITTO, freePort };

export const API = '/cdb-app-api/v1/app';
const open: Built[] = [];
const brokers: ChildProcess[] = [];

/** Closes the servers and kills the brokers a test started, after each test (the file's hook). */
export function closeAfterEach() {
  afterEach(async () => {
    for (const b of open.splice(0).reverse()) await b.close().catch(() => undefined);
    for (const p of brokers.splice(0)) p.kill('SIGKILL');
  });
}

export async function server(opts: Parameters<typeof build>[0] = {}) {
  const b = await build(opts);
  open.push(b);
  return b;
}

export const rent = async (b: Built, token: string, qrcode: string) =>
  b.app.inject({
    method: 'POST',
    url: `${API}/cdb/cabinet/useDepositToRent`,
    headers: { token },
    payload: { qrcode, stripeToken: await cardToken(b.app), paymentId: 'card-sandbox' },
  });
const detail = async (b: Built, token: string, orderId: string) =>
  (
    await b.app.inject({ method: 'GET', url: `${API}/cdb/mine/order/detail?orderId=${orderId}`, headers: { token } })
  ).json().data;
export const order = async (b: Built, id: string) =>
  (
    await b.db.query<{
      zujie: number;
      settled: boolean;
      powerbank_id: string | null;
      returned_at: Date | null;
      borrowed_at: Date | null;
    }>('select zujie, settled, powerbank_id, returned_at, borrowed_at from orders where id = $1', [id])
  ).rows[0]!;
export const bank = async (b: Built, id: string) =>
  (
    await b.db.query<{ state: string; cabinet_id: string | null; slot: number | null }>(
      'select state, cabinet_id, slot from powerbanks where id = $1',
      [id],
    )
  ).rows[0];
export const event = (b: Built, cabinetId: string, e: Record<string, unknown>) =>
  b.app.powerly.cabinets.event(cabinetId, { v: 2, id: uuid(), ...e } as unknown as CabinetEvent);

export async function rentedOut(b: Built, token: string, qrcode: string) {
  await cabinetsOnline(b, [qrcode]);
  const res = await rent(b, token, qrcode);
  expect(res.json().code, res.body).toBe(0);
  const tradeNo: string = res.json().data.outTradeNo;
  const d = await waitFor(async () => {
    const x = await detail(b, token, tradeNo);
    return x.pZujie === 1 ? x : null;
  }, 'popped');
  return { tradeNo, powerbankId: d.pPowerbankId as string };
}

/** An order's eject command: its id and the slot it names. */
async function command(b: Built, tradeNo: string) {
  const c = (
    await b.db.query<{ id: string; payload: unknown }>('select id, payload from cabinet_commands where order_id = $1', [
      tradeNo,
    ])
  ).rows[0]!;
  return {
    id: c.id,
    slot: ((typeof c.payload === 'string' ? JSON.parse(c.payload) : c.payload) as { slot: number }).slot,
  };
}

/** The slot an order's eject command names. */
export const commandSlot = async (b: Built, tradeNo: string) => (await command(b, tradeNo)).slot;

/** An order's eject: its command's id, the slot it names and the power bank in that slot of the cabinet. */
export async function ejectOf(b: Built, tradeNo: string, cabinetId: string) {
  const { id: commandId, slot } = await command(b, tradeNo);
  const powerbankId = (
    await b.db.query<{ id: string }>('select id from powerbanks where cabinet_id = $1 and slot = $2', [cabinetId, slot])
  ).rows[0]!.id;
  return { commandId, slot, powerbankId };
}

/** A process dies: its connection to the broker is cut. */
export function cut(b: Built) {
  b.clients[0]!.stream.destroy();
  b.clients[0]!.end(true);
}

/** A Mosquitto of the test's own on `port`, killed after the test. */
export const startMosquitto = (port: number) => startBroker(port, brokers);
