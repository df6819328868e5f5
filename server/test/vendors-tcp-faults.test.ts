// Faults of the binary TCP family's link: a frame damaged on the way (dropped and counted, the connection kept), a
// frame repeated (one event), a wrong token (refused), and the gateway process killed after sending a borrow (the
// next one settles the eject from the cabinet's inventory at its login, so no rental waits for a lost answer).
import { afterEach, describe, expect, it } from 'vitest';
import { TCP_CMD, encodeReturn, encodeTcp } from '../src/modules/cabinets/vendors/tcp60/codec.ts';
import { TcpGateway, type TcpGatewayOptions } from '../src/modules/cabinets/vendors/tcp60/gateway.ts';
import type { EdgeSink, VendorGateway } from '../src/modules/cabinets/vendors/gateway.ts';
import { VendorEjectsRepository } from '../src/modules/cabinets/vendor-ejects-repository.ts';
import type { EjectCommand, ServerMessage } from '../src/modules/cabinets/protocol.ts';
import { TcpCabinet } from '../src/demo/vendors/tcp-cabinet.ts';
import { build, cabinetsOnline, cardToken, touristToken, waitFor, type Built } from './helper.ts';

const SECRET = 's3cret';
const API = '/cdb-app-api/v1/app';
const CABINET = 'BX-BX07';
const quiet = {
  info() {},
  warn() {},
  error(...a: unknown[]) {
    console.error(...a);
  },
};
const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const x of open.splice(0).reverse()) await x.close().catch(() => undefined);
});

/** The gateway of one API process; `kill` ends it with everything it held in memory, `restart` starts the next one. */
class Process implements VendorGateway {
  readonly family = 'tcp60';
  inner: TcpGateway;
  private sink: EdgeSink | null = null;
  constructor(private readonly opts: () => TcpGatewayOptions) {
    this.inner = new TcpGateway(opts());
  }
  owns(id: string) {
    return this.inner.owns(id);
  }
  send(id: string, m: ServerMessage) {
    return this.inner.send(id, m);
  }
  async start(sink: EdgeSink) {
    this.sink = sink;
    await this.inner.start(sink);
  }
  close() {
    return this.inner.close();
  }
  async kill() {
    await this.inner.close();
  }
  async restart(port: number) {
    this.inner = new TcpGateway({ ...this.opts(), port });
    await this.inner.start(this.sink!);
  }
}

async function server() {
  let proc!: Process;
  const b = await build({
    simulator: false,
    gateways: ({ clock, db }) => [
      (proc = new Process(() => ({
        port: 0,
        host: '127.0.0.1',
        secret: SECRET,
        idPrefix: 'BX-',
        log: quiet,
        now: () => clock.now().getTime(),
        ejects: new VendorEjectsRepository(db),
      }))),
    ],
  });
  open.push(b);
  await b.db.query(
    `insert into cabinets (id, venue_id, slot_count) select $1, venue_id, 4 from cabinets where id = 'PWL-VNO-001'`,
    [CABINET],
  );
  for (const [i, id] of ['PB000071', 'PB000072'].entries()) {
    await b.db.query(`insert into powerbanks (id, state, cabinet_id, slot) values ($1, 'in_cabinet', $2, $3)`, [
      id,
      CABINET,
      i + 1,
    ]);
  }
  const cab = new TcpCabinet('BX07', ['PB000071', 'PB000072', null, null], SECRET);
  open.push(cab);
  expect((await cab.connect(proc.inner.port!))[0]).toBe(0x01);
  await cabinetsOnline(b, [CABINET]);
  return { b, proc, cab };
}
const order = async (b: Built, id: string) =>
  (
    await b.db.query<{ zujie: number; powerbank_id: string | null }>(
      'select zujie, powerbank_id from orders where id = $1',
      [id],
    )
  ).rows[0]!;
async function rent(b: Built, who: string) {
  const res = await b.app.inject({
    method: 'POST',
    url: `${API}/cdb/cabinet/useDepositToRent`,
    headers: { token: await touristToken(b.app, who) },
    payload: { qrcode: CABINET, stripeToken: await cardToken(b.app), paymentId: 'card-sandbox' },
  });
  expect(res.json().code, res.body).toBe(0);
  return res.json().data.outTradeNo as string;
}
const count = async (b: Built, sql: string) => Number((await b.db.query<{ n: number }>(sql, [CABINET])).rows[0]!.n);
const borrows = (cab: TcpCabinet) => cab.received.filter((f) => f.cmd === TCP_CMD.borrow).length;
const command = async (b: Built, tradeNo: string) => {
  const p = (
    await b.db.query<{ payload: unknown }>('select payload from cabinet_commands where order_id = $1', [tradeNo])
  ).rows[0]!.payload;
  return (typeof p === 'string' ? JSON.parse(p) : p) as EjectCommand;
};

describe('TCP family link faults', () => {
  it('a frame with a bad checksum is dropped and counted, the connection kept; a repeated frame is one event; a wrong token ends it', async () => {
    const { b, proc, cab } = await server();
    const frame = encodeTcp(TCP_CMD.returned, encodeReturn(3, 'PB000073'), SECRET);
    const damaged = Buffer.from(frame);
    damaged[4] = damaged[4]! ^ 0xff;
    cab.raw(damaged);
    await waitFor(
      async () =>
        (await count(
          b,
          `select coalesce(sum(count), 0)::int as n from cabinet_rejects where cabinet_id = $1 and reason = 'vendor-tcp-checksum'`,
        )) === 1,
      'the damaged frame counted',
    );
    expect(proc.inner.stats.badChecksum).toBe(1);
    expect(cab.online).toBe(true);
    await cab.heartbeat(); // the same connection still answers
    expect(
      await count(b, `select count(*)::int as n from cabinet_events where cabinet_id = $1 and type = 'returned'`),
    ).toBe(0);

    // The same return frame twice (a repeat on the wire): answered twice, one event.
    const answers = [cab.next(TCP_CMD.returned), cab.next(TCP_CMD.returned)];
    cab.raw(frame);
    cab.raw(frame);
    await Promise.all(answers);
    expect(
      await count(b, `select count(*)::int as n from cabinet_events where cabinet_id = $1 and type = 'returned'`),
    ).toBe(1);

    // A frame signed with another secret after the login: refused, counted, the connection closed.
    cab.raw(encodeTcp(TCP_CMD.heartbeat, Buffer.alloc(0), 'not-the-secret'));
    await waitFor(async () => !cab.online, 'the connection ended');
    expect(
      await count(
        b,
        `select coalesce(sum(count), 0)::int as n from cabinet_rejects where cabinet_id = $1 and reason = 'vendor-tcp-malformed'`,
      ),
    ).toBe(1);
  }, 90_000);

  it('one eject sent twice at once (the rental publishing it as the online cabinet is re-sent its commands): one borrow', async () => {
    const { b, cab } = await server();
    const ts = b.clock.now().toISOString();
    const eject = { v: 2, id: 'twice', type: 'eject', ts, ttlMs: 30_000, slot: 1 } as const;
    await Promise.all([b.link.send(CABINET, eject), b.link.send(CABINET, eject)]);
    await cab.heartbeat(); // answered after every frame the gateway wrote before it
    expect(borrows(cab)).toBe(1);
    expect(cab.banks).toEqual([null, 'PB000072', null, null]);
  }, 90_000);

  it('the gateway killed after a borrow that ejected: the next one settles it popped at the login, no second borrow', async () => {
    const { b, proc, cab } = await server();
    const port = proc.inner.port!;
    cab.loseNextAnswer = true;
    const tradeNo = await rent(b, 'tcp-killed-out');
    await waitFor(
      async () => borrows(cab) === 1 && !cab.banks.includes('PB000071') !== !cab.banks.includes('PB000072'),
      'the borrow ejected',
      30_000,
    );
    const out = ['PB000071', 'PB000072'].find((id) => !cab.banks.includes(id))!;
    expect(Number((await order(b, tradeNo)).zujie)).toBe(0); // its answer never arrived
    await proc.kill();
    await waitFor(async () => !cab.online, 'the connection died with the process');

    await proc.restart(port);
    expect((await cab.connect(port))[0]).toBe(0x01);
    await waitFor(
      async () => Number((await order(b, tradeNo)).zujie) === 1,
      'the rental started from the login inventory',
    );
    expect((await order(b, tradeNo)).powerbank_id).toBe(out);
    // The eject re-published by the link after the restart: the same outcome, no second borrow.
    await b.link.send(CABINET, await command(b, tradeNo));
    expect(borrows(cab)).toBe(1);
    expect(
      await count(b, `select count(*)::int as n from cabinet_events where cabinet_id = $1 and type = 'popped'`),
    ).toBe(1);
    expect(await count(b, 'select count(*)::int as n from vendor_ejects where cabinet_id = $1')).toBe(0);
  }, 90_000);

  it('the gateway killed after a borrow that never reached the cabinet: the re-published eject is settled pop-failed, nothing ejected', async () => {
    const { b, proc, cab } = await server();
    const port = proc.inner.port!;
    cab.missNext = true;
    const tradeNo = await rent(b, 'tcp-killed-in');
    await waitFor(async () => borrows(cab) === 1, 'the borrow sent');
    await proc.kill();
    await waitFor(async () => !cab.online, 'the connection died with the process');
    await proc.restart(port);
    expect((await cab.connect(port))[0]).toBe(0x01);
    await waitFor(async () => Number((await order(b, tradeNo)).zujie) === 2, 'the rental cancelled (pop-failed)');
    await b.link.send(CABINET, await command(b, tradeNo));
    expect(borrows(cab)).toBe(1);
    expect(cab.banks.filter(Boolean)).toHaveLength(2);
  }, 90_000);
});
