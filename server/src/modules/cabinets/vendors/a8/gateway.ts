// The "0xA8" family's gateway: its cabinets' MQTT frames become internal events, internal ejects become its JSON
// pop-up commands (docs/cabinet-protocol.md "Vendor families"). A cabinet of this family is cabinet
// `{idPrefix}{uuid}` to the rest of the server (e.g. VL-860602069165357).
//
// Topics: answers to commands (/user/update) reach every API process (a plain subscription: each process matches
// only the answers to its own commands, and learns slot layouts from status answers); reports the cabinet makes by
// itself (/user/upload) and heartbeats (/user/heart) reach one process (the shared group, when set).
import type { MqttClient } from 'mqtt';
import { randomToken } from '../../../../lib/ids.ts';
import type { MqttConnector } from '../../../../mqtt/broker.ts';
import type { Logger } from '../../link.ts';
import type { CabinetEvent, EjectCommand, ServerMessage, SlotState } from '../../protocol.ts';
import {
  ActionBook,
  EjectBook,
  ackOf,
  outcomeEventId,
  reconciled,
  type EdgeSink,
  type EjectLedger,
  type VendorGateway,
} from '../gateway.ts';
import {
  A8_CMD,
  a8Command,
  a8Topics,
  decodeA8,
  decodePopupBySerial,
  decodePopupBySlot,
  decodeReturned,
  decodeStatus,
  type A8Command,
  type A8PopupResult,
  type A8Slot,
} from './codec.ts';

export interface A8GatewayOptions {
  connector: MqttConnector;
  /** The internal id of cabinet `uuid` is `{idPrefix}{uuid}`; the gateway owns every id with this prefix. */
  idPrefix: string;
  sharedGroup?: string;
  log: Logger;
  /** The server's clock (ms): event times, command validity. */
  now?: () => number;
  /** How long an eject waits for the slot layout of a cabinet this process has no report of (ms). */
  layoutWaitMs?: number;
  /** Ejects sent and not answered yet, kept outside the process (vendor_ejects); without it, in memory only. */
  ejects?: EjectLedger;
}

/** A slot's place in the cabinet: slots are numbered 1… in the order of the status report (board, then position). */
interface Place {
  board: number;
  hole: number;
  sn: string | null;
}

const failReason = (r: A8PopupResult): 'jammed' | 'expired' =>
  r === 'timestamp-failure' || r === 'ttl-expired' ? 'expired' : 'jammed';

export class A8Gateway implements VendorGateway {
  readonly family = 'a8';
  private client: MqttClient | null = null;
  private sink: EdgeSink | null = null;
  private readonly book: EjectBook;
  private readonly layouts = new Map<string, Place[]>();
  private readonly actions: ActionBook;
  /** The firmware versions each cabinet last reported (status reports), to report a change only. */
  private readonly firmware = new Map<string, string>();
  private readonly layoutWaiters = new Map<string, (() => void)[]>();
  private readonly now: () => number;

  constructor(private readonly o: A8GatewayOptions) {
    if (!o.idPrefix) throw new Error('the 0xA8 gateway needs an id prefix');
    this.now = o.now ?? Date.now;
    this.book = new EjectBook(this.now);
    this.actions = new ActionBook(this.now);
  }

  owns(cabinetId: string) {
    return cabinetId.startsWith(this.o.idPrefix) && cabinetId.length > this.o.idPrefix.length;
  }

  private uuid(cabinetId: string) {
    return cabinetId.slice(this.o.idPrefix.length);
  }

  async start(sink: EdgeSink) {
    this.sink = sink;
    const client = this.o.connector.connect({
      clientId: `powerly-a8-${randomToken(6)}`,
      clean: true,
      resubscribe: false,
    });
    this.client = client;
    client.handleMessage = (packet, done) => {
      const payload = Buffer.isBuffer(packet.payload) ? packet.payload : Buffer.from(packet.payload);
      // The PUBACK (done) goes out once the frame's event is stored (or the frame is refused).
      this.frame(packet.topic, payload)
        .catch((err: unknown) => this.o.log.error({ err, topic: packet.topic }, '0xA8 frame not handled'))
        .finally(() => done());
    };
    client.on('error', (err) => this.o.log.warn({ err }, '0xA8 gateway mqtt error'));
    const share = this.o.sharedGroup ? `$share/${this.o.sharedGroup}/` : '';
    await new Promise<void>((resolve) => {
      client.on('connect', () => {
        client
          .subscribeAsync({
            '/powerbank/+/user/update': { qos: 1 },
            [`${share}/powerbank/+/user/upload`]: { qos: 1 },
            [`${share}/powerbank/+/user/heart`]: { qos: 1 },
          })
          .then(
            () => resolve(),
            (err: unknown) => {
              this.o.log.error({ err }, '0xA8 gateway subscribe failed');
              resolve();
            },
          );
      });
    });
  }

  async close() {
    const c = this.client;
    this.client = null;
    this.sink = null;
    if (c) await c.endAsync(!c.connected);
  }

  // ---- cabinet → server ----------------------------------------------------------------------------------------

  private async frame(topic: string, payload: Buffer) {
    const [, root, uuid, user, kind] = topic.split('/');
    if (root !== 'powerbank' || user !== 'user' || !uuid || !kind) return;
    const cabinetId = `${this.o.idPrefix}${uuid}`;
    const sink = this.sink;
    if (!sink) return;
    if (kind === 'heart') return sink.status(cabinetId, { v: 2, online: true, ts: new Date(this.now()).toISOString() });
    let f;
    try {
      f = decodeA8(payload);
    } catch (err) {
      return sink.reject(cabinetId, 'vendor-a8-malformed', `${(err as Error).message}: ${payload.toString('hex')}`);
    }
    if (f.cmd === A8_CMD.status) {
      const s = decodeStatus(f.data);
      this.learn(uuid, s.slots);
      const firmware = s.boards
        .map((b) => `board ${b.index}: software ${b.softVersion}, hardware ${b.hardVersion}`)
        .join('; ');
      if (kind === 'upload' && this.firmware.get(uuid) !== firmware) {
        this.firmware.set(uuid, firmware);
        await sink.status(cabinetId, { v: 2, online: true, ts: new Date(this.now()).toISOString(), firmware });
      }
      // Every process sees an answer (update); the cabinet's own report (upload) reaches one: that one reports it.
      if (kind === 'upload' || this.book.match(cabinetId, { slot: 0 }))
        await this.store(cabinetId, this.heartbeat(s.slots));
    } else if (f.cmd === A8_CMD.returned && kind === 'upload') {
      const r = decodeReturned(f.data);
      const slot = this.slotOf(uuid, r.board, r.hole);
      if (!r.sn || slot === null) return sink.reject(cabinetId, 'vendor-a8-return-unplaced', payload.toString('hex'));
      const minute = Math.floor(this.now() / 60_000);
      this.place(uuid, slot, r.sn);
      await this.store(cabinetId, {
        v: 2,
        id: `ret-${r.board}-${r.hole}-${r.sn}-${minute}`,
        ts: new Date(this.now()).toISOString(),
        type: 'returned',
        slot,
        powerbankId: r.sn,
      });
    } else if (f.cmd === A8_CMD.popupBySerial) {
      const a = decodePopupBySerial(f.data);
      const p = a.sn ? this.book.match(cabinetId, { serial: a.sn }) : undefined;
      if (p) await this.answer(cabinetId, p, a.result, a.sn);
      else if (a.sn) await this.orphan(cabinetId, a.sn, a.result);
    } else if (f.cmd === A8_CMD.popupBySlot) {
      const a = decodePopupBySlot(f.data);
      const slot = this.slotOf(uuid, a.board, a.hole);
      const p = slot === null ? undefined : this.book.match(cabinetId, { slot });
      if (p) await this.answer(cabinetId, p, a.result, p.serial);
    }
    // 0xCF (Wi-Fi scan) and anything else: no internal event; an operator tool reads them from the broker.
  }

  private async answer(
    cabinetId: string,
    p: EjectCommand & { serial: string | null },
    result: A8PopupResult,
    sn: string | null,
  ) {
    const ts = new Date(this.now()).toISOString();
    const e = this.book.settle(p.id, () =>
      result === 'ok' && sn
        ? { v: 2, id: outcomeEventId(p.id), ts, type: 'popped', commandId: p.id, slot: p.slot!, powerbankId: sn }
        : {
            v: 2,
            id: outcomeEventId(p.id),
            ts,
            type: 'pop-failed',
            commandId: p.id,
            slot: p.slot,
            reason: failReason(result),
          },
    );
    if (e.type === 'popped') this.place(this.uuid(cabinetId), e.slot, null);
    await this.store(cabinetId, e);
    await this.o.ejects?.settled(p.id);
  }

  /**
   * An answer to a pop-up this process did not send (its sender was killed before the answer came): matched to
   * the eject recorded for that serial, if one is open, and settled from the answer itself.
   */
  private async orphan(cabinetId: string, serial: string, result: A8PopupResult) {
    const open = (await this.o.ejects?.open(cabinetId, new Date(this.now() - 60 * 60_000))) ?? [];
    const x = open.find((o) => o.powerbankId === serial);
    if (!x) return;
    await this.answer(
      cabinetId,
      { v: 2, id: x.commandId, type: 'eject', ts: x.at.toISOString(), ttlMs: 0, slot: x.slot, serial },
      result,
      serial,
    );
  }

  /** Stores an event through the link, retrying while the database is away (the PUBACK waits meanwhile). */
  private async store(cabinetId: string, e: CabinetEvent) {
    for (let attempt = 1; ; attempt++) {
      const sink = this.sink;
      if (!sink) return;
      try {
        if (await sink.event(cabinetId, e)) return;
        return; // refused (an unknown cabinet): counted by the link, nothing to retry
      } catch (err) {
        if (attempt >= 5) throw err;
        await new Promise((r) => setTimeout(r, 250 * 2 ** attempt));
      }
    }
  }

  private heartbeat(slots: A8Slot[]): CabinetEvent {
    const list: SlotState[] = slots.map((s, i) => ({
      slot: i + 1,
      powerbankId: s.sn,
      battery: s.sn ? s.charge : null,
    }));
    return { v: 2, id: `hb-${randomToken(6)}`, ts: new Date(this.now()).toISOString(), type: 'heartbeat', slots: list };
  }

  private learn(uuid: string, slots: A8Slot[]) {
    this.layouts.set(
      uuid,
      slots.map((s) => ({ board: s.board, hole: s.hole, sn: s.sn })),
    );
    for (const w of this.layoutWaiters.get(uuid)?.splice(0) ?? []) w();
  }

  private slotOf(uuid: string, board: number, hole: number): number | null {
    const i = this.layouts.get(uuid)?.findIndex((p) => p.board === board && p.hole === hole) ?? -1;
    return i < 0 ? null : i + 1;
  }

  private place(uuid: string, slot: number, sn: string | null) {
    const p = this.layouts.get(uuid)?.[slot - 1];
    if (p) p.sn = sn;
  }

  // ---- server → cabinet ----------------------------------------------------------------------------------------

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
    const done = this.book.outcome(msg.id);
    if (done) return void (await this.store(cabinetId, done)); // a repeat: the same outcome again, no second eject
    if (this.book.isPending(msg.id)) return; // sent, its answer still to come: a repeat must not eject twice
    const fail = (reason: 'empty' | 'expired') =>
      this.store(
        cabinetId,
        this.book.settle(msg.id, () => ({
          v: 2,
          id: outcomeEventId(msg.id),
          ts: new Date(this.now()).toISOString(),
          type: 'pop-failed',
          commandId: msg.id,
          slot: msg.slot,
          reason,
        })),
      );
    if (this.book.expired(msg)) return fail('expired');
    if (msg.slot === null) return fail('empty');
    const uuid = this.uuid(cabinetId);
    // Sent by a gateway process that died before the answer was stored: never a second pop-up (the first may have
    // ejected); settled from a fresh status report (the power bank gone: popped; still there: pop-failed).
    const before = await this.o.ejects?.find(msg.id);
    if (before) {
      this.layouts.delete(uuid); // only a report made after the request counts
      this.book.add(cabinetId, { ...msg, slot: 0 }, null);
      await this.publish(uuid, a8Command.status());
      await this.waitLayout(uuid, this.o.layoutWaitMs ?? 5_000);
      const layout = this.layouts.get(uuid);
      if (!layout) return; // no report yet: the next re-publish of the command tries again
      const e = this.book.settle(msg.id, () =>
        reconciled(before, (id) => layout.some((p) => p.sn === id), new Date(this.now()).toISOString()),
      );
      await this.store(cabinetId, e);
      return void (await this.o.ejects?.settled(msg.id));
    }
    if (!this.layouts.get(uuid)?.[msg.slot - 1]?.sn) {
      // No report of this cabinet in this process yet: ask for one (its answer reaches every process) and wait.
      this.book.add(cabinetId, { ...msg, slot: 0 }, null); // an open status request, matched as "slot 0"
      await this.publish(uuid, a8Command.status());
      await this.waitLayout(
        uuid,
        Math.min(this.o.layoutWaitMs ?? 5_000, Math.max(0, Date.parse(msg.ts) + msg.ttlMs - this.now())),
      );
    }
    const place = this.layouts.get(uuid)?.[msg.slot - 1];
    // Never eject a slot we cannot name the power bank of: without its serial the rental could not be recorded.
    if (!place?.sn) return fail('empty');
    if (this.book.expired(msg)) return fail('expired');
    await this.o.ejects?.sent({
      commandId: msg.id,
      cabinetId,
      slot: msg.slot,
      powerbankId: place.sn,
      at: new Date(this.now()),
    });
    this.book.add(cabinetId, msg, place.sn);
    const validity = { timestamp: Math.floor(Date.parse(msg.ts) / 1000), ttl: Math.ceil(msg.ttlMs / 1000) };
    await this.publish(uuid, a8Command.popupBySerial(place.sn, validity));
  }

  /**
   * restart → `reboot`, report-inventory → `upload_all` (its status report on /user/upload is the heartbeat),
   * set-volume → `volume` (0–100, as ours). The family answers none of them and reports no volume: acknowledged
   * once the broker has the command; a repeat of the id is not sent again.
   */
  private async action(
    cabinetId: string,
    msg: Extract<ServerMessage, { type: 'restart' | 'report-inventory' | 'set-volume' }>,
  ) {
    if (!this.actions.seen(msg.id)) {
      if (this.now() > Date.parse(msg.ts) + msg.ttlMs)
        return this.sink?.ack(cabinetId, ackOf(msg.id, 'expired', this.now()));
      this.actions.wait(cabinetId, msg.type, msg.id);
      const cmd =
        msg.type === 'restart'
          ? a8Command.restart()
          : msg.type === 'set-volume'
            ? a8Command.volume(msg.level)
            : a8Command.uploadAll();
      await this.publish(this.uuid(cabinetId), cmd);
      this.actions.answered(cabinetId, msg.type);
    }
    if (this.actions.isDone(msg.id)) await this.sink?.ack(cabinetId, ackOf(msg.id, 'accepted', this.now()));
  }

  private waitLayout(uuid: string, ms: number) {
    return new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      const list = this.layoutWaiters.get(uuid) ?? [];
      list.push(() => {
        clearTimeout(timer);
        resolve();
      });
      this.layoutWaiters.set(uuid, list);
    });
  }

  /** A JSON command on the cabinet's /user/get topic (also for operator tools: Wi-Fi, network mode, firmware). */
  async publish(uuid: string, cmd: A8Command) {
    const c = this.client;
    if (!c?.connected) throw new Error('0xA8 gateway is not connected to the broker');
    await c.publishAsync(a8Topics(uuid).get, JSON.stringify(cmd), { qos: 1 });
  }
}
