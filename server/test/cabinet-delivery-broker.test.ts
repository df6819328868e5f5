// Nothing a cabinet says is lost when the broker goes: a broker restarted mid-rental (fail fast while it is down, a
// return made during the outage and events right after it not lost), an eject whose publish met the outage, and a
// dead member of the shared subscription. Each test runs its own Mosquitto (killed and restarted, no persistence) and
// is skipped where there is none; the rest of the delivery tests are in cabinet-delivery.test.ts, the fixtures in
// cabinet-delivery-helpers.ts.
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { MINUTE_MS } from '#core/pricing.ts';
import { externalBroker } from '../src/mqtt/broker.ts';
import { uuid } from '../src/lib/ids.ts';
import { cabinetsOnline, touristToken, waitFor } from './helper.ts';
import {
  closeAfterEach,
  cut,
  freePort,
  MOSQUITTO,
  order,
  rent,
  rentedOut,
  server,
  startMosquitto,
} from './cabinet-delivery-helpers.ts';

closeAfterEach();

describe.skipIf(!existsSync(MOSQUITTO))('a broker restarted mid-rental (Mosquitto, no persistence)', () => {
  it('a rent during the outage is refused at once; a return made during it and events right after it are not lost', async () => {
    const port = await freePort();
    const mosquitto = await startMosquitto(port);
    const b = await server({ connector: externalBroker(`mqtt://127.0.0.1:${port}`), resendMs: 300 });
    const token = await touristToken(b.app, 'restart-1');
    const { tradeNo, powerbankId } = await rentedOut(b, token, 'PWL-LIS-001');

    mosquitto.kill('SIGKILL');
    await waitFor(async () => !b.link.isUp(), 'the link notices the broker is gone');

    // Fail fast: refused before anything is tried, with a clear message: no card call, no eject command, no order.
    const other = await touristToken(b.app, 'restart-2');
    const count = async (table: 'payments' | 'cabinet_commands') =>
      Number((await b.db.query<{ n: number }>(`select count(*)::int as n from ${table}`)).rows[0]!.n);
    const before = [await count('payments'), await count('cabinet_commands')];
    const refused = await rent(b, other, 'PWL-LIS-001');
    expect(refused.statusCode).toBe(409);
    expect(refused.json().msg).toMatch(/connection to the cabinets/);
    expect([await count('payments'), await count('cabinet_commands')]).toEqual(before);

    // The user returns the power bank while the broker is down: the cabinet keeps the event.
    b.clock.advance(40 * MINUTE_MS);
    const vno = b.fleet!.get('PWL-VNO-001')!;
    await vno.insert(powerbankId);
    expect(vno.unacknowledged.map((e) => e.type)).toContain('returned');

    // The broker comes back empty (no persistence): both sides reconnect and re-subscribe; the cabinet re-sends.
    await startMosquitto(port);
    await waitFor(async () => (await order(b, tradeNo)).settled, 'the return is settled after the restart');
    expect(Number((await order(b, tradeNo)).zujie)).toBe(3);
    await waitFor(async () => vno.unacknowledged.length === 0, 'the server acknowledged the return');

    // Renting works again: the eject goes out over the new connection.
    await waitFor(async () => b.link.isUp(), 'link up');
    const again = await rentedOut(b, other, 'PWL-LIS-001');
    expect(again.powerbankId).toMatch(/^PB-/);
  }, 120_000);
});

describe.skipIf(!existsSync(MOSQUITTO))('an eject whose publish met a broker outage', () => {
  it('is re-published when the link reconnects, and the rental starts within its TTL', async () => {
    const port = await freePort();
    const mosquitto = await startMosquitto(port);
    const b = await server({ connector: externalBroker(`mqtt://127.0.0.1:${port}`), resendMs: 300 });
    const token = await touristToken(b.app, 'republish');
    await cabinetsOnline(b, ['PWL-LIS-001']);
    // The rent passes its checks, then waits at the card call while the broker dies.
    let open!: () => void;
    b.sandbox.gate = new Promise<void>((r) => (open = r));
    const pending = rent(b, token, 'PWL-LIS-001');
    await waitFor(
      async () =>
        Number(
          (
            await b.db.query<{ n: number }>('select count(*)::int as n from jobs where kind = $1', [
              'payment.charge-guard',
            ])
          ).rows[0]!.n,
        ) > 0,
      'the rent reached the card call',
    );
    mosquitto.kill('SIGKILL');
    await waitFor(async () => !b.link.isUp(), 'link down');
    b.sandbox.gate = null;
    open();
    const res = await pending;
    expect(res.json().code, res.body).toBe(0); // the order is committed; its eject could not be published
    const tradeNo: string = res.json().data.outTradeNo;
    await startMosquitto(port);
    await waitFor(async () => Number((await order(b, tradeNo)).zujie) === 1, 'the re-published eject popped');
  }, 120_000);
});

describe.skipIf(!existsSync(MOSQUITTO))('scale-out: shared subscription and stable client ids (Mosquitto)', () => {
  it('a dead member whose session the broker keeps does not swallow events: every return is settled', async () => {
    const port = await freePort();
    await startMosquitto(port);
    const connector = externalBroker(`mqtt://127.0.0.1:${port}`);
    const a = await server({ connector, resendMs: 300, sharedGroup: 'api', clientId: `api-a-${uuid().slice(0, 6)}` });
    const b = await server({
      shareDb: a,
      simulator: false,
      prefix: a.prefix,
      connector,
      sharedGroup: 'api',
      clientId: `api-b-${uuid().slice(0, 6)}`,
    });
    const rentals: { tradeNo: string; powerbankId: string; cabinet: string }[] = [];
    for (const [i, cabinet] of ['PWL-LIS-001', 'PWL-VNO-001', 'PWL-NYC-001'].entries()) {
      rentals.push({ ...(await rentedOut(a, await touristToken(a.app, `share-${i}`), cabinet)), cabinet });
    }
    // Process A dies; the broker keeps its persistent session in the group and hands it its share of events.
    cut(a);
    // Each power bank goes back into the cabinet it came from (the returns go through the shared group).
    for (const r of rentals) await a.fleet!.get(r.cabinet)!.insert(r.powerbankId);
    for (const r of rentals)
      await waitFor(async () => (await order(b, r.tradeNo)).settled, `return of ${r.powerbankId} settled`);
    for (const r of rentals)
      await waitFor(async () => a.fleet!.get(r.cabinet)!.unacknowledged.length === 0, 'every return acknowledged');
  }, 120_000);
});
