// What a vendor gateway is to the cabinet link (link.ts): it speaks one family's protocol with its cabinets and
// turns what they say into the internal protocol's events, and the internal commands into the family's, so nothing
// above the link knows which family a cabinet is (docs/cabinet-protocol.md "Vendor families").
import type { CabinetEvent, CabinetStatus, CommandAck, EjectCommand, ServerMessage } from '../protocol.ts';

/** The link's own path for a vendor cabinet's messages (the same inbox, order per cabinet and limits as MQTT's). */
export interface EdgeSink {
  /**
   * Stores the event in the inbox (a heartbeat: reconciles it) and then processes it. Resolves true once stored:
   * only then may the gateway acknowledge it to the cabinet. False or a rejection: not stored, no acknowledgement.
   */
  event(cabinetId: string, e: CabinetEvent): Promise<boolean>;
  status(cabinetId: string, s: CabinetStatus): Promise<void>;
  ack(cabinetId: string, a: CommandAck): Promise<void>;
  /** A message refused or an anomaly reported by the cabinet, counted for an operator (cabinet_rejects). */
  reject(cabinetId: string, reason: string, payload: string): Promise<void>;
}

/** An eject sent to a vendor cabinet: the slot and the power bank the gateway expected there. */
export interface SentEject {
  commandId: string;
  cabinetId: string;
  slot: number | null;
  powerbankId: string | null;
  at: Date;
}

/**
 * The ejects sent and not yet answered, kept outside the process (vendor_ejects): recorded before the frame leaves,
 * removed once the outcome is stored. A gateway process killed in between leaves the record, and the gateway that
 * next hears from the cabinet settles it from the cabinet's inventory (`reconciled`).
 */
export interface EjectLedger {
  sent(e: SentEject): Promise<void>;
  find(commandId: string): Promise<SentEject | undefined>;
  open(cabinetId: string, since: Date): Promise<SentEject[]>;
  settled(commandId: string): Promise<void>;
}

/**
 * The outcome of an eject whose answer was lost with the process that sent it, from what the cabinet holds now:
 * the power bank it was sent for no longer in the cabinet → popped; still there, or none named → pop-failed.
 */
export function reconciled(x: SentEject, present: (powerbankId: string) => boolean, ts: string): CabinetEvent {
  const base = { v: 2 as const, id: outcomeEventId(x.commandId), ts, commandId: x.commandId };
  if (x.powerbankId && x.slot !== null && !present(x.powerbankId))
    return { ...base, type: 'popped', slot: x.slot, powerbankId: x.powerbankId };
  return { ...base, type: 'pop-failed', slot: x.slot, reason: x.powerbankId ? 'jammed' : 'empty' };
}

export interface VendorGateway {
  /** The family's name, for logs and docs ('a8', 'tcp60'). */
  readonly family: string;
  /** Whether the link sends this cabinet's commands through this gateway. */
  owns(cabinetId: string): boolean;
  /** An internal command for one of its cabinets (an event-ack never comes here: the gateway acknowledges itself). */
  send(cabinetId: string, msg: ServerMessage): Promise<void>;
  start(sink: EdgeSink): Promise<void>;
  close(): Promise<void>;
}

/** How long a gateway remembers a command's outcome: a repeat of the command (re-published) gets the same event. */
export const REMEMBER_MS = 60 * 60_000;

/**
 * The ejects a gateway has sent to its cabinets and their outcomes: the vendor families do not carry our command
 * ids, so the gateway matches an answer to the eject it sent (by cabinet and slot or serial), and makes the
 * popped / pop-failed event's id from the command's, so every repeat of that answer is one event in the inbox.
 */
export class EjectBook {
  private readonly pending = new Map<string, EjectCommand & { cabinetId: string; serial: string | null }>();
  private readonly outcomes = new Map<string, { e: CabinetEvent; at: number }>();
  private readonly sending = new Map<string, Promise<void>>();

  constructor(private readonly now: () => number = Date.now) {}

  /**
   * Runs the sends of one command one after another. A repeat can arrive while the first is still being sent (the
   * rental publishes its eject as the link re-publishes the cabinet's unanswered commands when it comes online), and
   * a send checks `outcome` / `isPending` before round trips that end in `add`: the repeat waits for the first, then
   * finds it pending or settled, so the cabinet gets one eject.
   */
  async oneAtATime(commandId: string, send: () => Promise<void>) {
    const run = (this.sending.get(commandId) ?? Promise.resolve()).then(send);
    const tail = run.catch(() => undefined);
    this.sending.set(commandId, tail);
    try {
      await run;
    } finally {
      if (this.sending.get(commandId) === tail) this.sending.delete(commandId);
    }
  }

  /** The event already made for this command, if any (a repeat: send it again, do not eject twice). */
  outcome(commandId: string): CabinetEvent | undefined {
    this.prune();
    return this.outcomes.get(commandId)?.e;
  }

  /** Sent and not answered yet: a repeat of it must not eject again. */
  isPending(commandId: string) {
    return this.pending.has(commandId);
  }

  expired(cmd: EjectCommand) {
    return this.now() > Date.parse(cmd.ts) + cmd.ttlMs;
  }

  add(cabinetId: string, cmd: EjectCommand, serial: string | null) {
    this.prune();
    this.pending.set(cmd.id, { ...cmd, cabinetId, serial });
  }

  /** The pending eject this answer is about: the same serial, else the same slot, of that cabinet. */
  match(cabinetId: string, by: { slot?: number | null; serial?: string | null }) {
    for (const p of this.pending.values()) {
      if (p.cabinetId !== cabinetId) continue;
      if ((by.serial && p.serial === by.serial) || (by.slot != null && p.slot === by.slot)) return p;
    }
    return undefined;
  }

  /** Records the outcome event of a command (made once; a later call returns the first). */
  settle(commandId: string, make: () => CabinetEvent): CabinetEvent {
    const known = this.outcomes.get(commandId);
    if (known) return known.e;
    const e = make();
    this.outcomes.set(commandId, { e, at: this.now() });
    this.pending.delete(commandId);
    return e;
  }

  private prune() {
    const cut = this.now() - REMEMBER_MS;
    for (const [k, v] of this.outcomes) if (v.at < cut) this.outcomes.delete(k);
    // An eject never answered (the cabinet went away): its TTL has long cancelled the rental.
    for (const [k, p] of this.pending) if (Date.parse(p.ts) + p.ttlMs < cut) this.pending.delete(k);
  }
}

/**
 * An operator's command that is not an eject (restart, report-inventory) sent through a gateway: acknowledged when
 * the family answers it (or, where it has no answer, once sent); a repeat of the same id is acknowledged again and
 * not carried out twice.
 */
export class ActionBook {
  private readonly done = new Map<string, number>();
  private readonly waiting = new Map<string, { cabinetId: string; kind: string }>();

  constructor(private readonly now: () => number = Date.now) {}

  /** True when the command was already carried out or is being carried out (do not send it again). */
  seen(commandId: string) {
    return this.done.has(commandId) || this.waiting.has(commandId);
  }

  isDone(commandId: string) {
    return this.done.has(commandId);
  }

  wait(cabinetId: string, kind: string, commandId: string) {
    this.waiting.set(commandId, { cabinetId, kind });
  }

  /** The commands of this kind the cabinet has now answered (marked done). */
  answered(cabinetId: string, kind: string): string[] {
    const cut = this.now() - REMEMBER_MS;
    for (const [k, at] of this.done) if (at < cut) this.done.delete(k);
    const out: string[] = [];
    for (const [id, w] of this.waiting) {
      if (w.cabinetId !== cabinetId || w.kind !== kind) continue;
      this.waiting.delete(id);
      this.done.set(id, this.now());
      out.push(id);
    }
    return out;
  }
}

/** The acknowledgement a gateway gives in the cabinet's name (the families do not carry our command ids). */
export const ackOf = (commandId: string, status: CommandAck['status'], now: number): CommandAck => ({
  v: 2,
  commandId,
  ts: new Date(now).toISOString(),
  status,
});

/** The id of the event that answers command `commandId` (stable across repeats). */
export const outcomeEventId = (commandId: string) => `cmd-${commandId}`;
