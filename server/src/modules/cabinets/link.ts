// The cabinet link: the server's side of docs/cabinet-protocol.md over MQTT. Behind a small interface so the
// rental rules never see MQTT. Incoming messages are handled one after another (per process), and every
// handler is idempotent, because QoS 1 delivers at least once.
import type { MqttClient } from 'mqtt';
import { randomToken } from '../../lib/ids.ts';
import type { MqttConnector } from '../../mqtt/broker.ts';
import { parseEvent, parseJson, topics, type CabinetEvent, type CabinetStatus, type Command, type CommandAck } from './protocol.ts';

export interface LinkHandler {
  event(cabinetId: string, e: CabinetEvent): Promise<void>;
  status(cabinetId: string, s: CabinetStatus): Promise<void>;
  ack(cabinetId: string, a: CommandAck): Promise<void>;
}

export interface CabinetLink {
  send(cabinetId: string, cmd: Command): Promise<void>;
  start(handler: LinkHandler): Promise<void>;
  close(): Promise<void>;
}

export interface Logger {
  info(obj: object | string, msg?: string): void;
  warn(obj: object | string, msg?: string): void;
  error(obj: object | string, msg?: string): void;
}

export class MqttCabinetLink implements CabinetLink {
  private client: MqttClient | null = null;
  private queue: Promise<void> = Promise.resolve();

  constructor(
    private readonly connector: MqttConnector,
    private readonly opts: { prefix: string; sharedGroup?: string; clientId?: string; log: Logger },
  ) {}

  async start(handler: LinkHandler) {
    // A stable client id (MQTT_CLIENT_ID) gets a persistent session: messages that arrive while this process
    // is down are delivered when it comes back. Without one, a fresh clean session per start.
    const stable = this.opts.clientId;
    const client = this.connector.connect({ clientId: stable ?? `powerly-api-${randomToken(6)}`, clean: !stable });
    this.client = client;
    // Handle each message before it is acknowledged (PUBACK goes out when `done` is called), one at a time:
    // a process that dies mid-way gets the message again (persistent session or shared-subscription redelivery).
    client.handleMessage = (packet, done) => {
      const payload = Buffer.isBuffer(packet.payload) ? packet.payload : Buffer.from(packet.payload);
      this.queue = this.withRetries(() => this.dispatch(handler, packet.topic, payload))
        .catch((err: unknown) => this.opts.log.error({ err, topic: packet.topic }, 'cabinet message dropped after retries'))
        .finally(() => done());
    };
    await new Promise<void>((resolve, reject) => {
      client.once('connect', () => resolve());
      client.once('error', reject);
    });
    client.on('error', (err) => this.opts.log.error({ err }, 'mqtt link error'));
    const share = this.opts.sharedGroup ? `$share/${this.opts.sharedGroup}/` : '';
    const p = this.opts.prefix;
    await client.subscribeAsync(
      { [`${share}${p}/cabinets/+/events`]: { qos: 1 }, [`${share}${p}/cabinets/+/acks`]: { qos: 1 }, [`${p}/cabinets/+/status`]: { qos: 1 } },
    );
  }

  /** A transient failure (database failover, lock timeout) should not lose a cabinet event. */
  private async withRetries(fn: () => Promise<void>) {
    for (let attempt = 1; ; attempt++) {
      try {
        return await fn();
      } catch (err) {
        if (attempt >= 4) throw err;
        this.opts.log.warn({ err, attempt }, 'cabinet message handling failed, retrying');
        await new Promise((r) => setTimeout(r, 250 * 4 ** (attempt - 1)));
      }
    }
  }

  private async dispatch(handler: LinkHandler, topic: string, payload: Buffer) {
    const parts = topic.split('/');
    const kind = parts.at(-1);
    const cabinetId = parts.at(-2);
    if (!cabinetId || parts.at(-3) !== 'cabinets') return;
    if (kind === 'events') {
      const e = parseEvent(payload);
      if (!e) return this.opts.log.warn({ topic }, 'invalid cabinet event dropped');
      await handler.event(cabinetId, e);
    } else if (kind === 'status') {
      const s = parseJson<CabinetStatus>(payload);
      if (s && typeof s.online === 'boolean') await handler.status(cabinetId, s);
    } else if (kind === 'acks') {
      const a = parseJson<CommandAck>(payload);
      if (a && typeof a.commandId === 'string') await handler.ack(cabinetId, a);
    }
  }

  async send(cabinetId: string, cmd: Command) {
    if (!this.client) throw new Error('cabinet link not started');
    await this.client.publishAsync(topics(this.opts.prefix, cabinetId).commands, JSON.stringify(cmd), { qos: 1, retain: false });
  }

  /** Waits for messages already being handled, then disconnects. */
  async close() {
    const c = this.client;
    this.client = null;
    if (c) await c.endAsync();
    await this.queue;
  }
}
