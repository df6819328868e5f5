// A simulated cabinet: one MQTT client speaking docs/cabinet-protocol.md (v2) exactly as firmware would.
// It owns its slots (the cabinet is the authority on what it holds), ejects on command, accepts returns, and
// keeps every event in its outbox until the server acknowledges it (`event-ack`), re-sending the unacknowledged
// ones after each (re)connect and periodically (firmware keeps the outbox in flash; here it is memory).
import type { MqttClient } from 'mqtt';
import type { Clock } from '../../lib/clock.ts';
import { uuid } from '../../lib/ids.ts';
import type { DeviceKind } from '#core/devices.ts';
import type { MqttConnector } from '../../mqtt/broker.ts';
import {
  parseJson,
  PROTOCOL_VERSION,
  topics,
  type CabinetEvent,
  type CabinetStatus,
  type CommandAck,
  type ServerMessage,
  type SlotState,
  type WifiPasswordCommand,
  type SlotLockCommand,
  type CabinetActionCommand,
  type SlotReserveCommand,
} from '../../modules/cabinets/protocol.ts';

export interface SimulatedCabinetOptions {
  cabinetId: string;
  /** slots[i] is slot i+1: a power bank id or null when empty. */
  slots: (string | null)[];
  connector: MqttConnector;
  prefix: string;
  clock: Clock;
  heartbeatMs?: number;
  /** Delay between accepting an eject and reporting the result (the motor). */
  ejectDelayMs?: number;
  /** Re-send events not acknowledged for this long (default 5 s). */
  resendMs?: number;
  /** The kind of each device that is not a power bank (a power station, a Wi-Fi box); shared by a fleet. */
  kinds?: Map<string, DeviceKind>;
}

type EventBody = CabinetEvent extends infer E ? (E extends CabinetEvent ? Omit<E, 'v' | 'id' | 'ts'> : never) : never;

export class SimulatedCabinet {
  readonly id: string;
  private readonly slots: (string | null)[];
  private client: MqttClient | null = null;
  private heartbeat: NodeJS.Timeout | null = null;
  private resender: NodeJS.Timeout | null = null;
  /** Events not yet acknowledged by the server, in the order they happened, with when they were last sent. */
  private readonly outbox = new Map<string, { event: CabinetEvent; sentAt: number }>();
  private failNext = false;
  /** Results of commands already executed, replayed if the same command id is delivered again. */
  private readonly done = new Map<string, CabinetEvent>();
  /** The Wi-Fi passwords of the boxes this cabinet relayed a `wifi-password` to. */
  private readonly wifiPasswords = new Map<string, string>();
  /** Slots an operator locked (slot-lock): no eject, no return. */
  private readonly locked = new Set<number>();
  /** Slots kept for a return (slot-reserve): only that power bank goes in, until the time (ms, this cabinet's clock). */
  private readonly reserved = new Map<number, { powerbankId: string; until: number }>();

  constructor(private readonly o: SimulatedCabinetOptions) {
    this.id = o.cabinetId;
    this.slots = [...o.slots];
  }

  get online() {
    return this.client?.connected ?? false;
  }

  /** What each slot holds; a device other than a power bank says its kind (protocol v2, additive). */
  inventory(): SlotState[] {
    return this.slots.map((p, i) => {
      const kind = p ? this.kindOf(p) : undefined;
      return {
        slot: i + 1,
        powerbankId: p,
        battery: p ? 100 : null,
        ...(kind && kind !== 'cdb' ? { kind } : {}),
        temperature: 24,
        ...(this.locked.has(i + 1) ? { locked: true } : {}),
        ...(this.keptFor(i + 1) ? { reservedUntil: new Date(this.reserved.get(i + 1)!.until).toISOString() } : {}),
      };
    });
  }

  kindOf(id: string): DeviceKind {
    return this.o.kinds?.get(id) ?? 'cdb';
  }

  private kindField(id: string) {
    const kind = this.kindOf(id);
    return kind === 'cdb' ? {} : { kind };
  }

  holds(powerbankId: string) {
    return this.slots.includes(powerbankId);
  }

  /** Events the server has not acknowledged yet. */
  get unacknowledged(): CabinetEvent[] {
    return [...this.outbox.values()].map((o) => o.event);
  }

  failNextEject() {
    this.failNext = true;
  }

  private get t() {
    return topics(this.o.prefix, this.id);
  }

  private statusPayload(online: boolean): string {
    const s: CabinetStatus = { v: PROTOCOL_VERSION, online, ts: this.o.clock.now().toISOString() };
    return JSON.stringify(s);
  }

  async start() {
    const client = this.o.connector.connect({
      clientId: `cabinet-${this.id}-${uuid().slice(0, 8)}`,
      clean: true,
      resubscribe: false,
      will: { topic: this.t.status, payload: Buffer.from(this.statusPayload(false)), qos: 1, retain: true },
    });
    this.client = client;
    // On EVERY connect (a restarted broker forgot everything): subscribe, say online, re-send the outbox, heartbeat.
    const ready = new Promise<void>((resolve) => {
      client.on('connect', () => {
        void (async () => {
          await client.subscribeAsync(this.t.commands, { qos: 1 });
          await client.publishAsync(this.t.status, this.statusPayload(true), { qos: 1, retain: true });
          resolve();
          await this.resend(0);
          await this.sendHeartbeat();
        })().catch(() => undefined);
      });
    });
    client.on('message', (_topic, payload) => {
      const msg = parseJson<ServerMessage>(payload);
      if (msg?.type === 'event-ack') {
        if (typeof msg.eventId === 'string') this.outbox.delete(msg.eventId);
      } else if (msg) void this.handle(msg);
    });
    await Promise.race([ready, new Promise((_, reject) => client.once('error', reject))]);
    const every = this.o.heartbeatMs ?? 30_000;
    this.heartbeat = setInterval(() => void this.sendHeartbeat(), every);
    this.heartbeat.unref();
    const resendMs = this.o.resendMs ?? 5_000;
    this.resender = setInterval(() => void this.resend(resendMs), Math.max(50, resendMs / 2));
    this.resender.unref();
  }

  /** Re-sends (in order) the events unacknowledged for at least `olderThanMs`. */
  private async resend(olderThanMs: number) {
    const c = this.client;
    if (!c?.connected) return;
    const now = Date.now();
    for (const o of [...this.outbox.values()]) {
      if (now - o.sentAt < olderThanMs || !this.outbox.has(o.event.id)) continue;
      o.sentAt = now;
      await this.publishEvent(o.event);
    }
  }

  private async publishEvent(e: CabinetEvent) {
    const c = this.client;
    // While disconnected nothing is published: the outbox is re-sent on reconnect (never a blocked publish).
    if (!c?.connected) return;
    await c.publishAsync(this.t.events, JSON.stringify(e), { qos: 1, retain: false }).catch(() => undefined);
  }

  private async emit(body: EventBody): Promise<CabinetEvent> {
    const e = { v: PROTOCOL_VERSION, id: uuid(), ts: this.o.clock.now().toISOString(), ...body } as CabinetEvent;
    // A heartbeat is not kept (the next one supersedes it); every other event until the server acknowledges it.
    if (e.type !== 'heartbeat') this.outbox.set(e.id, { event: e, sentAt: Date.now() });
    await this.publishEvent(e);
    return e;
  }

  private async sendHeartbeat() {
    if (this.client?.connected) await this.emit({ type: 'heartbeat', slots: this.inventory() }).catch(() => undefined);
  }

  /** Sends a heartbeat now (its inventory is what the server lends from). */
  heartbeatNow() {
    return this.sendHeartbeat();
  }

  private async ack(commandId: string, status: CommandAck['status']) {
    const a: CommandAck = { v: PROTOCOL_VERSION, commandId, ts: this.o.clock.now().toISOString(), status };
    if (this.client?.connected)
      await this.client.publishAsync(this.t.acks, JSON.stringify(a), { qos: 1, retain: false }).catch(() => undefined);
  }

  /** The box takes its new Wi-Fi password (relayed by this gateway) and confirms it with `box-password`. */
  private async setWifiPassword(cmd: WifiPasswordCommand) {
    if (typeof cmd.sn !== 'string' || typeof cmd.password !== 'string' || !cmd.password)
      return this.ack(cmd.id, 'unknown_command');
    await this.ack(cmd.id, 'accepted');
    this.wifiPasswords.set(cmd.sn, cmd.password);
    this.done.set(cmd.id, await this.emit({ type: 'box-password', commandId: cmd.id, sn: cmd.sn }));
  }

  /** The Wi-Fi password a box relayed by this cabinet was last told (undefined: never told one here). */
  wifiPassword(sn: string) {
    return this.wifiPasswords.get(sn);
  }

  private async handle(cmd: Exclude<ServerMessage, { type: 'event-ack' }>) {
    if (typeof cmd.id !== 'string') return;
    const prior = this.done.get(cmd.id);
    if (prior) {
      // A redelivered command: report the same outcome again (same event id), do not eject twice.
      await this.publishEvent(prior);
      return;
    }
    const type: string = cmd.type;
    if (cmd.type === 'wifi-password') return this.setWifiPassword(cmd);
    if (cmd.type === 'slot-reserve') return this.reserve(cmd);
    if (['slot-lock', 'report-inventory', 'restart'].includes(type))
      return this.operatorCommand(cmd as SlotLockCommand | CabinetActionCommand);
    if (cmd.type !== 'eject') return this.ack(cmd.id, 'unknown_command');
    const issued = Date.parse(cmd.ts);
    if (!Number.isFinite(issued) || this.o.clock.now().getTime() > issued + cmd.ttlMs) {
      return this.ack(cmd.id, 'expired');
    }
    await this.ack(cmd.id, 'accepted');
    if (this.o.ejectDelayMs) await new Promise((r) => setTimeout(r, this.o.ejectDelayMs));
    let slot = cmd.slot ?? this.slots.findIndex((p) => p !== null && this.kindOf(p) === (cmd.kind ?? 'cdb')) + 1;
    if (slot < 1 || slot > this.slots.length) slot = 0;
    let event: CabinetEvent;
    if (this.failNext) {
      this.failNext = false;
      event = await this.emit({ type: 'pop-failed', commandId: cmd.id, slot: slot || null, reason: 'jammed' });
    } else if (slot && this.locked.has(slot)) {
      event = await this.emit({ type: 'pop-failed', commandId: cmd.id, slot, reason: 'locked' });
    } else if (!slot || !this.slots[slot - 1]) {
      event = await this.emit({ type: 'pop-failed', commandId: cmd.id, slot: null, reason: 'empty' });
    } else {
      const powerbankId = this.slots[slot - 1]!;
      this.slots[slot - 1] = null;
      event = await this.emit({ type: 'popped', commandId: cmd.id, slot, powerbankId, ...this.kindField(powerbankId) });
    }
    this.done.set(cmd.id, event);
  }

  /** An operator's command: lock or unlock a slot, report the inventory now, or restart (offline, then back). */
  private async operatorCommand(cmd: SlotLockCommand | CabinetActionCommand) {
    if (!(this.o.clock.now().getTime() <= Date.parse(cmd.ts) + cmd.ttlMs)) return this.ack(cmd.id, 'expired');
    if (cmd.type === 'slot-lock' && !(Number.isInteger(cmd.slot) && cmd.slot >= 1 && cmd.slot <= this.slots.length))
      return this.ack(cmd.id, 'unknown_command');
    await this.ack(cmd.id, 'accepted');
    if (cmd.type === 'slot-lock') {
      if (cmd.locked) this.locked.add(cmd.slot);
      else this.locked.delete(cmd.slot);
    }
    if (cmd.type !== 'restart') return this.sendHeartbeat();
    await this.stop({ crash: true });
    await this.start();
  }

  /** Keeps an empty slot for one power bank's return until `until`, or releases it (`until: null`). */
  private async reserve(cmd: SlotReserveCommand) {
    if (!(this.o.clock.now().getTime() <= Date.parse(cmd.ts) + cmd.ttlMs)) return this.ack(cmd.id, 'expired');
    const until = cmd.until === null ? null : Date.parse(cmd.until);
    if (
      !(Number.isInteger(cmd.slot) && cmd.slot >= 1 && cmd.slot <= this.slots.length) ||
      typeof cmd.powerbankId !== 'string' ||
      Number.isNaN(until)
    ) {
      return this.ack(cmd.id, 'unknown_command');
    }
    // Kept first, then acknowledged: an acknowledgement says the slot is kept (a cabinet acts, then answers).
    if (until === null) {
      if (this.reserved.get(cmd.slot)?.powerbankId === cmd.powerbankId) this.reserved.delete(cmd.slot);
    } else this.reserved.set(cmd.slot, { powerbankId: cmd.powerbankId, until });
    await this.ack(cmd.id, 'accepted');
    await this.sendHeartbeat();
  }

  /** The power bank a slot is kept for now (undefined: none, or its time is up). */
  keptFor(slot: number): string | undefined {
    const r = this.reserved.get(slot);
    if (r && r.until <= this.o.clock.now().getTime()) this.reserved.delete(slot);
    return this.reserved.get(slot)?.powerbankId;
  }

  /** A Wi-Fi box reports its telemetry through this cabinet's gateway (box-telemetry, additive in v2). */
  async boxTelemetry(t: { sn: string; bytesTotal: number; battery?: number; signal?: number; online?: boolean }) {
    await this.emit({
      type: 'box-telemetry',
      sn: t.sn,
      bytesTotal: t.bytesTotal,
      battery: t.battery ?? 80,
      signal: t.signal ?? 4,
      online: t.online ?? true,
    });
  }

  /** A Wi-Fi box read a pickup code (the QR the app shows) and tells it through this cabinet's gateway (box-code-read). */
  async boxCodeRead(sn: string, code: string) {
    await this.emit({ type: 'box-code-read', sn, code });
  }

  /** Someone takes a device out by hand (a Wi-Fi box handed over for a pickup by QR): its heartbeat says so at once. */
  async takeOut(id: string) {
    const i = this.slots.indexOf(id);
    if (i < 0) return;
    this.slots[i] = null;
    await this.sendHeartbeat();
  }

  /** Someone pushes a power bank into a free slot. */
  async insert(powerbankId: string): Promise<{ slot: number }> {
    // The slot kept for it first; never one kept for another power bank.
    const own = this.slots.findIndex((p, n) => p === null && this.keptFor(n + 1) === powerbankId);
    const i =
      own >= 0
        ? own
        : this.slots.findIndex((p, n) => p === null && !this.locked.has(n + 1) && this.keptFor(n + 1) === undefined);
    if (i < 0) throw new Error('no free slot');
    for (const [slot, r] of this.reserved) if (r.powerbankId === powerbankId) this.reserved.delete(slot);
    this.slots[i] = powerbankId;
    await this.emit({ type: 'returned', slot: i + 1, powerbankId, ...this.kindField(powerbankId) });
    return { slot: i + 1 };
  }

  /** Disconnect cleanly (publishes offline first) or, with `crash`, drop the connection so the will fires. */
  async stop(opts: { crash?: boolean } = {}) {
    if (this.heartbeat) clearInterval(this.heartbeat);
    if (this.resender) clearInterval(this.resender);
    const c = this.client;
    this.client = null;
    if (!c) return;
    if (opts.crash || !c.connected) {
      c.stream.destroy();
      await c.endAsync(true);
      return;
    }
    await c.publishAsync(this.t.status, this.statusPayload(false), { qos: 1, retain: true }).catch(() => undefined);
    await c.endAsync();
  }
}
