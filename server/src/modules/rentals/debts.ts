// payType FK: paying what a failed deduction left on an order, with its guard (and a coupon, if any).
import { AppError, badRequest, conflict } from '../../lib/errors.ts';
import { commitIdempotencyKey } from '../../lib/idempotency.ts';
import type { UserRow } from '../auth/service.ts';
import { chargeNotOurs, isChargeNotOurs } from '../payments/service.ts';
import { ACTION_CHECK_MS, ACTION_TIMEOUT_MS, type AuthorizeResult, type PaymentProvider } from '../payments/provider.ts';
import { compensationsOf } from '../payments/compensation.ts';
import { providerOwner, PLATFORM } from '../ledger/service.ts';
import type { Reservation } from '../coupons/service.ts';
import { type DebtCharge, JOB_DEBT_GUARD, ORPHAN_AUTH_MS, type ActionRequired } from './shared.ts';
import { RentalsReturning } from './returning.ts';

export abstract class RentalsDebts extends RentalsReturning {
  /**
   * payType FK: pays what a failed deduction left on the order (never starts a rental). The money goes to the
   * operator's revenue; a payment that needs the customer (3-D Secure, a provider's page) returns ActionRequired
   * and is resumed with paymentIntent. A guard job follows every payment (debtGuard): the process dying between
   * the charge and the order's update, or a customer who paid but never came back, still settles the debt once.
   */
  async payDebt(user: UserRow, input: {
    outTradeNo: string; paymentId: string; token?: string; paymentIntent?: string; returnUrl?: string; agent?: string; key?: string; couponNo?: string;
  }): Promise<string | ActionRequired> {
    const order = await this.check(user, input.outTradeNo);
    const debt = Number(order.debt ?? 0);
    const provider = this.d.payments.requireProvider(input.paymentId, input.agent);
    // The app resumes a payment its guard already applied (the customer came back late): the same answer.
    if (input.paymentIntent && order.debt_paid_at && (await this.d.payments.repo.byRef(provider.id, input.paymentIntent))?.order_id === order.id) return order.id;
    if (debt <= 0 || order.debt_paid_at) throw conflict('error.order.nothingToPay');
    if (!input.paymentIntent && !input.token) throw badRequest('error.validation.field', { field: 'stripeToken' });
    await this.d.payments.checkReturnUrl(input.returnUrl, input.agent);
    // A coupon lowers what is charged: reserved with the guard (a resumed payment has the reservation of its start).
    const agentId = input.couponNo ? (await this.d.venues.priced(order.venue_id)).venue.agent_id ?? this.d.payments.platform : '';
    const coupon = () => input.paymentIntent ? this.d.coupons.reserved(order.id, 'debt')
      : input.couponNo ? this.d.coupons.reserve({
          code: input.couponNo, userId: user.id, agentId, venueId: order.venue_id, currency: order.currency, gross: debt, orderId: order.id, purpose: 'debt',
        })
      : this.d.coupons.release(order.id, 'debt').then(() => null);
    const key = `fk_${order.id}_${input.key ?? debt}${input.couponNo ? `_${input.couponNo}` : ''}`;
    const guard = {
      orderId: order.id, providerId: provider.id, userId: user.id, token: input.token ?? null, key, amount: debt, currency: order.currency, ref: null as string | null,
      methodType: input.paymentId.split(':')[1] ?? null, gross: debt, coupon: null as { id: string; discount: number } | null,
    };
    // Committed before the provider call, with the coupon's reservation; a resumed payment is followed by the guard its first call left.
    const use = await this.d.db.tx(async () => {
      const r = await coupon();
      if (r && r.discount === debt) return this.debtPaidByCoupon(order.id, debt, order.currency, r);
      if (!input.paymentIntent) {
        await this.d.jobs.enqueue(JOB_DEBT_GUARD, { ...guard, amount: debt - (r?.discount ?? 0), coupon: r && { id: r.id, discount: r.discount } },
          new Date(this.d.clock.now().getTime() + ORPHAN_AUTH_MS));
      }
      return r;
    });
    if (use === 'paid') return order.id;
    const due = debt - (use?.discount ?? 0);
    Object.assign(guard, { amount: due, coupon: use && { id: use.id, discount: use.discount } });
    const cancel = () => (input.paymentIntent ? this.d.jobs.cancel(JOB_DEBT_GUARD, 'ref', input.paymentIntent) : this.d.jobs.cancel(JOB_DEBT_GUARD, 'key', key));
    const result = await this.pay(user, provider, { qrcode: '', token: input.token ?? '', paymentId: input.paymentId, paymentIntent: input.paymentIntent, returnUrl: input.returnUrl },
      key, due, order.currency, 'automatic', 'debt', order.id);
    if (!result.ok) {
      await cancel();
      await this.d.coupons.release(order.id, 'debt');
      return this.declined(user, provider, result, due, order.currency, 'debt');
    }
    if (result.status === 'requires_action') {
      if (!input.paymentIntent) {
        await this.d.db.tx(async () => {
          await this.d.jobs.enqueue(JOB_DEBT_GUARD, { ...guard, key: `${key}:action`, ref: result.ref, deadline: this.d.clock.now().getTime() + ACTION_TIMEOUT_MS },
            new Date(this.d.clock.now().getTime() + ACTION_CHECK_MS));
          await this.d.jobs.cancel(JOB_DEBT_GUARD, 'key', key);
        });
      }
      return { action: { clientSecret: result.clientSecret, paymentIntent: result.ref } };
    }
    await this.settleDebt(provider, result, { orderId: order.id, userId: user.id, amount: due, currency: order.currency, gross: debt, coupon: guard.coupon });
    await cancel();
    return order.id;
  }

  /** A debt a coupon pays whole, in the caller's unit of work: nothing to charge; the debt paid and the coupon redeemed. */
  protected async debtPaidByCoupon(orderId: string, debt: number, currency: string, use: Reservation): Promise<'paid'> {
    await this.d.repo.find(orderId, { lock: true });
    if (!(await this.d.repo.payDebt(orderId, debt, this.d.clock.now()))) throw conflict('error.order.nothingToPay');
    await this.d.coupons.redeem(use.id, orderId, currency, use.discount);
    await commitIdempotencyKey(orderId);
    return 'paid';
  }

  /**
   * One unit of work: the debt paid with this charge, once (a retry, the customer's resume and the guard get the
   * same charge). A charge that can no longer pay it (paid meanwhile by another payment) is released (refunded); one
   * recorded by another flow or released by the guard is refused and left to its owner.
   */
  protected async settleDebt(provider: PaymentProvider, result: Extract<AuthorizeResult, { ok: true }>, t: DebtCharge) {
    try {
      await this.d.db.tx(async () => {
        // Under the charge's lock, which the guard's release takes too: a charge recorded already is this debt's
        // (a replay: done) or not this debt's to take (another flow's, or released by the guard: refused, not refunded here).
        await this.d.payments.lockCharge(provider.id, result.ref);
        const prior = await this.d.payments.takenOrReleased(provider.id, result.ref);
        if (prior && prior.order_id === t.orderId && prior.purpose === 'debt' && prior.status === 'captured') return;
        if (prior) throw chargeNotOurs(prior);
        await this.d.repo.find(t.orderId, { lock: true });
        if (!(await this.d.repo.payDebt(t.orderId, t.gross, this.d.clock.now()))) throw conflict('error.order.nothingToPay');
        // The coupon's use is redeemed with the charge (refused if it was released meanwhile: then the charge is not taken).
        if (t.coupon) await this.d.coupons.redeem(t.coupon.id, t.orderId, t.currency, t.coupon.discount);
        await this.d.payments.record({ providerId: provider.id, result, userId: t.userId, orderId: t.orderId, purpose: 'debt', amount: t.amount, currency: t.currency });
        const w = this.d.ledger;
        const clearing = await w.account(providerOwner(provider.id), 'clearing', t.currency);
        const revenue = await w.account(PLATFORM, 'revenue', t.currency);
        await w.transfer({ debit: clearing, credit: revenue, amount: t.amount, code: 'rent', orderId: t.orderId, at: this.d.clock.now() });
        await this.d.partners.rentLedgerChanged(t.orderId);
        await commitIdempotencyKey(t.orderId); // the request's key completes with the payment, in this transaction
      });
    } catch (err) {
      if (!isChargeNotOurs(err)) {
        await this.releaseDebtCharge(provider, result, t, 'not paid with it')
          .catch((e: unknown) => this.d.log.error({ err: e, orderId: t.orderId }, 'debt payment release not enqueued: its guard will release it'));
      }
      throw err;
    }
  }

  /**
   * A debt payment that did not pay the debt (paid meanwhile by another, or not finished by the guard's deadline):
   * under the charge's lock, unless it is recorded already (it paid the debt, or was released before), it is
   * recorded released (so no later resume takes it) with its compensation job (a charge refunded, a payment still
   * waiting for the customer voided), run after the commit.
   */
  protected async releaseDebtCharge(provider: PaymentProvider, result: Extract<AuthorizeResult, { ok: true }>, t: DebtCharge, why: string) {
    const comp = compensationsOf(this.d.jobs, this.d.payments.providers);
    const jobId = await this.d.db.tx(async () => {
      await this.d.payments.lockCharge(provider.id, result.ref);
      if (await this.d.payments.takenOrReleased(provider.id, result.ref)) return null;
      this.d.log.warn({ orderId: t.orderId, ref: result.ref, why }, 'releasing a debt payment');
      if (t.coupon) await this.d.coupons.release(t.orderId, 'debt');
      const c = await this.d.payments.recordReleased({ providerId: provider.id, userId: t.userId, orderId: null, purpose: 'debt', amount: t.amount, currency: t.currency }, result);
      return comp.enqueue({ providerId: provider.id, ref: result.ref, ...c, reason: `debt of ${t.orderId}: ${why}` }, this.d.clock.now());
    });
    if (jobId !== null) await comp.runNow(jobId);
  }

  /**
   * The debt payment's guard. Without a ref (the process died during the call): the call replayed (same key: the
   * same charge). With a ref (the customer had to act): its state now, looked at again while it waits, released
   * after its deadline. A charge the provider took settles the debt (or is refunded if it no longer can).
   */
  protected async debtGuard(p: Record<string, unknown>) {
    const providerId = String(p.providerId);
    if (!this.d.payments.providers.has(providerId)) return;
    const provider = this.d.payments.providers.get(providerId);
    const t: DebtCharge = {
      orderId: String(p.orderId), userId: Number(p.userId), amount: Number(p.amount), currency: String(p.currency), gross: Number(p.gross ?? p.amount),
      coupon: (p.coupon as DebtCharge['coupon']) ?? null,
    };
    let result: AuthorizeResult;
    if (p.ref) {
      if (await this.d.payments.repo.byRef(providerId, String(p.ref))) return;
      result = await provider.resume(String(p.ref), t.userId);
      if (result.ok && result.status === 'requires_action') {
        if (this.d.clock.now().getTime() < Number(p.deadline)) await this.d.jobs.enqueue(JOB_DEBT_GUARD, p, new Date(this.d.clock.now().getTime() + ACTION_CHECK_MS));
        else await this.releaseDebtCharge(provider, result, t, 'not finished by its deadline');
        return;
      }
    } else {
      result = await provider.authorize({
        token: String(p.token), amount: t.amount, currency: t.currency, capture: 'automatic', idempotencyKey: String(p.key), userId: t.userId, saveCard: true, purpose: 'debt',
        methodType: p.methodType ? String(p.methodType) : undefined,
      });
    }
    if (!result.ok || result.status !== 'captured') {
      if (t.coupon) await this.d.coupons.release(t.orderId, 'debt');
      return;
    }
    if (result.amount !== t.amount || result.currency?.toUpperCase() !== t.currency) {
      await this.releaseDebtCharge(provider, result, t, 'amount differs');
      return;
    }
    await this.settleDebt(provider, result, t).catch((err: unknown) => {
      if (!(err instanceof AppError)) throw err; // the debt was paid meanwhile: the charge is being refunded
    });
  }
}
