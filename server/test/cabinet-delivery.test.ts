// Nothing a cabinet says is lost. End-to-end delivery (protocol v2: inbox before an application-level
// ack, cabinets re-send until acked) through a process killed with events in flight and two processes racing, and
// inventory reconciliation; on the embedded broker or MQTT_URL, and on PGlite or DATABASE_URL. A broker restarted
// (its own Mosquitto): cabinet-delivery-broker.test.ts; the fixtures: cabinet-delivery-helpers.ts.
import { describe, expect, it } from 'vitest';
import { MINUTE_MS } from '#core/pricing.ts';
import { uuid } from '../src/lib/ids.ts';
import { cabinetsOnline, markHeardFrom, touristToken, waitFor } from './helper.ts';
import {
  bank,
  closeAfterEach,
  commandSlot,
  cut,
  ejectOf,
  event,
  order,
  API,
  rent,
  rentedOut,
  server,
} from './cabinet-delivery-helpers.ts';

closeAfterEach();

describe('a server process killed with events in flight', () => {
  it('dies before storing a popped: the cabinet re-sends it and the next process handles it', async () => {
    const a = await server({ resendMs: 200 });
    const token = await touristToken(a.app, 'kill-1');
    await cabinetsOnline(a, ['PWL-LIS-001']);
    // The moment the popped reaches process A, A dies (its connection is cut, nothing is stored or acked).
    let release!: () => void;
    const hang = new Promise<void>((r) => (release = r));
    const cabinets = a.app.powerly.cabinets;
    cabinets.receive = async (cabinetId, e) => {
      if (e.type !== 'popped')
        return Object.getPrototypeOf(cabinets).receive.call(cabinets, cabinetId, e) as Promise<boolean>;
      cut(a);
      await hang;
      return false;
    };
    const res = await rent(a, token, 'PWL-LIS-001');
    const tradeNo: string = res.json().data.outTradeNo;
    await waitFor(
      async () => a.fleet!.get('PWL-LIS-001')!.unacknowledged.some((e) => e.type === 'popped'),
      'popped sent',
    );
    expect(Number((await order(a, tradeNo)).zujie)).toBe(0);

    // Process B (same database, same broker and cabinets) starts: the re-sent popped reaches it.
    const b = await server({ shareDb: a, simulator: false, prefix: a.prefix, connector: a.connector });
    await waitFor(async () => Number((await order(b, tradeNo)).zujie) === 1, 'the rental started on process B');
    const { rows } = await b.db.query<{ n: number }>(
      `select count(*)::int as n from cabinet_events where type = 'popped' and state = 'done'`,
    );
    expect(Number(rows[0]!.n)).toBe(1);
    release();
  });

  it("dies with several cabinets' events taken in at once, none stored: each cabinet re-sends and the next process handles each once", async () => {
    // The link takes messages of different cabinets in parallel (and acknowledges them to the broker when it takes
    // them): what is in hand is not stored until `receive` has run, so the cabinets' own re-sending (no event-ack)
    // is what carries them to the next process.
    const cabinetIds = ['PWL-LIS-001', 'PWL-VNO-001', 'PWL-NYC-001'];
    const a = await server({ resendMs: 200 });
    await cabinetsOnline(a, cabinetIds);
    const inHand = new Set<string>();
    let release!: () => void;
    const hang = new Promise<boolean>((r) => (release = () => r(false)));
    const cabinets = a.app.powerly.cabinets;
    cabinets.receive = async (cabinetId, e) => {
      if (e.type !== 'popped')
        return Object.getPrototypeOf(cabinets).receive.call(cabinets, cabinetId, e) as Promise<boolean>;
      inHand.add(cabinetId);
      // All three poppeds in hand at once, none stored: process A dies.
      if (inHand.size === cabinetIds.length) {
        cut(a);
      }
      return hang;
    };
    const rents = await Promise.all(
      cabinetIds.map(async (id, i) => {
        const token = await touristToken(a.app, `kill-many-${i}`);
        const res = await rent(a, token, id);
        expect(res.json().code, res.body).toBe(0);
        return res.json().data.outTradeNo as string;
      }),
    );
    await waitFor(async () => inHand.size === cabinetIds.length, 'every popped taken in by process A');
    for (const tradeNo of rents) expect(Number((await order(a, tradeNo)).zujie)).toBe(0);

    const b = await server({ shareDb: a, simulator: false, prefix: a.prefix, connector: a.connector });
    for (const tradeNo of rents)
      await waitFor(
        async () => Number((await order(b, tradeNo)).zujie) === 1,
        `rental ${tradeNo} started on process B`,
      );
    const { rows } = await b.db.query<{ cabinet_id: string; n: number }>(
      `select cabinet_id, count(*)::int as n from cabinet_events where type = 'popped' group by cabinet_id order by cabinet_id`,
    );
    expect(rows.map((r) => [r.cabinet_id, Number(r.n)])).toEqual([...cabinetIds].sort().map((id) => [id, 1]));
    for (const id of cabinetIds)
      await waitFor(
        async () => !a.fleet!.get(id)!.unacknowledged.some((e) => e.type === 'popped'),
        `${id}'s popped acknowledged`,
      );
    release(); // process A's calls end (it is closed after the test), having stored nothing
  });

  it('dies after storing and acking, before processing: another process processes it from the inbox', async () => {
    const a = await server({ simulator: false });
    await markHeardFrom(a, ['PWL-LIS-001', 'PWL-VNO-001']);
    const token = await touristToken(a.app, 'kill-2');
    const res = await rent(a, token, 'PWL-LIS-001');
    const tradeNo: string = res.json().data.outTradeNo;
    const { commandId, slot, powerbankId } = await ejectOf(a, tradeNo, 'PWL-LIS-001');
    // Stored (and so acknowledged), then the process dies: processing never ran.
    expect(
      await a.app.powerly.cabinets.receive('PWL-LIS-001', {
        v: 2,
        id: 'ev-kill-2',
        ts: a.clock.now().toISOString(),
        type: 'popped',
        commandId,
        slot,
        powerbankId,
      }),
    ).toBe(true);
    const b = await server({ shareDb: a, simulator: false });
    expect(await b.app.powerly.cabinets.processInbox()).toBe(1);
    expect(await order(b, tradeNo)).toMatchObject({ powerbank_id: powerbankId });
    expect(Number((await order(b, tradeNo)).zujie)).toBe(1);
  });
});

describe('two processes racing popped and returned of one power bank', () => {
  it('never leaves a returned power bank on an open rental', async () => {
    const a = await server({ simulator: false });
    const b = await server({ shareDb: a, simulator: false });
    for (let i = 0; i < 3; i++) {
      // PWL-LIS-001 has 3 free slots
      await markHeardFrom(a, ['PWL-VNO-001', 'PWL-LIS-001']);
      const token = await touristToken(a.app, `race-${i}`);
      const res = await rent(a, token, 'PWL-VNO-001');
      expect(res.json().code, res.body).toBe(0);
      const tradeNo: string = res.json().data.outTradeNo;
      const { commandId, slot, powerbankId } = await ejectOf(a, tradeNo, 'PWL-VNO-001');
      const t = a.clock.now().getTime();
      const free = (
        await a.db.query<{ slot: number }>(
          `select s as slot from generate_series(1, 6) s where s not in (select slot from powerbanks where cabinet_id = 'PWL-LIS-001' and slot is not null) limit 1`,
        )
      ).rows[0]!.slot;
      // The pop and a quick return at another cabinet, handled at the same moment by two processes: process A
      // has applied the pop but not committed yet when process B handles the return.
      const rentals = a.app.powerly.rentals;
      let applied!: () => void;
      const popApplied = new Promise<void>((r) => (applied = r));
      let commit!: () => void;
      const gate = new Promise<void>((r) => (commit = r));
      rentals.onPopped = async (...args) => {
        await Object.getPrototypeOf(rentals).onPopped.apply(rentals, args);
        applied();
        await gate;
      };
      const pop = event(a, 'PWL-VNO-001', {
        ts: new Date(t + 1000).toISOString(),
        type: 'popped',
        commandId,
        slot,
        powerbankId,
      });
      await popApplied;
      const ret = event(b, 'PWL-LIS-001', {
        ts: new Date(t + 60_000).toISOString(),
        type: 'returned',
        slot: free,
        powerbankId,
      });
      await new Promise((r) => setTimeout(r, 300));
      commit();
      await Promise.all([pop, ret]);
      rentals.onPopped = Object.getPrototypeOf(rentals).onPopped;
      a.clock.advance(2 * MINUTE_MS);
      b.clock.advance(2 * MINUTE_MS); // two processes, one time
      expect(await order(a, tradeNo)).toMatchObject({ settled: true, powerbank_id: powerbankId });
      expect(await bank(a, powerbankId)).toMatchObject({ state: 'in_cabinet', cabinet_id: 'PWL-LIS-001', slot: free });
    }
  });

  it('a late popped never re-marks as rented a power bank that was returned after it', async () => {
    const a = await server({ simulator: false });
    await markHeardFrom(a, ['PWL-VNO-001']);
    const token = await touristToken(a.app, 'late-pop');
    const tradeNo: string = (await rent(a, token, 'PWL-VNO-001')).json().data.outTradeNo;
    const { commandId, slot, powerbankId } = await ejectOf(a, tradeNo, 'PWL-VNO-001');
    const t = a.clock.now().getTime();
    // The eject times out (order cancelled); the cabinet's popped is delayed; the bank is pushed back meanwhile.
    a.clock.advance(60_000);
    await a.app.powerly.jobs.runDue();
    expect(Number((await order(a, tradeNo)).zujie)).toBe(2);
    await event(a, 'PWL-VNO-001', { ts: new Date(t + 50_000).toISOString(), type: 'returned', slot: 6, powerbankId });
    await event(a, 'PWL-VNO-001', {
      ts: new Date(t + 2_000).toISOString(),
      type: 'popped',
      commandId,
      slot,
      powerbankId,
    });
    expect(await bank(a, powerbankId)).toMatchObject({ state: 'in_cabinet', cabinet_id: 'PWL-VNO-001', slot: 6 });
  });

  it('clamps a popped stamped in the future to now, and one before the command to the command time', async () => {
    const a = await server({ simulator: false });
    await markHeardFrom(a, ['PWL-VNO-001', 'PWL-LIS-001']);
    const pending = async (cabinet: string, user: string) => {
      const tradeNo: string = (await rent(a, await touristToken(a.app, user), cabinet)).json().data.outTradeNo;
      const { commandId, slot, powerbankId } = await ejectOf(a, tradeNo, cabinet);
      return { tradeNo, commandId, slot, powerbankId, issued: a.clock.now().getTime() };
    };
    const future = await pending('PWL-VNO-001', 'clamp-1');
    a.clock.advance(3_000);
    await event(a, 'PWL-VNO-001', {
      ts: new Date(a.clock.now().getTime() + 3600_000).toISOString(),
      type: 'popped',
      commandId: future.commandId,
      slot: future.slot,
      powerbankId: future.powerbankId,
    });
    expect(new Date((await order(a, future.tradeNo)).borrowed_at!).getTime()).toBe(a.clock.now().getTime());

    const past = await pending('PWL-LIS-001', 'clamp-2');
    a.clock.advance(3_000);
    await event(a, 'PWL-LIS-001', {
      ts: new Date(past.issued - 3600_000).toISOString(),
      type: 'popped',
      commandId: past.commandId,
      slot: past.slot,
      powerbankId: past.powerbankId,
    });
    expect(new Date((await order(a, past.tradeNo)).borrowed_at!).getTime()).toBe(past.issued);
  });
});

describe('inventory reconciliation', () => {
  it('an empty cabinet scans as empty and a rent is refused before any money moves', async () => {
    const b = await server({ simulator: false });
    await markHeardFrom(b, ['PWL-LIS-001']);
    const token = await touristToken(b.app, 'empty-1');
    await event(b, 'PWL-LIS-001', {
      ts: b.clock.now().toISOString(),
      type: 'heartbeat',
      slots: [1, 2, 3, 4, 5, 6].map((slot) => ({ slot, powerbankId: null, battery: null })),
    });
    const scan = await b.app.inject({
      method: 'POST',
      url: `${API}/cdb/cabinet/checkisok?url=PWL-LIS-001`,
      headers: { token },
    });
    expect(scan.json().data.haveBatteryCount).toBe(0);
    const res = await rent(b, token, 'PWL-LIS-001');
    expect(res.statusCode).toBe(409);
    expect((await b.db.query('select 1 from payments')).rows.length).toBe(0);
    expect(await bank(b, 'PB-LIS-0001')).toMatchObject({ state: 'missing', cabinet_id: null });
  });

  it('a heartbeat listing a rented power bank in a slot settles its order at the heartbeat time', async () => {
    const b = await server();
    const token = await touristToken(b.app, 'hb-settle');
    const { tradeNo, powerbankId } = await rentedOut(b, token, 'PWL-LIS-001');
    const borrowed = new Date((await order(b, tradeNo)).borrowed_at!).getTime();
    b.clock.advance(50 * MINUTE_MS);
    // The cabinet's 'returned' was never delivered (a v1 cabinet, or lost on the way); its heartbeat shows it.
    const slots = b.fleet!.get('PWL-VNO-001')!.inventory();
    const free = slots.find((s) => !s.powerbankId)!;
    free.powerbankId = powerbankId;
    free.battery = 80;
    const hbAt = new Date(borrowed + 45 * MINUTE_MS);
    await event(b, 'PWL-VNO-001', { ts: hbAt.toISOString(), type: 'heartbeat', slots });
    const o = await order(b, tradeNo);
    expect(o.settled).toBe(true);
    expect(new Date(o.returned_at!).getTime()).toBe(hbAt.getTime());
    expect(await bank(b, powerbankId)).toMatchObject({
      state: 'in_cabinet',
      cabinet_id: 'PWL-VNO-001',
      slot: free.slot,
    });
  });

  it('an unknown power bank is quarantined for an operator, never lent; unknown versions are refused and counted', async () => {
    const b = await server({ simulator: false });
    await markHeardFrom(b, ['PWL-LIS-001']);
    await event(b, 'PWL-LIS-001', {
      ts: b.clock.now().toISOString(),
      type: 'returned',
      slot: 5,
      powerbankId: 'PB-STRANGER-1',
    });
    expect(await bank(b, 'PB-STRANGER-1')).toMatchObject({ state: 'quarantined', cabinet_id: 'PWL-LIS-001', slot: 5 });
    const view = await b.app.powerly.cabinets.operatorView();
    expect(view.quarantined.map((q) => q.id)).toEqual(['PB-STRANGER-1']);
    // Rent everything lendable: three seeded power banks, the quarantined one is never aimed at.
    const slots: number[] = [];
    for (let i = 0; i < 4; i++) {
      const res = await rent(b, await touristToken(b.app, `q-${i}`), 'PWL-LIS-001');
      if (i < 3) {
        expect(res.json().code, res.body).toBe(0);
        slots.push(await commandSlot(b, res.json().data.outTradeNo));
      } else expect(res.statusCode).toBe(409);
    }
    expect(slots.sort()).toEqual([1, 2, 3]);
    // Taken out and put back: still quarantined (only an operator makes it lendable).
    const empty = [1, 2, 3, 4, 5, 6].map((slot) => ({ slot, powerbankId: null, battery: null }));
    await event(b, 'PWL-LIS-001', { ts: b.clock.now().toISOString(), type: 'heartbeat', slots: empty });
    b.clock.advance(1000);
    await event(b, 'PWL-LIS-001', {
      ts: b.clock.now().toISOString(),
      type: 'heartbeat',
      slots: empty.map((x) => (x.slot === 4 ? { slot: 4, powerbankId: 'PB-STRANGER-1', battery: 90 } : x)),
    });
    expect(await bank(b, 'PB-STRANGER-1')).toMatchObject({ state: 'quarantined', cabinet_id: 'PWL-LIS-001', slot: 4 });
    expect(await b.app.powerly.cabinets.releaseQuarantined('PB-STRANGER-1')).toBe(true);
    expect(await bank(b, 'PB-STRANGER-1')).toMatchObject({ state: 'in_cabinet', cabinet_id: 'PWL-LIS-001', slot: 4 });

    // A message of a protocol version this server does not speak: refused, counted, not stored, not acknowledged.
    const raw = b.connector.connect({ clientId: `probe-${uuid().slice(0, 8)}`, clean: true });
    await new Promise<void>((r) => raw.once('connect', () => r()));
    const acks: string[] = [];
    raw.on('message', (_t, p) => acks.push(p.toString()));
    await raw.subscribeAsync(`${b.prefix}/cabinets/PWL-LIS-001/commands`, { qos: 1 });
    await raw.publishAsync(
      `${b.prefix}/cabinets/PWL-LIS-001/events`,
      JSON.stringify({
        v: 3,
        id: 'ev-v3',
        ts: b.clock.now().toISOString(),
        type: 'returned',
        slot: 6,
        powerbankId: 'PB-LIS-0001',
      }),
      { qos: 1 },
    );
    await raw.publishAsync(
      `${b.prefix}/cabinets/PWL-LIS-001/events`,
      JSON.stringify({
        v: 2,
        id: 'ev-v2',
        ts: b.clock.now().toISOString(),
        type: 'returned',
        slot: 6,
        powerbankId: 'PB-STRANGER-2',
      }),
      { qos: 1 },
    );
    await waitFor(async () => acks.some((a) => a.includes('ev-v2')), 'the v2 event is acknowledged');
    expect(acks.some((a) => a.includes('ev-v3'))).toBe(false);
    const rejects = (await b.app.powerly.cabinets.operatorView()).rejects;
    expect(rejects).toEqual([
      expect.objectContaining({ cabinet_id: 'PWL-LIS-001', reason: 'unknown-version', count: 1 }),
    ]);
    expect((await b.db.query(`select 1 from cabinet_events where id = 'PWL-LIS-001:ev-v3'`)).rows.length).toBe(0);
    await raw.endAsync();
  });
});

describe('the inbox never drops an event', () => {
  it('an event that keeps failing becomes dead (visible to an operator), and an operator retry processes it', async () => {
    const b = await server({ simulator: false });
    await markHeardFrom(b, ['PWL-LIS-001']);
    const rentals = b.app.powerly.rentals;
    const real = rentals.onReturned.bind(rentals);
    rentals.onReturned = () => Promise.reject(new Error('database says no'));
    await event(b, 'PWL-LIS-001', {
      id: 'ev-dead',
      ts: b.clock.now().toISOString(),
      type: 'returned',
      slot: 6,
      powerbankId: 'PB-LIS-0002',
    });
    for (let i = 0; i < 20; i++) {
      b.clock.advance(10 * MINUTE_MS);
      await b.app.powerly.cabinets.processInbox();
    }
    const view = await b.app.powerly.cabinets.operatorView('dead');
    expect(view.inbox.events).toEqual([
      expect.objectContaining({ id: 'PWL-LIS-001:ev-dead', state: 'dead', last_error: 'database says no' }),
    ]);
    rentals.onReturned = real;
    expect(await b.app.powerly.cabinets.retryDead('PWL-LIS-001:ev-dead')).toBe(true);
    expect(await b.app.powerly.cabinets.processInbox()).toBe(1);
    expect(await bank(b, 'PB-LIS-0002')).toMatchObject({ cabinet_id: 'PWL-LIS-001', slot: 6 });
  });
});
