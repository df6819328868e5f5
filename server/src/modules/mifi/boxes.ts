// A box's handover: pickup by scan (the cabinet ejects) or by QR (bind), and its return into a cabinet.
import { DEVICE_ORDER_STATUS as DOS, PACKAGE_STATUS as PS } from '#core/mifi.ts';
import { AppError, badRequest, conflict, notFound } from '../../lib/errors.ts';
import { uuid } from '../../lib/ids.ts';
import type { UserRow } from '../auth/service.ts';
import { PROTOCOL_VERSION, type Command } from '../cabinets/protocol.ts';
import { cabinetCodeFrom } from '#core/codeLink.ts';
import type { PackageRow } from './repository.ts';
import { assertHandable, MifiPart } from './shared.ts';

export class MifiBoxes extends MifiPart {
  /** POST chargenow/mifi/pickup {qrcode, pickOrderId}: the scanned cabinet ejects a box for the package. */
  async pickup(user: UserRow, qrcode: string, pickOrderId: string) {
    const p = await this.s.reads.own(user, pickOrderId);
    assertHandable(p);
    const cabinet = await this.cabinetFor(qrcode, p.currency);
    if (!cabinet.online || !this.d.link.isUp()) throw conflict('error.cabinetOffline');
    const now = this.d.clock.now();
    const commandId = uuid();
    const command: Command = await this.d.db.tx(async () => {
      await this.d.cabinets.lock(cabinet.id);
      const slot = await this.d.cabinets.freeSlot(cabinet.id, now, 'mifi');
      if (slot === undefined) throw conflict('error.mifi.noBox');
      const c: Command = {
        v: PROTOCOL_VERSION,
        id: commandId,
        type: 'eject',
        ts: now.toISOString(),
        ttlMs: this.d.ejectTtlMs,
        slot,
        kind: 'mifi',
      };
      await this.d.cabinets.insertCommand({
        id: commandId,
        cabinetId: cabinet.id,
        orderId: p.id,
        type: 'eject',
        payload: c,
        at: now,
        expiresAt: new Date(now.getTime() + this.d.ejectTtlMs),
      });
      await this.d.repo.setDevice(p.id, { ejectCommandId: commandId, pickupState: 1, pickupMsg: null });
      return c;
    });
    await this.d.link
      .send(cabinet.id, command)
      .catch((err: unknown) => this.d.log.error({ err, pickOrderId }, 'box eject publish failed'));
    return { orderId: p.id };
  }

  /** A cabinet ejected a box for a package's pickup: bind it. */
  async onPopped(e: { commandId: string; powerbankId: string; ts: string }) {
    const p = await this.d.repo.byCommand(e.commandId);
    if (!p) return;
    await this.d.cabinets.ackCommand(e.commandId, this.d.clock.now(), 'popped');
    await this.d.cabinets.markRented(
      e.powerbankId,
      p.id,
      new Date(Math.min(Date.parse(e.ts) || Infinity, this.d.clock.now().getTime())),
      'mifi',
    );
    await this.bindBox(p, e.powerbankId);
  }

  async onPopFailed(e: { commandId: string; reason: string }) {
    const p = await this.d.repo.byCommand(e.commandId);
    if (!p) return;
    await this.d.cabinets.ackCommand(e.commandId, this.d.clock.now(), `pop-failed:${e.reason}`);
    await this.d.repo.setDevice(p.id, { pickupState: 9, pickupMsg: e.reason });
  }

  /** POST chargenow/mifi/bind {sn, mifiOrderId}: a box read the QR the app shows (pickup by QR). */
  async bind(user: UserRow, sn: string, mifiOrderId: string) {
    const p = await this.s.reads.own(user, mifiOrderId);
    await this.bindAs(p, sn);
    return { orderId: p.id };
  }

  /**
   * The protocol's `box-code-read` (a box read the QR the app shows, relayed by the cabinet it reports through): binds
   * the package it names. A refusal (unknown box, a box another package holds, a package not waiting for a box) is
   * the package's pickup failure, which the app's poll shows; it is not retried. A code that names no package is
   * dropped (a box may read any QR code).
   */
  async onCodeRead(e: { sn: string; code: string }) {
    const p = await this.d.repo.pkg(e.code.trim());
    if (!p) {
      this.d.log.warn({ sn: e.sn }, 'box read a code that names no package');
      return;
    }
    try {
      await this.bindAs(p, e.sn);
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      if (!p.device_sn)
        await this.d.repo.setDevice(p.id, {
          pickupState: 9,
          pickupMsg: p.pickup_msg ?? 'Failed to retrieve the device',
        });
      this.d.log.warn({ sn: e.sn, pkg: p.id, key: err.key }, 'box code read refused');
    }
  }

  private async bindAs(p: PackageRow, sn: string) {
    if (!sn) throw badRequest('error.validation.field', { field: 'sn' });
    assertHandable(p);
    if (!(await this.d.boxesRepo.box(sn))) {
      await this.d.repo.setDevice(p.id, { pickupState: 9, pickupMsg: 'Failed to retrieve the device' });
      throw notFound('error.mifi.deviceNotFound');
    }
    // A box another package holds (typed from someone else's box) is not this user's to take.
    if (await this.d.repo.holderOf(sn)) {
      await this.d.repo.setDevice(p.id, { pickupState: 9, pickupMsg: 'Failed to retrieve the device' });
      throw conflict('error.mifi.boxInUse');
    }
    // A box sitting in a cabinet is handed over where its deposit's currency is taken, as at a pickup by scan.
    const at = (await this.d.cabinets.powerbanks([sn]))[0]?.cabinet_id;
    if (at) await this.currencyAt((await this.d.cabinets.find(at))!.venue_id, p.currency);
    await this.d.repo.setDevice(p.id, { pickupState: 1 });
    await this.d.cabinets.markRented(sn, p.id, this.d.clock.now(), 'mifi');
    await this.bindBox(p, sn);
  }

  private async bindBox(p: PackageRow, sn: string) {
    const now = this.d.clock.now();
    await this.d.db.tx(async () => {
      await this.d.repo.setDevice(p.id, {
        sn,
        deviceOrderStatus: DOS.withUser,
        pickupState: 2,
        pickupMsg: null,
        boundAt: now,
      });
      // Every paid package of the order (and its later renewals) runs on this box.
      for (const q of await this.d.repo.packagesOfOrder(p.order_id)) {
        if (q.id !== p.id && !q.device_sn) await this.d.repo.setDevice(q.id, { sn });
        if (q.status === PS.unused) {
          await this.d.repo.move(q.id, PS.unused, PS.toBeActivated);
          await this.s.orders.schedule(q.id, new Date(Math.max(now.getTime(), new Date(q.start_at).getTime())));
        }
      }
      await this.d.live.publish(p.user_id, { kind: 'order', orderId: p.id });
    });
  }

  /**
   * The cabinet of a QR code where a box of a package in `currency` may be picked up: its venue rents boxes, for a
   * deposit in that currency (a 409 naming both currencies otherwise).
   */
  async cabinetFor(qrcode: string, currency: string) {
    const code = cabinetCodeFrom(qrcode);
    const cabinet = code ? await this.d.cabinets.find(code) : undefined;
    if (!cabinet) throw notFound('error.cabinetNotFound');
    await this.currencyAt(cabinet.venue_id, currency);
    return cabinet;
  }

  private async currencyAt(venueId: string, currency: string) {
    // The venue's currency (any of its plans says it): a venue without a box plan simply has no box to hand out.
    const where = await this.d.venues.priced(venueId, 'mifi').catch(() => this.d.venues.priced(venueId));
    if (where.venue.currency !== currency)
      throw conflict('error.mifi.wrongCurrency', { currency, cabinetCurrency: where.venue.currency });
  }

  /** The Wi-Fi password a holder is shown: the one the box confirmed (empty while a new one is being set). */
  wifiPassword(box: { password: string; pending_password?: string | null }) {
    return box.pending_password ? '' : box.password;
  }

  /** GET chargenow/mifi/checkPickUp: 0 waiting, 1 loading, 2 success, 9 failure with pickUp_msg. */
  async checkPickUp(user: UserRow, id: string) {
    const p = await this.s.reads.own(user, id);
    if (p.device_sn) return { status: 2, productSendSn: p.device_sn };
    if (p.pickup_state === 9) return { status: 9, pickUp_msg: p.pickup_msg ?? 'Failed to retrieve the device' };
    return { status: p.pickup_state };
  }

  /**
   * A box came back into any cabinet: its deposit is released to the wallet; a running package ends (4 returned), one
   * waiting for its start ends (9), and a paid renewal that had not started is refunded (3, then 4 once refunded).
   */
  async onReturned(sn: string) {
    const p = await this.d.repo.holderOf(sn);
    if (!p) return false;
    const now = this.d.clock.now();
    for (const row of await this.d.repo.packagesOfSn(sn)) {
      // Locked: the deposit's hold expiry (holdExpiring) decides under the same lock.
      const q = (await this.d.repo.pkg(row.id, { lock: true }))!;
      // Only the packages of the box's current holding: earlier holders' packages were settled at their return.
      if (q.device_order_status !== DOS.withUser) continue;
      await this.d.repo.setDevice(q.id, { deviceOrderStatus: DOS.returned, returnedAt: now });
      if (q.status === PS.activated) await this.d.repo.move(q.id, PS.activated, PS.refunded, { ended_at: now });
      if (q.status === PS.toBeActivated && q.renewal_of) {
        // A paid renewal that never started: its money goes back where it came from (1 → 3 → 4, the refund path of cancel).
        await this.d.repo.move(q.id, PS.toBeActivated, PS.revoked, {
          ended_at: now,
          refunded_amount: q.price - q.discount,
        });
        await this.s.cancelling.refundRevoked(q, now);
        continue;
      }
      if (q.status === PS.toBeActivated) await this.d.repo.move(q.id, PS.toBeActivated, PS.ended, { ended_at: now });
      await this.s.deposits.releaseDeposit(q, now);
    }
    // The next holder gets a new Wi-Fi password (rotation.ts).
    await this.s.rotation.start(sn, now);
    // The holder's screens show the box returned and the deposit back at once.
    await this.d.live.publish(p.user_id, { kind: 'order', orderId: p.id });
    await this.d.live.publish(p.user_id, { kind: 'wallet' });
    return true;
  }
}
