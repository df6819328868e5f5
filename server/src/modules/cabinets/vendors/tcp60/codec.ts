// The binary TCP cabinet family (commands 0x60–0x8F): the frames of its public document, nothing else
// (docs/cabinet-protocol.md "Vendor families"). Pure functions, tested byte by byte in server/test/vendors-tcp.test.ts.
//
//   length (2, big-endian: the bytes after it) | cmd | version | checksum | token (4) | payload
//   checksum = XOR of the payload bytes; token = the first 4 bytes of MD5(payload ‖ secret), the secret shared by
//   the operator's cabinets and the server. Both directions use the same header.
import { createHash } from 'node:crypto';

export const TCP_CMD = {
  login: 0x60,
  heartbeat: 0x61,
  firmware: 0x62,
  inventory: 0x64,
  borrow: 0x65,
  returned: 0x66,
  restart: 0x67,
  iccid: 0x69,
  setVolume: 0x70,
  volume: 0x77,
  forceEject: 0x80,
  slotAnomaly: 0x83,
} as const;

export const TCP_VERSION = 0x01;
const HEADER = 9;
/** A power bank id on the wire: 8 ASCII bytes, zero-padded; all zeros = no power bank. */
const BANK_ID = 8;

/** Why a frame is refused: `checksum` (damaged on the way: dropped, the connection kept), `token`, `format`. */
export class TcpFrameError extends Error {
  constructor(
    message: string,
    readonly kind: 'checksum' | 'token' | 'format' = 'format',
  ) {
    super(message);
  }
}

export interface TcpFrame {
  cmd: number;
  version: number;
  payload: Buffer;
}

export function xorChecksum(payload: Uint8Array): number {
  let x = 0;
  for (const b of payload) x ^= b;
  return x;
}

export function tcpToken(payload: Uint8Array, secret: string): Buffer {
  return createHash('md5').update(payload).update(secret, 'utf8').digest().subarray(0, 4);
}

export function encodeTcp(cmd: number, payload: Uint8Array, secret: string, version = TCP_VERSION): Buffer {
  const out = Buffer.alloc(HEADER + payload.length);
  out.writeUInt16BE(out.length - 2, 0);
  out[2] = cmd;
  out[3] = version;
  out[4] = xorChecksum(payload);
  tcpToken(payload, secret).copy(out, 5);
  Buffer.from(payload).copy(out, HEADER);
  return out;
}

/** One whole frame; throws TcpFrameError on a wrong length, checksum or token. */
export function decodeTcp(frame: Uint8Array, secret: string): TcpFrame {
  const f = decodeTcpUnsigned(frame);
  if (!tcpToken(f.payload, secret).equals(f.token)) throw new TcpFrameError('token mismatch (wrong secret)', 'token');
  return { cmd: f.cmd, version: f.version, payload: f.payload };
}

/**
 * One whole frame with its token not checked yet (a login: the secret to check it with is the cabinet's, known
 * only from the payload); throws TcpFrameError on a wrong length or checksum.
 */
export function decodeTcpUnsigned(frame: Uint8Array): TcpFrame & { token: Buffer } {
  const b = Buffer.from(frame);
  if (b.length < HEADER) throw new TcpFrameError('frame too short');
  if (b.readUInt16BE(0) !== b.length - 2)
    throw new TcpFrameError(`length field ${b.readUInt16BE(0)} is not the ${b.length - 2} bytes after it`);
  const payload = b.subarray(HEADER);
  if (xorChecksum(payload) !== b[4]) throw new TcpFrameError('checksum mismatch', 'checksum');
  return { cmd: b[2]!, version: b[3]!, payload, token: b.subarray(5, 9) };
}

/** Splits a TCP stream into frames: whole frames out, the rest kept for the next chunk. */
export class TcpFramer {
  private buf: Buffer = Buffer.alloc(0);
  push(chunk: Buffer): Buffer[] {
    this.buf = this.buf.length ? Buffer.concat([this.buf, chunk]) : chunk;
    const out: Buffer[] = [];
    while (this.buf.length >= 2) {
      const n = this.buf.readUInt16BE(0) + 2;
      if (n < HEADER) throw new TcpFrameError(`length field ${n - 2} is below the header`);
      if (this.buf.length < n) break;
      out.push(this.buf.subarray(0, n));
      this.buf = this.buf.subarray(n);
    }
    return out;
  }
}

const bankId = (b: Buffer, at: number): string | null => {
  const raw = b.subarray(at, at + BANK_ID);
  if (raw.every((x) => x === 0)) return null;
  return raw.toString('latin1').replace(/\0+$/, '');
};
const writeBankId = (b: Buffer, at: number, id: string | null) => {
  if (id && (id.length > BANK_ID || !/^[\x20-\x7e]+$/.test(id)))
    throw new RangeError(`power bank id ${JSON.stringify(id)} is not 1-8 ASCII characters`);
  b.fill(0, at, at + BANK_ID);
  if (id) b.write(id, at, 'latin1');
};

/** Slot status bits (login): a power bank is present, charging, locked in, faulty. */
export const SLOT_BITS = { present: 0x01, charging: 0x02, locked: 0x04, fault: 0x08 } as const;

export interface TcpSlot {
  slot: number;
  bankId: string | null;
  /** Charge in percent. */
  level: number;
  /** Millivolts and milliamperes. */
  voltage: number;
  current: number;
  /** Degrees Celsius (signed). */
  temperature: number;
  status: number;
  /** Battery health in percent. */
  health: number;
}
const SLOT_BYTES = 1 + BANK_ID + 1 + 2 + 2 + 1 + 1 + 1;

/** 0x60 login (cabinet → server): box id (2-byte length + ASCII), slot count, then 17 bytes per slot. */
export function decodeLogin(p: Buffer): { boxId: string; slots: TcpSlot[] } {
  if (p.length < 3) throw new TcpFrameError('0x60 payload too short');
  const n = p.readUInt16BE(0);
  const boxId = p.subarray(2, 2 + n).toString('latin1');
  const count = p[2 + n];
  if (count === undefined || p.length < 3 + n + count * SLOT_BYTES)
    throw new TcpFrameError('0x60 slot list runs past the frame');
  const slots: TcpSlot[] = [];
  for (let i = 0, at = 3 + n; i < count; i++, at += SLOT_BYTES) {
    slots.push({
      slot: p[at]!,
      bankId: bankId(p, at + 1),
      level: p[at + 9]!,
      voltage: p.readUInt16BE(at + 10),
      current: p.readUInt16BE(at + 12),
      temperature: p.readInt8(at + 14),
      status: p[at + 15]!,
      health: p[at + 16]!,
    });
  }
  return { boxId, slots };
}
export function encodeLogin(boxId: string, slots: TcpSlot[]): Buffer {
  const id = Buffer.from(boxId, 'latin1');
  const p = Buffer.alloc(3 + id.length + slots.length * SLOT_BYTES);
  p.writeUInt16BE(id.length, 0);
  id.copy(p, 2);
  p[2 + id.length] = slots.length;
  slots.forEach((s, i) => {
    const at = 3 + id.length + i * SLOT_BYTES;
    p[at] = s.slot;
    writeBankId(p, at + 1, s.bankId);
    p[at + 9] = s.level;
    p.writeUInt16BE(s.voltage, at + 10);
    p.writeUInt16BE(s.current, at + 12);
    p.writeInt8(s.temperature, at + 14);
    p[at + 15] = s.status;
    p[at + 16] = s.health;
  });
  return p;
}

/** 0x64 inventory answer: count, then per power bank its slot, id (8) and charge. */
export function decodeInventory(p: Buffer): { slot: number; bankId: string | null; level: number }[] {
  const n = p[0] ?? 0;
  if (p.length < 1 + n * 10) throw new TcpFrameError('0x64 list runs past the frame');
  return Array.from({ length: n }, (_, i) => ({
    slot: p[1 + i * 10]!,
    bankId: bankId(p, 2 + i * 10),
    level: p[10 + i * 10]!,
  }));
}
export function encodeInventory(list: { slot: number; bankId: string | null; level: number }[]): Buffer {
  const p = Buffer.alloc(1 + list.length * 10);
  p[0] = list.length;
  list.forEach((x, i) => {
    p[1 + i * 10] = x.slot;
    writeBankId(p, 2 + i * 10, x.bankId);
    p[10 + i * 10] = x.level;
  });
  return p;
}

/** 0x65 borrow / 0x80 force eject answer: slot, result (1 = out), power bank id, then the lock state of each slot. */
export function decodeEjectResult(p: Buffer): { slot: number; ok: boolean; bankId: string | null; locks: boolean[] } {
  if (p.length < 10) throw new TcpFrameError('eject answer too short');
  const n = p[10] ?? 0;
  return {
    slot: p[0]!,
    ok: p[1] === 0x01,
    bankId: bankId(p, 2),
    locks: [...p.subarray(11, 11 + n)].map((x) => x === 0x01),
  };
}
export function encodeEjectResult(r: { slot: number; ok: boolean; bankId: string | null; locks: boolean[] }): Buffer {
  const p = Buffer.alloc(11 + r.locks.length);
  p[0] = r.slot;
  p[1] = r.ok ? 0x01 : 0x00;
  writeBankId(p, 2, r.bankId);
  p[10] = r.locks.length;
  r.locks.forEach((l, i) => (p[11 + i] = l ? 0x01 : 0x00));
  return p;
}

/** 0x66 return (cabinet → server): slot and power bank id; the server answers slot and result. */
export function decodeReturn(p: Buffer): { slot: number; bankId: string | null } {
  if (p.length < 9) throw new TcpFrameError('0x66 payload too short');
  return { slot: p[0]!, bankId: bankId(p, 1) };
}
export function encodeReturn(slot: number, id: string): Buffer {
  const p = Buffer.alloc(9);
  p[0] = slot;
  writeBankId(p, 1, id);
  return p;
}

/** 0x83 slot anomaly: slot, kind, power bank id (zeros when none). */
export const ANOMALY = { 0x01: 'no-unlock-command', 0x02: 'return-without-power-bank' } as const;
export function decodeAnomaly(p: Buffer): { slot: number; kind: string; bankId: string | null } {
  if (p.length < 10) throw new TcpFrameError('0x83 payload too short');
  return { slot: p[0]!, kind: ANOMALY[p[1] as keyof typeof ANOMALY] ?? `unknown-${p[1]}`, bankId: bankId(p, 2) };
}
export function encodeAnomaly(slot: number, kind: keyof typeof ANOMALY, id: string | null): Buffer {
  const p = Buffer.alloc(10);
  p[0] = slot;
  p[1] = kind;
  writeBankId(p, 2, id);
  return p;
}

/** Server → cabinet payloads of the commands without a structure of their own. */
export const tcpRequest = {
  slot: (slot: number) => Buffer.from([slot]),
  none: () => Buffer.alloc(0),
  result: (ok: boolean) => Buffer.from([ok ? 0x01 : 0x00]),
  returnAnswer: (slot: number, ok: boolean) => Buffer.from([slot, ok ? 0x01 : 0x00]),
  volume: (level: number) => {
    if (!Number.isInteger(level) || level < 0 || level > 15) throw new RangeError('volume is 0 to 15');
    return Buffer.from([level]);
  },
};

/**
 * The family's volume is 0–15 (0x70 sets it: server [level], cabinet [result]; 0x77 asks it: server —, cabinet
 * [level]); the internal command and status speak percent.
 */
export const volumeToTcp = (percent: number) => Math.round((Math.min(100, Math.max(0, percent)) * 15) / 100);
export const volumeFromTcp = (level: number) => Math.round((Math.min(15, level) * 100) / 15);
export function decodeVolume(p: Buffer): number {
  if (p.length < 1 || p[0]! > 15) throw new TcpFrameError('0x77 volume is one byte, 0 to 15');
  return p[0]!;
}

/** Text answers: 0x62 firmware version, 0x69 SIM ICCID (ASCII). */
export const decodeText = (p: Buffer) => p.toString('latin1').replace(/\0+$/, '');
