// A simulated cabinet: one MQTT client speaking docs/cabinet-protocol.md exactly as firmware would.
// It owns its slots (the cabinet is the authority on what it holds), ejects on command, accepts returns.
import type { MqttClient } from 'mqtt';
import type { Clock } from '../../lib/clock.ts';
import { uuid } from '../../lib/ids.ts';
import type { MqttConnector } from '../../mqtt/broker.ts';
import { parseJson, topics, type CabinetEvent, type CabinetStatus, type Command, type CommandAck, type SlotState } from '../../modules/cabinets/protocol.ts';

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
}

type EventBody = CabinetEvent extends infer E ? (E extends CabinetEvent ? Omit<E, 'v' | 'id' | 'ts'> : never) : never;

export class SimulatedCabinet {
  readonly id: string;
  private readonly slots: (string | null)[];
  private client: MqttClient | null = null;
  private heartbeat: NodeJS.Timeout | null = null;
  private failNext = false;
  /** Results of commands already executed, replayed if the same command id is delivered again. */
  private readonly done = new Map<string, CabinetEvent>();

  constructor(private readonly o: SimulatedCabinetOptions) {
    this.id = o.cabinetId;
    this.slots = [...o.slots];
  }

  get online() {
    return this.client?.connected ?? false;
  }

  inventory(): SlotState[] {
    return this.slots.map((p, i) => ({ slot: i + 1, powerbankId: p, battery: p ? 100 : null }));
  }

  holds(powerbankId: string) {
    return this.slots.includes(powerbankId);
  }

  failNextEject() {
    this.failNext = true;
  }

  private get t() {
    return topics(this.o.prefix, this.id);
  }

  private statusPayload(online: boolean): string {
    const s: CabinetStatus = { v: 1, online, ts: this.o.clock.now().toISOString() };
    return JSON.stringify(s);
  }

  async start() {
    const client = this.o.connector.connect({
      clientId: `cabinet-${this.id}-${uuid().slice(0, 8)}`,
      clean: true,
      will: { topic: this.t.status, payload: Buffer.from(this.statusPayload(false)), qos: 1, retain: true },
    });
    this.client = client;
    client.on('connect', () => {
      void client.publishAsync(this.t.status, this.statusPayload(true), { qos: 1, retain: true }).then(() => this.sendHeartbeat());
    });
    client.on('message', (_topic, payload) => {
      const cmd = parseJson<Command>(payload);
      if (cmd) void this.handle(cmd);
    });
    await new Promise<void>((resolve, reject) => {
      client.once('connect', () => resolve());
      client.once('error', reject);
    });
    await client.subscribeAsync(this.t.commands, { qos: 1 });
    const every = this.o.heartbeatMs ?? 30_000;
    this.heartbeat = setInterval(() => void this.sendHeartbeat(), every);
    this.heartbeat.unref();
  }

  private async emit(body: EventBody): Promise<CabinetEvent> {
    const e = { v: 1, id: uuid(), ts: this.o.clock.now().toISOString(), ...body } as CabinetEvent;
    await this.client?.publishAsync(this.t.events, JSON.stringify(e), { qos: 1, retain: false });
    return e;
  }

  private async sendHeartbeat() {
    if (this.client?.connected) await this.emit({ type: 'heartbeat', slots: this.inventory() }).catch(() => undefined);
  }

  private async ack(commandId: string, status: CommandAck['status']) {
    const a: CommandAck = { v: 1, commandId, ts: this.o.clock.now().toISOString(), status };
    await this.client?.publishAsync(this.t.acks, JSON.stringify(a), { qos: 1, retain: false });
  }

  private async handle(cmd: Command) {
    if (typeof cmd.id !== 'string') return;
    const prior = this.done.get(cmd.id);
    if (prior) {
      // A redelivered command: report the same outcome again (same event id), do not eject twice.
      await this.client?.publishAsync(this.t.events, JSON.stringify(prior), { qos: 1 });
      return;
    }
    if (cmd.type !== 'eject') return this.ack(cmd.id, 'unknown_command');
    const issued = Date.parse(cmd.ts);
    if (!Number.isFinite(issued) || this.o.clock.now().getTime() > issued + cmd.ttlMs) {
      return this.ack(cmd.id, 'expired');
    }
    await this.ack(cmd.id, 'accepted');
    if (this.o.ejectDelayMs) await new Promise((r) => setTimeout(r, this.o.ejectDelayMs));
    let slot = cmd.slot ?? this.slots.findIndex((p) => p !== null) + 1;
    if (slot < 1 || slot > this.slots.length) slot = 0;
    let event: CabinetEvent;
    if (this.failNext) {
      this.failNext = false;
      event = await this.emit({ type: 'pop-failed', commandId: cmd.id, slot: slot || null, reason: 'jammed' });
    } else if (!slot || !this.slots[slot - 1]) {
      event = await this.emit({ type: 'pop-failed', commandId: cmd.id, slot: null, reason: 'empty' });
    } else {
      const powerbankId = this.slots[slot - 1]!;
      this.slots[slot - 1] = null;
      event = await this.emit({ type: 'popped', commandId: cmd.id, slot, powerbankId });
    }
    this.done.set(cmd.id, event);
  }

  /** Someone pushes a power bank into a free slot. */
  async insert(powerbankId: string): Promise<{ slot: number }> {
    const i = this.slots.indexOf(null);
    if (i < 0) throw new Error('no free slot');
    this.slots[i] = powerbankId;
    await this.emit({ type: 'returned', slot: i + 1, powerbankId });
    return { slot: i + 1 };
  }

  /** Disconnect cleanly (publishes offline first) or, with `crash`, drop the connection so the will fires. */
  async stop(opts: { crash?: boolean } = {}) {
    if (this.heartbeat) clearInterval(this.heartbeat);
    const c = this.client;
    this.client = null;
    if (!c) return;
    if (opts.crash) {
      c.stream.destroy();
      await c.endAsync(true);
      return;
    }
    await c.publishAsync(this.t.status, this.statusPayload(false), { qos: 1, retain: true }).catch(() => undefined);
    await c.endAsync();
  }
}
