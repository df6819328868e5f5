// payType FK: paying what a failed deduction left on an order, with its guard (and a coupon, if any).
import { badRequest, conflict } from '../../lib/errors.ts';
import { commitIdempotencyKey } from '../../lib/idempotency.ts';
import type { UserRow } from '../auth/service.ts';
import { chargeNotOurs, isChargeNotOurs } from '../payments/service.ts';
import { type AuthorizeResult, type PaymentProvider } from '../payments/provider.ts';
import type { ChargeGuard, PurposeHandler } from '../payments/guards.ts';
import { providerOwner, PLATFORM } from '../ledger/service.ts';
import type { Reservation } from '../coupons/service.ts';
import { type DebtCharge, JOB_DEBT_GUARD, RENTAL_DEBT, type ActionRequired } from './shared.ts';
import { RentalsReturning } from './returning.ts';

export abstract class RentalsDebts extends RentalsReturning {
  /**
   * payType FK: pays what a failed deduction left on the order (never starts a rental). The money goes to the
   * operator's revenue; a payment that needs the customer (3-D Secure, a provider's page) returns ActionRequired
   * and is resumed with paymentIntent. A charge guard follows every payment (debtHandler): the process dying between
   * the charge and the order's update, or a customer who paid but never came back, still settles the debt once.
   */
  async payDebt(
    user: UserRow,
    input: {
      outTradeNo: string;
      paymentId: string;
      token?: string;
      paymentIntent?: string;
      returnUrl?: string;
      agent?: string;
      key?: string;
      couponNo?: string;
    },
  ): Promise<string | ActionRequired> {
    const order = await this.check(user, input.outTradeNo);
    const debt = Number(order.debt ?? 0);
    const provider = this.d.payments.requireProvider(input.paymentId, input.agent);
    // The app resumes a payment its guard already applied (the customer came back late): the same answer.
    if (
      input.paymentIntent &&
      order.debt_paid_at &&
      (await this.d.payments.byRef(provider.id, input.paymentIntent))?.order_id === order.id
    )
      return order.id;
    if (debt <= 0 || order.debt_paid_at) throw conflict('error.order.nothingToPay');
    if (!input.paymentIntent && !input.token) throw badRequest('error.validation.field', { field: 'stripeToken' });
    await this.d.payments.checkReturnUrl(input.returnUrl, input.agent);
    // A coupon lowers what is charged: reserved with the guard (a resumed payment has the reservation of its start).
    const agentId = input.couponNo
      ? ((await this.d.venues.priced(order.venue_id)).venue.agent_id ?? this.d.payments.platform)
      : '';
    const coupon = () =>
      input.paymentIntent
        ? this.d.coupons.reserved(order.id, 'debt')
        : input.couponNo
          ? this.d.coupons.reserve({
              code: input.couponNo,
              userId: user.id,
              agentId,
              venueId: order.venue_id,
              currency: order.currency,
              gross: debt,
              orderId: order.id,
              purpose: 'debt',
            })
          : this.d.coupons.release(order.id, 'debt').then(() => null);
    const key = `fk_${order.id}_${input.key ?? debt}${input.couponNo ? `_${input.couponNo}` : ''}`;
    const guard: ChargeGuard = {
      flow: RENTAL_DEBT,
      providerId: provider.id,
      userId: user.id,
      purpose: 'debt',
      amount: debt,
      currency: order.currency,
      capture: 'automatic',
      orderId: null,
      token: input.token ?? null,
      key,
      ref: null,
      methodType: input.paymentId.split(':')[1] ?? null,
      saveCard: true,
      data: { orderId: order.id, gross: debt, coupon: null },
    };
    // Committed before the provider call, with the coupon's reservation; a resumed payment is followed by the guard its first call left.
    const use = await this.d.db.tx(async () => {
      const r = await coupon();
      if (r && r.discount === debt) return this.debtPaidByCoupon(order.id, debt, order.currency, r);
      if (!input.paymentIntent)
        await this.guards.start({
          ...guard,
          amount: debt - (r?.discount ?? 0),
          data: { ...guard.data, coupon: r && { id: r.id, discount: r.discount } },
        });
      return r;
    });
    if (use === 'paid') return order.id;
    const due = debt - (use?.discount ?? 0);
    const coupon1 = use && { id: use.id, discount: use.discount };
    Object.assign(guard, { amount: due, data: { ...guard.data, coupon: coupon1 } });
    const cancel = () => this.guards.cancel(input.paymentIntent ? { ref: input.paymentIntent } : { key });
    const result = await this.pay(
      user,
      provider,
      {
        qrcode: '',
        token: input.token ?? '',
        paymentId: input.paymentId,
        paymentIntent: input.paymentIntent,
        returnUrl: input.returnUrl,
      },
      key,
      due,
      order.currency,
      'automatic',
      'debt',
      order.id,
    );
    if (!result.ok) {
      await cancel();
      await this.d.coupons.release(order.id, 'debt');
      return this.declined(user, provider, result, due, order.currency, 'debt');
    }
    if (result.status === 'requires_action') {
      if (!input.paymentIntent) {
        // The guard now follows the payment: it settles the debt once the customer paid, even if they never come back.
        await this.d.db.tx(async () => {
          await this.guards.awaitCustomer({ ...guard, key: `${key}:action` }, result.ref);
          await this.guards.cancel({ key });
        });
      }
      return { action: { clientSecret: result.clientSecret, paymentIntent: result.ref } };
    }
    await this.settleDebt(provider, result, {
      orderId: order.id,
      userId: user.id,
      amount: due,
      currency: order.currency,
      gross: debt,
      coupon: coupon1,
    });
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
        if (!(await this.d.repo.payDebt(t.orderId, t.gross, this.d.clock.now())))
          throw conflict('error.order.nothingToPay');
        // The coupon's use is redeemed with the charge (refused if it was released meanwhile: then the charge is not taken).
        if (t.coupon) await this.d.coupons.redeem(t.coupon.id, t.orderId, t.currency, t.coupon.discount);
        await this.d.payments.record({
          providerId: provider.id,
          result,
          userId: t.userId,
          orderId: t.orderId,
          purpose: 'debt',
          amount: t.amount,
          currency: t.currency,
        });
        const w = this.d.ledger;
        const clearing = await w.account(providerOwner(provider.id), 'clearing', t.currency);
        const revenue = await w.account(PLATFORM, 'revenue', t.currency);
        await w.transfer({
          debit: clearing,
          credit: revenue,
          amount: t.amount,
          code: 'rent',
          orderId: t.orderId,
          at: this.d.clock.now(),
        });
        await this.d.partners.rentLedgerChanged(t.orderId);
        await commitIdempotencyKey(t.orderId); // the request's key completes with the payment, in this transaction
      });
    } catch (err) {
      if (!isChargeNotOurs(err)) {
        await this.releaseDebtCharge(provider, result, t, 'not paid with it').catch((e: unknown) =>
          this.d.log.error(
            { err: e, orderId: t.orderId },
            'debt payment release not enqueued: its guard will release it',
          ),
        );
      }
      throw err;
    }
  }

  /**
   * A debt payment that did not pay the debt (paid meanwhile by another): released by payments' charge guard (its
   * coupon's use given back in the same unit of work), unless it is recorded already.
   */
  protected async releaseDebtCharge(
    provider: PaymentProvider,
    result: Extract<AuthorizeResult, { ok: true }>,
    t: DebtCharge,
    why: string,
  ) {
    await this.guards.release(this.debtGuardOf(provider.id, t), provider, result, why);
  }

  private debtGuardOf(providerId: string, t: DebtCharge): ChargeGuard {
    return {
      flow: RENTAL_DEBT,
      providerId,
      userId: t.userId,
      purpose: 'debt',
      amount: t.amount,
      currency: t.currency,
      capture: 'automatic',
      orderId: null,
      token: null,
      key: null,
      ref: null,
      methodType: null,
      data: { orderId: t.orderId, gross: t.gross, coupon: t.coupon },
    };
  }

  /**
   * What a debt payment's guard does with its charge (payments/guards.ts): a charge the provider took settles the
   * debt (or is refunded if it no longer can); one released or declined gives its coupon's use back.
   */
  protected debtHandler(): PurposeHandler {
    const charge = (g: ChargeGuard): DebtCharge => ({
      orderId: String(g.data?.orderId),
      userId: g.userId,
      amount: g.amount,
      currency: g.currency,
      gross: Number(g.data?.gross ?? g.amount),
      coupon: (g.data?.coupon as DebtCharge['coupon']) ?? null,
    });
    const releaseCoupon = async (g: ChargeGuard) =>
      void (g.data?.coupon && (await this.d.coupons.release(String(g.data.orderId), 'debt')));
    return {
      succeeded: async (g, provider, result) => {
        await this.settleDebt(provider, result, charge(g));
        return true;
      },
      released: releaseCoupon,
      declined: releaseCoupon,
      legacy: {
        kind: JOB_DEBT_GUARD,
        toGuard: (p) => ({
          flow: RENTAL_DEBT,
          providerId: String(p.providerId),
          userId: Number(p.userId),
          purpose: 'debt',
          amount: Number(p.amount),
          currency: String(p.currency),
          capture: 'automatic',
          orderId: null,
          token: p.token ? String(p.token) : null,
          key: p.key ? String(p.key) : null,
          ref: p.ref ? String(p.ref) : null,
          ...(p.deadline !== undefined ? { deadline: Number(p.deadline) } : {}),
          methodType: p.methodType ? String(p.methodType) : null,
          saveCard: true,
          data: { orderId: String(p.orderId), gross: Number(p.gross ?? p.amount), coupon: p.coupon ?? null },
        }),
      },
    };
  }
}
