// The cabinet protocol (docs/cabinet-protocol.md), shared by the server's cabinet link and the simulator.
export const PROTOCOL_VERSION = 1;

export const topics = (prefix: string, cabinetId: string) => ({
  commands: `${prefix}/cabinets/${cabinetId}/commands`,
  acks: `${prefix}/cabinets/${cabinetId}/acks`,
  events: `${prefix}/cabinets/${cabinetId}/events`,
  status: `${prefix}/cabinets/${cabinetId}/status`,
});

/** Server → cabinet. */
export interface EjectCommand {
  v: 1;
  id: string;
  type: 'eject';
  ts: string;
  ttlMs: number;
  /** A slot number, or null for "any slot with a charged power bank". */
  slot: number | null;
}
export type Command = EjectCommand;

/** Cabinet → server, on …/acks: the command was received (accepted) or refused before doing anything. */
export interface CommandAck {
  v: 1;
  commandId: string;
  ts: string;
  status: 'accepted' | 'expired' | 'unknown_command';
}

export interface SlotState {
  slot: number;
  powerbankId: string | null;
  /** Battery level in percent, null when the slot is empty. */
  battery: number | null;
}

interface EventBase {
  v: 1;
  /** Unique per event (the cabinet makes it); repeated deliveries carry the same id. */
  id: string;
  /** The cabinet's own clock, ISO 8601 UTC. */
  ts: string;
}
export type CabinetEvent =
  | (EventBase & { type: 'heartbeat'; slots: SlotState[] })
  | (EventBase & { type: 'popped'; commandId: string; slot: number; powerbankId: string })
  | (EventBase & { type: 'pop-failed'; commandId: string; slot: number | null; reason: 'empty' | 'jammed' | 'expired' })
  | (EventBase & { type: 'returned'; slot: number; powerbankId: string; fault?: string })
  /** The cabinet found a rented power bank faulty (e.g. it reported a fault over its contacts or a user pressed the fault key). */
  | (EventBase & { type: 'powerbank-fault'; powerbankId: string; slot?: number | null; reason: string });

/** …/status, retained; the offline message is also the connection's MQTT last will. */
export interface CabinetStatus {
  v: 1;
  online: boolean;
  ts: string;
}

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null;
const str = (v: unknown) => typeof v === 'string' && v.length > 0 && v.length <= 200;
const int = (v: unknown) => Number.isInteger(v);

/** Parses an event payload; null when it is not a valid event (the link drops and logs it). */
export function parseEvent(raw: Buffer | string): CabinetEvent | null {
  let v: unknown;
  try {
    v = JSON.parse(raw.toString());
  } catch {
    return null;
  }
  if (!isObj(v) || !str(v.id) || !str(v.ts) || Number.isNaN(Date.parse(v.ts as string))) return null;
  switch (v.type) {
    case 'heartbeat':
      return Array.isArray(v.slots) ? (v as unknown as CabinetEvent) : null;
    case 'popped':
      return str(v.commandId) && int(v.slot) && str(v.powerbankId) ? (v as unknown as CabinetEvent) : null;
    case 'pop-failed':
      return str(v.commandId) ? (v as unknown as CabinetEvent) : null;
    case 'returned':
      return int(v.slot) && str(v.powerbankId) && (v.fault === undefined || str(v.fault)) ? (v as unknown as CabinetEvent) : null;
    case 'powerbank-fault':
      return str(v.powerbankId) && str(v.reason) ? (v as unknown as CabinetEvent) : null;
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
