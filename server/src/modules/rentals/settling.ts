// Settling the money of a rental: the fee charged, the hold guarded, renewed or captured before it lapses, rent above the hold charged off-session, refunds to the card, buy-outs.
import { billedMinutes, buyOutAt, buyOutFee, countedMs, pausesOf } from '#core/pricing.ts';
import { conflict } from '../../lib/errors.ts';
import { commitIdempotencyKey } from '../../lib/idempotency.ts';
import type { UserRow } from '../auth/service.ts';
import { type AuthorizeResult } from '../payments/provider.ts';
import { providerOwner, PLATFORM, userOwner } from '../ledger/service.ts';
import { BUY_OUT_FROM } from './order-state.ts';
import type { OrderRow } from './repository.ts';
import { JOB_SETTLE_PAYMENT, JOB_HOLD_EXPIRY, JOB_CHARGE_EXTRA, HOLD_RENEW_MARGIN_MS } from './shared.ts';
import { RentalsRenting } from './renting.ts';

export abstract class RentalsSettling extends RentalsRenting {
  /** Takes `fee` from the order's deposit hold (the rest released) and settles the card authorisation. */
  protected async charge(order: OrderRow, fee: number, now: Date) {
    const w = this.d.ledger;
    // A card hold covers up to the deposit; a rent above it is charged off-session on the saved card.
    const fromHold = order.payment_id ? Math.min(fee, order.deposit) : fee;
    if (order.hold_transfer_id) {
      if (fromHold > 0) {
        await w.postPending(order.hold_transfer_id, fromHold, now);
        const hold = await w.account(userOwner(order.user_id), 'deposit_hold', order.currency);
        const revenue = await w.account(PLATFORM, 'revenue', order.currency);
        await w.transfer({ debit: hold, credit: revenue, amount: fromHold, code: 'rent', orderId: order.id, at: now });
      } else {
        await w.voidPending(order.hold_transfer_id, now);
      }
    }
    if (order.payment_id) {
      // Not a guard that already ran: it may have renewed the hold at the card without recording it (its process
      // died, its unit of work failed); its retry finds the rental closed and releases that renewal.
      await this.d.jobs.cancel(JOB_HOLD_EXPIRY, 'orderId', order.id, { untried: true });
      await this.d.jobs.enqueue(
        JOB_SETTLE_PAYMENT,
        { paymentId: order.payment_id, amount: fromHold, orderId: order.id, userId: order.user_id },
        now,
      );
      if (fee > fromHold)
        await this.d.jobs.enqueue(JOB_CHARGE_EXTRA, { orderId: order.id, amount: fee - fromHold }, now);
    }
    await this.d.partners.rentLedgerChanged(order.id);
  }

  // ---- card holds: expiry and off-session charges (docs/payments.md) ------------------------------------------

  /** Schedules the hold's expiry guard a margin before the card network would release it. */
  protected async guardHold(orderId: string, paymentId: string, captureBefore: Date | null) {
    const job = this.holdGuard(orderId, paymentId, captureBefore);
    if (job) await this.d.jobs.enqueue(job.kind, job.payload, job.runAt);
  }

  /** The hold's expiry guard job (none when the provider gave no capture deadline). */
  protected holdGuard(orderId: string, paymentId: string, captureBefore: Date | null) {
    if (!captureBefore) return null;
    return {
      kind: JOB_HOLD_EXPIRY,
      payload: { orderId, paymentId },
      runAt: new Date(Math.max(this.d.clock.now().getTime(), captureBefore.getTime() - HOLD_RENEW_MARGIN_MS)),
    };
  }

  /**
   * A hold is about to lapse on a still-open rental. First choice: a new hold for the same amount, off-session on
   * the card saved with the deposit, then the old one is released. If the bank refuses (or wants the customer to
   * authenticate), the whole hold is captured now, so the rental never loses its guarantee; at return the
   * difference to the rent is refunded to the card.
   */
  protected async holdExpiring(orderId: string, paymentId: string, attempt = 1) {
    const order = await this.d.repo.find(orderId);
    if (!order) return;
    const p = await this.d.payments.find(paymentId);
    const provider =
      p && this.d.payments.hasProvider(p.provider) ? this.d.payments.providerById(p.provider) : undefined;
    // Only where payments says the saved card can be charged with the rider absent (its provider's offSession).
    const canRenew = p != null && provider != null && this.d.payments.canChargeOffSession(p);
    const renew = () =>
      this.d.payments.chargeOffSession(p!, {
        amount: Number(p!.amount),
        currency: p!.currency,
        capture: 'manual',
        idempotencyKey: `renew_${p!.id}`,
        userId: order.user_id,
        purpose: 'deposit_preauth',
      });
    if (order.settled || order.payment_id !== paymentId) {
      // A retry after the rental closed: an earlier attempt may have renewed the hold at the card and failed before
      // recording it. The replay (same idempotency key) answers that renewal; unless it is recorded, it is released.
      if (attempt > 1 && canRenew) {
        const r = await renew();
        if (r.ok && r.status !== 'captured') {
          const recorded = await this.d.db.tx(async () => {
            await this.d.repo.find(orderId, { lock: true });
            return Boolean(await this.d.payments.byRef(provider!.id, r.ref));
          });
          if (!recorded) await provider!.void(r.ref);
        }
      }
      return;
    }
    if (p?.status !== 'authorized' || !provider) return;
    if (canRenew) {
      const r = await renew();
      if (r.ok && r.status === 'authorized') {
        const renewed = await this.d.db.tx(async () => {
          const o = await this.d.repo.find(orderId, { lock: true });
          if (!o || o.settled || o.payment_id !== paymentId) return false;
          if (await this.d.payments.byRef(provider.id, r.ref)) return true; // a retried job: done before
          const newId = await this.d.payments.record({
            providerId: provider.id,
            result: {
              ...r,
              saved: r.saved ?? { paymentMethod: p.payment_method_ref!, customer: p.customer_ref ?? '' },
            },
            userId: o.user_id,
            orderId,
            purpose: 'deposit_preauth',
            amount: Number(p.amount),
            currency: p.currency,
          });
          await this.d.repo.setPayment(orderId, newId);
          await this.d.jobs.enqueue(JOB_SETTLE_PAYMENT, { paymentId, amount: 0 }, this.d.clock.now());
          await this.guardHold(orderId, newId, r.captureBefore ?? null);
          return true;
        });
        if (!renewed) await provider.void(r.ref); // the rental closed meanwhile
        return;
      }
      if (r.ok && r.status === 'requires_action') await provider.void(r.ref).catch(() => undefined);
      this.d.log.warn(
        { orderId, declineCode: r.ok ? 'requires_action' : r.declineCode },
        'hold renewal refused: capturing the hold',
      );
    }
    await this.d.payments.settleAuthorization(paymentId, Number(p.amount));
  }

  /**
   * The part of a rent above the hold, charged off-session on the card saved with the deposit. A refusal (the
   * bank wants the customer to authenticate: authentication_required, or a decline) leaves a debt on the order:
   * it shows the pay button (payType FK) and the user pays it in the app.
   */
  protected async chargeExtra(orderId: string, amount: number) {
    const order = await this.d.repo.find(orderId);
    if (!order?.payment_id) return;
    const done = (await this.d.payments.ofOrder(orderId)).some((x) => x.purpose === 'rent_extra');
    if (done || Number(order.debt ?? 0) > 0) return; // a retried job
    const p = await this.d.payments.find(order.payment_id);
    const provider = p && this.d.payments.hasProvider(p.provider) ? this.d.payments.providerById(p.provider) : null;
    // A card payments cannot charge with the rider absent (none saved, a provider without offSession) answers
    // authentication_required without a provider call: the rent above the hold becomes a debt paid in the app.
    const result: AuthorizeResult = p
      ? await this.d.payments.chargeOffSession(p, {
          amount,
          currency: order.currency,
          capture: 'automatic',
          idempotencyKey: `extra_${orderId}`,
          userId: order.user_id,
          purpose: 'rent_extra',
        })
      : { ok: false, ref: null, declineCode: 'authentication_required', card: null };
    await this.d.db.tx(async () => {
      // Checked again under the order's lock: a process whose lease was taken over while its provider call was in
      // flight gets the same answer (same idempotency key) as the one that took over, and must not record it twice
      // (two payments and two rent entries, or the debt added twice).
      const o = await this.d.repo.find(orderId, { lock: true });
      if (
        !o ||
        Number(o.debt ?? 0) > 0 ||
        (await this.d.payments.ofOrder(orderId)).some((x) => x.purpose === 'rent_extra')
      )
        return;
      if (result.ok && result.status === 'captured') {
        await this.d.payments.record({
          providerId: provider!.id,
          result,
          userId: order.user_id,
          orderId,
          purpose: 'rent_extra',
          amount,
          currency: order.currency,
        });
        const w = this.d.ledger;
        const clearing = await w.account(providerOwner(provider!.id), 'clearing', order.currency);
        const revenue = await w.account(PLATFORM, 'revenue', order.currency);
        await w.transfer({ debit: clearing, credit: revenue, amount, code: 'rent', orderId, at: this.d.clock.now() });
        await this.d.partners.rentLedgerChanged(orderId);
        return;
      }
      if (result.ok && result.status === 'requires_action' && provider)
        await provider.void(result.ref).catch(() => undefined);
      const declined: AuthorizeResult = result.ok
        ? { ok: false, ref: result.ref, declineCode: 'authentication_required', card: null }
        : result;
      await this.d.payments.record({
        providerId: provider?.id ?? 'none',
        result: declined,
        userId: order.user_id,
        orderId,
        purpose: 'rent_extra',
        amount,
        currency: order.currency,
      });
      await this.d.repo.addDebt(orderId, amount);
    });
  }

  /** The refund job: once per key at the provider (its idempotency key), recorded once on the payment. */
  protected async refundCard(paymentId: string, amount: number, key: string) {
    const p = await this.d.payments.find(paymentId);
    if (!p) return;
    const done = (await this.d.payments.timeline(p.order_id ?? '')).some(
      (t) => t.payment_id === paymentId && t.to_status.startsWith('refund:') && Number(t.amount) === amount,
    );
    if (done) return;
    await this.d.payments.refund(paymentId, amount, key);
  }

  /**
   * Closes an open order as bought out and charges the buy-out fee: by the overtime job once the overtime period
   * is over, or at once when the user chooses to buy the power bank (cdb/order/buyOrder).
   * Returns false when the order is no longer open (returned meanwhile, already bought out).
   */
  async buyOut(orderId: string, why: 'overtime' | 'user'): Promise<boolean> {
    return this.d.db.tx(async () => {
      const order = await this.d.repo.find(orderId, { lock: true });
      if (!order || order.settled || !BUY_OUT_FROM.includes(order.zujie as never) || !order.borrowed_at) return false;
      const now = this.d.clock.now();
      // A grace period moved the buy-out later (grace.ts enqueued a job for the new time): not yet.
      const pauses = pausesOf(order.grace);
      if (why === 'overtime' && now < buyOutAt(order.plan, new Date(order.borrowed_at), pauses)) return false;
      const fee = buyOutFee(order.plan);
      const minutes = billedMinutes(countedMs(new Date(order.borrowed_at).getTime(), now.getTime(), pauses));
      await this.d.repo.buyOut(order.id, order.zujie, {
        fee,
        use_minutes: minutes,
        at: now,
        note: why === 'overtime' ? 'bought out: overtime' : 'bought out by the user',
      });
      await this.charge(order, fee, now);
      await this.changed(order.user_id, order.id, order.zujie);
      // The user's request key completes with the buy-out (never the overtime job's: it runs without one).
      if (why === 'user') await commitIdempotencyKey(await this.d.repo.find(order.id));
      return true;
    });
  }

  /** POST cdb/order/buyOrder: the user keeps the power bank of an open order for the buy-out fee. */
  async buyByUser(user: UserRow, orderId: string) {
    const order = await this.check(user, orderId);
    if (order.settled || !BUY_OUT_FROM.includes(order.zujie as never)) throw conflict('error.orderNotOpen');
    if (!(await this.buyOut(orderId, 'user'))) throw conflict('error.orderNotOpen');
    return this.check(user, orderId);
  }

  // ---- reads ------------------------------------------------------------------------------------------------
}
