// Cabinets: the scan (checkisok) and the server's handling of everything a cabinet reports.
import { allOf, type Db } from '../../db/db.ts';
import type { Clock } from '../../lib/clock.ts';
import { isDeviceKind, type DeviceKind, type RentalKind } from '#core/devices.ts';
import { DEFAULT_AGENT } from '../ledger/service.ts';
import { cabinetCodeFrom } from '#core/codeLink.ts';
import { notFound, unauthorized } from '../../lib/errors.ts';
import type { CabinetLink, LinkHandler, Logger } from './link.ts';
import type { CabinetEvent, CabinetStatus, Command, CommandAck } from './protocol.ts';
import { PresenceBatcher } from './presence.ts';
import type { CabinetsRepository, CommandRow, ScanView } from './repository.ts';
import type { BoxEvents, OrderRules, RentalEvents } from './ports.ts';
import { ScanCache } from './scan-cache.ts';
import { InHand } from './in-hand.ts';
import type { ReturnReservations } from './reservations.ts';
import { NEVER, PUBLIC_SESSION, scanAnswer } from './scan-view.ts';

export { ReturnReservations } from './reservations.ts';

export class CabinetsService implements LinkHandler {
  constructor(
    private readonly d: {
      db: Db;
      clock: Clock;
      log: Logger;
      repo: CabinetsRepository;
      link: CabinetLink;
      scanCache: ScanCache;
      /** The modules built on the cabinets, and the rentals' rules on orders (ports.ts). */
      rentals: RentalEvents;
      mifi: BoxEvents;
      orders: OrderRules;
      /** Return slot reservations: a return uses its power bank's (reservations.ts). */
      reservations?: Pick<ReturnReservations, 'returned'>;
    },
  ) {
    this.batch = new PresenceBatcher(d);
  }

  private readonly batch: PresenceBatcher;
  private inboxTimer: NodeJS.Timeout | null = null;
  private inboxRun: Promise<unknown> | null = null;
  private readonly inHand = new InHand(); // events stored and processed here, which the poller leaves alone

  /**
   * POST cdb/cabinet/checkisok, for the session of `session.tokenHash`: one round trip (scanView), or none when
   * this process holds the same read, unchanged since (scan-cache.ts).
   */
  async scan(session: { tokenHash: string }, url: string, kind: RentalKind = 'cdb') {
    // One round trip: session, cabinet, venue, plans, stock, the wallet in the venue currency and the open rentals
    // (the same rules as authenticate, resolveCabinet, walletOf, openCount and availableCount, read together).
    const code = cabinetCodeFrom(url) ?? '';
    const at = this.d.clock.now();
    const cache = this.d.scanCache;
    const live = (c: ScanView['cabinet']) => this.d.repo.isLive(c);
    const read = async (k: RentalKind) => {
      const key = ScanCache.key(session.tokenHash, code, k);
      const hit = cache.get(key, at, live);
      if (hit) return hit;
      const mark = cache.mark;
      const found = await this.d.repo.scanView(
        code,
        { tokenHash: session.tokenHash, at },
        this.d.orders.open,
        DEFAULT_AGENT,
        k,
      );
      if (found?.view)
        cache.set(
          key,
          { userId: found.userId, sessionExpiresAt: found.sessionExpiresAt ?? NEVER, view: found.view },
          session.tokenHash,
          mark,
        );
      return found;
    };
    const found = await read(kind);
    if (!found) throw unauthorized();
    let view = found.view;
    // A kind the venue has no plan for (a stale deviceType): the power-bank view, which every venue prices.
    if (view && !view.plan && kind !== 'cdb') {
      kind = 'cdb';
      view = (await read(kind))?.view;
    }
    if (!view) throw notFound('error.cabinetNotFound');
    return scanAnswer(view, kind, live(view.cabinet));
  }

  /**
   * The scan as anyone sees it, without a session (the server-rendered code link, static.ts): the cabinet, its
   * venue, prices, deposit and stock, and no rider's data (balance 0, no open rentals). Undefined for an unknown
   * cabinet. From the scan's cache like every scan (scan-cache.ts), under a key no session has.
   */
  async publicScan(url: string, kind: RentalKind = 'cdb') {
    const code = cabinetCodeFrom(url) ?? '';
    const at = this.d.clock.now();
    const cache = this.d.scanCache;
    const live = (c: ScanView['cabinet']) => this.d.repo.isLive(c);
    const read = async (k: RentalKind) => {
      const key = ScanCache.key(PUBLIC_SESSION, code, k);
      const hit = cache.get(key, at, live);
      if (hit) return hit.view;
      const mark = cache.mark;
      const view = (await this.d.repo.scanView(code, { tokenHash: null, at }, this.d.orders.open, DEFAULT_AGENT, k))
        ?.view;
      if (view) cache.set(key, { userId: 0, sessionExpiresAt: NEVER, view }, PUBLIC_SESSION, mark);
      return view;
    };
    let view = await read(kind);
    if (view && !view.plan && kind !== 'cdb') view = await read((kind = 'cdb'));
    return view && scanAnswer(view, kind, live(view.cabinet));
  }

  private static isBoxCommand(c: CommandRow | undefined) {
    const payload = (typeof c?.payload === 'string' ? JSON.parse(c.payload) : c?.payload) as
      { kind?: string } | undefined;
    return payload?.kind === 'mifi';
  }

  private async isBox(id: string, kind: unknown) {
    if (kind === 'mifi') return true;
    const [b] = await this.d.repo.powerbanks([id]);
    return b?.kind === 'mifi';
  }

  // ---- LinkHandler: the inbox (docs/cabinet-protocol.md §Delivery) --------------------------------------------

  /**
   * Stores and processes one event (what the link does in two steps, for callers without MQTT: tests, tools).
   * A repeat is acknowledged and changes nothing.
   */
  async event(cabinetId: string, e: CabinetEvent) {
    if (e.type === 'heartbeat' && (await this.presence(cabinetId, e))) return;
    if ((await this.receive(cabinetId, e)) && e.type !== 'heartbeat') await this.process(cabinetId, e.id, e);
  }

  /** The common heartbeat (nothing changed) is recorded with others in one statement (presence.ts). */
  presence(cabinetId: string, e: Extract<CabinetEvent, { type: 'heartbeat' }>) {
    return this.batch.record(cabinetId, e);
  }

  /** Stores an event in the inbox before it is acknowledged; a heartbeat is reconciled at once (never stored). */
  async receive(cabinetId: string, e: CabinetEvent): Promise<boolean> {
    // An unknown cabinet's event is refused: a heartbeat after reading the cabinet, any other event by the statement
    // that stores it (nothing stored), in one round trip.
    const known =
      e.type === 'heartbeat'
        ? Boolean(await this.d.repo.find(cabinetId))
        : await this.d.repo.storeEvent({
            id: e.id,
            cabinetId,
            type: e.type,
            ts: e.ts,
            powerbankId: 'powerbankId' in e ? e.powerbankId : null,
            payload: e,
            at: this.d.clock.now(),
          });
    if (!known) {
      await this.reject(cabinetId, 'unknown-cabinet', JSON.stringify(e));
      return false;
    }
    if (e.type === 'heartbeat') await this.reconcile(cabinetId, e);
    else this.inHand.take(`${cabinetId}:${e.id}`, this.d.clock.now());
    return true;
  }

  /**
   * Processes a stored event unless another process has it; a failure is recorded for a retry (or 'dead'). `e`: the
   * event as received, when in hand (its power bank's lock and its command's read then go with the claim).
   */
  async process(cabinetId: string, eventId: string, e?: CabinetEvent) {
    await this.runStored(`${cabinetId}:${eventId}`, e).finally(() => this.inHand.release(`${cabinetId}:${eventId}`));
  }

  /** The power bank whose events are serialised, and the command an eject's answer is about. */
  private static keysOf(e: CabinetEvent) {
    return {
      powerbank: 'powerbankId' in e ? e.powerbankId : undefined,
      command: e.type === 'popped' || e.type === 'pop-failed' ? e.commandId : undefined,
    };
  }

  private async runStored(key: string, received?: CabinetEvent): Promise<'done' | 'busy' | 'failed'> {
    try {
      return await this.d.db.tx(async () => {
        // The claim, the power bank's lock and the command's read, sent together when the event is in hand (in that
        // order, as one after the other); each again from the stored event if that differs from what was received.
        const hint: { powerbank?: string; command?: string } = received ? CabinetsService.keysOf(received) : {};
        const [row, , read] = await allOf([
          this.d.repo.claimEvent(key),
          hint.powerbank !== undefined ? this.d.repo.lockKeys([`powerbank:${hint.powerbank}`]) : undefined,
          hint.command !== undefined ? this.d.repo.command(hint.command) : undefined,
        ]);
        if (!row) return 'busy' as const;
        // Marked done now, sent with the handler's first statements: the unit commits both or neither (a failure rolls
        // it back and is recorded after, eventFailed). Its answer is awaited before the commit.
        const done = this.d.repo.eventDone(key, this.d.clock.now());
        done.catch(() => undefined);
        const e = (typeof row.payload === 'string' ? JSON.parse(row.payload) : row.payload) as CabinetEvent;
        const keys = CabinetsService.keysOf(e);
        // Events of one power bank are serialised across processes (popped and returned racing on two processes).
        if (keys.powerbank !== undefined && keys.powerbank !== hint.powerbank)
          await this.d.repo.lockKeys([`powerbank:${keys.powerbank}`]);
        // A Wi-Fi box's eject belongs to a package pickup, its return to the box's deposit (modules/mifi).
        // The command an eject's answer is about, read once here for whichever handler owns it.
        const cmd =
          keys.command === undefined
            ? undefined
            : keys.command === hint.command
              ? read
              : await this.d.repo.command(keys.command);
        const boxCommand = CabinetsService.isBoxCommand(cmd);
        if (e.type === 'popped' && boxCommand) await this.d.mifi.onPopped(e);
        else if (e.type === 'pop-failed' && boxCommand) await this.d.mifi.onPopFailed(e);
        else if (e.type === 'popped' && cmd?.type === 'ops.eject' && cmd.cabinet_id === row.cabinet_id)
          await this.operatorPopped(cmd.id, row.cabinet_id, e.powerbankId);
        else if (e.type === 'popped') await this.d.rentals.onPopped(row.cabinet_id, e, cmd);
        else if (e.type === 'pop-failed') await this.d.rentals.onPopFailed(row.cabinet_id, e, cmd);
        else if (e.type === 'returned' && (await this.isBox(e.powerbankId, e.kind))) {
          await this.d.rentals.onReturned(row.cabinet_id, e); // places it in the slot (no rental order matches a box)
          await this.d.mifi.onReturned(e.powerbankId);
        } else if (e.type === 'returned') await this.d.rentals.onReturned(row.cabinet_id, e);
        else if (e.type === 'box-telemetry') await this.d.mifi.onTelemetry(e);
        else if (e.type === 'box-password') await this.d.mifi.onPasswordSet(e);
        else if (e.type === 'box-code-read') await this.d.mifi.onCodeRead(e);
        else if (e.type === 'powerbank-fault') await this.d.rentals.onFault(e);
        if (e.type === 'returned') await this.d.reservations?.returned(e.powerbankId, row.cabinet_id);
        await done;
        return 'done' as const;
      });
    } catch (err) {
      const r = await this.d.repo.eventFailed(
        key,
        err instanceof Error ? err.message : String(err),
        this.d.clock.now(),
        INBOX_MAX_ATTEMPTS,
      );
      if (r?.state === 'dead')
        this.d.log.error(
          { err, event: key, attempts: r.attempts },
          'cabinet event is dead: an operator must look (npm run cabinet:inbox)',
        );
      else this.d.log.warn({ err, event: key, attempts: r?.attempts }, 'cabinet event failed, will retry');
      return 'failed';
    }
  }

  /** An operator's eject (modules/cabinets/ops.ts) popped: the device left its slot without a rental. */
  private async operatorPopped(commandId: string, cabinetId: string, deviceId: string) {
    await this.d.repo.ackCommand(commandId, this.d.clock.now(), 'popped');
    await this.d.repo.markMissing([deviceId], cabinetId, this.d.clock.now());
  }

  /** Processes every pending event that is due (after a backoff, or left by a dead process) but those in hand here. */
  async processInbox(limit = 100) {
    return this.inHand.poll(this.d.clock.now(), async (mine) => {
      let done = 0;
      for (const key of await this.d.repo.dueEvents(this.d.clock.now(), limit))
        if (!mine(key) && (await this.runStored(key)) === 'done') done++;
      return done;
    });
  }

  /** Polls the inbox (a trigger only: the state is in the database). */
  startInbox(intervalMs: number) {
    if (this.inboxTimer) return;
    this.inboxTimer = setInterval(() => {
      this.inboxRun ??= this.processInbox()
        .catch((err: unknown) => this.d.log.error({ err }, 'inbox poll failed'))
        .finally(() => (this.inboxRun = null));
    }, intervalMs);
    this.inboxTimer.unref();
  }

  async stopInbox() {
    if (this.inboxTimer) clearInterval(this.inboxTimer);
    this.inboxTimer = null;
    await this.inboxRun;
  }

  async reject(cabinetId: string, reason: string, payload: string) {
    this.d.log.warn({ cabinetId, reason }, 'cabinet message refused (counted in cabinet_rejects)');
    await this.d.repo.reject(cabinetId, reason, payload.slice(0, 2000), this.d.clock.now());
  }

  /**
   * A heartbeat's inventory is the truth about the cabinet's slots (docs/cabinet-protocol.md §Inventory): a
   * power bank listed in a slot while its order is open settles that order at the heartbeat's time; one we do not
   * know is quarantined; one we placed here that is not listed is missing. Not before a later report: each
   * power bank keeps the cabinet time of the report that placed it.
   */
  private async reconcile(cabinetId: string, e: Extract<CabinetEvent, { type: 'heartbeat' }>) {
    const now = this.d.clock.now();
    const cabinet = (await this.d.repo.find(cabinetId))!;
    const reported = Date.parse(e.ts);
    const at = new Date(Math.min(Number.isFinite(reported) ? reported : now.getTime(), now.getTime()));
    const slots = (Array.isArray(e.slots) ? e.slots : []).filter(
      (s): s is { slot: number; powerbankId: string; battery: number | null; kind?: DeviceKind } =>
        Number.isInteger(s?.slot) &&
        s.slot >= 1 &&
        s.slot <= cabinet.slot_count &&
        typeof s.powerbankId === 'string' &&
        s.powerbankId.length > 0 &&
        s.powerbankId.length <= 200,
    );
    await this.d.db.tx(async () => {
      const here = await this.d.repo.banksAt(cabinetId);
      const ids = [...new Set([...slots.map((s) => s.powerbankId), ...here.map((b) => b.id)])];
      await this.d.repo.lockKeys([`cabinet:${cabinetId}`]);
      await this.d.repo.lockKeys(ids.map((id) => `powerbank:${id}`));
      const known = new Map((await this.d.repo.powerbanks(ids)).map((b) => [b.id, b]));
      const open = new Set(await this.d.rentals.openPowerbanks(slots.map((s) => s.powerbankId)));
      for (const s of slots) {
        if (open.has(s.powerbankId)) {
          await this.d.rentals.onReturned(cabinetId, {
            slot: s.slot,
            powerbankId: s.powerbankId,
            ts: at.toISOString(),
          });
          await this.d.reservations?.returned(s.powerbankId, cabinetId);
          continue;
        }
        const b = known.get(s.powerbankId);
        if (
          b &&
          b.cabinet_id === cabinetId &&
          b.slot === s.slot &&
          (b.state === 'in_cabinet' || b.state === 'quarantined')
        )
          continue;
        await this.d.repo.placeInSlot(s.powerbankId, cabinetId, s.slot, at, isDeviceKind(s.kind) ? s.kind : undefined);
      }
      const listed = new Set(slots.map((s) => s.powerbankId));
      const gone = here.filter((b) => !listed.has(b.id)).map((b) => b.id);
      if (gone.length) await this.d.repo.markMissing(gone, cabinetId, at);
      await this.d.repo.setOnline(cabinetId, true, now, e.slots);
    });
  }

  /**
   * The link (re)subscribed, or one cabinet came online (`cabinetId`): re-publish unacknowledged, unexpired commands
   * (a cabinet ignores a repeat by id). A cabinet subscribes before it announces itself online, so a command the
   * link re-published while that cabinet was not yet subscribed reaches it now rather than at its TTL.
   */
  async linked(cabinetId?: string) {
    for (const c of await this.d.repo.unansweredCommands(this.d.clock.now(), cabinetId)) {
      const payload = (typeof c.payload === 'string' ? JSON.parse(c.payload) : c.payload) as Command;
      await this.d.link
        .send(c.cabinet_id, payload)
        .catch((err: unknown) => this.d.log.warn({ err, command: c.id }, 'command re-publish failed'));
    }
  }

  async status(cabinetId: string, s: CabinetStatus) {
    if (!(await this.d.repo.find(cabinetId))) return;
    await this.d.repo.setOnline(cabinetId, s.online, this.d.clock.now(), undefined);
    // After this status is handled, not inside it: a vendor gateway answering a re-sent command stores its event
    // through the same per-cabinet queue this status holds.
    if (s.online) {
      setImmediate(
        () =>
          void this.linked(cabinetId).catch((err: unknown) =>
            this.d.log.warn({ err, cabinetId }, 'command re-publish on online failed'),
          ),
      );
    }
    if (typeof s.firmware === 'string' && s.firmware)
      await this.d.repo.setFirmware(cabinetId, s.firmware.slice(0, 200), this.d.clock.now());
    if (Number.isInteger(s.volume) && s.volume! >= 0 && s.volume! <= 100)
      await this.d.repo.setVolume(cabinetId, s.volume!);
  }

  async ack(cabinetId: string, a: CommandAck) {
    // Only a command to this cabinet (another's, or an unknown id, changes nothing).
    await this.d.repo.ackCommand(a.commandId, this.d.clock.now(), a.status === 'accepted' ? null : a.status, cabinetId);
  }

  // ---- operator ---------------------------------------------------------------------------------------------

  /** What an operator must look at: dead (or pending) events, refused messages, quarantined power banks. */
  async operatorView(state: 'dead' | 'pending' = 'dead') {
    return {
      inbox: await this.d.repo.inbox(state),
      rejects: await this.d.repo.rejects(),
      quarantined: await this.d.repo.quarantined(),
    };
  }

  retryDead(key: string) {
    return this.d.repo.retryEvent(key, this.d.clock.now());
  }

  releaseQuarantined(powerbankId: string) {
    return this.d.repo.release(powerbankId);
  }
}

/** After this many failed attempts (about an hour with the backoff) an inbox event is 'dead'. */
export const INBOX_MAX_ATTEMPTS = 15;
