// Always a place to return: the map's free return slots (empty, unlocked, not kept for another rider) and the
// filter on them; a rider with a power bank out keeps a slot for 15 minutes: stored with its `slot-reserve`
// command before the answer, honoured by the (simulated) cabinet, counted as taken for everyone else, used by the
// return of that power bank, released on cancel, ended at expiry; each refusal a clear 4xx in the rider's
// language. A broker killed before the command reaches the cabinet loses nothing: it is re-published on reconnect.
import type { ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import mqtt from 'mqtt';
import { externalBroker } from '../src/mqtt/broker.ts';
import { parseJson, topics } from '../src/modules/cabinets/protocol.ts';
import { build, cabinetsOnline, cardToken, touristToken, waitFor, type Built } from './helper.ts';
import { MOSQUITTO, freePort, startMosquitto as startBroker } from './processes.ts';

const API = '/cdb-app-api/v1/app';
const VNO = { shopId: 'v-vno-gedimino', cabinet: 'PWL-VNO-001', lat: 54.6871, lng: 25.2801 };
const MIN = 60_000;

const call = (
  b: Built,
  method: 'GET' | 'POST',
  url: string,
  token: string,
  payload?: Record<string, unknown>,
  lang = 'en-US',
) => b.app.inject({ method, url: `${API}/${url}`, headers: { token, lang }, payload });

async function rented(b: Built, token: string, qrcode: string) {
  await cabinetsOnline(b, [qrcode]);
  const res = await call(b, 'POST', 'cdb/cabinet/useDepositToRent', token, {
    qrcode,
    stripeToken: await cardToken(b.app),
    paymentId: 'card-sandbox',
  });
  expect(res.json().code, res.body).toBe(0);
  const orderId: string = res.json().data.outTradeNo;
  const d = await waitFor(async () => {
    const x = (await call(b, 'GET', `cdb/mine/order/detail?orderId=${orderId}`, token)).json().data;
    return x.pZujie === 1 ? x : null;
  }, 'popped');
  return { orderId, powerbankId: d.pPowerbankId as string };
}

/** The venue's free return slots on the map (search near it, with the filter). */
async function returnSlots(b: Built, shopId: string) {
  const res = await b.app.inject({
    method: 'GET',
    url: `${API}/cdb/shop/search?lat=${VNO.lat}&lng=${VNO.lng}&filter=return&limit=50`,
  });
  return (res.json().data as { shopid: string; returnNum: number }[]).find((s) => s.shopid === shopId)?.returnNum ?? 0;
}

const reservation = async (b: Built, token: string) =>
  (await call(b, 'GET', 'cdb/return/reservation', token)).json().data;

describe('return slot reservations (embedded broker)', () => {
  let b: Built;
  beforeAll(async () => {
    b = await build();
  });
  afterAll(async () => b?.close());

  it('kept by the cabinet, taken for everyone else, idempotent, used by the return of that power bank', async () => {
    const token = await touristToken(b.app);
    const { powerbankId } = await rented(b, token, VNO.cabinet);
    const cabinet = b.fleet!.get(VNO.cabinet)!;
    const before = await returnSlots(b, VNO.shopId);
    expect(before).toBe(3); // 6 slots, 3 power banks left in it

    const res = await call(b, 'POST', 'cdb/return/reserve', token, { shopId: VNO.shopId });
    expect(res.json(), res.body).toMatchObject({
      code: 0,
      data: { cabinetId: VNO.cabinet, shopId: VNO.shopId, shopName: 'GO9 Gedimino 9', state: 'held', endedAt: null },
    });
    const r = res.json().data;
    expect(Date.parse(r.expiresAt) - Date.parse(r.createdAt)).toBe(15 * MIN);
    // Stored before the answer: the reservation and its command.
    const { rows } = await b.db.query<{ type: string; payload: { slot: number; powerbankId: string; until: string } }>(
      'select c.type, c.payload from cabinet_commands c join return_reservations r on r.command_id = c.id where r.id = $1',
      [r.id],
    );
    expect(rows[0]).toMatchObject({ type: 'slot-reserve', payload: { slot: r.slot, powerbankId, until: r.expiresAt } });
    // The cabinet keeps the slot and says so.
    await waitFor(async () => (await reservation(b, token)).confirmed === true, 'the cabinet acknowledged');
    expect(cabinet.keptFor(r.slot)).toBe(powerbankId);
    // Everyone else sees one return slot fewer, on the map, in the venue's detail, and the filter follows.
    expect(await returnSlots(b, VNO.shopId)).toBe(before - 1);
    const dtl = (await b.app.inject({ method: 'GET', url: `${API}/cdb/shop/listnear/dtl?shopId=${VNO.shopId}` })).json()
      .data;
    expect(dtl).toMatchObject({ returnNum: before - 1, cabinets: [{ cabinetID: VNO.cabinet, returnNum: before - 1 }] });
    const near = (
      await b.app.inject({
        method: 'POST',
        url: `${API}/cdb/shop/listnear/trial`,
        payload: { lat: VNO.lat, lng: VNO.lng, zoomLevel: 8, filter: 'return' },
      })
    ).json().data;
    expect(near.map((s: { shopid: string }) => s.shopid)).toContain(VNO.shopId);
    // The scan says the same to everyone else (signed in or not); the rider holding the slot still counts it.
    const scanSlots = async (t?: string) =>
      (
        await b.app.inject({
          method: 'POST',
          url: `${API}/cdb/cabinet/checkisok?url=${VNO.cabinet}`,
          headers: t ? { token: t } : {},
        })
      ).json().data.freeSlots;
    const stranger = await touristToken(b.app);
    expect(await scanSlots(stranger)).toBe(before - 1);
    expect(await scanSlots(token)).toBe(before);

    // Asked again for the same place: the same reservation. Elsewhere: refused while this one is held.
    expect((await call(b, 'POST', 'cdb/return/reserve', token, { cabinetId: VNO.cabinet })).json().data.id).toBe(r.id);
    const elsewhere = await call(b, 'POST', 'cdb/return/reserve', token, { cabinetId: 'PWL-LIS-001' }, 'lt-LT');
    expect(elsewhere.statusCode).toBe(409);
    expect(elsewhere.json().msg).toContain('GO9 Gedimino 9');

    // Another rider's power bank goes into another slot; this rider's into the kept one, which ends it.
    const other = await touristToken(b.app);
    const theirs = await rented(b, other, VNO.cabinet);
    expect((await cabinet.insert(theirs.powerbankId)).slot).not.toBe(r.slot);
    expect((await cabinet.insert(powerbankId)).slot).toBe(r.slot);
    await waitFor(async () => (await reservation(b, token)).state === 'used', 'the return used the reservation');
    expect(cabinet.keptFor(r.slot)).toBeUndefined();
  });

  it("cancel releases the slot at the cabinet; expiry ends it; refusals in the rider's language", async () => {
    const token = await touristToken(b.app);
    expect((await call(b, 'POST', 'cdb/return/reserve', token, { shopId: VNO.shopId }, 'pt-PT')).json()).toMatchObject({
      code: 409,
      msg: 'Não tem nenhum power bank alugado para devolver.',
    });
    const { powerbankId } = await rented(b, token, 'PWL-LIS-001');
    const none = await call(b, 'POST', 'cdb/return/reserve', token, {}, 'es-ES');
    expect(none.statusCode).toBe(400);
    expect((await call(b, 'POST', 'cdb/return/reserve', token, { cabinetId: 'PWL-NOPE-1' })).statusCode).toBe(404);
    expect((await call(b, 'POST', 'cdb/return/reservation/cancel', token)).statusCode).toBe(404);

    // A full cabinet (every slot holds a device) and an offline one.
    await b.db.query(`update cabinets set slot_count = 6 where id = 'PWL-SH-001'`);
    const full = await call(b, 'POST', 'cdb/return/reserve', token, { cabinetId: 'PWL-SH-001' }, 'zh-CN');
    expect(full.json()).toMatchObject({ code: 409, msg: '该机柜没有空槽位可预留，请在地图上选择有空槽位的机柜。' });
    await b.fleet!.get('PWL-NYC-001')!.stop();
    await waitFor(
      async () =>
        !(await b.db.query<{ online: boolean }>(`select online from cabinets where id = 'PWL-NYC-001'`)).rows[0]!
          .online,
      'offline',
    );
    expect((await call(b, 'POST', 'cdb/return/reserve', token, { cabinetId: 'PWL-NYC-001' })).statusCode).toBe(409);

    // Cancelled: the cabinet is told (until: null) and frees the slot.
    const lis = b.fleet!.get('PWL-LIS-001')!;
    const r = (await call(b, 'POST', 'cdb/return/reserve', token, { cabinetId: 'PWL-LIS-001' })).json().data;
    await waitFor(async () => lis.keptFor(r.slot) === powerbankId, 'kept at the cabinet');
    expect((await call(b, 'POST', 'cdb/return/reservation/cancel', token)).json().data).toMatchObject({
      id: r.id,
      state: 'cancelled',
    });
    await waitFor(async () => lis.keptFor(r.slot) === undefined, 'released at the cabinet');

    // Expired: after 15 minutes the job ends it, and a new one can be made.
    const again = (await call(b, 'POST', 'cdb/return/reserve', token, { cabinetId: 'PWL-LIS-001' })).json().data;
    expect(again.state).toBe('held');
    b.clock.advance(15 * MIN);
    await b.app.powerly.jobs.runDue();
    expect(await reservation(b, token)).toMatchObject({ id: again.id, state: 'expired', confirmed: false });
    expect(lis.keptFor(again.slot)).toBeUndefined(); // the cabinet dropped it at `until` by itself
    expect((await call(b, 'POST', 'cdb/return/reserve', token, { cabinetId: 'PWL-LIS-001' })).json().data.state).toBe(
      'held',
    );
  });
});

const brokers: ChildProcess[] = [];
const open: Built[] = [];
afterEach(async () => {
  for (const x of open.splice(0)) await x.close().catch(() => undefined);
  for (const p of brokers.splice(0)) p.kill('SIGKILL');
});
const startMosquitto = (port: number) => startBroker(port, brokers);

/** Listens (reconnecting) on the broker at `port` for the cabinet's status: `online` once it said so. */
function watchStatus(port: number, prefix: string, cabinetId: string) {
  const seen = { online: false, end: () => void client.end(true) };
  const client = mqtt.connect(`mqtt://127.0.0.1:${port}`, { protocolVersion: 4, reconnectPeriod: 200, clean: true });
  client.on(
    'connect',
    () => void client.subscribeAsync(topics(prefix, cabinetId).status, { qos: 1 }).catch(() => undefined),
  );
  client.on('message', (_t, payload) => {
    if (parseJson<{ online?: boolean }>(payload)?.online === true) seen.online = true;
  });
  client.on('error', () => undefined);
  return seen;
}

describe.skipIf(!existsSync(MOSQUITTO))(
  'a reservation made while the broker is down (Mosquitto killed and restarted)',
  () => {
    it('is stored and answered, then re-published on reconnect and kept by the cabinet', async () => {
      const port = await freePort();
      const mosquitto = await startMosquitto(port);
      const b = await build({ connector: externalBroker(`mqtt://127.0.0.1:${port}`), resendMs: 300 });
      open.push(b);
      const token = await touristToken(b.app);
      const { powerbankId } = await rented(b, token, VNO.cabinet);
      mosquitto.kill('SIGKILL');
      await waitFor(async () => !b.link.isUp(), 'link down');
      const res = await call(b, 'POST', 'cdb/return/reserve', token, { shopId: VNO.shopId });
      expect(res.json(), res.body).toMatchObject({ code: 0, data: { state: 'held', confirmed: false } });
      const slot: number = res.json().data.slot;
      expect(b.fleet!.get(VNO.cabinet)!.keptFor(slot)).toBeUndefined();
      // The cabinet is back when it says so: it subscribes to its commands, then publishes its online status (a
      // restarted broker keeps no retained status, so any one heard now is from after the restart).
      const back = watchStatus(port, b.prefix, VNO.cabinet);
      try {
        await startMosquitto(port);
        await waitFor(async () => back.online && b.link.isUp(), 'the cabinet and the link reconnected', 60_000);
        // The link re-publishes on each of its (re)connects, to the cabinets subscribed by then; after a broker restart
        // either end may reconnect first. One more cut of the link alone, with the cabinet surely subscribed, makes
        // the re-publish this test follows the same on every run, whichever end won the race.
        b.clients[0]!.stream.destroy();
        await waitFor(
          async () => (await reservation(b, token)).confirmed === true,
          'acknowledged after the restart',
          60_000,
        );
      } finally {
        back.end();
      }
      await waitFor(
        async () => b.fleet!.get(VNO.cabinet)!.keptFor(slot) === powerbankId,
        'the slot kept by the cabinet',
        30_000,
      );
    }, 180_000);
  },
);
