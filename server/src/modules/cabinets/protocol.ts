import type { DeviceKind } from '#core/devices.ts';
// The cabinet protocol (docs/cabinet-protocol.md), shared by the server's cabinet link and the simulator.
/** The version this server and the simulator speak (docs/cabinet-protocol.md §Versions). */
export const PROTOCOL_VERSION = 2;
/** Versions the server accepts from a cabinet; an event with any other `v` is refused (counted, not acknowledged). */
export const SUPPORTED_VERSIONS: readonly number[] = [1, 2];
export type ProtocolVersion = 1 | 2;

export const topics = (prefix: string, cabinetId: string) => ({
  commands: `${prefix}/cabinets/${cabinetId}/commands`,
  acks: `${prefix}/cabinets/${cabinetId}/acks`,
  events: `${prefix}/cabinets/${cabinetId}/events`,
  status: `${prefix}/cabinets/${cabinetId}/status`,
});

/** Server → cabinet. */
export interface EjectCommand {
  v: ProtocolVersion;
  id: string;
  type: 'eject';
  ts: string;
  ttlMs: number;
  /** A slot number, or null for "any slot with a charged power bank". */
  slot: number | null;
  /** Additive (v2): the kind of device to eject (default 'cdb'); a cabinet that ignores it ejects the named slot. */
  kind?: DeviceKind;
}
/**
 * v2, server → cabinet on …/commands: the event `eventId` is stored by the server; the cabinet may forget it.
 * Sent for every delivery of the event (also a repeat), so a lost ack only costs a re-send.
 */
export interface EventAck {
  v: 2;
  type: 'event-ack';
  eventId: string;
  ts: string;
}
/**
 * Additive (v2), server → cabinet on …/commands: set a new Wi-Fi password on the box `sn` (in a slot, or reporting
 * through this cabinet's gateway). The cabinet acks it on …/acks as any command, then, once the box applied it,
 * sends the event `box-password` with this command's id. Sent again until that event arrives (same id, same password).
 */
export interface WifiPasswordCommand {
  v: 2;
  id: string;
  type: 'wifi-password';
  ts: string;
  ttlMs: number;
  sn: string;
  password: string;
}
/** Additive (v2), server → cabinet: an operator locks (or unlocks) a slot; a locked slot neither ejects nor takes a return. */
export interface SlotLockCommand {
  v: 2;
  id: string;
  type: 'slot-lock';
  ts: string;
  ttlMs: number;
  slot: number;
  locked: boolean;
}
/** Additive (v2), server → cabinet: report the inventory now (a heartbeat at once), or restart (after the ack). */
export interface CabinetActionCommand {
  v: 2;
  id: string;
  type: 'report-inventory' | 'restart';
  ts: string;
  ttlMs: number;
}
/**
 * Additive (v2), server → cabinet: keep the empty slot `slot` for the return of the power bank `powerbankId` until
 * `until` (the cabinet's clock, ISO 8601 UTC): meanwhile the slot takes no other power bank (other returns go to
 * other slots). The return of that power bank (in any slot) ends it, and so does `until`, without another message;
 * `until: null` releases the slot now (the rider cancelled, or returned it elsewhere). Acked on …/acks as any command.
 */
export interface SlotReserveCommand {
  v: 2;
  id: string;
  type: 'slot-reserve';
  ts: string;
  ttlMs: number;
  slot: number;
  powerbankId: string;
  until: string | null;
}
/**
 * Additive (v2), server → cabinet: set the speaker volume to `level` percent (0 = silent). Carried out by the vendor
 * gateways in their family's command (docs/cabinet-protocol.md "Vendor families"); a cabinet without a speaker
 * answers `unknown_command`.
 */
export interface VolumeCommand {
  v: 2;
  id: string;
  type: 'set-volume';
  ts: string;
  ttlMs: number;
  level: number;
}
export type Command = EjectCommand;
export type ServerMessage =
  | EjectCommand
  | EventAck
  | WifiPasswordCommand
  | SlotLockCommand
  | CabinetActionCommand
  | SlotReserveCommand
  | VolumeCommand;

/** Cabinet → server, on …/acks: the command was received (accepted) or refused before doing anything. */
export interface CommandAck {
  v: ProtocolVersion;
  commandId: string;
  ts: string;
  status: 'accepted' | 'expired' | 'unknown_command';
}

export interface SlotState {
  slot: number;
  powerbankId: string | null;
  /** Battery level in percent, null when the slot is empty. */
  battery: number | null;
  /** Additive (v2): what the slot holds; absent means a power bank ('cdb'). For a Wi-Fi box the id is its serial. */
  kind?: DeviceKind;
  /** Additive (v2): locked by an operator (slot-lock). Absent: unlocked. */
  locked?: boolean;
  /** Additive (v2): kept for a return until then (slot-reserve). Absent: not reserved. */
  reservedUntil?: string;
  /** Additive (v2): the slot's temperature in °C, when the cabinet measures it. */
  temperature?: number | null;
  /** Additive (v2): fault codes of the slot or its device (e.g. 'overheat', 'no-contact', 'motor'); absent: none. */
  faults?: string[];
}

interface EventBase {
  v: ProtocolVersion;
  /** Unique per event (the cabinet makes it); repeated deliveries carry the same id. */
  id: string;
  /** The cabinet's own clock, ISO 8601 UTC. */
  ts: string;
}
export type CabinetEvent =
  | (EventBase & { type: 'heartbeat'; slots: SlotState[] })
  | (EventBase & { type: 'popped'; commandId: string; slot: number; powerbankId: string; kind?: DeviceKind })
  | (EventBase & {
      type: 'pop-failed';
      commandId: string;
      slot: number | null;
      reason: 'empty' | 'jammed' | 'expired' | 'locked';
    })
  | (EventBase & { type: 'returned'; slot: number; powerbankId: string; fault?: string; kind?: DeviceKind })
  /** The cabinet found a rented power bank faulty (e.g. it reported a fault over its contacts or a user pressed the fault key). */
  | (EventBase & { type: 'powerbank-fault'; powerbankId: string; slot?: number | null; reason: string })
  /** Additive: a Wi-Fi box's telemetry, relayed by the cabinet gateway it reports through. */
  | (EventBase & {
      type: 'box-telemetry';
      sn: string;
      battery: number | null;
      signal: number | null;
      bytesTotal: number;
      online: boolean;
    })
  /** Additive (v2): the box `sn` applied the Wi-Fi password of the `wifi-password` command `commandId`. */
  | (EventBase & { type: 'box-password'; commandId: string; sn: string })
  /** Additive (v2): the box `sn` read a pickup code (the QR the app shows: a package's id), relayed by its gateway. */
  | (EventBase & { type: 'box-code-read'; sn: string; code: string });

/** …/status, retained; the offline message is also the connection's MQTT last will. */
export interface CabinetStatus {
  v: ProtocolVersion;
  online: boolean;
  ts: string;
  /** Additive (v2): the firmware versions the cabinet runs, as it names them (kept for an operator). */
  firmware?: string;
  /** Additive (v2): the speaker volume in percent, as the cabinet reports it (kept for an operator). */
  volume?: number;
}

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null;
const str = (v: unknown) => typeof v === 'string' && v.length > 0 && v.length <= 200;
const int = (v: unknown) => Number.isInteger(v);

/** Parses an event payload; null when it is not a valid event (the link drops and logs it). */
export function parseEvent(raw: Buffer | string): CabinetEvent | null {
  const r = checkEvent(raw);
  return r.ok ? r.event : null;
}

export type EventCheck =
  { ok: true; event: CabinetEvent } | { ok: false; reason: 'malformed' | 'unknown-version'; id?: string };

/** An event, or why it is refused: not JSON / not an event of its type, or a protocol version this server does not speak. */
export function checkEvent(raw: Buffer | string): EventCheck {
  let v: unknown;
  try {
    v = JSON.parse(raw.toString());
  } catch {
    return { ok: false, reason: 'malformed' };
  }
  if (isObj(v) && !SUPPORTED_VERSIONS.includes(v.v as number)) {
    return { ok: false, reason: 'unknown-version', id: str(v.id) ? (v.id as string) : undefined };
  }
  const event = shape(v);
  return event ? { ok: true, event } : { ok: false, reason: 'malformed' };
}

function shape(v: unknown): CabinetEvent | null {
  if (!isObj(v) || !str(v.id) || !str(v.ts) || Number.isNaN(Date.parse(v.ts as string))) return null;
  switch (v.type) {
    case 'heartbeat':
      return Array.isArray(v.slots) ? (v as unknown as CabinetEvent) : null;
    case 'popped':
      return str(v.commandId) && int(v.slot) && str(v.powerbankId) ? (v as unknown as CabinetEvent) : null;
    case 'pop-failed':
      return str(v.commandId) ? (v as unknown as CabinetEvent) : null;
    case 'returned':
      return int(v.slot) && str(v.powerbankId) && (v.fault === undefined || str(v.fault))
        ? (v as unknown as CabinetEvent)
        : null;
    case 'powerbank-fault':
      return str(v.powerbankId) && str(v.reason) ? (v as unknown as CabinetEvent) : null;
    case 'box-telemetry':
      return str(v.sn) &&
        Number.isSafeInteger(v.bytesTotal) &&
        (v.bytesTotal as number) >= 0 &&
        typeof v.online === 'boolean'
        ? (v as unknown as CabinetEvent)
        : null;
    case 'box-password':
      return str(v.commandId) && str(v.sn) ? (v as unknown as CabinetEvent) : null;
    case 'box-code-read':
      return str(v.sn) && str(v.code) && (v.code as string).length <= 64 ? (v as unknown as CabinetEvent) : null;
    default:
      return null;
  }
}

export function parseJson<T>(raw: Buffer | string): T | null {
  try {
    const v: unknown = JSON.parse(raw.toString());
    return isObj(v) ? (v as T) : null;
  } catch {
    return null;
  }
}
