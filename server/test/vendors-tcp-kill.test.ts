// The binary TCP family's gateway in a real API process (`node server/src/main.ts`, PostgreSQL) killed with SIGKILL
// right after a borrow ejected at the cabinet, its answer lost with the process: the next process settles the eject
// from the cabinet's inventory when it logs in again, the rental started once, and no second borrow is sent.
// The in-process variant (the gateway object closed) is in vendors-tcp-faults.test.ts.
// Needs PostgreSQL (DATABASE_URL, a database is made and dropped).
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TCP_CMD } from '../src/modules/cabinets/vendors/tcp60/codec.ts';
import { TcpCabinet } from '../src/demo/vendors/tcp-cabinet.ts';
import { waitFor } from './helper.ts';
import { call, children, freePort, kill9, serve } from './processes.ts';

const PG = process.env.DATABASE_URL;
const API = '/cdb-app-api/v1/app';
const SECRET = 's3cret';
const CABINET = 'BX-BX07';
const BANKS = ['PB000071', 'PB000072'];
const dbName = `powerly_tcpkill_${process.pid}`;

describe.skipIf(!PG)("the TCP gateway's API process killed with SIGKILL after a borrow", () => {
  let admin: pg.Client;
  let db: pg.Client;
  let dbUrl = '';
  const cab = new TcpCabinet('BX07', [...BANKS, null, null], SECRET);
  beforeAll(async () => {
    admin = new pg.Client({ connectionString: PG });
    await admin.connect();
    await admin.query(`drop database if exists "${dbName}"`);
    await admin.query(`create database "${dbName}"`);
    const u = new URL(PG!);
    u.pathname = `/${dbName}`;
    dbUrl = u.toString();
  }, 60_000);
  afterAll(async () => {
    await cab.close();
    for (const c of children.splice(0).reverse()) if (c.exitCode === null) c.kill('SIGKILL');
    await db?.end().catch(() => undefined);
    await new Promise((r) => setTimeout(r, 500));
    await admin?.query(`drop database if exists "${dbName}" with (force)`).catch(() => undefined);
    await admin?.end().catch(() => undefined);
  });

  const count = async (sql: string) => Number((await db.query<{ n: number }>(sql, [CABINET])).rows[0]!.n);
  const order = async (id: string) =>
    (
      await db.query<{ zujie: number; powerbank_id: string | null }>(
        'select zujie, powerbank_id from orders where id = $1',
        [id],
      )
    ).rows[0]!;
  const borrows = () => cab.received.filter((f) => f.cmd === TCP_CMD.borrow).length;

  it("the next process settles it popped at the cabinet's login: the rental started once, no second borrow", async () => {
    const tcpPort = await freePort();
    // Each process with its own embedded broker (the first one's lock dies with it) and the TCP gateway on one port.
    // The eject's TTL outlasts a slow restart on a loaded machine, so the login, not the expiry, decides it.
    const env = async () => ({
      DATABASE_URL: dbUrl,
      MQTT_PORT: String(await freePort()),
      VENDOR_TCP_PORT: String(tcpPort),
      VENDOR_TCP_HOST: '127.0.0.1',
      VENDOR_TCP_SECRET: SECRET,
      EJECT_TTL_MS: '300000',
    });
    const a = await serve('A', await env());
    db = new pg.Client({ connectionString: dbUrl });
    await db.connect();
    await db.query(
      `insert into cabinets (id, venue_id, slot_count) select $1, venue_id, 4 from cabinets where id = 'PWL-VNO-001'`,
      [CABINET],
    );
    for (const [i, id] of BANKS.entries()) {
      await db.query(`insert into powerbanks (id, state, cabinet_id, slot) values ($1, 'in_cabinet', $2, $3)`, [
        id,
        CABINET,
        i + 1,
      ]);
    }
    expect((await cab.connect(tcpPort))[0]).toBe(0x01);
    await waitFor(
      async () => (await count('select count(*)::int as n from cabinets where online and id = $1')) === 1,
      'the cabinet online',
      30_000,
    );

    // A rider rents at process A; the cabinet ejects, and its answer is lost with A, killed right then.
    cab.loseNextAnswer = true;
    const login = await call(a, 'POST', `${API}/saas/tourist/login?code=tcp-kill-rider-000001`);
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
    const tradeNo = (rent.json.data as unknown as { outTradeNo: string }).outTradeNo;
    await waitFor(
      async () => borrows() === 1 && BANKS.filter((id) => !cab.banks.includes(id)).length === 1,
      'the borrow ejected',
      60_000,
    );
    await kill9(a);
    const out = BANKS.find((id) => !cab.banks.includes(id))!;
    await waitFor(async () => !cab.online, 'the connection died with the process');
    expect(Number((await order(tradeNo)).zujie)).toBe(0); // its answer never arrived

    // The next process; the cabinet connects again (refused while nothing listens) and logs in.
    await serve('B', await env());
    await waitFor(
      async () => {
        try {
          return (await cab.connect(tcpPort))[0] === 0x01;
        } catch {
          return false;
        }
      },
      'the cabinet logged in to process B',
      60_000,
    );
    await waitFor(
      async () => Number((await order(tradeNo)).zujie) === 1,
      'the rental started from the login inventory',
      60_000,
    );
    expect((await order(tradeNo)).powerbank_id).toBe(out);
    // Process B re-sends the cabinet's unanswered commands when it comes online: the eject is settled, not sent again.
    await waitFor(
      async () => (await count('select count(*)::int as n from vendor_ejects where cabinet_id = $1')) === 0,
      'the eject settled',
      30_000,
    );
    await cab.heartbeat(); // a round trip on the same connection: anything B sent before its answer has arrived
    expect(borrows()).toBe(1);
    expect(await count(`select count(*)::int as n from cabinet_events where cabinet_id = $1 and type = 'popped'`)).toBe(
      1,
    );
    expect(cab.banks.filter(Boolean)).toHaveLength(1);
  }, 300_000);
});
