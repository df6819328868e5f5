// The binary TCP family's connections (the base of TcpGateway, gateway.ts): the TCP server its cabinets connect to,
// a connection's login (its token checked against the cabinet's own secret or the shared one), its frames read one at
// a time in order, the events they become stored through the link's sink, and the bridge that takes commands other
// processes publish for a cabinet connected here.
import net from 'node:net';
import type { MqttClient } from 'mqtt';
import { randomToken } from '../../../../lib/ids.ts';
import type { MqttConnector } from '../../../../mqtt/broker.ts';
import type { Logger } from '../../link.ts';
import { parseJson, topics, type CabinetEvent, type ServerMessage } from '../../protocol.ts';
import type { EdgeSink, EjectLedger } from '../gateway.ts';
import {
  TCP_CMD,
  TcpFrameError,
  TcpFramer,
  decodeLogin,
  decodeTcp,
  decodeTcpUnsigned,
  encodeTcp,
  tcpRequest,
  tcpToken,
} from './codec.ts';

export interface TcpGatewayOptions {
  port: number;
  host?: string;
  /**
   * Each cabinet's own token secret (issued by an operator, modules/cabinets/token-secrets.ts), null when it has
   * none. A cabinet with one must sign with it: no other secret is accepted for it.
   */
  secrets?: { secretOf(cabinetId: string): Promise<string | null> };
  /** A secret shared by the cabinets that have none of their own (VENDOR_TCP_SECRET, as the family ships). */
  secret?: string;
  idPrefix: string;
  log: Logger;
  now?: () => number;
  /** For commands other processes publish to a cabinet connected here (prefix: MQTT_PREFIX). */
  bridge?: { connector: MqttConnector; prefix: string };
  /** A cabinet silent this long is disconnected (its heartbeat is every 30–60 s). */
  idleMs?: number;
  /** Ejects sent and not answered yet, kept outside the process (vendor_ejects); without it, in memory only. */
  ejects?: EjectLedger;
}

export interface Session {
  socket: net.Socket;
  cabinetId: string;
  /** The secret it logged in with: its frames are checked and ours signed with it. */
  secret: string;
  /** What each slot holds, as the cabinet last reported (login, inventory, borrow answers, returns). */
  banks: Map<number, string | null>;
}

export abstract class TcpConnections {
  private server: net.Server | null = null;
  protected sink: EdgeSink | null = null;
  private bridge: MqttClient | null = null;
  protected readonly sessions = new Map<string, Session>();
  private readonly sockets = new Set<net.Socket>();
  protected readonly now: () => number;
  /** Frames dropped for a wrong checksum (each also counted per cabinet in cabinet_rejects once logged in). */
  readonly stats = { badChecksum: 0 };

  constructor(protected readonly o: TcpGatewayOptions) {
    if (!o.secret && !o.secrets)
      throw new Error(
        "the TCP cabinet gateway needs the cabinets' token secrets (CABINET_SECRETS_KEY) or a shared one (VENDOR_TCP_SECRET)",
      );
    this.now = o.now ?? Date.now;
  }

  /** An internal command for a cabinet connected here (gateway.ts). */
  abstract send(cabinetId: string, msg: ServerMessage): Promise<void>;
  /** A logged-in cabinet's frame (gateway.ts). */
  protected abstract frame(s: Session, cmd: number, p: Buffer): Promise<void>;
  /** At a login: the ejects sent to this cabinet whose answer no process stored (gateway.ts). */
  protected abstract reconcile(s: Session): Promise<void>;

  /** The port it listens on (0 in the options: a free one). */
  get port() {
    return (this.server?.address() as net.AddressInfo | null)?.port ?? null;
  }

  owns(cabinetId: string) {
    return this.sessions.has(cabinetId);
  }

  async start(sink: EdgeSink) {
    this.sink = sink;
    if (this.o.bridge) {
      const c = this.o.bridge.connector.connect({ clientId: `powerly-tcp-${randomToken(6)}`, clean: true });
      c.on('message', (topic, payload) => {
        const id = topic.split('/').at(-2) ?? '';
        const msg = parseJson<ServerMessage>(payload);
        if (msg && this.sessions.has(id))
          void this.send(id, msg).catch((err: unknown) =>
            this.o.log.warn({ err, cabinetId: id }, 'bridged command not sent'),
          );
      });
      c.on('connect', () => {
        for (const id of this.sessions.keys())
          void c.subscribeAsync(topics(this.o.bridge!.prefix, id).commands, { qos: 1 }).catch(() => undefined);
      });
      this.bridge = c;
    }
    const server = net.createServer((socket) => this.accept(socket));
    this.server = server;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.o.port, this.o.host ?? '0.0.0.0', () => resolve());
    });
  }

  async close() {
    const s = this.server;
    this.server = null;
    // The process stops, its cabinets do not: they reconnect (to another process) and the liveness rule marks one
    // offline that does not. Writing 'offline' for every connection here held a stop for minutes at 5 000.
    this.sink = null;
    for (const socket of this.sockets) socket.destroy();
    if (s) await new Promise<void>((resolve) => s.close(() => resolve()));
    await this.bridge?.endAsync(true);
    this.bridge = null;
  }

  private accept(socket: net.Socket) {
    this.sockets.add(socket);
    socket.setNoDelay(true);
    socket.setTimeout(this.o.idleMs ?? 180_000, () => socket.destroy());
    const framer = new TcpFramer();
    let session: Session | null = null;
    // One frame at a time per connection, in order (a return is acknowledged only once stored).
    let chain = Promise.resolve();
    socket.on('data', (chunk) => {
      let frames: Buffer[];
      try {
        frames = framer.push(chunk);
      } catch {
        return socket.destroy();
      }
      for (const raw of frames) {
        chain = chain
          .then(async () => {
            if (!session) {
              const s = await this.login(socket, raw);
              if (s === null) socket.destroy();
              else if (s !== 'dropped') session = s;
              return;
            }
            let f;
            try {
              f = decodeTcp(raw, session.secret);
            } catch (err) {
              const kind = err instanceof TcpFrameError ? err.kind : 'format';
              if (kind === 'checksum') this.stats.badChecksum++;
              await this.sink?.reject(
                session.cabinetId,
                kind === 'checksum' ? 'vendor-tcp-checksum' : 'vendor-tcp-malformed',
                `${(err as Error).message}: ${raw.toString('hex')}`,
              );
              // A damaged frame is dropped and the connection kept (the cabinet repeats what it needs answered); a
              // wrong token is not one of ours: the connection ends.
              if (kind !== 'checksum') socket.destroy();
              return;
            }
            await this.frame(session, f.cmd, f.payload);
          })
          .catch((err: unknown) => {
            this.o.log.error({ err }, 'TCP cabinet frame not handled');
            if (!session) socket.destroy(); // a login that could not be checked: the cabinet logs in again
          });
      }
    });
    socket.on('error', () => undefined);
    socket.on('close', () => {
      this.sockets.delete(socket);
      if (!session || this.sessions.get(session.cabinetId)?.socket !== socket) return;
      this.sessions.delete(session.cabinetId);
      if (this.bridge)
        void this.bridge
          .unsubscribeAsync(topics(this.o.bridge!.prefix, session.cabinetId).commands)
          .catch(() => undefined);
      void this.sink?.status(session.cabinetId, { v: 2, online: false, ts: this.iso() }).catch(() => undefined);
    });
  }

  protected iso() {
    return new Date(this.now()).toISOString();
  }

  protected write(s: Session, cmd: number, payload: Buffer) {
    if (!s.socket.destroyed) s.socket.write(encodeTcp(cmd, payload, s.secret));
  }

  /**
   * A connection's first frame: a 0x60 login signed with the cabinet's own secret (or, for a cabinet without one,
   * the shared secret). Anything else is refused: the connection closes, a wrong token is logged and counted
   * (cabinet_rejects, `vendor-tcp-login-token`) and the old connection of that cabinet, if any, is left alone.
   */
  private async login(socket: net.Socket, raw: Buffer): Promise<Session | 'dropped' | null> {
    let f;
    let l;
    try {
      f = decodeTcpUnsigned(raw);
      if (f.cmd !== TCP_CMD.login) return null;
      l = decodeLogin(f.payload);
    } catch (err) {
      // A login damaged on the way is dropped, the connection kept: the cabinet logs in again on it.
      if (err instanceof TcpFrameError && err.kind === 'checksum') {
        this.stats.badChecksum++;
        return 'dropped';
      }
      return null;
    }
    const cabinetId = `${this.o.idPrefix}${l.boxId}`;
    const own = (await this.o.secrets?.secretOf(cabinetId)) ?? null;
    const secret = own ?? this.o.secret ?? null;
    if (!secret || !tcpToken(f.payload, secret).equals(f.token)) {
      const why = own
        ? 'not signed with its own secret'
        : secret
          ? 'not signed with the shared secret'
          : 'no secret issued for it';
      this.o.log.warn({ cabinetId, remote: socket.remoteAddress }, `TCP cabinet login refused: ${why}`);
      await this.sink?.reject(
        cabinetId,
        'vendor-tcp-login-token',
        `${why}; from ${socket.remoteAddress ?? '?'}: ${raw.toString('hex').slice(0, 400)}`,
      );
      return null;
    }
    const session: Session = { socket, cabinetId, secret, banks: new Map(l.slots.map((x) => [x.slot, x.bankId])) };
    this.sessions.get(cabinetId)?.socket.destroy(); // a reconnect replaces the old connection
    this.sessions.set(cabinetId, session);
    if (this.bridge)
      void this.bridge
        .subscribeAsync(topics(this.o.bridge!.prefix, cabinetId).commands, { qos: 1 })
        .catch(() => undefined);
    this.write(session, TCP_CMD.login, tcpRequest.result(true));
    this.write(session, TCP_CMD.firmware, tcpRequest.none()); // its answer is the firmware version reported
    this.write(session, TCP_CMD.volume, tcpRequest.none()); // its answer is the volume reported
    await this.sink?.status(cabinetId, { v: 2, online: true, ts: this.iso() });
    await this.store(
      cabinetId,
      this.heartbeat(l.slots.map((s) => ({ slot: s.slot, bankId: s.bankId, level: s.level }))),
    );
    await this.reconcile(session);
    return session;
  }

  protected heartbeat(list: { slot: number; bankId: string | null; level: number }[]): CabinetEvent {
    return {
      v: 2,
      id: `hb-${randomToken(6)}`,
      ts: this.iso(),
      type: 'heartbeat',
      slots: list.map((x) => ({ slot: x.slot, powerbankId: x.bankId, battery: x.bankId ? x.level : null })),
    };
  }

  /** True once stored (the link's inbox); the caller acknowledges to the cabinet only then. */
  protected async store(cabinetId: string, e: CabinetEvent): Promise<boolean> {
    for (let attempt = 1; ; attempt++) {
      const sink = this.sink;
      if (!sink) return false;
      try {
        return await sink.event(cabinetId, e);
      } catch (err) {
        if (attempt >= 5) {
          this.o.log.error({ err, cabinetId, event: e.id }, 'vendor event not stored');
          return false;
        }
        await new Promise((r) => setTimeout(r, 250 * 2 ** attempt));
      }
    }
  }
}
