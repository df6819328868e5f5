// Scale-out as production runs it: two real API processes (`node server/src/main.ts`, the same PostgreSQL database)
// in one shared group on a Mosquitto of their own, each with a stable client id, and a cabinet written from the
// protocol document (this file plays it over MQTT). A process killed with SIGKILL right after it sent an eject, and
// later the other one while a return is held: the cabinet's re-sends reach the live process, the rental starts
// within the eject's TTL and the return is settled at the time the cabinet reported it, though a heartbeat listing
// the power bank arrived first. And the embedded broker (one process only) refuses a shared group at start, and a
// second process with its own embedded broker on the same database.
// Needs PostgreSQL (DATABASE_URL, a database is made and dropped) and /usr/sbin/mosquitto.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import mqtt, { type MqttClient } from 'mqtt';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from './helper.ts';
import { MOSQUITTO, ROOT, call, children, freePort, kill9, serve, startMosquitto } from './processes.ts';

const PG = process.env.DATABASE_URL;
const CABINET = 'PWL-LIS-001';
const PREFIX = `two${process.pid}`;
const API = '/cdb-app-api/v1/app';

/** The cabinet, from docs/cabinet-protocol.md: status, heartbeats, acks, events kept and re-sent until event-ack. */
class Cabinet {
  client!: MqttClient;
  readonly commands: Record<string, unknown>[] = [];
  readonly acked = new Set<string>();
  private readonly outbox = new Map<string, Record<string, unknown>>();
  private timer: NodeJS.Timeout | null = null;
  constructor(readonly slots: { slot: number; powerbankId: string | null }[]) {}

  topic(kind: 'commands' | 'acks' | 'events' | 'status') {
    return `${PREFIX}/cabinets/${CABINET}/${kind}`;
  }

  async connect(port: number) {
    this.client = mqtt.connect(`mqtt://127.0.0.1:${port}`, {
      clientId: `cab-${CABINET}-${process.pid}`,
      clean: true,
      reconnectPeriod: 500,
      will: {
        topic: this.topic('status'),
        payload: Buffer.from(JSON.stringify({ v: 2, online: false, ts: new Date().toISOString() })),
        qos: 1,
        retain: true,
      },
    });
    this.client.on('message', (_t, payload) => {
      const m = JSON.parse(payload.toString()) as Record<string, unknown>;
      if (m.type === 'event-ack') {
        this.acked.add(m.eventId as string);
        this.outbox.delete(m.eventId as string);
        return;
      }
      this.commands.push(m);
      void this.client.publishAsync(
        this.topic('acks'),
        JSON.stringify({ v: 2, commandId: m.id, ts: new Date().toISOString(), status: 'accepted' }),
        { qos: 1 },
      );
    });
    await new Promise<void>((r) => this.client.once('connect', () => r()));
    await this.client.subscribeAsync(this.topic('commands'), { qos: 1 });
    await this.client.publishAsync(
      this.topic('status'),
      JSON.stringify({ v: 2, online: true, ts: new Date().toISOString() }),
      { qos: 1, retain: true },
    );
    await this.heartbeat();
    // Every unacknowledged event again each second (the protocol's re-send), and a heartbeat every 5 s.
    let n = 0;
    this.timer = setInterval(() => {
      for (const e of this.outbox.values())
        void this.client.publishAsync(this.topic('events'), JSON.stringify(e), { qos: 1 }).catch(() => undefined);
      if (++n % 5 === 0) void this.heartbeat().catch(() => undefined);
    }, 1_000);
  }

  heartbeat() {
    const slots = this.slots.map((s) => ({ ...s, battery: s.powerbankId ? 100 : null }));
    return this.client.publishAsync(
      this.topic('events'),
      JSON.stringify({
        v: 2,
        id: `hb-${Date.now()}-${Math.random()}`,
        ts: new Date().toISOString(),
        type: 'heartbeat',
        slots,
      }),
      { qos: 1 },
    );
  }

  /** An event kept until the server acknowledges it (published now and re-sent each second). */
  async event(e: Record<string, unknown>) {
    this.outbox.set(e.id as string, e);
    await this.client.publishAsync(this.topic('events'), JSON.stringify(e), { qos: 1 });
  }

  async close() {
    if (this.timer) clearInterval(this.timer);
    await this.client?.endAsync(true);
  }
}

let admin: pg.Client;
let db: pg.Client;
let dbUrl = '';
const dbName = `powerly_two_${process.pid}`;
const order = async (id: string) =>
  (
    await db.query<{ zujie: number; borrowed_at: Date | null; returned_at: Date | null; settled: boolean }>(
      'select zujie, borrowed_at, returned_at, settled from orders where id = $1',
      [id],
    )
  ).rows[0];

describe.skipIf(!PG || !existsSync(MOSQUITTO))(
  'two API processes in a shared group on Mosquitto, one killed with SIGKILL',
  () => {
    let brokerPort = 0;
    const cabinet = new Cabinet([]);
    beforeAll(async () => {
      admin = new pg.Client({ connectionString: PG });
      await admin.connect();
      await admin.query(`drop database if exists "${dbName}"`);
      await admin.query(`create database "${dbName}"`);
      const u = new URL(PG!);
      u.pathname = `/${dbName}`;
      dbUrl = u.toString();
      brokerPort = await freePort();
      await startMosquitto(brokerPort);
    }, 60_000);
    afterAll(async () => {
      await cabinet.close().catch(() => undefined);
      for (const c of children.reverse()) if (c.exitCode === null) c.kill('SIGKILL');
      await db?.end().catch(() => undefined);
      await new Promise((r) => setTimeout(r, 500));
      await admin?.query(`drop database if exists "${dbName}" with (force)`).catch(() => undefined);
      await admin?.end().catch(() => undefined);
    });

    it("an eject answered after its sender died starts the rental; a return after the other died is settled at the cabinet's time", async () => {
      const env = (id: string) => ({
        DATABASE_URL: dbUrl,
        MQTT_URL: `mqtt://127.0.0.1:${brokerPort}`,
        MQTT_PREFIX: PREFIX,
        MQTT_SHARED_GROUP: 'api',
        MQTT_CLIENT_ID: id,
      });
      const a = await serve('A', env('api-a'));
      const b = await serve('B', env('api-b'));
      db = new pg.Client({ connectionString: dbUrl });
      await db.connect();
      const banks = (
        await db.query<{ id: string; slot: number }>(
          'select id, slot from powerbanks where cabinet_id = $1 and slot is not null order by slot',
          [CABINET],
        )
      ).rows;
      const slots = (await db.query<{ slot_count: number }>('select slot_count from cabinets where id = $1', [CABINET]))
        .rows[0]!.slot_count;
      cabinet.slots.push(
        ...Array.from({ length: slots }, (_, i) => ({
          slot: i + 1,
          powerbankId: banks.find((x) => x.slot === i + 1)?.id ?? null,
        })),
      );
      await cabinet.connect(brokerPort);
      await waitFor(
        async () =>
          (
            await db.query(
              "select 1 from cabinets where id = $1 and online and last_seen_at > now() - interval '20 seconds'",
              [CABINET],
            )
          ).rowCount === 1,
        'the cabinet online',
        30_000,
      );

      // A rider rents at process A; A publishes the eject, and dies (SIGKILL) before the cabinet answers.
      const login = await call(a, 'POST', `${API}/saas/tourist/login?code=two-process-rider-0001`);
      const token = login.json.data as unknown as string;
      const card = await fetch(`http://127.0.0.1:${a.port}/sandbox-pay/v1/tokens`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          publicKey: 'pk_sandbox_powerly',
          number: '4242 4242 4242 4242',
          expMonth: '12',
          expYear: '2030',
          cvc: '123',
        }),
      }).then((r) => r.json() as Promise<{ id: string }>);
      const rent = await call(
        a,
        'POST',
        `${API}/cdb/cabinet/useDepositToRent`,
        { qrcode: CABINET, stripeToken: card.id, paymentId: 'card-sandbox' },
        { token },
      );
      expect(rent.json.code, JSON.stringify(rent.json)).toBe(0);
      const orderId = (rent.json.data as unknown as { outTradeNo: string }).outTradeNo;
      const eject = await waitFor(
        async () => cabinet.commands.find((c) => c.type === 'eject'),
        'the eject reached the cabinet',
        20_000,
      );
      await kill9(a);
      // Events published once each (no re-send) after the kill: every one reaches the live process. A session kept
      // for the dead one in the group would take its turn of them and hold it until that process came back.
      const probes = Array.from({ length: 6 }, (_, i) => ({
        v: 2,
        id: `probe-${i}-${process.pid}`,
        ts: new Date().toISOString(),
        type: 'powerbank-fault',
        powerbankId: `PB-PROBE-${i}`,
        reason: 'probe',
      }));
      for (const p of probes) await cabinet.client.publishAsync(cabinet.topic('events'), JSON.stringify(p), { qos: 1 });
      const stored = async () =>
        Number(
          (
            await db.query<{ n: number }>('select count(*)::int as n from cabinet_events where id = any($1::text[])', [
              probes.map((p) => `${CABINET}:${p.id}`),
            ])
          ).rows[0]!.n,
        );
      await waitFor(
        async () => (await stored()) === probes.length,
        'every event published after the kill stored by process B',
        30_000,
      );
      const slot = eject.slot as number;
      const powerbankId = cabinet.slots[slot - 1]!.powerbankId!;
      cabinet.slots[slot - 1]!.powerbankId = null;
      await cabinet.event({
        v: 2,
        id: `pop-${eject.id as string}`,
        ts: new Date().toISOString(),
        type: 'popped',
        commandId: eject.id,
        slot,
        powerbankId,
      });
      // The re-sends reach process B (no session kept for the dead A in the group): the rental starts. How soon is a
      // matter of the machine's load, not of this rule (the bench measures speed; a test does not time it).
      await waitFor(async () => (await order(orderId))?.zujie === 1, 'the rental started on process B', 60_000);
      await waitFor(async () => cabinet.acked.has(`pop-${eject.id as string}`), 'the popped acknowledged');

      // A comes back with the same client id; B dies. The cabinet was offline when the power bank came back: it
      // reports the return with the time it happened, after a heartbeat that already lists the power bank.
      await serve('A again', env('api-a'));
      await kill9(b);
      // The return happened a second into the rental, and the heartbeat reports it later: on a quiet machine A is
      // back within a second or two, so "a few seconds ago" could fall before the pop.
      const borrowedAt = (await order(orderId))!.borrowed_at!.getTime();
      await waitFor(async () => Date.now() > borrowedAt + 2_000, 'the heartbeat later than the return');
      const returnedAt = new Date(borrowedAt + 1_000);
      cabinet.slots[slot - 1]!.powerbankId = powerbankId;
      await cabinet.heartbeat();
      await cabinet.event({
        v: 2,
        id: `ret-${orderId}`,
        ts: returnedAt.toISOString(),
        type: 'returned',
        slot,
        powerbankId,
      });
      // The heartbeat may settle it first (at its own time); once the returned event is handled, the rental ends at
      // the cabinet's time.
      await waitFor(async () => cabinet.acked.has(`ret-${orderId}`), 'the return acknowledged', 60_000);
      await waitFor(
        async () =>
          (
            await db.query(`select 1 from cabinet_events where id = $1 and state = 'done'`, [
              `${CABINET}:ret-${orderId}`,
            ])
          ).rowCount === 1,
        'the return handled',
        30_000,
      );
      const done = (await order(orderId))!;
      expect(done.settled).toBe(true);
      expect(done.returned_at!.toISOString()).toBe(returnedAt.toISOString());
      const events = await db.query<{ state: string; n: number }>(
        `select state, count(*)::int as n from cabinet_events where cabinet_id = $1 and type <> 'heartbeat' group by state`,
        [CABINET],
      );
      expect(events.rows.filter((r) => r.state !== 'done')).toEqual([]);
    }, 300_000);
  },
);

/** Runs main.ts with `env` until it exits (a refusal at start); its exit code and output. */
async function refused(env: Record<string, string>) {
  const proc = spawn(process.execPath, ['--import', 'tsx', 'server/src/main.ts'], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? '',
      PORT: '0',
      DEMO_PARTNER_PORT: 'off',
      SIMULATOR: 'off',
      DIST_DIR: '/nonexistent',
      ...env,
    },
  });
  children.push(proc);
  let out = '';
  proc.stdout.on('data', (d: Buffer) => (out += d.toString()));
  proc.stderr.on('data', (d: Buffer) => (out += d.toString()));
  const code = await new Promise<number | null>((r) => proc.on('exit', r));
  return { code, out };
}

describe('the embedded broker is one process', () => {
  afterAll(() => {
    for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
  });

  it('refuses MQTT_SHARED_GROUP without MQTT_URL at start, saying why', async () => {
    const r = await refused({ MQTT_PORT: 'off', MQTT_SHARED_GROUP: 'api', DATA_DIR: '/nonexistent/powerly' });
    expect(r.code).toBe(1);
    expect(r.out).toContain('MQTT_SHARED_GROUP needs MQTT_URL');
    expect(r.out).not.toContain('Powerly is running');
  }, 90_000);

  it.skipIf(!PG)(
    'refuses a second process with its own embedded broker on the same database; the first killed, it starts',
    async () => {
      const name = `powerly_embedded_${process.pid}`;
      const root = new pg.Client({ connectionString: PG });
      await root.connect();
      try {
        await root.query(`drop database if exists "${name}"`);
        await root.query(`create database "${name}"`);
        const u = new URL(PG!);
        u.pathname = `/${name}`;
        const first = await serve('embedded first', {
          DATABASE_URL: u.toString(),
          MQTT_PORT: String(await freePort()),
        });
        const second = await refused({ DATABASE_URL: u.toString(), MQTT_PORT: String(await freePort()) });
        expect(second.code).toBe(1);
        expect(second.out).toContain('another API process on this database runs the embedded MQTT broker');
        expect(second.out).not.toContain('Powerly is running');
        // SIGKILL: no clean stop, yet the database drops the dead connection's lock and a new process may start.
        await kill9(first);
        const next = await serve('embedded next', { DATABASE_URL: u.toString(), MQTT_PORT: String(await freePort()) });
        await kill9(next);
      } finally {
        await new Promise((r) => setTimeout(r, 500));
        await root.query(`drop database if exists "${name}" with (force)`).catch(() => undefined);
        await root.end();
      }
    },
    300_000,
  );
});
