// The support desk's ways of putting a rental right (docs/operations.md "Putting a rental right"), each a use case
// of the rentals service so that it moves the order and the money exactly as the cabinet-driven flows do: ending a
// stuck rental at the time the person chose (the fee by the rental's own plan, charged as at a return), reversing a
// buy-out (the difference back as at a late return, whatever the agent's window), releasing a deposit hold left open
// on a closed rental, and waiving what a failed deduction left owing. Each runs in the caller's unit of work with
// the order locked (modules/rentals/ops-actions.ts: scope, idempotency key, version, audit).
import { refundAfterBuyOut } from '#core/pricing.ts';
import { conflict, refused } from '../../lib/errors.ts';
import { RentalsDebts } from './debts.ts';
import { BUY_OUT_FROM, Zujie } from './order-state.ts';
import type { OrderRow } from './repository.ts';
import type { RefundSplit } from './returning.ts';
import { JOB_SETTLE_PAYMENT } from './shared.ts';

export abstract class RentalsDeskSettling extends RentalsDebts {
  /** The order under its row lock (the caller's unit of work holds it already: the desk's action). */
  private async locked(orderId: string): Promise<OrderRow> {
    const order = await this.d.repo.find(orderId, { lock: true });
    if (!order) throw new Error(`order ${orderId} vanished`);
    return order;
  }

  /** `at` within [the pop, now]: else 422 (a rental cannot end before it began, nor in the future). */
  private endTime(order: OrderRow, at: Date): Date {
    const now = this.d.clock.now();
    if (!order.borrowed_at || at.getTime() < new Date(order.borrowed_at).getTime() || at.getTime() > now.getTime()) {
      throw refused('ops.error.rental.endAt', {
        from: order.borrowed_at ? new Date(order.borrowed_at).toISOString() : '—',
        to: now.toISOString(),
      });
    }
    return at;
  }

  /** Ends an open rental (renting or faulty, not bought out) at `at`, as a return without a cabinet; the fee charged. */
  async endByDesk(orderId: string, at: Date): Promise<{ fee: number; state: number }> {
    const order = await this.locked(orderId);
    if (order.settled || !BUY_OUT_FROM.includes(order.zujie as never)) throw conflict('ops.error.rental.notOpen');
    const returnedAt = this.endTime(order, at);
    const { minutes, to, fee } = this.returnFee(order, returnedAt);
    await this.d.repo.transition(order.id, order.zujie, to, {
      returned_at: returnedAt,
      use_minutes: minutes,
      fee,
      settled: true,
      note: 'ended by the support desk',
    });
    await this.charge(order, fee, this.d.clock.now());
    await this.changed(order.user_id, order.id, to);
    return { fee, state: to };
  }

  /**
   * Reverses the buy-out of a bought-out rental whose power bank is back (the person checked it): the buy-out fee
   * less the rent for the time until `at` goes back (to the card it was taken from, else the wallet).
   */
  async reverseBuyOutByDesk(
    orderId: string,
    at: Date,
    key: string,
  ): Promise<{ refund: number; to: 'card' | 'wallet' | null; split: RefundSplit; state: number }> {
    const order = await this.locked(orderId);
    if (!order.bought_out_at || !BUY_OUT_FROM.includes(order.zujie as never))
      throw conflict('ops.error.rental.notBoughtOut');
    const returnedAt = this.endTime(order, at);
    const { elapsed, minutes, to } = this.returnFee(order, returnedAt);
    const refund = refundAfterBuyOut(order.plan, Number(order.fee ?? 0), elapsed);
    const split = await this.settleBoughtOutReturn(
      order,
      to,
      { returned_at: returnedAt, use_minutes: minutes, note: 'buy-out reversed by the support desk' },
      refund,
      key,
    );
    return { refund, to: split.card > 0 ? 'card' : split.wallet > 0 ? 'wallet' : null, split, state: to };
  }

  /**
   * Releases what still holds the deposit of a closed rental: the ledger's hold (voided: the rider's money is no
   * longer held) and a card authorisation not yet settled (captured for what the rental charged from it, the rest
   * released, by the same job a return enqueues). Nothing open: 409.
   */
  async releaseHoldByDesk(orderId: string): Promise<{ ledger: boolean; card: boolean }> {
    const order = await this.locked(orderId);
    const closed = order.settled || order.zujie === Zujie.cancelled;
    if (!closed) throw conflict('ops.error.rental.open');
    const now = this.d.clock.now();
    const ledger = order.hold_transfer_id ? await this.d.ledger.isPendingOpen(order.hold_transfer_id) : false;
    if (ledger) await this.d.ledger.voidPending(order.hold_transfer_id!, now);
    const p = order.payment_id ? await this.d.payments.find(order.payment_id) : undefined;
    const card = p?.status === 'authorized';
    if (card) {
      const amount = order.zujie === Zujie.cancelled ? 0 : Math.min(Number(order.fee ?? 0), Number(order.deposit));
      await this.d.jobs.enqueue(
        JOB_SETTLE_PAYMENT,
        { paymentId: p.id, amount, orderId: order.id, userId: order.user_id },
        now,
      );
    }
    if (!ledger && !card) throw conflict('ops.error.rental.noHold');
    await this.d.live.publish(order.user_id, { kind: 'wallet' });
    return { ledger, card };
  }

  /** Waives what the rental still owes (a failed deduction): the debt marked settled and the fee lowered by it. */
  async waiveDebtByDesk(orderId: string): Promise<number> {
    const order = await this.locked(orderId);
    const debt = Number(order.debt ?? 0);
    if (debt <= 0 || order.debt_paid_at) throw conflict('ops.error.rental.noDebt');
    await this.d.repo.waiveDebt(order.id, debt, this.d.clock.now());
    await this.changed(order.user_id, order.id, order.zujie);
    return debt;
  }
}
