// The operator's commands beyond the eject through each vendor family: restart and inventory report mapped to the
// family's frames and acknowledged in the cabinet's name; a slot lock (neither family has one) answered
// `unknown_command`; the firmware versions each family reports kept for an operator.
import { afterEach, describe, expect, it } from 'vitest';
import { TCP_CMD, decodeTcp, decodeText, encodeTcp, tcpRequest } from '../src/modules/cabinets/vendors/tcp60/codec.ts';
import { TcpGateway } from '../src/modules/cabinets/vendors/tcp60/gateway.ts';
import { A8Gateway } from '../src/modules/cabinets/vendors/a8/gateway.ts';
import { a8Command } from '../src/modules/cabinets/vendors/a8/codec.ts';
import type { ServerMessage } from '../src/modules/cabinets/protocol.ts';
import { TcpCabinet } from '../src/demo/vendors/tcp-cabinet.ts';
import { A8Cabinet } from '../src/demo/vendors/a8-cabinet.ts';
import { build, cabinetsOnline, waitFor, type Built } from './helper.ts';

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
const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const x of open.splice(0).reverse()) await x.close().catch(() => undefined);
});

describe('command frames', () => {
  it('TCP: 0x67 restart, 0x62 firmware, 0x64 inventory requests and their answers, byte by byte', () => {
    expect(show(encodeTcp(TCP_CMD.restart, tcpRequest.none(), SECRET))).toBe('00 07 67 01 00 33 E1 B2 32');
    expect(show(encodeTcp(TCP_CMD.firmware, tcpRequest.none(), SECRET))).toBe('00 07 62 01 00 33 E1 B2 32');
    expect(show(encodeTcp(TCP_CMD.inventory, tcpRequest.none(), SECRET))).toBe('00 07 64 01 00 33 E1 B2 32');
    const fw = decodeTcp(hex('00 12 62 01 31 88 89 40 BC 42 58 2D 46 57 20 32 2E 34 2E 31'), SECRET);
    expect(decodeText(fw.payload)).toBe('BX-FW 2.4.1');
    expect(decodeTcp(hex('00 08 67 01 01 C1 8C 42 C8 01'), SECRET)).toEqual({
      cmd: 0x67,
      version: 1,
      payload: hex('01'),
    });
  });

  it('0xA8: restart is `reboot`, an inventory report `upload_all`', () => {
    expect(JSON.stringify(a8Command.restart())).toBe('{"cmd":"reboot"}');
    expect(JSON.stringify(a8Command.uploadAll())).toBe('{"cmd":"upload_all"}');
  });
});

async function command(b: Built, cabinetId: string, type: 'restart' | 'report-inventory' | 'slot-lock') {
  const id = `ops-${type}-${cabinetId}`;
  const now = b.clock.now();
  const msg = (
    type === 'slot-lock'
      ? { v: 2, id, type, ts: now.toISOString(), ttlMs: 30_000, slot: 1, locked: true }
      : { v: 2, id, type, ts: now.toISOString(), ttlMs: 30_000 }
  ) as ServerMessage;
  await b.db.query(
    `insert into cabinet_commands (id, cabinet_id, type, payload, created_at, expires_at) values ($1, $2, $3, $4, $5, $6)`,
    [id, cabinetId, `ops.${type}`, JSON.stringify(msg), now, new Date(now.getTime() + 30_000)],
  );
  await b.link.send(cabinetId, msg);
  return id;
}
const answer = async (b: Built, id: string) =>
  (
    await b.db.query<{ acked_at: Date | null; result: string | null }>(
      'select acked_at, result from cabinet_commands where id = $1',
      [id],
    )
  ).rows[0]!;
const firmware = async (b: Built, id: string) =>
  (await b.db.query<{ firmware: string | null }>('select firmware from cabinets where id = $1', [id])).rows[0]!
    .firmware;

describe('commands through the gateways', () => {
  it("TCP family: restart (0x67) and inventory (0x64) acknowledged on the cabinet's answer, once per id; no slot lock; firmware from 0x62", async () => {
    let gateway!: TcpGateway;
    const b = await build({
      simulator: false,
      gateways: ({ clock }) => [
        (gateway = new TcpGateway({
          port: 0,
          host: '127.0.0.1',
          secret: SECRET,
          idPrefix: 'BX-',
          log: quiet,
          now: () => clock.now().getTime(),
        })),
      ],
    });
    open.push(b);
    const id = 'BX-BX09';
    await b.db.query(
      `insert into cabinets (id, venue_id, slot_count) select $1, venue_id, 2 from cabinets where id = 'PWL-VNO-001'`,
      [id],
    );
    await b.db.query(`insert into powerbanks (id, state, cabinet_id, slot) values ('PB000091', 'in_cabinet', $1, 1)`, [
      id,
    ]);
    const cab = new TcpCabinet('BX09', ['PB000091', null], SECRET);
    open.push(cab);
    expect((await cab.connect(gateway.port!))[0]).toBe(0x01);
    await cabinetsOnline(b, [id]);
    await waitFor(async () => (await firmware(b, id)) === 'BX-FW 2.4.1', 'the firmware version reported at login');

    const restart = await command(b, id, 'restart');
    await waitFor(async () => (await answer(b, restart)).acked_at !== null, 'restart acknowledged');
    expect(cab.restarts).toBe(1);
    expect((await answer(b, restart)).result).toBeNull();
    await b.link.send(
      id,
      JSON.parse(
        (await b.db.query<{ payload: string }>('select payload::text from cabinet_commands where id = $1', [restart]))
          .rows[0]!.payload,
      ) as ServerMessage,
    );
    expect(cab.restarts).toBe(1); // a repeat is acknowledged, not carried out again

    const before = cab.received.filter((f) => f.cmd === TCP_CMD.inventory).length;
    const inventory = await command(b, id, 'report-inventory');
    await waitFor(async () => (await answer(b, inventory)).acked_at !== null, 'inventory report acknowledged');
    expect(cab.received.filter((f) => f.cmd === TCP_CMD.inventory).length).toBe(before + 1);

    const lock = await command(b, id, 'slot-lock');
    await waitFor(
      async () => (await answer(b, lock)).result === 'unknown_command',
      'slot lock answered unknown_command',
    );
  }, 90_000);

  it('0xA8 family: restart as `reboot`, inventory as `upload_all` (its report is the heartbeat); firmware from the status report', async () => {
    const b = await build({
      simulator: false,
      gateways: ({ connector, clock }) => [
        new A8Gateway({ connector, idPrefix: 'VL-', log: quiet, now: () => clock.now().getTime() }),
      ],
    });
    open.push(b);
    const uuid = '860602069165358';
    const id = `VL-${uuid}`;
    await b.db.query(
      `insert into cabinets (id, venue_id, slot_count) select $1, venue_id, 2 from cabinets where id = 'PWL-VNO-001'`,
      [id],
    );
    await b.db.query(`insert into powerbanks (id, state, cabinet_id, slot) values ('12345681', 'in_cabinet', $1, 1)`, [
      id,
    ]);
    const cab = new A8Cabinet(uuid, [['12345681', null]], () => b.clock.now().getTime());
    await cab.connect(b.connector);
    open.push(cab);
    await cab.report();
    await cabinetsOnline(b, [id]);
    await waitFor(
      async () => (await firmware(b, id)) === 'board 1: software 1, hardware 1',
      'the firmware versions of the status report',
    );

    const restart = await command(b, id, 'restart');
    await waitFor(
      async () => cab.restarts === 1 && (await answer(b, restart)).acked_at !== null,
      'reboot sent and acknowledged',
    );
    const seen = async () =>
      (
        await b.db.query<{ last_seen_at: Date }>('select last_seen_at from cabinets where id = $1', [id])
      ).rows[0]!.last_seen_at.getTime();
    b.clock.advance(60_000);
    const inventory = await command(b, id, 'report-inventory');
    await waitFor(
      async () => (await answer(b, inventory)).acked_at !== null && (await seen()) === b.clock.now().getTime(),
      'upload_all answered by a report',
    );
    expect(cab.received.map((c) => (c as { cmd?: string } | null)?.cmd)).toEqual(
      expect.arrayContaining(['reboot', 'upload_all']),
    );

    const lock = await command(b, id, 'slot-lock');
    await waitFor(
      async () => (await answer(b, lock)).result === 'unknown_command',
      'slot lock answered unknown_command',
    );
  }, 90_000);
});
