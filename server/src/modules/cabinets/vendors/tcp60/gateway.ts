// The binary TCP family's gateway (commands 0x60–0x8F): a TCP server its cabinets connect to (node:net; off
// unless VENDOR_TCP_PORT is set). A cabinet logs in with its box id and is cabinet `{idPrefix}{boxId}` to the rest
// of the server. Its frames become internal events, internal ejects become 0x65 borrows
// (docs/cabinet-protocol.md "Vendor families").
//
// Several API processes: a cabinet is connected to one of them. That process sends its commands straight away
// (it owns the cabinet); the others publish them on the cabinet's internal command topic like any command, and the
// gateway holding the connection takes them from there and forwards them.
import net from 'node:net';
import type { MqttClient } from 'mqtt';
import { randomToken } from '../../../../lib/ids.ts';
import type { MqttConnector } from '../../../../mqtt/broker.ts';
import type { Logger } from '../../link.ts';
import { parseJson, topics, type CabinetEvent, type ServerMessage } from '../../protocol.ts';
import {
  ActionBook,
  EjectBook,
  REMEMBER_MS,
  ackOf,
  outcomeEventId,
  reconciled,
  type EdgeSink,
  type EjectLedger,
  type VendorGateway,
} from '../gateway.ts';
import {
  TCP_CMD,
  TcpFrameError,
  TcpFramer,
  decodeAnomaly,
  decodeEjectResult,
  decodeInventory,
  decodeLogin,
  decodeReturn,
  decodeTcp,
  decodeTcpUnsigned,
  encodeTcp,
  decodeText,
  decodeVolume,
  tcpRequest,
  tcpToken,
  volumeFromTcp,
  volumeToTcp,
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

interface Session {
  socket: net.Socket;
  cabinetId: string;
  /** The secret it logged in with: its frames are checked and ours signed with it. */
  secret: string;
  /** What each slot holds, as the cabinet last reported (login, inventory, borrow answers, returns). */
  banks: Map<number, string | null>;
}

export class TcpGateway implements VendorGateway {
  readonly family = 'tcp60';
  private server: net.Server | null = null;
  private sink: EdgeSink | null = null;
  private bridge: MqttClient | null = null;
  private readonly sessions = new Map<string, Session>();
  private readonly sockets = new Set<net.Socket>();
  private readonly book: EjectBook;
  private readonly actions: ActionBook;
  private readonly now: () => number;
  /** Frames dropped for a wrong checksum (each also counted per cabinet in cabinet_rejects once logged in). */
  readonly stats = { badChecksum: 0 };

  constructor(private readonly o: TcpGatewayOptions) {
    if (!o.secret && !o.secrets)
      throw new Error(
        "the TCP cabinet gateway needs the cabinets' token secrets (CABINET_SECRETS_KEY) or a shared one (VENDOR_TCP_SECRET)",
      );
    this.now = o.now ?? Date.now;
    this.book = new EjectBook(this.now);
    this.actions = new ActionBook(this.now);
  }

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

  private iso() {
    return new Date(this.now()).toISOString();
  }

  private write(s: Session, cmd: number, payload: Buffer) {
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

  private heartbeat(list: { slot: number; bankId: string | null; level: number }[]): CabinetEvent {
    return {
      v: 2,
      id: `hb-${randomToken(6)}`,
      ts: this.iso(),
      type: 'heartbeat',
      slots: list.map((x) => ({ slot: x.slot, powerbankId: x.bankId, battery: x.bankId ? x.level : null })),
    };
  }

  /** True once stored (the link's inbox); the caller acknowledges to the cabinet only then. */
  private async store(cabinetId: string, e: CabinetEvent): Promise<boolean> {
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

  private async frame(s: Session, cmd: number, p: Buffer) {
    switch (cmd) {
      case TCP_CMD.heartbeat:
        this.write(s, TCP_CMD.heartbeat, tcpRequest.none());
        // A heartbeat carries no inventory: ask for it (its answer is the internal heartbeat).
        this.write(s, TCP_CMD.inventory, tcpRequest.none());
        return;
      case TCP_CMD.inventory: {
        const list = decodeInventory(p);
        s.banks = new Map([...s.banks.keys()].map((slot) => [slot, null]));
        for (const x of list) s.banks.set(x.slot, x.bankId);
        if (!(await this.store(s.cabinetId, this.heartbeat(list)))) return;
        return this.acked(s.cabinetId, 'inventory');
      }
      case TCP_CMD.restart:
        // Answered before it restarts (the connection then ends and the cabinet logs in again).
        return this.acked(s.cabinetId, 'restart');
      case TCP_CMD.firmware:
        return this.sink?.status(s.cabinetId, {
          v: 2,
          online: true,
          ts: this.iso(),
          firmware: decodeText(p).slice(0, 100),
        });
      case TCP_CMD.setVolume:
        // Set: acknowledged, and the volume asked back (its answer is what the console shows). Refused: counted,
        // the command left unacknowledged (the console shows it sent until it expires).
        if (p[0] !== 0x01) return this.sink?.reject(s.cabinetId, 'vendor-tcp-volume-refused', p.toString('hex'));
        await this.acked(s.cabinetId, 'volume');
        return this.write(s, TCP_CMD.volume, tcpRequest.none());
      case TCP_CMD.volume:
        return this.sink?.status(s.cabinetId, {
          v: 2,
          online: true,
          ts: this.iso(),
          volume: volumeFromTcp(decodeVolume(p)),
        });
      case TCP_CMD.borrow:
      case TCP_CMD.forceEject: {
        const r = decodeEjectResult(p);
        const pending = this.book.match(s.cabinetId, { slot: r.slot });
        if (!pending) return; // an operator's eject, or an answer already handled
        if (r.ok) s.banks.set(r.slot, null);
        const e = this.book.settle(pending.id, () =>
          r.ok && r.bankId
            ? {
                v: 2,
                id: outcomeEventId(pending.id),
                ts: this.iso(),
                type: 'popped',
                commandId: pending.id,
                slot: r.slot,
                powerbankId: r.bankId,
              }
            : {
                v: 2,
                id: outcomeEventId(pending.id),
                ts: this.iso(),
                type: 'pop-failed',
                commandId: pending.id,
                slot: r.slot,
                reason: r.bankId ? 'jammed' : 'empty',
              },
        );
        if (await this.store(s.cabinetId, e)) await this.o.ejects?.settled(pending.id);
        return;
      }
      case TCP_CMD.returned: {
        const r = decodeReturn(p);
        if (!r.bankId) return this.write(s, TCP_CMD.returned, tcpRequest.returnAnswer(r.slot, false));
        s.banks.set(r.slot, r.bankId);
        const e: CabinetEvent = {
          v: 2,
          id: `ret-${r.slot}-${r.bankId}-${Math.floor(this.now() / 60_000)}`,
          ts: this.iso(),
          type: 'returned',
          slot: r.slot,
          powerbankId: r.bankId,
        };
        // Acknowledged once stored; not stored: no answer, the cabinet sends the return again.
        if (await this.store(s.cabinetId, e)) this.write(s, TCP_CMD.returned, tcpRequest.returnAnswer(r.slot, true));
        return;
      }
      case TCP_CMD.slotAnomaly: {
        const a = decodeAnomaly(p);
        await this.sink?.reject(s.cabinetId, `vendor-slot-anomaly:${a.kind}`, JSON.stringify(a));
        this.write(s, TCP_CMD.slotAnomaly, tcpRequest.result(true));
        this.write(s, TCP_CMD.inventory, tcpRequest.none()); // what the slots hold now settles the records
        return;
      }
      default:
        // 0x69 ICCID: nothing for the internal protocol.
        return;
    }
  }

  private async acked(cabinetId: string, kind: 'inventory' | 'restart' | 'volume') {
    for (const id of this.actions.answered(cabinetId, kind))
      await this.sink?.ack(cabinetId, ackOf(id, 'accepted', this.now()));
  }

  async send(cabinetId: string, msg: ServerMessage) {
    if (msg.type === 'restart' || msg.type === 'report-inventory' || msg.type === 'set-volume')
      return this.action(cabinetId, msg);
    // Slot lock, slot reservation, a box's Wi-Fi password: the family has no such command.
    if (msg.type === 'slot-lock' || msg.type === 'slot-reserve' || msg.type === 'wifi-password') {
      return this.sink?.ack(cabinetId, ackOf(msg.id, 'unknown_command', this.now()));
    }
    if (msg.type !== 'eject') return;
    const s = this.sessions.get(cabinetId);
    const done = this.book.outcome(msg.id);
    if (done) return void (await this.store(cabinetId, done));
    if (this.book.isPending(msg.id)) return; // sent, its answer still to come: a repeat must not eject twice
    const fail = (reason: 'empty' | 'expired') =>
      this.store(
        cabinetId,
        this.book.settle(msg.id, () => ({
          v: 2,
          id: outcomeEventId(msg.id),
          ts: this.iso(),
          type: 'pop-failed',
          commandId: msg.id,
          slot: msg.slot,
          reason,
        })),
      );
    if (this.book.expired(msg)) return void (await fail('expired'));
    if (msg.slot === null || !s) return void (await fail('empty'));
    // Sent by a gateway process that died before storing the answer: settled from the inventory the cabinet gave at
    // its login since (never a second borrow: the first may have ejected).
    const before = await this.o.ejects?.find(msg.id);
    if (before) return this.reconcile(s, [before]);
    const powerbankId = s.banks.get(msg.slot) ?? null;
    // Recorded before the frame leaves: a process killed after it leaves the record for the next one.
    await this.o.ejects?.sent({ commandId: msg.id, cabinetId, slot: msg.slot, powerbankId, at: new Date(this.now()) });
    this.book.add(cabinetId, msg, powerbankId);
    this.write(s, TCP_CMD.borrow, tcpRequest.slot(msg.slot));
  }

  /** restart → 0x67, report-inventory → 0x64, set-volume → 0x70; acknowledged when the cabinet answers the frame. */
  private async action(
    cabinetId: string,
    msg: Extract<ServerMessage, { type: 'restart' | 'report-inventory' | 'set-volume' }>,
  ) {
    if (this.actions.isDone(msg.id)) return this.sink?.ack(cabinetId, ackOf(msg.id, 'accepted', this.now()));
    if (this.actions.seen(msg.id)) return;
    if (this.now() > Date.parse(msg.ts) + msg.ttlMs)
      return this.sink?.ack(cabinetId, ackOf(msg.id, 'expired', this.now()));
    const s = this.sessions.get(cabinetId);
    if (!s) return; // not connected here: re-published when the link reconnects, until its TTL
    if (msg.type === 'set-volume') {
      this.actions.wait(cabinetId, 'volume', msg.id);
      return this.write(s, TCP_CMD.setVolume, tcpRequest.volume(volumeToTcp(msg.level)));
    }
    const restart = msg.type === 'restart';
    this.actions.wait(cabinetId, restart ? 'restart' : 'inventory', msg.id);
    this.write(s, restart ? TCP_CMD.restart : TCP_CMD.inventory, tcpRequest.none());
  }

  /**
   * The ejects sent to this cabinet whose answer no process stored (the one that sent them was killed): settled
   * from what the cabinet reported at this login, the power bank gone → popped, still there → pop-failed.
   */
  private async reconcile(s: Session, list?: Awaited<ReturnType<EjectLedger['open']>>) {
    const ledger = this.o.ejects;
    if (!ledger) return;
    const open = list ?? (await ledger.open(s.cabinetId, new Date(this.now() - REMEMBER_MS)));
    const held = new Set([...s.banks.values()].filter((x): x is string => !!x));
    for (const x of open) {
      if (this.book.isPending(x.commandId)) continue; // sent by this process: its answer is still to come
      const e = this.book.settle(x.commandId, () => reconciled(x, (id) => held.has(id), this.iso()));
      this.o.log.warn(
        { cabinetId: s.cabinetId, commandId: x.commandId, outcome: e.type },
        'eject answer lost with a gateway process: settled from the inventory',
      );
      if (await this.store(s.cabinetId, e)) await ledger.settled(x.commandId);
    }
  }

  /** Operator commands of the family without an internal one: force eject, the SIM ICCID query. */
  command(cabinetId: string, cmd: number, payload: Buffer = tcpRequest.none()) {
    const s = this.sessions.get(cabinetId);
    if (!s) throw new Error(`cabinet ${cabinetId} is not connected here`);
    this.write(s, cmd, payload);
  }
}
