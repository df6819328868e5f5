// The "0xA8" cabinet family (Volinks and compatible firmware) over MQTT: the frames and commands of its public
// protocol document, nothing else (docs/cabinet-protocol.md "Vendor families"). Pure functions, tested byte by
// byte in server/test/vendors-a8.test.ts.
//
// Cabinet → server: binary frames on /powerbank/{uuid}/user/update (answers to commands), /user/heart (heartbeat)
// and /user/upload (reports the cabinet makes by itself: a return, a full status).
//   A8 | length (2 bytes, big-endian, the whole frame) | cmd | data | check
//   check = two's complement of the low byte of the sum of every byte before it (so the whole frame sums to 0).
// Server → cabinet: JSON on /powerbank/{uuid}/user/get, e.g. {"cmd":"popup_sn","data":"12345678"}.

export const A8_HEAD = 0xa8;

export const A8_CMD = {
  status: 0x10,
  popupBySlot: 0x21,
  returned: 0x28,
  popupBySerial: 0x31,
  wifiScan: 0xcf,
} as const;

/** Results of a pop-up (0x21 and 0x31), as the document numbers them. */
export const A8_POPUP_RESULT = {
  0x00: 'fail',
  0x01: 'ok',
  0x02: 'serial-timeout',
  0x03: 'not-ejected-sn-read',
  0x04: 'timestamp-failure',
  0x05: 'ttl-expired',
} as const;
export type A8PopupResult = (typeof A8_POPUP_RESULT)[keyof typeof A8_POPUP_RESULT] | 'unknown';

/** Slot states of the status report (0x10). */
export const A8_SLOT_STATUS = {
  0x00: 'empty',
  0x01: 'ok',
  0x02: 'charge-fault',
  0x04: 'spring-stuck',
  0x05: 'forced-release',
  0x06: 'forced-release-no-comm',
} as const;

export interface A8Frame {
  cmd: number;
  data: Buffer;
}

export class A8FrameError extends Error {}

/** The check byte of `bytes`: two's complement of their sum's low byte. */
export function a8Check(bytes: Uint8Array): number {
  let sum = 0;
  for (const b of bytes) sum = (sum + b) & 0xff;
  return (0x100 - sum) & 0xff;
}

export function encodeA8(cmd: number, data: Uint8Array = Buffer.alloc(0)): Buffer {
  const len = data.length + 5;
  if (len > 0xffff) throw new A8FrameError('frame too long');
  const out = Buffer.alloc(len);
  out[0] = A8_HEAD;
  out.writeUInt16BE(len, 1);
  out[3] = cmd;
  Buffer.from(data).copy(out, 4);
  out[len - 1] = a8Check(out.subarray(0, len - 1));
  return out;
}

/** One frame; throws A8FrameError on a wrong head, length or check byte. */
export function decodeA8(frame: Uint8Array): A8Frame {
  const b = Buffer.from(frame);
  if (b.length < 5) throw new A8FrameError('frame too short');
  if (b[0] !== A8_HEAD) throw new A8FrameError(`head is 0x${b[0]!.toString(16)}, not 0xa8`);
  if (b.readUInt16BE(1) !== b.length)
    throw new A8FrameError(`length field ${b.readUInt16BE(1)} is not the frame's ${b.length}`);
  if (a8Check(b.subarray(0, b.length - 1)) !== b[b.length - 1]) throw new A8FrameError('check byte mismatch');
  return { cmd: b[3]!, data: b.subarray(4, b.length - 1) };
}

/** A power bank's serial: 4 bytes, big-endian, written in decimal; 0 means none. */
const sn = (d: Buffer, at: number) => d.readUInt32BE(at);
/** 0xFF means "not measured". */
const measured = (v: number) => (v === 0xff ? null : v);

export interface A8Board {
  index: number;
  temperature: number | null;
  softVersion: number;
  hardVersion: number;
}
export interface A8Slot {
  board: number;
  /** The position on its board (1-based). */
  hole: number;
  status: number;
  /** null when the slot holds no power bank (serial 0). */
  sn: string | null;
  area: number;
  charge: number | null;
  temperature: number | null;
  /** Voltage and current as the cabinet reports them (tenths of a volt / of an ampere). */
  voltage: number | null;
  current: number | null;
  softVersion: number;
  hardVersion: number;
}
export interface A8Status {
  boards: A8Board[];
  slots: A8Slot[];
}

const BOARD_BYTES = 6;
const SLOT_BYTES = 15;

function slotFrom(d: Buffer, at: number, board: number): A8Slot {
  const serial = sn(d, at + 5);
  return {
    board,
    hole: d[at]!,
    status: d[at + 1]!,
    sn: serial === 0 ? null : String(serial),
    area: d[at + 4]!,
    charge: measured(d[at + 9]!),
    temperature: measured(d[at + 10]!),
    voltage: measured(d[at + 11]!),
    current: measured(d[at + 12]!),
    softVersion: d[at + 13]!,
    hardVersion: d[at + 14]!,
  };
}

/**
 * The status report (0x10): per board 6 bytes (index, two reserved, temperature, software and hardware version),
 * then per slot of that board 15 bytes (position, status, two reserved, area, serial (4), charge %, temperature °C,
 * voltage, current, software and hardware version). `holes` is the slots per board (the cabinet model's); without
 * it, the first board's layout is taken from the frame: boards are equal, so the data length is
 * boards × (6 + 15 × holes) for the smallest board count that divides it.
 */
export function decodeStatus(data: Buffer, holes?: number): A8Status {
  const per = holes ?? inferHoles(data.length);
  const unit = BOARD_BYTES + SLOT_BYTES * per;
  if (per < 1 || data.length % unit !== 0)
    throw new A8FrameError(`status data of ${data.length} bytes is not boards of ${per} slots`);
  const boards: A8Board[] = [];
  const slots: A8Slot[] = [];
  for (let at = 0; at < data.length; at += unit) {
    const board: A8Board = {
      index: data[at]!,
      temperature: measured(data[at + 3]!),
      softVersion: data[at + 4]!,
      hardVersion: data[at + 5]!,
    };
    boards.push(board);
    for (let h = 0; h < per; h++) slots.push(slotFrom(data, at + BOARD_BYTES + h * SLOT_BYTES, board.index));
  }
  return { boards, slots };
}

/** Cabinet models of this family have 2 to 12 slots per board. */
function inferHoles(len: number): number {
  for (let boards = 1; boards <= 16; boards++) {
    if (len % boards !== 0) continue;
    const per = (len / boards - BOARD_BYTES) / SLOT_BYTES;
    if (Number.isInteger(per) && per >= 1 && per <= 12) return per;
  }
  throw new A8FrameError(`status data of ${len} bytes matches no board layout`);
}

export function encodeStatus(s: A8Status): Buffer {
  const parts: Buffer[] = [];
  for (const b of s.boards) {
    parts.push(Buffer.from([b.index, 0, 0, b.temperature ?? 0xff, b.softVersion, b.hardVersion]));
    for (const x of s.slots.filter((y) => y.board === b.index)) {
      const p = Buffer.alloc(SLOT_BYTES);
      p[0] = x.hole;
      p[1] = x.status;
      p[4] = x.area;
      p.writeUInt32BE(x.sn ? Number(x.sn) : 0, 5);
      p[9] = x.charge ?? 0xff;
      p[10] = x.temperature ?? 0xff;
      p[11] = x.voltage ?? 0xff;
      p[12] = x.current ?? 0xff;
      p[13] = x.softVersion;
      p[14] = x.hardVersion;
      parts.push(p);
    }
  }
  return encodeA8(A8_CMD.status, Buffer.concat(parts));
}

const popupResult = (v: number): A8PopupResult => A8_POPUP_RESULT[v as keyof typeof A8_POPUP_RESULT] ?? 'unknown';

/** 0x21, pop-up by slot: board, position, result. */
export function decodePopupBySlot(data: Buffer) {
  if (data.length < 3) throw new A8FrameError('0x21 data too short');
  return { board: data[0]!, hole: data[1]!, result: popupResult(data[2]!), code: data[2]! };
}
export function encodePopupBySlot(board: number, hole: number, code: number) {
  return encodeA8(A8_CMD.popupBySlot, Buffer.from([board, hole, code]));
}

/** 0x31, pop-up by serial: board, serial (4), result. */
export function decodePopupBySerial(data: Buffer) {
  if (data.length < 6) throw new A8FrameError('0x31 data too short');
  const serial = sn(data, 1);
  return { board: data[0]!, sn: serial === 0 ? null : String(serial), result: popupResult(data[5]!), code: data[5]! };
}
export function encodePopupBySerial(board: number, serial: string, code: number) {
  const d = Buffer.alloc(6);
  d[0] = board;
  d.writeUInt32BE(Number(serial), 1);
  d[5] = code;
  return encodeA8(A8_CMD.popupBySerial, d);
}

/**
 * 0x28, a power bank pushed into a slot (the cabinet's check of the returned power bank): board, position, state,
 * two reserved, area, serial (4), charge, temperature, voltage, current, software and hardware version.
 */
export function decodeReturned(data: Buffer) {
  if (data.length < 16) throw new A8FrameError('0x28 data too short');
  const serial = sn(data, 6);
  return {
    board: data[0]!,
    hole: data[1]!,
    state: data[2]!,
    area: data[5]!,
    sn: serial === 0 ? null : String(serial),
    charge: measured(data[10]!),
    temperature: measured(data[11]!),
    voltage: measured(data[12]!),
    current: measured(data[13]!),
    softVersion: data[14]!,
    hardVersion: data[15]!,
  };
}
export function encodeReturned(r: {
  board: number;
  hole: number;
  state: number;
  sn: string;
  charge: number;
  temperature?: number;
}) {
  const d = Buffer.alloc(16);
  d[0] = r.board;
  d[1] = r.hole;
  d[2] = r.state;
  d.writeUInt32BE(Number(r.sn), 6);
  d[10] = r.charge;
  d[11] = r.temperature ?? 0xff;
  d[12] = 0xff;
  d[13] = 0xff;
  return encodeA8(A8_CMD.returned, d);
}

/** 0xCF, the Wi-Fi networks the cabinet sees: per network a length-prefixed SSID and its signal (dBm + 256). */
export function decodeWifiScan(data: Buffer): { ssid: string; signal: number }[] {
  const out: { ssid: string; signal: number }[] = [];
  let at = 0;
  while (at < data.length) {
    const n = data[at]!;
    if (at + 1 + n + 1 > data.length) throw new A8FrameError('0xCF entry runs past the frame');
    out.push({ ssid: data.subarray(at + 1, at + 1 + n).toString('utf8'), signal: data[at + 1 + n]! - 256 });
    at += n + 2;
  }
  return out;
}
export function encodeWifiScan(list: { ssid: string; signal: number }[]) {
  return encodeA8(
    A8_CMD.wifiScan,
    Buffer.concat(
      list.map((w) => {
        const s = Buffer.from(w.ssid, 'utf8');
        return Buffer.concat([Buffer.from([s.length]), s, Buffer.from([(w.signal + 256) & 0xff])]);
      }),
    ),
  );
}

// ---- server → cabinet (JSON on /powerbank/{uuid}/user/get) ------------------------------------------------------

/** A command's validity: issued at `timestamp` (Unix seconds), void after `ttl` seconds (results 0x04 / 0x05). */
export interface A8Validity {
  timestamp: number;
  ttl: number;
}

export type A8Command =
  | { cmd: 'check' | 'check_all' | 'upload_all' | 'push_version_publish' | 'reboot' | 'wifi_scan' }
  | ({ cmd: 'popup'; io: string; data: string } & Partial<A8Validity>)
  | ({ cmd: 'popup_sn'; data: string } & Partial<A8Validity>)
  | { cmd: 'setWifi'; username: string; password: string }
  | { cmd: 'setMode'; data: '4g' | 'wifi' }
  | { cmd: 'volume'; data: string };

export const a8Command = {
  popupBySlot: (board: number, hole: number, v?: A8Validity): A8Command => ({
    cmd: 'popup',
    io: String(board),
    data: String(hole),
    ...v,
  }),
  popupBySerial: (serial: string, v?: A8Validity): A8Command => ({ cmd: 'popup_sn', data: serial, ...v }),
  status: (): A8Command => ({ cmd: 'check_all' }),
  uploadAll: (): A8Command => ({ cmd: 'upload_all' }),
  firmware: (): A8Command => ({ cmd: 'push_version_publish' }),
  restart: (): A8Command => ({ cmd: 'reboot' }),
  wifiScan: (): A8Command => ({ cmd: 'wifi_scan' }),
  setWifi: (ssid: string, password: string): A8Command => ({ cmd: 'setWifi', username: ssid, password }),
  setMode: (mode: '4g' | 'wifi'): A8Command => ({ cmd: 'setMode', data: mode }),
  volume: (level: number): A8Command => {
    if (!Number.isInteger(level) || level < 0 || level > 100) throw new RangeError('volume is 0 to 100');
    return { cmd: 'volume', data: String(level) };
  },
};

/** A command as the cabinet parses it (tests and the simulator); null when it is not one. */
export function parseA8Command(raw: Buffer | string): A8Command | null {
  try {
    const v = JSON.parse(raw.toString()) as { cmd?: unknown };
    return typeof v?.cmd === 'string' ? (v as A8Command) : null;
  } catch {
    return null;
  }
}

export const a8Topics = (uuid: string) => ({
  get: `/powerbank/${uuid}/user/get`,
  update: `/powerbank/${uuid}/user/update`,
  heart: `/powerbank/${uuid}/user/heart`,
  upload: `/powerbank/${uuid}/user/upload`,
});

/**
 * The broker's topic rule for a cabinet of this family (username = cabinet id `{idPrefix}{uuid}`): it may publish
 * only its own /user/update, /user/heart and /user/upload, and subscribe only to its own /user/get.
 */
export function a8CabinetMay(idPrefix: string) {
  return (op: 'publish' | 'subscribe', cabinetId: string, topic: string): boolean => {
    if (!idPrefix || !cabinetId.startsWith(idPrefix)) return false;
    const uuid = cabinetId.slice(idPrefix.length);
    if (!/^[A-Za-z0-9]{1,40}$/.test(uuid)) return false;
    const t = a8Topics(uuid);
    return op === 'subscribe' ? topic === t.get : topic === t.update || topic === t.heart || topic === t.upload;
  };
}
