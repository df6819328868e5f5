// Return slot reservations: a rider with a power bank out keeps one empty slot of a cabinet for its return, for
// RESERVATION_MS. The reservation and its `slot-reserve` command (docs/cabinet-protocol.md "Return slot
// reservations") are stored in one unit of work before the rider is answered; the command is then published, and
// re-published by the link until the cabinet acknowledges it (a broker outage or a process dying in between loses
// nothing). The map counts a held slot as taken for every other rider. The reservation ends when the return of that
// power bank is processed (any cabinet: one elsewhere releases the slot with `until: null`), when the rider cancels,
// or at its expiry (a job; the cabinet drops the slot at `until` by itself, and every read checks the time).
import type { Db } from '../../db/db.ts';
import type { JobRunner } from '../../jobs/runner.ts';
import type { Clock } from '../../lib/clock.ts';
import { conflict, notFound } from '../../lib/errors.ts';
import { uuid } from '../../lib/ids.ts';
import { FieldErrors } from '../../lib/validate.ts';
import type { CabinetLink, Logger } from './link.ts';
import type { Liveness } from './liveness.ts';
import type { SlotReserveCommand } from './protocol.ts';
import { ReservationsRepository, type ReservableCabinet, type ReservationRow } from './reservations-repository.ts';

/** How long a return slot is kept. */
export const RESERVATION_MS = 15 * 60_000;
/** How long a release stays valid for its cabinet (the reservation itself ends at its `until` anyway). */
const RELEASE_TTL_MS = RESERVATION_MS;
export const JOB_RESERVATION_EXPIRY = 'cabinets.reservation-expiry';
/** The family whose cabinets take slot commands (the vendor gateways carry ejects only). */
const RESERVING_VENDOR = 'powerly';

export interface ReservationsDeps {
  db: Db;
  clock: Clock;
  log: Logger;
  link: CabinetLink;
  jobs: JobRunner;
  liveness: Liveness;
  /** The rider's rental with a power bank out (the rentals service's), if any. */
  renting: (userId: number) => Promise<{ id: string; powerbankId: string } | undefined>;
  holdMs?: number;
}

export class ReturnReservations {
  private readonly repo: ReservationsRepository;
  constructor(private readonly d: ReservationsDeps) {
    this.repo = new ReservationsRepository(d.db);
    d.jobs.register(JOB_RESERVATION_EXPIRY, (p) => this.expire(String(p.id)));
  }

  private get holdMs() {
    return this.d.holdMs ?? RESERVATION_MS;
  }

  /**
   * Keeps a slot at the cabinet `cabinetId`, or at the first cabinet of the venue `shopId` with one, for the rider's
   * rental. Idempotent: asked again for the same place while held, the same reservation is answered.
   */
  async reserve(userId: number, target: { cabinetId?: string; shopId?: string }): Promise<ReservationRow> {
    if (!target.cabinetId && !target.shopId) throw new FieldErrors([{ field: 'cabinetId', code: 'required' }]);
    const now = this.d.clock.now();
    const made = await this.d.db.tx(async () => {
      await this.repo.lockKeys([`reserve:${userId}`]);
      const rental = await this.d.renting(userId);
      if (!rental) throw conflict('error.reserve.noRental');
      await this.repo.expireDue({ userId, now });
      const held = await this.repo.heldOf(userId, now);
      if (held) {
        if (held.cabinet_id === target.cabinetId || (!target.cabinetId && held.venue_id === target.shopId))
          return { row: held, msg: null };
        throw conflict('error.reserve.already', { place: held.venue_name });
      }
      const found = target.cabinetId
        ? [await this.repo.cabinet(target.cabinetId)].filter((c): c is ReservableCabinet => !!c)
        : await this.repo.cabinetsOfVenue(target.shopId!);
      if (!found.length) throw notFound(target.cabinetId ? 'error.cabinetNotFound' : 'error.shopNotFound');
      const live = found.filter((c) => this.d.liveness.isLive(c));
      if (!live.length) throw conflict('error.cabinetOffline');
      const able = live.filter((c) => c.vendor === RESERVING_VENDOR);
      if (!able.length) throw conflict('error.reserve.unsupported');
      for (const c of able) {
        await this.repo.lockKeys([`cabinet:${c.id}`]);
        await this.repo.expireDue({ cabinetId: c.id, now });
        const slot = await this.repo.freeSlot(c.id, now);
        if (slot === undefined) continue;
        const id = uuid();
        const commandId = uuid();
        const expiresAt = new Date(now.getTime() + this.holdMs);
        const msg: SlotReserveCommand = {
          v: 2,
          id: commandId,
          type: 'slot-reserve',
          ts: now.toISOString(),
          ttlMs: this.holdMs,
          slot,
          powerbankId: rental.powerbankId,
          until: expiresAt.toISOString(),
        };
        await this.repo.insertCommand({
          id: commandId,
          cabinetId: c.id,
          orderId: rental.id,
          payload: msg,
          at: now,
          expiresAt,
        });
        await this.repo.insert({
          id,
          userId,
          orderId: rental.id,
          powerbankId: rental.powerbankId,
          cabinetId: c.id,
          slot,
          commandId,
          at: now,
          expiresAt,
        });
        await this.d.jobs.enqueue(JOB_RESERVATION_EXPIRY, { id }, expiresAt);
        return { row: (await this.repo.find(id))!, msg };
      }
      throw conflict('error.reserve.full');
    });
    if (made.msg) await this.publish(made.row.cabinet_id, made.msg);
    return made.row;
  }

  /** The rider's held reservation, else the latest one (its end), else undefined. */
  async current(userId: number) {
    const now = this.d.clock.now();
    return (await this.repo.heldOf(userId, now)) ?? (await this.repo.latestOf(userId));
  }

  /** The rider gives the slot back: the cabinet is told to release it. */
  async cancel(userId: number): Promise<ReservationRow> {
    const now = this.d.clock.now();
    const ended = await this.d.db.tx(async () => {
      await this.repo.lockKeys([`reserve:${userId}`]);
      const held = await this.repo.heldOf(userId, now);
      if (!held || !(await this.repo.end(held.id, 'cancelled', now))) throw notFound('error.reserve.none');
      return { row: (await this.repo.find(held.id))!, msg: await this.release(held, now) };
    });
    await this.publish(ended.row.cabinet_id, ended.msg);
    return ended.row;
  }

  /**
   * The return of `powerbankId` at `cabinetId` is being processed (in its unit of work): its reservation is used.
   * At the reserved cabinet the cabinet ended it itself; elsewhere the reserved cabinet is told to release the slot.
   */
  async returned(powerbankId: string, cabinetId: string) {
    const held = await this.repo.heldFor(powerbankId);
    if (!held) return;
    const now = this.d.clock.now();
    if (!(await this.repo.end(held.id, 'used', now))) return;
    await this.repo.supersede(held.command_id);
    if (held.cabinet_id === cabinetId || new Date(held.expires_at) <= now) return;
    const msg = await this.release(held, now);
    // Stored with the return; published without holding up its unit of work (re-published until acknowledged).
    void this.publish(held.cabinet_id, msg);
  }

  /** The expiry job: a reservation still held at its time ends (the cabinet drops the slot at `until` by itself). */
  async expire(id: string) {
    await this.d.db.tx(async () => {
      const r = await this.repo.find(id);
      if (!r || r.state !== 'held') return;
      const now = this.d.clock.now();
      if (new Date(r.expires_at) > now) return;
      await this.repo.end(id, 'expired', now);
      await this.repo.supersede(r.command_id);
    });
  }

  /** Stores the `until: null` release of a reservation's slot (its reserve command is no longer re-published). */
  private async release(r: ReservationRow, now: Date): Promise<SlotReserveCommand> {
    await this.repo.supersede(r.command_id);
    const msg: SlotReserveCommand = {
      v: 2,
      id: uuid(),
      type: 'slot-reserve',
      ts: now.toISOString(),
      ttlMs: RELEASE_TTL_MS,
      slot: r.slot,
      powerbankId: r.powerbank_id,
      until: null,
    };
    await this.repo.insertCommand({
      id: msg.id,
      cabinetId: r.cabinet_id,
      orderId: r.order_id,
      payload: msg,
      at: now,
      expiresAt: new Date(now.getTime() + RELEASE_TTL_MS),
    });
    return msg;
  }

  private async publish(cabinetId: string, msg: SlotReserveCommand) {
    try {
      await this.d.link.send(cabinetId, msg);
    } catch (err) {
      // Stored: the link re-publishes unacknowledged commands when it is back (CabinetsService.linked).
      this.d.log.warn(
        { err, cabinetId, command: msg.id },
        'slot-reserve not published now (re-published when the link is back)',
      );
    }
  }
}
