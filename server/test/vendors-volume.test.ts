// The speaker volume, an operator's command through each vendor family: the TCP family's 0x70 (set) and 0x77
// (query) byte by byte, the 0xA8 family's JSON `volume`; then the console's command (by role, with a reason) through
// the gateway to a simulated cabinet and back: acknowledged, the TCP cabinet's volume read back and shown. Our own
// cabinets have no speaker: the command is refused for them before anything is stored.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  TCP_CMD,
  decodeTcp,
  decodeVolume,
  encodeTcp,
  tcpRequest,
  volumeFromTcp,
  volumeToTcp,
} from '../src/modules/cabinets/vendors/tcp60/codec.ts';
import { TcpGateway } from '../src/modules/cabinets/vendors/tcp60/gateway.ts';
import { A8Gateway } from '../src/modules/cabinets/vendors/a8/gateway.ts';
import { a8Command } from '../src/modules/cabinets/vendors/a8/codec.ts';
import { TcpCabinet } from '../src/demo/vendors/tcp-cabinet.ts';
import { A8Cabinet } from '../src/demo/vendors/a8-cabinet.ts';
import { build, cabinetsOnline, venueFixture, waitFor, type Built } from './helper.ts';
import { callerConsoles, type Caller } from './ops/callers.ts';
import type { OpsConsole } from './ops/console.ts';

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

describe('volume frames', () => {
  it('TCP: 0x70 set (level 0–15, answered with a result) and 0x77 query (answered with the level), byte by byte', () => {
    // length 8 | 0x70 | version 1 | XOR of the payload 09 | MD5(09 ‖ "s3cret")[0..4] | level 9
    expect(show(encodeTcp(TCP_CMD.setVolume, tcpRequest.volume(9), SECRET))).toBe('00 08 70 01 09 F4 7F 14 C2 09');
    expect(show(encodeTcp(TCP_CMD.volume, tcpRequest.none(), SECRET))).toBe('00 07 77 01 00 33 E1 B2 32');
    expect(decodeTcp(hex('00 08 70 01 01 C1 8C 42 C8 01'), SECRET)).toEqual({
      cmd: 0x70,
      version: 1,
      payload: hex('01'),
    });
    const answer = decodeTcp(hex('00 08 77 01 0F F6 23 A2 3A 0F'), SECRET);
    expect(answer.cmd).toBe(0x77);
    expect(decodeVolume(answer.payload)).toBe(15);
    expect(() => decodeVolume(hex('10'))).toThrow('0 to 15');
    expect(() => decodeVolume(Buffer.alloc(0))).toThrow('0 to 15');
  });

  it("TCP: the internal percent maps onto the family's 16 steps and back", () => {
    expect([0, 6, 7, 50, 60, 100].map(volumeToTcp)).toEqual([0, 1, 1, 8, 9, 15]);
    expect([0, 1, 8, 9, 15].map(volumeFromTcp)).toEqual([0, 7, 53, 60, 100]);
  });

  it('0xA8: `volume` with the level 0–100 as a string', () => {
    expect(JSON.stringify(a8Command.volume(35))).toBe('{"cmd":"volume","data":"35"}');
    expect(() => a8Command.volume(-1)).toThrow(RangeError);
  });
});

let b: Built;
let tcp!: TcpGateway;
let consoles = new Map<Caller, OpsConsole>();
const as = (c: Caller) => consoles.get(c)!;
const closing: { close(): Promise<void> }[] = [];

beforeAll(async () => {
  b = await build({
    simulator: false,
    gateways: ({ connector, clock }) => [
      (tcp = new TcpGateway({
        port: 0,
        host: '127.0.0.1',
        secret: SECRET,
        idPrefix: 'BX-',
        log: quiet,
        now: () => clock.now().getTime(),
      })),
      new A8Gateway({ connector, idPrefix: 'VL-', log: quiet, now: () => clock.now().getTime() }),
    ],
  });
  consoles = await callerConsoles(b);
  await b.app.powerly.fleet.venues.create(venueFixture('V001', 54.68, 25.28, { agentId: 'agent-a' }));
  for (const [id, vendor] of [
    ['BX-VOL1', 'tcp60'],
    ['VL-860602069165399', 'a8'],
    ['PWL-VOL-1', 'powerly'],
  ]) {
    const r = await as('platformOwner').call('POST', '/cabinets', {
      id,
      vendor,
      slots: 2,
      venueId: 'V001',
      reason: 'new stock',
    });
    expect(r.statusCode, r.body).toBe(200);
  }
}, 60_000);
afterAll(async () => {
  for (const x of closing.reverse()) await x.close().catch(() => undefined);
  await b?.close();
});

const sent = async (id: string) =>
  (
    await b.db.query<{ acked_at: Date | null; result: string | null; payload: unknown }>(
      'select acked_at, result, payload from cabinet_commands where id = $1',
      [id],
    )
  ).rows[0]!;

describe("the console's volume command", () => {
  it('TCP family: 0x70 sent, acknowledged on the answer, the level read back by 0x77 and shown with the cabinet', async () => {
    const cab = new TcpCabinet('VOL1', ['PB000071', null], SECRET);
    closing.push(cab);
    expect((await cab.connect(tcp.port!))[0]).toBe(0x01);
    await cabinetsOnline(b, ['BX-VOL1']);
    const tech = as('technicianA');
    // Asked at login: the volume the cabinet has now (8 of 15).
    await waitFor(
      async () => (await tech.call('GET', '/cabinets/BX-VOL1')).json<{ volume: number | null }>().volume === 53,
      'the volume reported at login',
    );

    const r = await tech.call('POST', '/cabinets/BX-VOL1/commands', {
      type: 'volume',
      level: 60,
      reason: 'guests complain it is loud',
    });
    expect(r.statusCode, r.body).toBe(200);
    const { commandId } = r.json<{ commandId: string }>();
    await waitFor(async () => (await sent(commandId)).acked_at !== null, 'the volume command acknowledged');
    expect((await sent(commandId)).result).toBeNull();
    expect(cab.volume).toBe(9);
    expect(cab.received.some((f) => f.cmd === TCP_CMD.setVolume && f.payload.equals(hex('09')))).toBe(true);
    const shown = await waitFor(async () => {
      const c = (await tech.call('GET', '/cabinets/BX-VOL1')).json<{
        volume: number | null;
        commands: { id: string; type: string; state: string }[];
      }>();
      return c.volume === 60 && c;
    }, 'the volume read back (0x77) and shown');
    expect(shown.commands.find((c) => c.id === commandId)).toMatchObject({ type: 'volume', state: 'accepted' });
    const audit = await b.db.query<{ after: unknown }>(
      `select after from audit_log where entity_id = 'BX-VOL1' and action = 'cabinet.volume'`,
    );
    expect(audit.rows).toEqual([{ after: { commandId, level: 60 } }]);
  }, 60_000);

  it('0xA8 family: `volume` published, acknowledged once the broker has it', async () => {
    const cab = new A8Cabinet('860602069165399', [['12345699', null]], () => b.clock.now().getTime());
    await cab.connect(b.connector);
    closing.push(cab);
    await cab.report();
    await cabinetsOnline(b, ['VL-860602069165399']);
    const r = await as('technicianA').call('POST', '/cabinets/VL-860602069165399/commands', {
      type: 'volume',
      level: 35,
      reason: 'quieter at night',
    });
    expect(r.statusCode, r.body).toBe(200);
    const { commandId } = r.json<{ commandId: string }>();
    await waitFor(
      async () => cab.volume === 35 && (await sent(commandId)).acked_at !== null,
      'volume 35 carried out and acknowledged',
    );
    expect(cab.received).toContainEqual({ cmd: 'volume', data: '35' });
  }, 60_000);

  it('refused without a level, out of range, for our own cabinets, and for a role without remote commands', async () => {
    const tech = as('technicianA');
    const none = await tech.call('POST', '/cabinets/BX-VOL1/commands', { type: 'volume', reason: 'louder' });
    expect(none.statusCode, none.body).toBe(400);
    const high = await tech.call('POST', '/cabinets/BX-VOL1/commands', {
      type: 'volume',
      level: 101,
      reason: 'louder',
    });
    expect(high.statusCode, high.body).toBe(400);
    await b.db.query(`update cabinets set online = true, last_seen_at = $2 where id = $1`, [
      'PWL-VOL-1',
      b.clock.now(),
    ]);
    const own = await tech.call('POST', '/cabinets/PWL-VOL-1/commands', {
      type: 'volume',
      level: 20,
      reason: 'quieter',
    });
    expect(own.statusCode, own.body).toBe(422);
    expect(own.json<{ message: string }>().message).toBe('Cabinets of the powerly family do not take this command.');
    const { rows } = await b.db.query(`select id from cabinet_commands where cabinet_id = 'PWL-VOL-1'`);
    expect(rows).toEqual([]);
    const reader = await as('readOnlyA').call('POST', '/cabinets/BX-VOL1/commands', {
      type: 'volume',
      level: 20,
      reason: 'quieter',
    });
    expect(reader.statusCode, reader.body).toBe(403);
  });
});
