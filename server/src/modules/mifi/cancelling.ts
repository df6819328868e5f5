// Cancelling a package: an unpaid order cancelled, a paid unused package revoked and refunded where it was paid from
// (revenue back to the wallet, the box deposit released, a card's share back to the card by the refund job).
import { ORDER_TYPE, PACKAGE_STATUS as PS } from '#core/mifi.ts';
import { conflict } from '../../lib/errors.ts';
import type { UserRow } from '../auth/service.ts';
import { PLATFORM, providerOwner, userOwner } from '../ledger/service.ts';
import type { PackageRow } from './repository.ts';
import { JOB_MIFI_REFUND, MifiPart } from './shared.ts';

export class MifiCancelling extends MifiPart {
  /** Cancels a package: unpaid → 88 (the whole order); unused and paid → 3 revoked, refunded → 4. */
  async cancel(user: UserRow, id: string) {
    const p = await this.s.reads.own(user, id);
    const now = this.d.clock.now();
    await this.d.db.tx(async () => {
      const cur = (await this.d.repo.pkg(p.id, { lock: true }))!;
      if (cur.status === PS.unpaid) {
        await this.d.repo.setStatusOfOrder(cur.order_id, PS.unpaid, PS.cancelled);
        await this.d.repo.setOrderStatus(cur.order_id, PS.cancelled);
        return;
      }
      if (cur.status !== PS.unused || cur.device_sn) throw conflict('error.mifi.notCancellable');
      await this.d.repo.move(cur.id, PS.unused, PS.revoked, {
        refunded_amount: cur.price - cur.discount + cur.deposit,
      });
      await this.refundRevoked(cur, now);
    });
    return this.s.reads.toWire((await this.d.repo.pkg(p.id))!);
  }

  /**
   * In the caller's unit of work, a package just revoked (3): what it was paid goes back where it came from: the
   * package price from revenue to the wallet, its box deposit released, and, when a card paid the order, on to the
   * card (the refund job, through the payments service's refund with one key per package: idempotent); then 4.
   * Used by cancel (an unused package) and by a box's return (a paid renewal that had not started).
   */
  async refundRevoked(cur: PackageRow, now: Date) {
    const w = this.d.ledger;
    const wal = await w.account(userOwner(cur.user_id), 'wallet', cur.currency);
    const revenue = await w.account(PLATFORM, 'revenue', cur.currency);
    // What was paid for it (its price less its share of the coupon), and the coupon's discount back where it came from.
    const paid = cur.price - cur.discount;
    if (paid > 0)
      await w.transfer({
        debit: revenue,
        credit: wal,
        amount: paid,
        code: 'mifi_refund',
        orderId: cur.order_id,
        at: now,
      });
    if (cur.discount > 0) {
      await w.transfer({
        debit: revenue,
        credit: await w.account(PLATFORM, 'discount', cur.currency),
        amount: cur.discount,
        code: 'coupon_reversal',
        orderId: cur.order_id,
        at: now,
      });
    }
    // The box deposit: back to the wallet, or released at the method that holds it.
    await this.s.deposits.releaseDeposit(cur, now);
    if (cur.paid_from === 'card' && cur.payment_id) {
      // Back to the method the order was paid with (the package, and the box deposit when it came with the order; a
      // deposit paid later, cabinetDisposit, was released above), at most what the method paid of the order less what
      // its other packages took back already (the wallet paid the rest: it stays there); under the order's lock. Out of
      // the wallet to the provider's clearing, then the refund job.
      await this.d.repo.order(cur.order_id, { lock: true });
      const pay = await this.d.payments.find(cur.payment_id);
      const given = (await this.d.repo.packagesOfOrder(cur.order_id)).reduce((sum, p) => sum + p.card_refund, 0);
      const amount = Math.min(
        paid + (cur.order_type === ORDER_TYPE.devicePackage ? cur.deposit : 0),
        pay ? Number(pay.amount) - given : 0,
      );
      if (pay && amount > 0) {
        await this.d.repo.setCardRefund(cur.id, amount);
        const clearing = await w.account(providerOwner(pay.provider), 'clearing', cur.currency);
        await w.transfer({
          debit: wal,
          credit: clearing,
          amount,
          code: 'mifi_refund_card',
          orderId: cur.order_id,
          at: now,
          mustNotOverdraw: true,
        });
        await this.d.jobs.enqueue(JOB_MIFI_REFUND, { packageId: cur.id, paymentId: pay.id, amount }, now);
        return;
      }
    }
    await this.d.repo.move(cur.id, PS.revoked, PS.refunded);
  }

  async refundJob(packageId: string, paymentId: string, amount: number) {
    const p = await this.d.repo.pkg(packageId);
    if (p?.status !== PS.revoked) return;
    await this.d.payments.refund(paymentId, amount, `mifi_refund_${packageId}`);
    await this.d.repo.move(packageId, PS.revoked, PS.refunded);
  }
}
