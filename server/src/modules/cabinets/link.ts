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
import {
  checkEvent,
  parseJson,
  topics,
  type CabinetEvent,
  type CabinetStatus,
  type CommandAck,
  type ServerMessage,
} from './protocol.ts';
import { LinkStats } from './link-stats.ts';
import type { EdgeSink, VendorGateway } from './vendors/gateway.ts';

export interface LinkHandler {
  /**
   * Stores an event in the inbox (a heartbeat is reconciled at once instead). True when the cabinet may forget
   * it: stored now or earlier (a repeat). A thrown error means "not stored": no ack, the cabinet re-sends.
   */
  receive(cabinetId: string, e: CabinetEvent): Promise<boolean>;
  /**
   * A heartbeat whose inventory is what the records say: its presence recorded (batched with others, presence.ts),
   * true. False: it needs `receive` (the full reconcile). A thrown error: not recorded.
   */
  presence(cabinetId: string, e: Extract<CabinetEvent, { type: 'heartbeat' }>): Promise<boolean>;
  /**
   * Processes a stored event now; a failure stays in the inbox for a retry (never thrown). `e`: the event as
   * received (what it names is locked and read with the claim; the stored event decides).
   */
  process(cabinetId: string, eventId: string, e?: CabinetEvent): Promise<void>;
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

/** Messages in hand (being handled or waiting for their cabinet's previous one) before the link stops reading. */
const MAX_IN_HAND = 10_000;
/**
 * Units of work on the database at once for cabinet messages: a share of the pool (10 connections by default), so
 * that a burst of cabinet events never takes every connection from the HTTP requests (the rents that caused it).
 */
const DISPATCH_CONCURRENCY = 4;

/** How long a publish may wait for the broker's PUBACK before the caller goes on (the message stays queued). */
const PUBLISH_WAIT_MS = 2_000;

export class MqttCabinetLink implements CabinetLink {
  private client: MqttClient | null = null;
  /** The last message in hand of each cabinet (the next one of that cabinet waits for it). */
  private readonly tails = new Map<string, Promise<void>>();
  private readonly running = new Set<Promise<void>>();
  /** PUBACKs held back while MAX_IN_HAND messages are in hand. */
  private readonly held: (() => void)[] = [];
  private free = DISPATCH_CONCURRENCY;
  private closing = false;
  private readonly queued: (() => void)[] = [];
  readonly stats = new LinkStats();

  constructor(
    private readonly connector: MqttConnector,
    private readonly opts: {
      prefix: string;
      sharedGroup?: string;
      clientId?: string;
      log: Logger;
      /** Vendor gateways (vendors/): their cabinets' events take the path below, their commands go through them. */
      gateways?: VendorGateway[];
    },
  ) {}

  isUp() {
    return this.client?.connected ?? false;
  }

  async start(handler: LinkHandler) {
    this.closing = false;
    // Always a clean session, also with a stable client id (MQTT_CLIENT_ID, honoured for brokers that require known
    // ids): v2 delivery does not rely on the broker keeping anything, and a persistent session is harmful in a
    // shared group. A process that dies (kill -9) would leave its session subscribed in the group, and the broker
    // would queue its share of every cabinet's re-sends for it until the eject's TTL had long passed. With a clean
    // session the broker drops the member when its connection ends, so the next re-send reaches a live process.
    const client = this.connector.connect({
      clientId: this.opts.clientId ?? `powerly-api-${randomToken(6)}`,
      clean: true,
      resubscribe: false,
    });
    this.client = client;
    // Each cabinet's messages are handled one at a time and in order (its heartbeat before its next event); different
    // cabinets' in parallel, at most DISPATCH_CONCURRENCY database units of work at once (a heartbeat waits for its
    // batch outside that limit: presence.ts). PUBACK (`done`) goes out when a message is taken in hand, not when it
    // is stored: v2 delivery does not rest on it (an event stays in the cabinet's outbox until its `event-ack`, sent
    // after it is stored), and reading on keeps the PUBACKs of our own publishes (ejects, event acks) flowing. Only
    // beyond MAX_IN_HAND messages does `done` wait, and mqtt.js reads no further packet until it is called: the
    // broker holds the rest (bounded memory when the database is down or slow).
    client.handleMessage = (packet, done) => {
      // Closing: nothing new is taken (an event stays in its cabinet's outbox, a heartbeat is superseded).
      if (this.closing) return done();
      const payload = Buffer.isBuffer(packet.payload) ? packet.payload : Buffer.from(packet.payload);
      const key = packet.topic.split('/').at(-2) ?? '';
      this.stats.messages++;
      this.stats.inFlight++;
      this.stats.maxInFlight = Math.max(this.stats.maxInFlight, this.stats.inFlight);
      const run: Promise<void> = (this.tails.get(key) ?? Promise.resolve())
        .then(() => this.dispatch(handler, packet.topic, payload))
        .catch((err: unknown) =>
          this.opts.log.error({ err, topic: packet.topic }, 'cabinet message not stored (the cabinet re-sends it)'),
        )
        .finally(() => {
          this.stats.inFlight--;
          this.running.delete(run);
          if (this.tails.get(key) === run) this.tails.delete(key);
          this.held.shift()?.();
        });
      this.tails.set(key, run);
      this.running.add(run);
      if (this.stats.inFlight <= MAX_IN_HAND) done();
      else this.held.push(() => done());
    };
    // While closing, a PUBACK for a message that came in as the socket ended fails to write: nothing is lost (the
    // message was not taken in hand, its sender re-sends), so it is no error worth an operator's attention.
    client.on('error', (err) =>
      this.closing
        ? this.opts.log.info({ err }, 'mqtt link error while closing')
        : this.opts.log.error({ err }, 'mqtt link error'),
    );
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
    for (const g of this.opts.gateways ?? []) await g.start(this.edgeSink(handler));
  }

  /** Runs `fn` after the cabinet's previous message (in hand), as a message of that cabinet. */
  private inOrder(key: string, fn: () => Promise<void>) {
    this.stats.messages++;
    this.stats.inFlight++;
    this.stats.maxInFlight = Math.max(this.stats.maxInFlight, this.stats.inFlight);
    const run: Promise<void> = (this.tails.get(key) ?? Promise.resolve())
      .then(fn)
      .catch((err: unknown) => this.opts.log.error({ err, cabinetId: key }, 'vendor cabinet message not handled'))
      .finally(() => {
        this.stats.inFlight--;
        this.running.delete(run);
        if (this.tails.get(key) === run) this.tails.delete(key);
      });
    this.tails.set(key, run);
    this.running.add(run);
  }

  /**
   * The path of a vendor cabinet's messages: the same as an MQTT cabinet's (`dispatch`): in order per cabinet,
   * stored in the inbox before the gateway may acknowledge it to the cabinet, then processed.
   */
  private edgeSink(handler: LinkHandler): EdgeSink {
    return {
      event: (cabinetId, e) =>
        new Promise<boolean>((resolve, reject) => {
          if (this.closing) return resolve(false);
          this.inOrder(cabinetId, async () => {
            let stored: boolean;
            try {
              stored =
                (e.type === 'heartbeat' && (await this.withRetries(() => handler.presence(cabinetId, e)))) ||
                (await this.limited(() => this.withRetries(() => handler.receive(cabinetId, e))));
            } catch (err) {
              return reject(err instanceof Error ? err : new Error(String(err)));
            }
            resolve(stored);
            if (e.type === 'heartbeat') {
              this.stats.heartbeats++;
              this.stats.lag(Date.now() - Date.parse(e.ts));
            }
            if (!stored || e.type === 'heartbeat') return;
            await this.limited(() => handler.process(cabinetId, e.id, e));
            this.stats.events++;
            this.stats.lag(Date.now() - Date.parse(e.ts));
          });
        }),
      status: (cabinetId, s) => this.edgeCall(cabinetId, () => handler.status(cabinetId, s)),
      ack: (cabinetId, a) => this.edgeCall(cabinetId, () => handler.ack(cabinetId, a)),
      reject: (cabinetId, reason, payload) =>
        this.edgeCall(cabinetId, () => handler.reject(cabinetId, reason, payload.slice(0, 2000))),
    };
  }

  private edgeCall(cabinetId: string, fn: () => Promise<void>) {
    return new Promise<void>((resolve, reject) => {
      this.inOrder(cabinetId, () =>
        this.limited(fn).then(resolve, (err: unknown) => reject(err instanceof Error ? err : new Error(String(err)))),
      );
    });
  }

  private async subscribe(client: MqttClient, handler: LinkHandler) {
    const share = this.opts.sharedGroup ? `$share/${this.opts.sharedGroup}/` : '';
    const p = this.opts.prefix;
    await client.subscribeAsync({
      [`${share}${p}/cabinets/+/events`]: { qos: 1 },
      [`${share}${p}/cabinets/+/acks`]: { qos: 1 },
      [`${p}/cabinets/+/status`]: { qos: 1 },
    });
    await handler
      .linked()
      .catch((err: unknown) => this.opts.log.error({ err }, 'cabinet link: re-publishing pending commands failed'));
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

  /** Runs `fn` when fewer than DISPATCH_CONCURRENCY others run. */
  private async limited<T>(fn: () => Promise<T>): Promise<T> {
    if (this.free > 0) this.free--;
    else await new Promise<void>((resolve) => this.queued.push(resolve));
    try {
      return await fn();
    } finally {
      const next = this.queued.shift();
      if (next) next();
      else this.free++;
    }
  }

  private async dispatch(handler: LinkHandler, topic: string, payload: Buffer) {
    const parts = topic.split('/');
    const kind = parts.at(-1);
    const cabinetId = parts.at(-2);
    if (!cabinetId || parts.at(-3) !== 'cabinets') return;
    if (kind === 'events') {
      const r = checkEvent(payload);
      if (!r.ok) return this.limited(() => handler.reject(cabinetId, r.reason, payload.toString().slice(0, 2000)));
      const e = r.event;
      // A heartbeat waits for its batch outside the limit (the batch is one unit of work for hundreds of them).
      const recorded = e.type === 'heartbeat' && (await this.withRetries(() => handler.presence(cabinetId, e)));
      if (!recorded && !(await this.limited(() => this.withRetries(() => handler.receive(cabinetId, e))))) return;
      if (e.type === 'heartbeat') {
        this.stats.heartbeats++;
        this.stats.lag(Date.now() - Date.parse(e.ts));
        return;
      }
      // Stored: the cabinet may forget it. The ack is not awaited: its PUBACK is an incoming packet, and mqtt.js
      // reads no incoming packet until this message's `done` (awaiting it here stalled the link 2 s per event).
      void this.publish(cabinetId, { v: 2, type: 'event-ack', eventId: e.id, ts: new Date().toISOString() }).catch(
        (err: unknown) =>
          this.opts.log.warn({ err, cabinetId }, 'event ack not published (the cabinet re-sends, the repeat is acked)'),
      );
      // Process it here (failures stay in the inbox for a retry).
      await this.limited(() => handler.process(cabinetId, e.id, e));
      this.stats.events++;
      this.stats.lag(Date.now() - Date.parse(e.ts));
    } else if (kind === 'status') {
      const s = parseJson<CabinetStatus>(payload);
      if (s && typeof s.online === 'boolean') await this.limited(() => handler.status(cabinetId, s));
    } else if (kind === 'acks') {
      const a = parseJson<CommandAck>(payload);
      if (a && typeof a.commandId === 'string') await this.limited(() => handler.ack(cabinetId, a));
    }
  }

  async send(cabinetId: string, msg: ServerMessage) {
    const gateway = this.opts.gateways?.find((g) => g.owns(cabinetId));
    if (gateway) return gateway.send(cabinetId, msg);
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
        client.publishAsync(topics(this.opts.prefix, cabinetId).commands, JSON.stringify(msg), {
          qos: 1,
          retain: false,
        }),
        new Promise((_, reject) => {
          timer = setTimeout(() => reject(new Error('no PUBACK from the broker in time')), PUBLISH_WAIT_MS);
        }),
      ]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** Takes no new message, waits for those in hand (their event acks still go out), then disconnects. */
  async close() {
    this.closing = true;
    for (const g of this.opts.gateways ?? [])
      await g
        .close()
        .catch((err: unknown) => this.opts.log.warn({ err, family: g.family }, 'vendor gateway close failed'));
    for (const done of this.held.splice(0)) done();
    await Promise.all([...this.running]);
    const c = this.client;
    this.client = null;
    // Without a broker there is nothing to close cleanly (a graceful end would wait for it).
    if (c) await c.endAsync(!c.connected);
  }
}
