// The cabinet's answers: popped, pop failed, no answer within the TTL, returned, faults; each moves the order and tells the rider's screens.
import { isDeviceKind } from '#core/devices.ts';
import {
  billedMinutes,
  buyOutAt,
  buyOutFee,
  countedMs,
  pausesOf,
  refundAfterBuyOut,
  rentalFee,
} from '#core/pricing.ts';
import { allOf } from '../../db/db.ts';
import type { CommandRow } from '../cabinets/stock.ts';
import { providerOwner, PLATFORM, userOwner } from '../ledger/service.ts';
import { Zujie } from './order-state.ts';
import type { OrderRow } from './repository.ts';
import { JOB_SETTLE_PAYMENT, JOB_BUY_OUT, JOB_REFUND_CARD, cardRoom } from './shared.ts';
import { RentalsSettling } from './settling.ts';

/** Where a refund of rent went: owed debt lowered, back to cards, to the wallet (minor units). */
export interface RefundSplit {
  debt: number;
  card: number;
  wallet: number;
}

export abstract class RentalsReturning extends RentalsSettling {
  /** `cmd`: the command `e` answers, as the inbox read it (undefined: no such command). */
  async onPopped(
    cabinetId: string,
    e: { commandId: string; slot: number; powerbankId: string; ts: string },
    cmd: CommandRow | undefined,
  ) {
    if (!cmd || cmd.cabinet_id !== cabinetId) return this.d.log.warn({ cabinetId, e }, 'popped for an unknown command');
    // The order's lock first, then the command's row: the order the eject timeout takes them in (the other order
    // deadlocked a 'popped' arriving as the timeout fired, and PostgreSQL aborted one of them).
    // Sent together, in that order (one round trip).
    const [order] = await allOf([
      this.d.repo.find(cmd.order_id, { lock: true }),
      this.d.cabinets.ackCommand(cmd.id, this.d.clock.now(), 'popped'),
    ]);
    if (!order) return;
    if (order.zujie !== Zujie.pending) {
      // Too late (the TTL ran out and the order was cancelled) or a repeat: the bank is out without a rental.
      // The user was not charged (the hold is void); the inventory still records the bank as out, against this
      // cancelled order, so a later return puts it back and operations can see where it went.
      if (order.powerbank_id !== e.powerbankId) {
        this.d.log.warn(
          { orderId: order.id, zujie: order.zujie, powerbankId: e.powerbankId },
          'popped after the order closed',
        );
        // Not over a later report (a late 'popped' never re-marks a returned power bank as out).
        const ts = Date.parse(e.ts);
        await this.d.cabinets.markRented(
          e.powerbankId,
          order.id,
          new Date(Math.min(Number.isFinite(ts) ? ts : Infinity, this.d.clock.now().getTime())),
        );
      }
      return;
    }
    // The cabinet's clock, clamped like a return's: not before the command was issued, not after now.
    const reported = Date.parse(e.ts);
    const now = this.d.clock.now().getTime();
    const borrowedAt = new Date(
      Math.max(new Date(order.created_at).getTime(), Math.min(Number.isFinite(reported) ? reported : now, now)),
    );
    const moved = { powerbank_id: e.powerbankId, slot: e.slot, borrowed_at: borrowedAt };
    // The order as it now is (its reminders are scheduled from it, not read again), and the rest of the step: its
    // statements sent together, run in the order written (the transition first).
    const renting: OrderRow = { ...order, ...moved, zujie: Zujie.renting };
    // Events may overtake each other (a cabinet reconnecting flushes its queue): a 'returned' of this power bank
    // stamped after this 'popped' that was handled first found no open order. Settle with it now. Only a return
    // received while this order was already waiting for its eject, and stamped after the pop, can be that one.
    const [, out, , , early] = await allOf([
      this.d.repo.transition(order.id, Zujie.pending, Zujie.renting, moved),
      this.d.cabinets.markRented(e.powerbankId, order.id, borrowedAt, order.device_kind),
      this.changed(order.user_id, order.id, Zujie.renting, renting),
      this.d.jobs.enqueue(JOB_BUY_OUT, { orderId: order.id }, buyOutAt(order.plan, borrowedAt)),
      this.d.cabinets.returnAfter(e.powerbankId, borrowedAt, order.created_at),
    ]);
    if (early) {
      const r = (typeof early.payload === 'string' ? JSON.parse(early.payload) : early.payload) as {
        slot: number;
        ts: string;
      };
      await this.onReturned(early.cabinet_id, { slot: r.slot, powerbankId: e.powerbankId, ts: r.ts });
      return;
    }
    // Or a cabinet's heartbeat already listed it in a slot after the pop (markRented did not apply).
    if (!out) {
      const [b] = await this.d.cabinets.powerbanks([e.powerbankId]);
      if (b?.cabinet_id && b.slot && b.seen_at)
        await this.onReturned(b.cabinet_id, { slot: b.slot, powerbankId: b.id, ts: new Date(b.seen_at).toISOString() });
    }
  }

  async onPopFailed(cabinetId: string, e: { commandId: string; reason: string }, cmd: CommandRow | undefined) {
    if (!cmd || cmd.cabinet_id !== cabinetId) return;
    const order = await this.d.repo.find(cmd.order_id, { lock: true }); // before the command's row, as in onPopped
    await this.d.cabinets.ackCommand(cmd.id, this.d.clock.now(), `pop-failed:${e.reason}`);
    if (order?.zujie === Zujie.pending) await this.cancel(order, `eject failed: ${e.reason}`);
  }

  protected async ejectTimedOut(orderId: string) {
    await this.d.db.tx(async () => {
      const order = await this.d.repo.find(orderId, { lock: true });
      if (order?.zujie !== Zujie.pending) return;
      if (order.eject_command_id)
        await this.d.cabinets.ackCommand(order.eject_command_id, this.d.clock.now(), 'expired');
      await this.cancel(order, 'eject timed out');
    });
  }

  /** Pending → cancelled; the deposit hold is voided, and a card pre-authorisation voided at the provider. */
  protected async cancel(order: OrderRow, note: string) {
    const now = this.d.clock.now();
    await this.d.repo.transition(order.id, Zujie.pending, Zujie.cancelled, { note, settled: true });
    await this.changed(order.user_id, order.id, Zujie.cancelled);
    if (order.hold_transfer_id) await this.d.ledger.voidPending(order.hold_transfer_id, now);
    if (order.payment_id)
      await this.d.jobs.enqueue(
        JOB_SETTLE_PAYMENT,
        { paymentId: order.payment_id, amount: 0, orderId: order.id, userId: order.user_id },
        now,
      );
    await this.d.depositReturns?.cancelled(order);
  }

  /**
   * A power bank went into a slot of `cabinetId` (any cabinet of the network): settle its rental with the
   * cabinet's own timestamp (a cabinet that was offline reports late; a timestamp in the future counts as now).
   * Past the overtime period the user pays at most the buy-out fee; a bought-out order that comes back gets the
   * difference to the rent for the real time back in the wallet (docs/pricing.md).
   */
  async onReturned(
    cabinetId: string,
    e: { slot: number; powerbankId: string; ts: string; fault?: string; kind?: unknown },
  ) {
    let order = await this.d.repo.openForPowerbank(e.powerbankId);
    const reportedAt = Date.parse(e.ts);
    const nowMs = this.d.clock.now().getTime();
    const seenAt = new Date(Math.min(Number.isFinite(reportedAt) ? reportedAt : nowMs, nowMs));
    await this.d.cabinets.placeInSlot(
      e.powerbankId,
      cabinetId,
      e.slot,
      seenAt,
      isDeviceKind(e.kind) ? e.kind : undefined,
    );
    // No open rental, or a return stamped before this rental's pop: it belongs to an earlier rental of the power
    // bank, delivered late; that rental may have been settled later than this return (by a heartbeat).
    if (!order || !order.borrowed_at || seenAt.getTime() < new Date(order.borrowed_at).getTime())
      return this.settledEarlier(e.powerbankId, seenAt);
    // A return that reports a fault: the order enters state 4 at the return's time, then settles like any return.
    if (e.fault && order.zujie === Zujie.renting && !order.settled) {
      await this.enterFault(order, e.ts, `fault on return: ${e.fault}`);
      order = (await this.d.repo.find(order.id))!;
    }
    const now = this.d.clock.now();
    const borrowedAt = new Date(order.borrowed_at!).getTime();
    const reported = Date.parse(e.ts);
    const returnedAt = new Date(
      Math.max(borrowedAt, Math.min(Number.isFinite(reported) ? reported : now.getTime(), now.getTime())),
    );
    const { elapsed, minutes, to, fee } = this.returnFee(order, returnedAt);
    const returnCabinet = await this.d.cabinets.find(cabinetId);
    const returnVenue = returnCabinet ? await this.d.venues.priced(returnCabinet.venue_id) : undefined;
    const where = {
      returned_at: returnedAt,
      return_cabinet_id: cabinetId,
      return_venue_name: returnVenue?.venue.name ?? cabinetId,
      use_minutes: minutes,
    };
    if (order.bought_out_at) {
      // Within the agent's window after the buy-out (default 30 days) the buy-out comes back, less the rent due.
      const window = (await this.d.buyOutReversalDays?.(order.venue_id)) ?? Infinity;
      const refund =
        returnedAt.getTime() - new Date(order.bought_out_at).getTime() <= window * 86_400_000
          ? refundAfterBuyOut(order.plan, Number(order.fee ?? 0), elapsed)
          : 0;
      await this.settleBoughtOutReturn(order, to, where, refund, `state5_${order.id}`);
      return;
    }
    await this.d.repo.transition(order.id, order.zujie, to, { ...where, fee, settled: true });
    await this.charge(order, fee, now);
    await this.changed(order.user_id, order.id, to);
  }

  /**
   * A return is settled at the earliest time a cabinet reported the power bank back: a heartbeat that listed it
   * overtook the cabinet's 'returned' (a cabinet flushing its queue after an outage), so the rental was settled at
   * the heartbeat's later time. The return's time and fee become the earlier report's, and the difference goes
   * back through the ledger (to the card if it was captured, else to the wallet), once: the order's return time
   * moves back, so a repeat finds nothing later to correct. A bought-out rental keeps its own settlement.
   */
  private async settledEarlier(powerbankId: string, seenAt: Date) {
    const found = await this.d.repo.settledAfter(powerbankId, seenAt);
    if (!found) return;
    const order = (await this.d.repo.find(found, { lock: true }))!;
    const { minutes, fee } = this.returnFee(order, seenAt);
    const refund = Math.max(0, Number(order.fee ?? 0) - fee);
    if (
      !(await this.d.repo.moveReturn(
        order.id,
        new Date(order.returned_at!),
        seenAt,
        Number(order.fee ?? 0) - refund,
        minutes,
      ))
    )
      return;
    await this.changed(order.user_id, order.id, order.zujie);
    if (refund > 0) await this.refundRent(order, refund, `return_${order.id}_${seenAt.getTime()}`, 'rent_refund');
  }

  /**
   * What a return at `returnedAt` costs by the rental's own plan: the time used (state 4: only until the fault was
   * reported, docs/pricing.md; never the time of a grace period), the state it ends in, and the fee (past the overtime
   * period, at most the buy-out fee).
   */
  protected returnFee(order: OrderRow, returnedAt: Date) {
    const borrowedAt = new Date(order.borrowed_at!).getTime();
    const faultAt = order.fault_at ? Math.max(borrowedAt, new Date(order.fault_at).getTime()) : Infinity;
    const endAt = Math.min(returnedAt.getTime(), faultAt);
    const pauses = pausesOf(order.grace);
    const elapsed = countedMs(borrowedAt, endAt, pauses);
    const overtime = endAt > buyOutAt(order.plan, new Date(borrowedAt), pauses).getTime();
    const fee = overtime
      ? Math.min(rentalFee(order.plan, elapsed), buyOutFee(order.plan))
      : rentalFee(order.plan, elapsed);
    return { elapsed, minutes: billedMinutes(elapsed), to: overtime ? Zujie.overtimeReturn : Zujie.returned, fee };
  }

  /**
   * A bought-out order whose power bank came back (or that the desk reverses, or a matched claim settles): its state,
   * the lower fee, and `refund` back (refundRent). In the caller's unit of work. Returns where the refund went.
   */
  protected async settleBoughtOutReturn(
    order: OrderRow,
    to: number,
    where: Record<string, unknown>,
    refund: number,
    key: string,
  ): Promise<RefundSplit> {
    await this.d.repo.transition(order.id, order.zujie, to, { ...where, fee: Number(order.fee ?? 0) - refund });
    await this.changed(order.user_id, order.id, to);
    if (refund <= 0) return { debt: 0, card: 0, wallet: 0 };
    return this.refundRent(order, refund, key);
  }

  /**
   * `refund` of a settled rental's fee, never more than was taken: first what is still owed of it (an unpaid debt is
   * lowered: it was never taken), then back to each card that paid it (rent above the hold, a paid debt, the deposit
   * capture: a refund job per payment and `key`, each at most what that payment captured less its refunds), and only
   * what no card can take back (a wallet deposit, a provider without refunds, a capture still to come) to the wallet.
   */
  protected async refundRent(
    order: OrderRow,
    refund: number,
    key: string,
    code = 'buy_out_refund',
  ): Promise<RefundSplit> {
    const now = this.d.clock.now();
    await this.d.live.publish(order.user_id, { kind: 'wallet' });
    const w = this.d.ledger;
    const revenue = await w.account(PLATFORM, 'revenue', order.currency);
    const split: RefundSplit = { debt: 0, card: 0, wallet: 0 };
    let left = refund;
    const owed = order.debt_paid_at ? 0 : Number(order.debt ?? 0);
    if (owed > 0) {
      split.debt = Math.min(left, owed);
      await this.d.repo.lowerDebt(order.id, split.debt, now);
      left -= split.debt;
    }
    const order1 = (p: { purpose: string; id: string }) =>
      p.purpose === 'deposit_preauth' ? (p.id === order.payment_id ? 2 : 3) : 1;
    const paid = (await this.d.payments.ofOrder(order.id))
      .filter(
        (p) =>
          ['rent_extra', 'debt', 'deposit_preauth'].includes(p.purpose) &&
          ['captured', 'partially_captured'].includes(p.status) &&
          this.d.payments.canRefund(p.provider),
      )
      .sort((a, b) => order1(a) - order1(b));
    for (const p of paid) {
      const amount = Math.min(left, await cardRoom(this.d, p.id));
      if (amount <= 0) continue;
      // The fee was taken from this card: that part goes back to it (a provider refund).
      const clearing = await w.account(providerOwner(p.provider), 'clearing', order.currency);
      await w.transfer({ debit: revenue, credit: clearing, amount, code, orderId: order.id, at: now });
      await this.d.jobs.enqueue(
        JOB_REFUND_CARD,
        { paymentId: p.id, amount, key: p.id === order.payment_id ? key : `${key}_${p.id}` },
        now,
      );
      split.card += amount;
      left -= amount;
    }
    if (left > 0) {
      const wallet = await w.account(userOwner(order.user_id), 'wallet', order.currency);
      await w.transfer({ debit: revenue, credit: wallet, amount: left, code, orderId: order.id, at: now });
      split.wallet = left;
    }
    await this.d.partners.rentLedgerChanged(order.id);
    return split;
  }

  /**
   * A cabinet reported the rented power bank faulty ('powerbank-fault'): its open order goes 1 → 4 (still
   * ongoing) and stops accruing at the report's time; it settles when the power bank is returned.
   * A report for a power bank with no renting order (or one already in 4) changes nothing.
   */
  async onFault(e: { powerbankId: string; ts: string; reason: string }) {
    const open = await this.d.repo.openForPowerbank(e.powerbankId);
    if (!open || open.zujie !== Zujie.renting || open.settled || !open.borrowed_at) return;
    const order = await this.d.repo.find(open.id, { lock: true });
    if (order?.zujie !== Zujie.renting || order.settled) return;
    await this.enterFault(order, e.ts, `fault: ${e.reason}`);
  }

  /** 1 → 4 with the fault time: the cabinet's own timestamp, within [borrowed, now]. */
  protected async enterFault(order: OrderRow, ts: string, note: string) {
    const now = this.d.clock.now().getTime();
    const borrowedAt = new Date(order.borrowed_at!).getTime();
    const reported = Date.parse(ts);
    const at = new Date(Math.max(borrowedAt, Math.min(Number.isFinite(reported) ? reported : now, now)));
    await this.d.repo.transition(order.id, Zujie.renting, Zujie.fault, { fault_at: at, note });
    await this.changed(order.user_id, order.id, Zujie.fault);
  }

  /**
   * The order changed: its owner's open screens refetch it (and the wallet, whose hold it moved). `order`: the row as
   * it now is, when the caller has it (its notices are scheduled from it instead of reading it again).
   */
  protected async changed(userId: number, orderId: string, state: number, order?: OrderRow) {
    await allOf([
      this.d.live.publish(userId, { kind: 'order', orderId, state }),
      this.d.notices?.changed(orderId, state, order),
    ]);
  }
}
