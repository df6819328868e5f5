// Paying a Wi-Fi order or box deposit with a method: the charge guard (what it keeps: guard.ts), a payment waiting for
// its customer, release.
import { PACKAGE_STATUS as PS } from '#core/mifi.ts';
import { badRequest, conflict, notFound, refused } from '../../lib/errors.ts';
import { commitIdempotencyKey } from '../../lib/idempotency.ts';
import type { UserRow } from '../auth/service.ts';
import { providerOwner, userOwner } from '../ledger/service.ts';
import { declineMessageKey, type AuthorizeResult, type PaymentProvider } from '../payments/provider.ts';
import { chargeGuardsOf } from '../payments/guards.ts';
import type { PaymentPurpose } from '../payments/purposes.ts';
import type { PaymentAction } from '#contract/payments.ts';
import { guardOf } from './guard.ts';
import { type PayCall, type Target, type Attempt, type Taken, purposeOf, MifiPart } from './shared.ts';

export class MifiPaying extends MifiPart {
  /**
   * Pays an unpaid order (rent, continue payment). A coupon (`couponNo`) lowers the packages' price; its use is
   * reserved in the unit of work that commits the payment's guard. What is owed then is paid from the wallet when
   * asked (`wallet`) or when it covers it and no method token came; with `useWallet` the wallet pays what it can and
   * the method the rest (the wallet alone when it covers it); else the method pays it all. The method's money enters
   * the wallet and the whole order is spent from it. Returns what the customer must finish (the call is then repeated
   * with paymentIntent), or null once paid. `receipt` is the call's answer, committed with the payment.
   */
  async pay(
    user: UserRow,
    orderId: string,
    c: PayCall,
    receipt?: () => Promise<unknown>,
  ): Promise<PaymentAction | null> {
    const order = await this.d.repo.order(orderId);
    if (order?.user_id !== user.id) throw notFound('error.mifi.orderNotFound');
    const provider = c.paymentId === 'wallet' ? null : this.d.payments.requireProvider(c.paymentId, c.agent);
    if (c.paymentIntent) {
      if (!provider) throw badRequest('error.paymentMethod');
      const r = await this.d.coupons.reserved(order.id, 'mifi');
      return this.payWith(
        user,
        provider,
        c,
        {
          orderId: order.id,
          packageId: null,
          amount: 0,
          currency: order.currency,
          capture: 'automatic',
          key: '',
          coupon: r && { id: r.id, discount: r.discount },
        },
        receipt,
      );
    }
    if (order.status !== PS.unpaid) throw conflict('error.mifi.notUnpaid');
    if (provider) await this.d.payments.checkReturnUrl(c.returnUrl, c.agent);
    const gross = order.total - order.deposit;
    const agentId = c.agent ?? this.d.payments.platform;
    // One unit of work: the coupon's use reserved and, when a method is to pay, the payment's guard committed with it
    // (if this process dies before the payment is taken or released, the guard releases both).
    const attempt = await this.d.db.tx(async () => {
      await this.stillUnpaid(order.id);
      const r = c.couponNo
        ? await this.d.coupons.reserve({
            code: c.couponNo,
            userId: user.id,
            agentId,
            venueId: null,
            currency: order.currency,
            gross,
            orderId: order.id,
            purpose: 'mifi',
          })
        : await this.d.coupons.release(order.id, 'mifi').then(() => null);
      const coupon = r && { id: r.id, discount: r.discount };
      const owed = order.total - (coupon?.discount ?? 0);
      const balance = (await this.d.ledger.walletOf(user.id, order.currency)).balance;
      const due =
        c.paymentId === 'wallet' || (!c.token && balance >= owed)
          ? 0
          : owed - (c.useWallet ? Math.min(balance, owed) : 0);
      if (due === 0) {
        if (balance < owed) throw refused('error.mifi.balanceLow');
        if (coupon) await this.d.coupons.redeem(coupon.id, order.id, order.currency, coupon.discount);
        await this.s.orders.settlePaid(order.id, user.id, null, 'wallet', coupon?.discount ?? 0);
        if (receipt) await commitIdempotencyKey(await receipt());
        return null;
      }
      if (!c.token || !provider) throw badRequest('error.validation.field', { field: 'stripeToken' });
      const a = this.attemptOf(user, c, {
        orderId: order.id,
        packageId: null,
        amount: due,
        currency: order.currency,
        capture: 'automatic',
        coupon,
        // One key per token and amount: a retry with the same token replays, another (a decline, another coupon) is a new attempt.
        key: `mifi_${order.id}_${c.token}${due === order.total ? '' : `_${due}`}`,
      });
      await this.guards.start(guardOf(provider.id, a));
      return a;
    });
    if (!attempt) return null;
    return this.payWith(user, provider!, c, attempt, receipt);
  }

  /** A new payment's attempt, as its guard keeps it. */
  private attemptOf(user: UserRow, c: PayCall, t: Target): Attempt {
    return {
      paymentId: c.paymentId,
      agent: c.agent ?? null,
      userId: user.id,
      orderId: t.orderId,
      packageId: t.packageId,
      amount: t.amount,
      currency: t.currency,
      capture: t.capture,
      purpose: purposeOf(t.packageId, t.capture),
      token: c.token!,
      idempotencyKey: t.key,
      ref: null,
      methodType: c.paymentId.split(':')[1] ?? null,
      coupon: t.coupon ?? null,
    };
  }

  /**
   * One payment with a method, for an order or a box deposit, new (`token`) or resumed (`paymentIntent`):
   *   1. a new one: the charge guard (payments/guards.ts) is committed, then the provider is asked;
   *   2. the customer must act: the payment is kept for this order (mifi_payment_actions) and its guard becomes the
   *      action's, which releases it after ACTION_TIMEOUT_MS unless an order took it; answered as `action`;
   *   3. resumed: only the one started for this order, by its payer (the provider checks them too), and only with
   *      the amount, currency and capture asked;
   *   4. taken in one unit of work, under the charge's lock: a payment already recorded is never taken twice (a
   *      replay answers what it paid); anything not taken is released (refunded or voided) by a compensation job.
   */
  async payWith(
    user: UserRow,
    provider: PaymentProvider,
    c: PayCall,
    t: Target | Attempt,
    receipt?: () => Promise<unknown>,
  ): Promise<PaymentAction | null> {
    const now = this.d.clock.now();
    let a: Attempt;
    if (c.paymentIntent) {
      const act = await this.d.repo.action(provider.id, c.paymentIntent);
      if (!act || act.user_id !== user.id || act.order_id !== t.orderId || act.package_id !== t.packageId)
        throw refused('error.payment.token_invalid');
      a = {
        paymentId: c.paymentId,
        agent: c.agent ?? null,
        userId: user.id,
        orderId: t.orderId,
        packageId: t.packageId,
        amount: act.amount,
        currency: act.currency,
        capture: act.capture,
        purpose: purposeOf(t.packageId, act.capture),
        token: null,
        idempotencyKey: null,
        ref: act.ref,
        methodType: c.paymentId.split(':')[1] ?? null,
        coupon: t.coupon ?? null,
      };
    } else if ('purpose' in t) {
      a = t; // its guard committed by the caller (pay: with the coupon's reservation)
    } else {
      await this.d.payments.checkReturnUrl(c.returnUrl, c.agent);
      a = this.attemptOf(user, c, t);
      // Committed before the provider call: if this process dies before the payment is taken or released, the guard
      // makes the same call again (the same key: the first payment, never a second) and releases what it took.
      await this.guards.start(guardOf(provider.id, a));
    }
    const claim = {
      userId: user.id,
      purpose: a.purpose as PaymentPurpose,
      amount: a.amount,
      currency: a.currency,
      orderId: a.orderId,
    };
    const result = a.ref
      ? await this.d.payments.resume(provider, a.ref, claim)
      : await provider.authorize({
          token: a.token!,
          amount: a.amount,
          currency: a.currency,
          capture: a.capture,
          idempotencyKey: a.idempotencyKey!,
          userId: user.id,
          purpose: a.purpose,
          returnUrl: c.returnUrl,
          methodType: a.methodType ?? undefined,
        });
    if (result.ok && result.status === 'requires_action') {
      if (!a.ref) {
        await this.d.db.tx(async () => {
          await this.d.payments.recordStart(provider.id, result.ref, claim);
          const fresh = await this.d.repo.insertAction({
            provider: provider.id,
            ref: result.ref,
            user_id: user.id,
            order_id: a.orderId,
            package_id: a.packageId,
            amount: a.amount,
            currency: a.currency,
            capture: a.capture,
            created_at: now,
          });
          await this.guards.cancel({ key: a.idempotencyKey });
          // A customer who never comes back: their payment is released after the timeout, unless an order took it.
          if (fresh) await this.guards.awaitCustomer({ ...guardOf(provider.id, a), key: null }, result.ref);
        });
      }
      return { clientSecret: result.clientSecret, paymentIntent: result.ref };
    }
    if (!result.ok) {
      await this.declined(provider, result, a);
      return null; // not reached: declined() throws
    }
    if (
      a.ref &&
      (result.amount !== a.amount ||
        result.currency?.toUpperCase() !== a.currency ||
        (result.status === 'authorized') !== (a.capture === 'manual'))
    ) {
      // Not what was asked for: never taken; the provider's payment goes back.
      await this.release(provider, result, a, 'amount, currency or capture not as asked');
      throw refused('error.payment.processing_error');
    }
    try {
      if (a.packageId) await this.s.deposits.settleDeposit(user, provider, result, a, receipt);
      else await this.settleCard(user, provider, result, a, receipt);
    } catch (err) {
      // Not taken (the order was paid meanwhile, the box deposit is held already, the unit of work failed): released,
      // unless it is recorded (taken by this very order, or released already), which release() checks under the lock.
      await this.release(provider, result, a, `mifi ${a.orderId} not paid with it`).catch((e: unknown) =>
        this.d.log.error({ err: e, orderId: a.orderId }, 'mifi release not enqueued: the orphan guard will release it'),
      );
      throw err;
    }
    return null;
  }

  /** A declined payment: recorded (once), its guards no longer needed; the refusal in the user's language. */
  private async declined(
    provider: PaymentProvider,
    result: Extract<AuthorizeResult, { ok: false }>,
    a: Attempt,
  ): Promise<never> {
    await this.cancelGuards(a, result.ref);
    if (a.coupon) await this.d.coupons.releaseUse(a.coupon.id);
    // A second call racing the one that paid (its single-use card token already spent): say it is paid, not declined.
    if (!a.packageId && (await this.d.repo.order(a.orderId))?.status !== PS.unpaid)
      throw conflict('error.mifi.notUnpaid');
    const prior = result.ref ? await this.d.payments.byRef(provider.id, result.ref) : undefined;
    // Released by its guard (the customer came back too late): said so, not as a declined card.
    if (prior && (prior.failure_code === 'abandoned' || (prior.order_id === a.orderId && prior.status !== 'declined')))
      throw refused('error.payment.released');
    if (!prior) {
      await this.d.payments.record({
        providerId: provider.id,
        result,
        userId: a.userId,
        orderId: a.orderId,
        purpose: a.purpose,
        amount: a.amount,
        currency: a.currency,
      });
    }
    throw refused(declineMessageKey(result.declineCode));
  }

  async cancelGuards(a: Attempt, ref: string | null) {
    await this.guards.cancel({ key: a.idempotencyKey, ref });
  }

  /** The charge guard payments runs for every Wi-Fi payment. */
  private get guards() {
    return chargeGuardsOf(this.d);
  }

  /**
   * In the paying unit of work, under the charge's lock: was this provider payment recorded already? By this very
   * target (a replay: answered as paid) or not (released by its guard, or another order's: refused).
   */
  async recorded(provider: PaymentProvider, ref: string, a: Attempt): Promise<boolean> {
    await this.d.payments.lockCharge(provider.id, ref);
    const prior = await this.d.payments.byRef(provider.id, ref);
    if (!prior) return false;
    const took = a.packageId
      ? (await this.d.repo.pkg(a.packageId))?.deposit_payment_id === prior.id
      : (await this.d.repo.order(a.orderId))?.payment_id === prior.id;
    if (took) return true;
    if (prior.order_id === a.orderId && prior.status !== 'captured' && prior.status !== 'authorized')
      throw refused('error.payment.released');
    throw conflict('error.payment.alreadyUsed');
  }

  /** One unit of work: the method's money into the wallet, then spent on the order (settlePaid). */
  private async settleCard(
    user: UserRow,
    provider: PaymentProvider,
    result: Taken,
    a: Attempt,
    receipt?: () => Promise<unknown>,
  ) {
    await this.d.db.tx(async () => {
      if (!(await this.recorded(provider, result.ref, a))) {
        // Two calls paying the same order at once (a double tap, a retry racing the first): one settles it.
        await this.stillUnpaid(a.orderId);
        const paymentId = await this.d.payments.record({
          providerId: provider.id,
          result,
          userId: user.id,
          orderId: a.orderId,
          purpose: a.purpose,
          amount: a.amount,
          currency: a.currency,
        });
        const w = this.d.ledger;
        const clearing = await w.account(providerOwner(provider.id), 'clearing', a.currency);
        const wal = await w.account(userOwner(user.id), 'wallet', a.currency);
        // The method's money enters the user's wallet, and the order (less its coupon) is spent from it exactly as a
        // wallet payment: with useWallet the wallet pays the rest (never overdrawn: else the charge is given back).
        await w.transfer({
          debit: clearing,
          credit: wal,
          amount: a.amount,
          code: 'mifi_topup',
          orderId: a.orderId,
          at: this.d.clock.now(),
        });
        // The coupon's use is redeemed with the charge (refused if it was released meanwhile: then the charge is given back).
        if (a.coupon) await this.d.coupons.redeem(a.coupon.id, a.orderId, a.currency, a.coupon.discount);
        await this.s.orders.settlePaid(a.orderId, user.id, paymentId, 'card', a.coupon?.discount ?? 0);
      }
      await this.cancelGuards(a, result.ref);
      if (receipt) await commitIdempotencyKey(await receipt());
    });
  }

  /**
   * A provider payment no order or deposit took: released by payments' charge guard (payments/guards.ts), unless it
   * is recorded already (taken, or released before); its coupon's use goes with it.
   */
  private async release(
    provider: PaymentProvider,
    result: Extract<AuthorizeResult, { ok: true }>,
    a: Attempt,
    reason: string,
  ) {
    await this.guards.release(guardOf(provider.id, a), provider, result, reason);
    await this.cancelGuards(a, result.ref);
  }

  /** Inside the paying unit of work: locks the order; it must still be unpaid (33). */
  private async stillUnpaid(orderId: string) {
    if ((await this.d.repo.order(orderId, { lock: true }))?.status !== PS.unpaid)
      throw conflict('error.mifi.notUnpaid');
  }
}
