// Scale-out on the machine's broker (MQTT_URL, e.g. the system Mosquitto): two API processes in one shared group,
// each with a stable client id (MQTT_CLIENT_ID), one killed mid-flow. A dead member must not keep a session in the
// group that the broker queues the cabinet's re-sends for: the re-sent popped reaches the live process within the
// eject's TTL. Skipped without MQTT_URL (the embedded broker is single-process).
import { afterEach, describe, expect, it } from 'vitest';
import { externalBroker } from '../src/mqtt/broker.ts';
import { uuid } from '../src/lib/ids.ts';
import { build, cabinetsOnline, cardToken, touristToken, waitFor, type Built } from './helper.ts';

const API = '/cdb-app-api/v1/app';
const open: Built[] = [];
afterEach(async () => {
  for (const b of open.splice(0).reverse()) await b.close().catch(() => undefined);
});

const zujie = async (b: Built, id: string) =>
  Number((await b.db.query<{ zujie: number }>('select zujie from orders where id = $1', [id])).rows[0]!.zujie);

describe.skipIf(!process.env.MQTT_URL)('two API processes in a shared group, one killed (MQTT_URL)', () => {
  it('the popped re-sent after a member dies reaches the live member, not a session kept for the dead one', async () => {
    const connector = externalBroker(process.env.MQTT_URL!);
    const a = await build({ connector, resendMs: 200, sharedGroup: 'api', clientId: `api-a-${uuid().slice(0, 8)}` });
    open.push(a);
    const b = await build({
      shareDb: a,
      simulator: false,
      prefix: a.prefix,
      connector,
      sharedGroup: 'api',
      clientId: `api-b-${uuid().slice(0, 8)}`,
    });
    open.push(b);
    await cabinetsOnline(a, ['PWL-LIS-001']);
    // Process A dies (no DISCONNECT, like kill -9) the moment a popped reaches it; until then process B leaves the
    // popped unstored (no event-ack), so the cabinet keeps re-sending it until one copy has gone to A.
    let dead = false;
    let release!: (v: boolean) => void;
    const hang = new Promise<boolean>((r) => (release = r));
    const ca = a.app.powerly.cabinets;
    ca.receive = async (cabinetId, e) => {
      if (e.type !== 'popped') return Object.getPrototypeOf(ca).receive.call(ca, cabinetId, e) as Promise<boolean>;
      a.clients[0]!.stream.destroy();
      a.clients[0]!.end(true);
      dead = true;
      return hang;
    };
    const cb = b.app.powerly.cabinets;
    cb.receive = async (cabinetId, e) => {
      if (e.type === 'popped' && !dead) return false;
      return Object.getPrototypeOf(cb).receive.call(cb, cabinetId, e) as Promise<boolean>;
    };
    const res = await a.app.inject({
      method: 'POST',
      url: `${API}/cdb/cabinet/useDepositToRent`,
      headers: { token: await touristToken(a.app, 'share-kill') },
      payload: { qrcode: 'PWL-LIS-001', stripeToken: await cardToken(a.app), paymentId: 'card-sandbox' },
    });
    expect(res.json().code, res.body).toBe(0);
    const tradeNo: string = res.json().data.outTradeNo;
    await waitFor(async () => dead, 'a popped reached process A');
    // The next re-sends (every 200 ms) go to B: well within the eject's TTL, not after it.
    await waitFor(async () => (await zujie(b, tradeNo)) === 1, 'the rental started on process B', 5_000);
    await waitFor(
      async () => !a.fleet!.get('PWL-LIS-001')!.unacknowledged.some((e) => e.type === 'popped'),
      'the popped acknowledged',
    );
    release(false); // process A's call ends, having stored nothing (it is closed after the test)
  }, 60_000);
});
