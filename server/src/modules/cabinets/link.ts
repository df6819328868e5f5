// The cabinet link: the server's side of docs/cabinet-protocol.md (v2) over MQTT. Behind a small interface so the
// rental rules never see MQTT.
//
// End-to-end delivery (v2): an event is stored in the inbox (cabinet_events, idempotent by cabinet + event id)
// BEFORE the server acknowledges it to the cabinet with an `event-ack` on the cabinet's command topic; the cabinet
// keeps and re-sends every event until that ack. So nothing depends on MQTT sessions: clean sessions, shared
// subscriptions, a process dying at any point, a broker restarted without persistence — the cabinet re-sends,
// and the inbox makes the repeat harmless. Processing runs from the inbox (here right after storing; otherwise
// the inbox poller of any process) with retries; an event that keeps failing becomes 'dead' for an operator.
import type { MqttClient } from 'mqtt';
import { randomToken } from '../../lib/ids.ts';
import type { MqttConnector } from '../../mqtt/broker.ts';
import { checkEvent, parseJson, topics, type CabinetEvent, type CabinetStatus, type CommandAck, type ServerMessage } from './protocol.ts';

export interface LinkHandler {
  /**
   * Stores an event in the inbox (a heartbeat is reconciled at once instead). True when the cabinet may forget
   * it: stored now or earlier (a repeat). A thrown error means "not stored": no ack, the cabinet re-sends.
   */
  receive(cabinetId: string, e: CabinetEvent): Promise<boolean>;
  /** Processes a stored event now; a failure stays in the inbox for a retry (never thrown). */
  process(cabinetId: string, eventId: string): Promise<void>;
  /** A message refused without storing (unknown protocol version, malformed): counted for an operator. */
  reject(cabinetId: string, reason: string, payload: string): Promise<void>;
  status(cabinetId: string, s: CabinetStatus): Promise<void>;
  ack(cabinetId: string, a: CommandAck): Promise<void>;
  /** The link is (again) subscribed: re-publish what cabinets may have missed while it was down. */
  linked(): Promise<void>;
}

/** Publishing while the link is down: refused at once (callers must not wait for the outage). */
export class LinkDownError extends Error {
  constructor() {
    super('cabinet link is down');
  }
}

export interface CabinetLink {
  /** Publishes to a cabinet's command topic; throws LinkDownError at once when disconnected. */
  send(cabinetId: string, msg: ServerMessage): Promise<void>;
  /** Connected to the broker now (a rent is refused before any money moves when not). */
  isUp(): boolean;
  start(handler: LinkHandler): Promise<void>;
  close(): Promise<void>;
}

export interface Logger {
  info(obj: object | string, msg?: string): void;
  warn(obj: object | string, msg?: string): void;
  error(obj: object | string, msg?: string): void;
}

/** How long a publish may wait for the broker's PUBACK before the caller goes on (the message stays queued). */
const PUBLISH_WAIT_MS = 2_000;

export class MqttCabinetLink implements CabinetLink {
  private client: MqttClient | null = null;
  private queue: Promise<void> = Promise.resolve();

  constructor(
    private readonly connector: MqttConnector,
    private readonly opts: { prefix: string; sharedGroup?: string; clientId?: string; log: Logger },
  ) {}

  isUp() {
    return this.client?.connected ?? false;
  }

  async start(handler: LinkHandler) {
    // A clean session is enough (v2 delivery does not rely on the broker keeping anything); a stable client id
    // (MQTT_CLIENT_ID) is still honoured for brokers that require known ids.
    const stable = this.opts.clientId;
    const client = this.connector.connect({ clientId: stable ?? `powerly-api-${randomToken(6)}`, clean: !stable, resubscribe: false });
    this.client = client;
    // One message at a time per process (PUBACK goes out when `done` is called).
    client.handleMessage = (packet, done) => {
      const payload = Buffer.isBuffer(packet.payload) ? packet.payload : Buffer.from(packet.payload);
      this.queue = this.dispatch(handler, packet.topic, payload)
        .catch((err: unknown) => this.opts.log.error({ err, topic: packet.topic }, 'cabinet message not stored (the cabinet re-sends it)'))
        .finally(() => done());
    };
    client.on('error', (err) => this.opts.log.error({ err }, 'mqtt link error'));
    // Subscribe on EVERY connect: a broker restarted without persistence has forgotten the subscriptions.
    await new Promise<void>((resolve, reject) => {
      client.on('connect', () => {
        this.subscribe(client, handler).then(resolve, (err: unknown) => {
          this.opts.log.error({ err }, 'cabinet link subscribe failed');
          resolve();
        });
      });
      client.once('error', reject);
    });
  }

  private async subscribe(client: MqttClient, handler: LinkHandler) {
    const share = this.opts.sharedGroup ? `$share/${this.opts.sharedGroup}/` : '';
    const p = this.opts.prefix;
    await client.subscribeAsync(
      { [`${share}${p}/cabinets/+/events`]: { qos: 1 }, [`${share}${p}/cabinets/+/acks`]: { qos: 1 }, [`${p}/cabinets/+/status`]: { qos: 1 } },
    );
    await handler.linked().catch((err: unknown) => this.opts.log.error({ err }, 'cabinet link: re-publishing pending commands failed'));
  }

  /** A transient failure (database failover, lock timeout) should not cost a round of cabinet re-sends. */
  private async withRetries<T>(fn: () => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await fn();
      } catch (err) {
        if (attempt >= 3) throw err;
        this.opts.log.warn({ err, attempt }, 'cabinet message handling failed, retrying');
        await new Promise((r) => setTimeout(r, 200 * 4 ** (attempt - 1)));
      }
    }
  }

  private async dispatch(handler: LinkHandler, topic: string, payload: Buffer) {
    const parts = topic.split('/');
    const kind = parts.at(-1);
    const cabinetId = parts.at(-2);
    if (!cabinetId || parts.at(-3) !== 'cabinets') return;
    if (kind === 'events') {
      const r = checkEvent(payload);
      if (!r.ok) return handler.reject(cabinetId, r.reason, payload.toString().slice(0, 2000));
      const e = r.event;
      if (!(await this.withRetries(() => handler.receive(cabinetId, e)))) return;
      if (e.type === 'heartbeat') return;
      // Stored: the cabinet may forget it. The ack is not awaited: its PUBACK is an incoming packet, and mqtt.js
      // reads no incoming packet until this message's `done` (awaiting it here stalled the link 2 s per event).
      void this.publish(cabinetId, { v: 2, type: 'event-ack', eventId: e.id, ts: new Date().toISOString() })
        .catch((err: unknown) => this.opts.log.warn({ err, cabinetId }, 'event ack not published (the cabinet re-sends, the repeat is acked)'));
      // Process it here (failures stay in the inbox for a retry).
      await handler.process(cabinetId, e.id);
    } else if (kind === 'status') {
      const s = parseJson<CabinetStatus>(payload);
      if (s && typeof s.online === 'boolean') await handler.status(cabinetId, s);
    } else if (kind === 'acks') {
      const a = parseJson<CommandAck>(payload);
      if (a && typeof a.commandId === 'string') await handler.ack(cabinetId, a);
    }
  }

  async send(cabinetId: string, msg: ServerMessage) {
    await this.publish(cabinetId, msg);
  }

  /**
   * QoS 1 publish that never blocks for an outage: refused at once while disconnected, and given up waiting
   * for the PUBACK after PUBLISH_WAIT_MS (mqtt.js still delivers it if the connection comes back).
   */
  private async publish(cabinetId: string, msg: ServerMessage) {
    const client = this.client;
    if (!client?.connected) throw new LinkDownError();
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        client.publishAsync(topics(this.opts.prefix, cabinetId).commands, JSON.stringify(msg), { qos: 1, retain: false }),
        new Promise((_, reject) => {
          timer = setTimeout(() => reject(new Error('no PUBACK from the broker in time')), PUBLISH_WAIT_MS);
        }),
      ]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** Waits for messages already being handled, then disconnects. */
  async close() {
    const c = this.client;
    this.client = null;
    // Without a broker there is nothing to close cleanly (a graceful end would wait for it).
    if (c) await c.endAsync(!c.connected);
    await this.queue;
  }
}
