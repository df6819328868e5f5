// The server call a payment on '/confirm' goes through, one per payType: FK pays an order, CZ tops up the wallet,
// overbuy buys the power bank from the rental's deposit, mifi pays a Wi-Fi package (or its box deposit), YJ rents.
// A call answers `action` when the customer must finish the payment first (3-D Secure, a provider's page).
import type { T } from '../i18n/index.ts';
import { href } from '../stores/router.ts';
import { $cabinet } from '../stores/cabinet.ts';
import { $mifiOrder } from '../stores/mifi.ts';
import { payOrder, type PaymentMethod } from '../api/payment.ts';
import { rentWithDeposit } from '../api/cabinet.ts';
import { rentWithSavedCard } from '../api/payScreens.ts';
import { recharge } from '../api/wallet.ts';
import { buyOrder } from '../api/orders.ts';
import { confirmPackage, payBoxDeposit, rentPackage } from '../api/mifi.ts';
import { orderSubmit } from '../core/mifi.ts';
import type { ConfirmQuery } from '../core/payTypes.ts';
import { stripeKind, StripePayError, type PayAnswer } from './stripe.ts';
import { cardProviderFor } from './provider.ts';
import type { MifiChoice } from './MifiPayOptions.tsx';

/** What a payment on '/confirm' is: the screen's query and what the customer chose there. */
export interface ConfirmPayment {
  q: ConfirmQuery;
  query: URLSearchParams;
  method: PaymentMethod | undefined;
  qrcode: string;
  currency: string;
  /** Wi-Fi: the wallet and coupon chosen (MifiPayOptions). */
  mifiChoice: MifiChoice | null;
  boxDeposit: boolean;
  /** A Wi-Fi purchase whose payment answered `action`: its order exists (unpaid), so another try pays that order. */
  madeOrder: { current: string | null };
  t: T;
}

/** Sends a payment to the server call of this payType; `action` when the customer must finish it first. */
export async function payOnServer(
  c: ConfirmPayment,
  input: { stripeToken?: string; paymentIntent?: string; cardId?: string },
  key: string,
): Promise<PayAnswer> {
  const { q, query, method, qrcode, currency, mifiChoice, boxDeposit, madeOrder, t } = c;
  const { price, payType } = q;
  const paymentId = method?.pId ?? q.paymentId;
  // Redirect methods (iDEAL) come back to this screen, which resumes the payment (?payment_intent).
  const redirect =
    method && ((stripeKind(method.pPaymentType) === 'redirect' && !cardProviderFor(method)) || method.kind);
  // Back to this screen with the chosen method named (a provider's return resumes it with payment_intent).
  const here = { ...Object.fromEntries(query), paymentId };
  delete (here as Record<string, string>).payment_intent;
  const returnUrl =
    redirect && location.protocol.startsWith('http')
      ? `${location.origin}${location.pathname}#${href('/confirm', here)}`
      : undefined;
  if (payType === 'FK') {
    const r = await payOrder(
      {
        outTradeNo: q.outTradeNo || q.orderId,
        paymentId,
        stripeToken: input.stripeToken,
        cardId: input.cardId,
        paymentIntent: input.paymentIntent,
        returnUrl,
      },
      key,
    );
    return r.action ? { action: r.action } : { done: r.outTradeNo };
  }
  if (payType === 'CZ') {
    const agentId = query.get('agentId') || undefined;
    const r = await recharge(
      {
        amount: price,
        currency,
        agentId,
        paymentId,
        stripeToken: input.stripeToken,
        cardId: input.cardId,
        paymentIntent: input.paymentIntent,
        returnUrl,
      },
      key,
    );
    return r.action ? { action: r.action } : { done: r.outTradeNo };
  }
  if (payType === 'overbuy') {
    // Buying the power bank is settled from the rental's deposit (hold or wallet): no new card payment.
    const o = await buyOrder(q.orderId || q.outTradeNo, key);
    return { done: o.pOrderid };
  }
  if (payType === 'mifi') {
    // The wallet and coupon chosen for a new payment (a resumed one keeps what it started with); wallet alone: `wallet`.
    const choice = input.paymentIntent ? null : mifiChoice;
    const pay = {
      paymentId: choice?.due === 0 ? 'wallet' : paymentId,
      stripeToken: input.stripeToken,
      paymentIntent: input.paymentIntent,
      returnUrl,
    };
    const extras = { couponNo: choice?.couponNo, useWallet: choice?.useWallet ? 1 : undefined, cardId: input.cardId };
    // A package's box deposit, so that a box can be picked up.
    if (boxDeposit) {
      const p = await payBoxDeposit({ mifiOrderId: q.mifiOrderId, ...pay }, key);
      return p.action ? { action: p.action } : { done: p.orderId };
    }
    // Continue payment of an unpaid (33) package, or another try at a purchase whose order is made already.
    const unpaid = q.mifiOrderId || (input.paymentIntent ? '' : madeOrder.current);
    if (unpaid) {
      const p = await confirmPackage({ mifiOrderId: unpaid, ...pay, ...extras }, key);
      if (!p.action) $mifiOrder.set(null);
      return p.action ? { action: p.action } : { done: p.orderId };
    }
    // The purchase made in the mall ("Mifi order submit"); resumed, the server finds its order by the payment.
    const o = $mifiOrder.get();
    if (!o && !input.paymentIntent) return { done: '' };
    const r = await rentPackage(
      {
        qrcode: o?.qrcode || undefined,
        ejectOrNot: 0,
        ...pay,
        ...extras,
        orderSubmit: input.paymentIntent || !o ? undefined : orderSubmit(o, Date.now()),
      },
      key,
    );
    if (r.action) {
      madeOrder.current = r.orderId;
      return { action: r.action };
    }
    $mifiOrder.set(null);
    return { done: r.orderId };
  }
  if (payType !== 'YJ') throw new StripePayError('unsupported', t('payTypes.payTypeUnsupported'));
  // The device kind the scanned cabinet was priced for (a power station is rented with its own plan and deposit).
  const scanned = $cabinet.get();
  const deviceType = scanned?.qrcode === qrcode ? scanned.deviceType : undefined;
  if (input.cardId) {
    const r = await rentWithSavedCard({ qrcode, cardId: input.cardId, paymentId, returnUrl, deviceType }, key);
    return r.action ? { action: r.action } : { done: r.outTradeNo };
  }
  const r = await rentWithDeposit(
    {
      qrcode,
      stripeToken: input.stripeToken ?? 'resume',
      paymentId,
      paymentIntent: input.paymentIntent,
      returnUrl,
      deviceType,
    },
    key,
  );
  return r.action ? { action: r.action } : { done: r.outTradeNo };
}
