// The binary TCP family's gateway (commands 0x60–0x8F): a TCP server its cabinets connect to (node:net; off
// unless VENDOR_TCP_PORT is set). A cabinet logs in with its box id and is cabinet `{idPrefix}{boxId}` to the rest
// of the server. Its frames become internal events, internal ejects become 0x65 borrows
// (docs/cabinet-protocol.md "Vendor families"). Its connections, logins and the frame loop: connections.ts.
//
// Several API processes: a cabinet is connected to one of them. That process sends its commands straight away
// (it owns the cabinet); the others publish them on the cabinet's internal command topic like any command, and the
// gateway holding the connection takes them from there and forwards them.
import { type CabinetEvent, type EjectCommand, type ServerMessage } from '../../protocol.ts';
import {
  ActionBook,
  EjectBook,
  REMEMBER_MS,
  ackOf,
  outcomeEventId,
  reconciled,
  type EjectLedger,
  type VendorGateway,
} from '../gateway.ts';
import {
  TCP_CMD,
  decodeAnomaly,
  decodeEjectResult,
  decodeInventory,
  decodeReturn,
  decodeText,
  decodeVolume,
  tcpRequest,
  volumeFromTcp,
  volumeToTcp,
} from './codec.ts';
import { TcpConnections, type Session, type TcpGatewayOptions } from './connections.ts';

export type { TcpGatewayOptions } from './connections.ts';

export class TcpGateway extends TcpConnections implements VendorGateway {
  readonly family = 'tcp60';
  private readonly book: EjectBook;
  private readonly actions: ActionBook;

  constructor(o: TcpGatewayOptions) {
    super(o);
    this.book = new EjectBook(this.now);
    this.actions = new ActionBook(this.now);
  }

  protected async frame(s: Session, cmd: number, p: Buffer) {
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
    return this.book.oneAtATime(msg.id, () => this.eject(cabinetId, msg));
  }

  private async eject(cabinetId: string, msg: EjectCommand) {
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
  protected async reconcile(s: Session, list?: Awaited<ReturnType<EjectLedger['open']>>) {
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
