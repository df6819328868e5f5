// The "0xA8" cabinet family: the codec byte by byte against frames laid out as the family's document lays them
// out, and a cabinet of the family (server/src/demo/vendors/a8-cabinet.ts) rented from and returned to end to end.
import { createHash } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import {
  A8FrameError,
  a8CabinetMay,
  a8Check,
  a8Command,
  decodeA8,
  decodePopupBySerial,
  decodePopupBySlot,
  decodeReturned,
  decodeStatus,
  decodeWifiScan,
  encodeA8,
  encodePopupBySerial,
  encodePopupBySlot,
  encodeReturned,
  encodeStatus,
  encodeWifiScan,
} from '../src/modules/cabinets/vendors/a8/codec.ts';
import { A8Gateway } from '../src/modules/cabinets/vendors/a8/gateway.ts';
import { a8Signature } from '../src/modules/cabinets/vendors/a8/registration.ts';
import { verifyPassword } from '../src/modules/cabinets/credentials.ts';
import { A8Cabinet } from '../src/demo/vendors/a8-cabinet.ts';
import { build, cabinetsOnline, cardToken, touristToken, waitFor, type Built } from './helper.ts';

const hex = (s: string) => Buffer.from(s.replace(/\s+/g, ''), 'hex');
const show = (b: Buffer) =>
  b
    .toString('hex')
    .toUpperCase()
    .replace(/(..)(?!$)/g, '$1 ');

describe('0xA8 codec', () => {
  it("frames: head, whole-frame length, command, data, and the two's complement of the byte sum", () => {
    expect(a8Check(hex('A8 00 0B 31 01 00 BC 61 4E 01'))).toBe(0xaf);
    expect(show(encodeA8(0x31, hex('01 00 BC 61 4E 01')))).toBe('A8 00 0B 31 01 00 BC 61 4E 01 AF');
    expect(decodeA8(hex('A8 00 0B 31 01 00 BC 61 4E 01 AF'))).toEqual({ cmd: 0x31, data: hex('01 00 BC 61 4E 01') });
    expect(() => decodeA8(hex('A8 00 0B 31 01 00 BC 61 4E 01 AE'))).toThrow(A8FrameError); // check byte
    expect(() => decodeA8(hex('A8 00 0C 31 01 00 BC 61 4E 01 AF'))).toThrow(/length/);
    expect(() => decodeA8(hex('A9 00 0B 31 01 00 BC 61 4E 01 AF'))).toThrow(/head/);
  });

  it('0x10 status: per board 6 bytes, per slot 15 (position, status, serial, charge, temperature, voltage, current, versions)', () => {
    const frame = hex(
      'A8 00 29 10 01 00 00 1E 01 01 01 01 00 00 00 00 BC 61 4E 64 1C 2A 05 01 01 02 00 00 00 00 00 00 00 00 FF FF FF FF 01 01 E0',
    );
    const s = decodeStatus(decodeA8(frame).data);
    expect(s.boards).toEqual([{ index: 1, temperature: 30, softVersion: 1, hardVersion: 1 }]);
    expect(s.slots).toEqual([
      {
        board: 1,
        hole: 1,
        status: 1,
        sn: '12345678',
        area: 0,
        charge: 100,
        temperature: 28,
        voltage: 42,
        current: 5,
        softVersion: 1,
        hardVersion: 1,
      },
      {
        board: 1,
        hole: 2,
        status: 0,
        sn: null,
        area: 0,
        charge: null,
        temperature: null,
        voltage: null,
        current: null,
        softVersion: 1,
        hardVersion: 1,
      },
    ]);
    expect(show(encodeStatus(s))).toBe(show(frame));
  });

  it('0x21 / 0x31 pop-up answers and their results; 0x28 return; 0xCF Wi-Fi scan', () => {
    expect(decodePopupBySlot(decodeA8(hex('A8 00 08 21 02 03 05 25')).data)).toEqual({
      board: 2,
      hole: 3,
      result: 'ttl-expired',
      code: 5,
    });
    expect(show(encodePopupBySlot(2, 3, 5))).toBe('A8 00 08 21 02 03 05 25');
    expect(decodePopupBySerial(decodeA8(hex('A8 00 0B 31 01 00 BC 61 4E 01 AF')).data)).toEqual({
      board: 1,
      sn: '12345678',
      result: 'ok',
      code: 1,
    });
    expect(show(encodePopupBySerial(1, '12345678', 1))).toBe('A8 00 0B 31 01 00 BC 61 4E 01 AF');
    for (const [code, result] of [
      [0, 'fail'],
      [2, 'serial-timeout'],
      [3, 'not-ejected-sn-read'],
      [4, 'timestamp-failure'],
      [9, 'unknown'],
    ] as const) {
      expect(decodePopupBySerial(decodeA8(encodePopupBySerial(1, '12345678', code)).data).result).toBe(result);
    }
    const ret = hex('A8 00 15 28 01 02 01 00 00 00 00 BC 61 4F 50 1C 2A 05 01 01 0E');
    expect(decodeReturned(decodeA8(ret).data)).toEqual({
      board: 1,
      hole: 2,
      state: 1,
      area: 0,
      sn: '12345679',
      charge: 80,
      temperature: 28,
      voltage: 42,
      current: 5,
      softVersion: 1,
      hardVersion: 1,
    });
    expect(
      encodeReturned({ board: 1, hole: 2, state: 1, sn: '12345679', charge: 80, temperature: 28 }).subarray(0, 12),
    ).toEqual(ret.subarray(0, 12));
    expect(decodeWifiScan(decodeA8(hex('A8 00 0B CF 04 43 61 66 65 C4 47')).data)).toEqual([
      { ssid: 'Cafe', signal: -60 },
    ]);
    expect(show(encodeWifiScan([{ ssid: 'Cafe', signal: -60 }]))).toBe('A8 00 0B CF 04 43 61 66 65 C4 47');
  });

  it('the broker lets a cabinet of the family use only its own /powerbank/{uuid}/user/… topics', () => {
    const may = a8CabinetMay('VL-');
    expect(may('publish', 'VL-860602069165357', '/powerbank/860602069165357/user/upload')).toBe(true);
    expect(may('publish', 'VL-860602069165357', '/powerbank/860602069165357/user/heart')).toBe(true);
    expect(may('subscribe', 'VL-860602069165357', '/powerbank/860602069165357/user/get')).toBe(true);
    expect(may('publish', 'VL-860602069165357', '/powerbank/860602069165357/user/get')).toBe(false);
    expect(may('publish', 'VL-860602069165357', '/powerbank/111111111111111/user/upload')).toBe(false);
    expect(may('subscribe', 'VL-860602069165357', '/powerbank/+/user/get')).toBe(false);
    expect(may('publish', 'PWL-SH-001', '/powerbank/PWL-SH-001/user/upload')).toBe(false);
  });

  it('JSON commands on /user/get, with a timestamp and TTL where the document allows them', () => {
    expect(JSON.stringify(a8Command.popupBySerial('12345678', { timestamp: 1795000000, ttl: 30 }))).toBe(
      '{"cmd":"popup_sn","data":"12345678","timestamp":1795000000,"ttl":30}',
    );
    expect(a8Command.popupBySlot(1, 3)).toEqual({ cmd: 'popup', io: '1', data: '3' });
    expect(a8Command.setWifi('Cafe', 'secret')).toEqual({ cmd: 'setWifi', username: 'Cafe', password: 'secret' });
    expect(a8Command.setMode('4g')).toEqual({ cmd: 'setMode', data: '4g' });
    expect(a8Command.volume(70)).toEqual({ cmd: 'volume', data: '70' });
    expect(() => a8Command.volume(101)).toThrow(RangeError);
    expect(a8Command.uploadAll()).toEqual({ cmd: 'upload_all' });
    expect(a8Command.firmware()).toEqual({ cmd: 'push_version_publish' });
  });
});

const API = '/cdb-app-api/v1/app';
const UUID = '860602069165357';
const CABINET = `VL-${UUID}`;
const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const x of open.splice(0).reverse()) await x.close().catch(() => undefined);
});

async function vendorServer() {
  const b = await build({
    simulator: false,
    gateways: ({ connector, clock }) => [
      new A8Gateway({ connector, idPrefix: 'VL-', log: console, now: () => clock.now().getTime() }),
    ],
  });
  open.push(b);
  // An operator registered the cabinet and its power banks (serials as the cabinet reports them).
  await b.db.query(
    `insert into cabinets (id, venue_id, slot_count) select $1, venue_id, 4 from cabinets where id = 'PWL-VNO-001'`,
    [CABINET],
  );
  for (const [i, sn] of ['12345601', '12345602'].entries()) {
    await b.db.query(`insert into powerbanks (id, state, cabinet_id, slot) values ($1, 'in_cabinet', $2, $3)`, [
      sn,
      CABINET,
      i + 1,
    ]);
  }
  await b.db.query(`insert into powerbanks (id, state) values ('12345699', 'rented')`);
  const cab = new A8Cabinet(
    UUID,
    [
      ['12345601', '12345602'],
      [null, null],
    ],
    () => b.clock.now().getTime(),
  );
  await cab.connect(b.connector);
  open.push(cab);
  return { b, cab };
}

const order = async (b: Built, id: string) =>
  (
    await b.db.query<{ zujie: number; settled: boolean; powerbank_id: string | null }>(
      'select zujie, settled, powerbank_id from orders where id = $1',
      [id],
    )
  ).rows[0]!;
const rent = async (b: Built, who: string) => {
  const res = await b.app.inject({
    method: 'POST',
    url: `${API}/cdb/cabinet/useDepositToRent`,
    headers: { token: await touristToken(b.app, who) },
    payload: { qrcode: CABINET, stripeToken: await cardToken(b.app), paymentId: 'card-sandbox' },
  });
  expect(res.json().code, res.body).toBe(0);
  return res.json().data.outTradeNo as string;
};

describe('a cabinet of the 0xA8 family, through its gateway', () => {
  it('comes online with its report, ejects by serial for a rental (popped), and takes the power bank back (returned)', async () => {
    const { b, cab } = await vendorServer();
    await cab.report();
    await cabinetsOnline(b, [CABINET]);
    const tradeNo = await rent(b, 'a8-rider');
    await waitFor(async () => Number((await order(b, tradeNo)).zujie) === 1, 'the rental started (popped)');
    const popped = (await order(b, tradeNo)).powerbank_id!;
    expect(['12345601', '12345602']).toContain(popped);
    expect(cab.received.at(-1)).toMatchObject({ cmd: 'popup_sn', data: popped, ttl: 30 });
    expect(cab.serials.flat()).not.toContain(popped);
    const { rows } = await b.db.query<{ state: string }>(
      `select state from cabinet_events where cabinet_id = $1 and type = 'popped'`,
      [CABINET],
    );
    expect(rows.map((r) => r.state)).toEqual(['done']);

    b.clock.advance(20 * 60_000);
    await cab.insert(popped);
    await waitFor(async () => (await order(b, tradeNo)).settled, 'the return settled the rental');
    const bank = (
      await b.db.query<{ state: string; cabinet_id: string; slot: number }>(
        'select state, cabinet_id, slot from powerbanks where id = $1',
        [popped],
      )
    ).rows[0];
    expect(bank).toMatchObject({ state: 'in_cabinet', cabinet_id: CABINET, slot: popped === '12345601' ? 1 : 2 }); // the position it left
  }, 90_000);

  it('one eject sent twice at once (the rental publishing it as the online cabinet is re-sent its commands): one pop-up', async () => {
    const { b, cab } = await vendorServer();
    await cab.report();
    await cabinetsOnline(b, [CABINET]);
    const ts = b.clock.now().toISOString();
    const eject = { v: 2, id: 'twice', type: 'eject', ts, ttlMs: 30_000, slot: 1 } as const;
    await Promise.all([b.link.send(CABINET, eject), b.link.send(CABINET, eject)]);
    await waitFor(async () => {
      const { rows } = await b.db.query(`select 1 from cabinet_events where cabinet_id = $1 and type = 'popped'`, [
        CABINET,
      ]);
      return rows.length === 1;
    }, 'the pop-up answered');
    expect(cab.received.filter((c) => (c as { cmd?: string }).cmd === 'popup_sn')).toHaveLength(1);
  }, 90_000);

  it('a pop-up the cabinet refuses (TTL expired) cancels the rental; a broken frame is counted, not stored', async () => {
    const { b, cab } = await vendorServer();
    await cab.report();
    await cabinetsOnline(b, [CABINET]);
    cab.failNextWith = 0x05;
    const tradeNo = await rent(b, 'a8-late');
    await waitFor(async () => Number((await order(b, tradeNo)).zujie) === 2, 'the rental cancelled (pop-failed)');
    const { rows } = await b.db.query<{ payload: { reason: string } | string }>(
      `select payload from cabinet_events where cabinet_id = $1 and type = 'pop-failed'`,
      [CABINET],
    );
    const payload = typeof rows[0]!.payload === 'string' ? JSON.parse(rows[0]!.payload) : rows[0]!.payload;
    expect(payload.reason).toBe('expired');
    // A client of its own, ended here: left open, it would try to reconnect to the closed broker after the file.
    const noise = b.connector.connect({ clientId: 'a8-noise', clean: true });
    await noise.publishAsync(`/powerbank/${UUID}/user/upload`, hex('A8 00 08 21 02 03 05 26'), { qos: 1 });
    await noise.endAsync();
    await waitFor(
      async () => (await b.db.query(`select 1 from cabinet_rejects where cabinet_id = $1`, [CABINET])).rows.length > 0,
      'the broken frame counted',
    );
  }, 90_000);
});

describe('0xA8 HTTP registration (MQTT credentials against a signature)', () => {
  it('hands a registered cabinet its credentials for a signed request; refuses a bad signature and an unknown cabinet', async () => {
    const b = await build({
      simulator: false,
      a8Registration: { idPrefix: 'VL-', signKey: 'k3y', broker: { host: 'mqtt.example.com', port: 8883 } },
    });
    open.push(b);
    await b.db.query(
      `insert into cabinets (id, venue_id, slot_count) select $1, venue_id, 4 from cabinets where id = 'PWL-VNO-001'`,
      [CABINET],
    );
    const q = { uuid: UUID, deviceId: '0', simUUID: '89860427092281034392', simMobile: '' };
    // The document's string with our key: deviceId=0|simMobile=|simUUID=…|uuid=…|key=k3y
    expect(a8Signature(q, 'k3y')).toBe(
      createHash('md5').update(`deviceId=0|simMobile=|simUUID=89860427092281034392|uuid=${UUID}|key=k3y`).digest('hex'),
    );
    const post = (query: Record<string, string>) =>
      b.app.inject({
        method: 'POST',
        url: `/api/rentbox/client/connect?${new URLSearchParams(query).toString()}`,
        headers: { 'content-type': 'text/plain' },
        payload: 'hardware=V6086&software=20240904-RBMG-3.0.0.0',
      });
    const ok = await post({ ...q, sign: a8Signature(q, 'k3y') });
    expect(ok.statusCode, ok.body).toBe(200);
    const [clientId, productKey, host, port, username, password] = (ok.json().data as string).split(',');
    expect([clientId, productKey, host, port, username]).toEqual([
      UUID,
      'powerbank',
      'mqtt.example.com',
      '8883',
      CABINET,
    ]);
    const { rows } = await b.db.query<{ password_hash: string }>(
      'select password_hash from cabinet_credentials where cabinet_id = $1',
      [CABINET],
    );
    expect(verifyPassword(password!, rows[0]!.password_hash)).toBe(true);
    expect((await post({ ...q, sign: a8Signature(q, 'other') })).statusCode).toBe(401);
    const unknown = { ...q, uuid: '111111111111111' };
    expect((await post({ ...unknown, sign: a8Signature(unknown, 'k3y') })).statusCode).toBe(404);
    expect((await post({ uuid: 'x/y', deviceId: '0', sign: 'zz' })).statusCode).toBe(400);
  });
});
