// The binary TCP cabinet family (0x60–0x8F): the codec byte by byte against frames laid out as the family's
// document lays them out, and a cabinet of the family (server/src/demo/vendors/tcp-cabinet.ts) connected to the
// gateway's TCP server, rented from and returned to end to end.
import { afterEach, describe, expect, it } from 'vitest';
import {
  SLOT_BITS,
  TCP_CMD,
  TcpFrameError,
  TcpFramer,
  decodeAnomaly,
  decodeEjectResult,
  decodeInventory,
  decodeLogin,
  decodeReturn,
  decodeTcp,
  encodeAnomaly,
  encodeEjectResult,
  encodeInventory,
  encodeLogin,
  encodeReturn,
  encodeTcp,
  tcpRequest,
  tcpToken,
  xorChecksum,
} from '../src/modules/cabinets/vendors/tcp60/codec.ts';
import { TcpGateway } from '../src/modules/cabinets/vendors/tcp60/gateway.ts';
import { CabinetCredentialsRepository } from '../src/modules/cabinets/credentials-repository.ts';
import { CabinetTokenSecrets, cabinetSecretsKey, openSecret } from '../src/modules/cabinets/token-secrets.ts';
import type { EjectCommand } from '../src/modules/cabinets/protocol.ts';
import { TcpCabinet } from '../src/demo/vendors/tcp-cabinet.ts';
import { build, cabinetsOnline, cardToken, touristToken, waitFor, type Built } from './helper.ts';

const hex = (s: string) => Buffer.from(s.replace(/\s+/g, ''), 'hex');
const show = (b: Buffer) =>
  b
    .toString('hex')
    .toUpperCase()
    .replace(/(..)(?!$)/g, '$1 ');
const SECRET = 's3cret';
const quiet = {
  info() {},
  warn() {},
  error(...a: unknown[]) {
    console.error(...a);
  },
};

describe('TCP family codec', () => {
  it('header: length of what follows, command, version, XOR checksum, token = MD5(payload ‖ secret)[0..4]', () => {
    expect(show(encodeTcp(TCP_CMD.heartbeat, Buffer.alloc(0), SECRET))).toBe('00 07 61 01 00 33 E1 B2 32');
    expect(show(encodeTcp(TCP_CMD.borrow, tcpRequest.slot(3), SECRET))).toBe('00 08 65 01 03 4C E9 FE A9 03');
    expect(xorChecksum(hex('03 01 50'))).toBe(0x52);
    expect(show(tcpToken(hex('03'), SECRET))).toBe('4C E9 FE A9');
    expect(decodeTcp(hex('00 08 65 01 03 4C E9 FE A9 03'), SECRET)).toEqual({
      cmd: 0x65,
      version: 1,
      payload: hex('03'),
    });
    expect(() => decodeTcp(hex('00 08 65 01 03 4C E9 FE A9 03'), 'other')).toThrow(/token/);
    expect(() => decodeTcp(hex('00 08 65 01 02 4C E9 FE A9 03'), SECRET)).toThrow(/checksum/);
    expect(() => decodeTcp(hex('00 09 65 01 03 4C E9 FE A9 03'), SECRET)).toThrow(TcpFrameError);
    // A stream cut anywhere gives back whole frames.
    const two = Buffer.concat([hex('00 07 61 01 00 33 E1 B2 32'), hex('00 08 65 01 03 4C E9 FE A9 03')]);
    const framer = new TcpFramer();
    expect(
      [...framer.push(two.subarray(0, 5)), ...framer.push(two.subarray(5, 12)), ...framer.push(two.subarray(12))].map(
        show,
      ),
    ).toEqual(['00 07 61 01 00 33 E1 B2 32', '00 08 65 01 03 4C E9 FE A9 03']);
  });

  it('0x60 login: box id, slots, per slot id, level, voltage, current, temperature, status bits, health', () => {
    const frame = hex(
      '00 1F 60 01 21 AC F4 FC 6A 00 04 42 58 30 31 01 01 50 42 30 30 30 30 30 31 57 10 04 01 F4 FE 07 62',
    );
    const f = decodeTcp(frame, SECRET);
    const login = decodeLogin(f.payload);
    expect(login).toEqual({
      boxId: 'BX01',
      slots: [
        {
          slot: 1,
          bankId: 'PB000001',
          level: 87,
          voltage: 4100,
          current: 500,
          temperature: -2,
          status: 0x07,
          health: 98,
        },
      ],
    });
    expect(login.slots[0]!.status & SLOT_BITS.locked).toBeTruthy();
    expect(show(encodeTcp(TCP_CMD.login, encodeLogin(login.boxId, login.slots), SECRET))).toBe(show(frame));
  });

  it('0x64 inventory, 0x65 borrow result with slot lock states, 0x66 return, 0x83 slot anomaly', () => {
    const borrow = hex('00 14 65 01 12 AA B8 33 47 03 01 50 42 30 30 30 30 30 31 02 00 01');
    const r = decodeEjectResult(decodeTcp(borrow, SECRET).payload);
    expect(r).toEqual({ slot: 3, ok: true, bankId: 'PB000001', locks: [false, true] });
    expect(show(encodeTcp(TCP_CMD.borrow, encodeEjectResult(r), SECRET))).toBe(show(borrow));
    const ret = hex('00 10 66 01 10 32 EF E3 C7 03 50 42 30 30 30 30 30 31');
    expect(decodeReturn(decodeTcp(ret, SECRET).payload)).toEqual({ slot: 3, bankId: 'PB000001' });
    expect(show(encodeTcp(TCP_CMD.returned, encodeReturn(3, 'PB000001'), SECRET))).toBe(show(ret));
    const inv = [
      { slot: 1, bankId: 'PB000001', level: 90 },
      { slot: 4, bankId: 'PB000004', level: 12 },
    ];
    expect(decodeInventory(encodeInventory(inv))).toEqual(inv);
    expect(show(encodeInventory(inv).subarray(0, 11))).toBe('02 01 50 42 30 30 30 30 30 31 5A');
    expect(decodeAnomaly(encodeAnomaly(2, 0x01, 'PB000002'))).toEqual({
      slot: 2,
      kind: 'no-unlock-command',
      bankId: 'PB000002',
    });
    expect(decodeAnomaly(encodeAnomaly(5, 0x02, null))).toEqual({
      slot: 5,
      kind: 'return-without-power-bank',
      bankId: null,
    });
    expect(() => tcpRequest.volume(16)).toThrow(RangeError);
    expect(() => encodeReturn(1, 'TOO-LONG-ID')).toThrow(RangeError);
  });
});

const API = '/cdb-app-api/v1/app';
const CABINET = 'BX-BX01';
const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const x of open.splice(0).reverse()) await x.close().catch(() => undefined);
});
const order = async (b: Built, id: string) =>
  (
    await b.db.query<{ zujie: number; settled: boolean; powerbank_id: string | null }>(
      'select zujie, settled, powerbank_id from orders where id = $1',
      [id],
    )
  ).rows[0]!;

describe("a cabinet of the TCP family, through the gateway's TCP server", () => {
  it('logs in (online, inventory), a rental ejects with a borrow (popped), a return is stored before it is answered', async () => {
    let gateway!: TcpGateway;
    const b = await build({
      simulator: false,
      gateways: ({ clock }) => [
        (gateway = new TcpGateway({
          port: 0,
          host: '127.0.0.1',
          secret: SECRET,
          idPrefix: 'BX-',
          log: console,
          now: () => clock.now().getTime(),
        })),
      ],
    });
    open.push(b);
    await b.db.query(
      `insert into cabinets (id, venue_id, slot_count) select $1, venue_id, 4 from cabinets where id = 'PWL-VNO-001'`,
      [CABINET],
    );
    for (const [i, id] of ['PB000001', 'PB000002'].entries()) {
      await b.db.query(`insert into powerbanks (id, state, cabinet_id, slot) values ($1, 'in_cabinet', $2, $3)`, [
        id,
        CABINET,
        i + 1,
      ]);
    }
    const cab = new TcpCabinet('BX01', ['PB000001', 'PB000002', null, null], SECRET);
    open.push(cab);
    expect(show(await cab.connect(gateway.port!))).toBe('01'); // login accepted
    await cabinetsOnline(b, [CABINET]);

    const res = await b.app.inject({
      method: 'POST',
      url: `${API}/cdb/cabinet/useDepositToRent`,
      headers: { token: await touristToken(b.app, 'tcp-rider') },
      payload: { qrcode: CABINET, stripeToken: await cardToken(b.app), paymentId: 'card-sandbox' },
    });
    expect(res.json().code, res.body).toBe(0);
    const tradeNo: string = res.json().data.outTradeNo;
    await waitFor(async () => Number((await order(b, tradeNo)).zujie) === 1, 'the rental started (popped)');
    const popped = (await order(b, tradeNo)).powerbank_id!;
    expect(cab.banks).not.toContain(popped);
    expect(cab.received.filter((f) => f.cmd === TCP_CMD.borrow)).toHaveLength(1);
    // The command re-published (a reconnecting link): the same popped again, no second borrow.
    const cmd = (
      await b.db.query<{ payload: unknown }>('select payload from cabinet_commands where order_id = $1', [tradeNo])
    ).rows[0]!.payload;
    await b.link.send(CABINET, (typeof cmd === 'string' ? JSON.parse(cmd) : cmd) as EjectCommand);
    expect(cab.received.filter((f) => f.cmd === TCP_CMD.borrow)).toHaveLength(1);
    const popEvents = await b.db.query<{ n: number }>(
      `select count(*)::int as n from cabinet_events where cabinet_id = $1 and type = 'popped'`,
      [CABINET],
    );
    expect(Number(popEvents.rows[0]!.n)).toBe(1);

    b.clock.advance(15 * 60_000);
    const answer = await cab.insert(popped);
    // The answer comes only after the return is in the inbox.
    const { rows } = await b.db.query<{ n: number }>(
      `select count(*)::int as n from cabinet_events where cabinet_id = $1 and type = 'returned'`,
      [CABINET],
    );
    expect(Number(rows[0]!.n)).toBe(1);
    expect(answer[1]).toBe(0x01);
    await waitFor(async () => (await order(b, tradeNo)).settled, 'the return settled the rental');

    await cab.heartbeat(); // answered with an inventory request, whose answer is the internal heartbeat
    await cab.close();
    await waitFor(
      async () =>
        !(await b.db.query<{ online: boolean }>('select online from cabinets where id = $1', [CABINET])).rows[0]!
          .online,
      'offline after the connection ends',
    );
  }, 90_000);
});

describe('per-cabinet token secrets of the TCP family', () => {
  const CAB2 = 'BX-BX02';
  async function secretServer() {
    let gateway!: TcpGateway;
    const b = await build({
      simulator: false,
      gateways: ({ clock, db }) => [
        (gateway = new TcpGateway({
          port: 0,
          host: '127.0.0.1',
          idPrefix: 'BX-',
          log: quiet,
          now: () => clock.now().getTime(),
          secrets: new CabinetTokenSecrets(
            new CabinetCredentialsRepository(db),
            cabinetSecretsKey({ db, clock, sandbox: true }),
          ),
        })),
      ],
    });
    open.push(b);
    const { cabinets } = b.app.powerly.fleet;
    await cabinets.register({ id: CAB2, vendor: 'tcp60', slots: 4, venueId: 'v-vno-gedimino' });
    for (const [i, id] of ['PB000021', 'PB000022'].entries())
      await cabinets.registerDevice({ id, cabinetId: CAB2, slot: i + 1 });
    return { b, gateway, issue: () => cabinets.issueCredentials(CAB2) };
  }
  const refusals = async (b: Built) =>
    Number(
      (
        await b.db.query<{ n: number }>(
          `select coalesce(sum(count), 0)::int as n from cabinet_rejects where cabinet_id = $1 and reason = 'vendor-tcp-login-token'`,
          [CAB2],
        )
      ).rows[0]!.n,
    );
  const online = async (b: Built) =>
    (await b.db.query<{ online: boolean }>('select online from cabinets where id = $1', [CAB2])).rows[0]!.online;

  it('issued sealed and shown once; a wrong secret is refused and logged; a rotation takes over at the next login', async () => {
    const { b, gateway, issue } = await secretServer();
    // No secret issued yet (and no shared one): refused.
    const early = new TcpCabinet('BX02', ['PB000021', 'PB000022', null, null], 'guess');
    open.push(early);
    expect((await early.connect(gateway.port!)).length).toBe(0); // closed without an answer
    await waitFor(async () => (await refusals(b)) === 1, 'the refused login counted');

    const first = await issue();
    expect(first).toMatchObject({ username: CAB2, kind: 'token-secret' });
    const sealed = (
      await b.db.query<{ sealed: string }>('select sealed from cabinet_token_secrets where cabinet_id = $1', [CAB2])
    ).rows[0]!.sealed;
    expect(sealed).not.toContain(first.password);
    const key = await cabinetSecretsKey({ db: b.db, clock: b.clock, sandbox: true })();
    expect(openSecret(key!, CAB2, sealed)).toBe(first.password);
    expect(() => openSecret(key!, 'BX-OTHER', sealed)).toThrow(); // bound to its cabinet

    const wrong = new TcpCabinet('BX02', ['PB000021', 'PB000022', null, null], 'not-the-secret');
    open.push(wrong);
    expect((await wrong.connect(gateway.port!)).length).toBe(0);
    await waitFor(async () => (await refusals(b)) === 2, 'the wrong secret counted');
    expect(await online(b)).toBe(false);

    const cab = new TcpCabinet('BX02', ['PB000021', 'PB000022', null, null], first.password);
    open.push(cab);
    expect(show(await cab.connect(gateway.port!))).toBe('01');
    await cabinetsOnline(b, [CAB2]);
    await cab.heartbeat(); // both ways signed with its secret

    // Rotated: the connection goes on until it ends; the old secret does not log in again, the new one does.
    const second = await issue();
    expect(second.password).not.toBe(first.password);
    await cab.close();
    expect((await cab.connect(gateway.port!)).length).toBe(0);
    await waitFor(async () => (await refusals(b)) === 3, 'the old secret refused after the rotation');
    cab.secret = second.password;
    expect(show(await cab.connect(gateway.port!))).toBe('01');
    await cab.heartbeat();
    await cabinetsOnline(b, [CAB2]);
  }, 90_000);

  it('a return whose frame is cut with the connection is re-sent after the reconnect, stored once and answered', async () => {
    const { b, gateway, issue } = await secretServer();
    const { password } = await issue();
    const cab = new TcpCabinet('BX02', ['PB000021', 'PB000022', null, null], password);
    open.push(cab);
    expect(show(await cab.connect(gateway.port!))).toBe('01');
    await cabinetsOnline(b, [CAB2]);
    const res = await b.app.inject({
      method: 'POST',
      url: `${API}/cdb/cabinet/useDepositToRent`,
      headers: { token: await touristToken(b.app, 'tcp-cut') },
      payload: { qrcode: CAB2, stripeToken: await cardToken(b.app), paymentId: 'card-sandbox' },
    });
    expect(res.json().code, res.body).toBe(0);
    const tradeNo: string = res.json().data.outTradeNo;
    await waitFor(async () => Number((await order(b, tradeNo)).zujie) === 1, 'the rental started (popped)');
    const bank = (await order(b, tradeNo)).powerbank_id!;

    // The power bank goes back into slot 3; half of the return frame leaves, then the connection is cut.
    b.clock.advance(10 * 60_000);
    cab.banks[2] = bank;
    cab.unanswered.set(3, bank);
    const frame = encodeTcp(TCP_CMD.returned, encodeReturn(3, bank), password);
    cab.raw(frame.subarray(0, 7));
    await cab.close();
    const stored = async () =>
      Number(
        (
          await b.db.query<{ n: number }>(
            `select count(*)::int as n from cabinet_events where cabinet_id = $1 and type = 'returned'`,
            [CAB2],
          )
        ).rows[0]!.n,
      );
    expect(await stored()).toBe(0);
    await waitFor(async () => !(await online(b)), 'offline after the cut');

    const answered = cab.next(TCP_CMD.returned);
    expect(show(await cab.connect(gateway.port!))).toBe('01'); // the login re-sends the unanswered return
    expect(show(await answered)).toBe('03 01');
    expect(cab.unanswered.size).toBe(0);
    expect(await stored()).toBe(1);
    await waitFor(async () => (await order(b, tradeNo)).settled, 'the return settled the rental');
  }, 90_000);
});
