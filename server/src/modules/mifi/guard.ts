// A Wi-Fi payment under payments' one charge guard (payments/guards.ts): what the guard keeps of a payment's attempt,
// and what it does with a payment no order or box deposit took (its coupon's use released with it).
import type { ChargeGuard, PurposeHandler } from '../payments/guards.ts';
import { JOB_MIFI_ORPHAN, MIFI_PAYMENT, purposeOf, type Attempt, type MifiDeps } from './shared.ts';

/** What the charge guard keeps of a payment's attempt. */
export function guardOf(providerId: string, a: Attempt): ChargeGuard {
  return {
    flow: MIFI_PAYMENT,
    providerId,
    userId: a.userId,
    purpose: a.purpose,
    amount: a.amount,
    currency: a.currency,
    capture: a.capture,
    orderId: a.orderId || null,
    token: a.token,
    key: a.idempotencyKey,
    ref: a.ref,
    methodType: a.methodType,
    data: { paymentId: a.paymentId, agent: a.agent, packageId: a.packageId, coupon: a.coupon ?? null },
  };
}

/**
 * What a Wi-Fi payment's guard does (payments/guards.ts): whatever the provider took that no order or deposit
 * took is released, with the coupon's use reserved for it (this attempt's own: a later attempt's is another row).
 */
export function mifiPaymentHandler(d: MifiDeps): PurposeHandler {
  const releaseCoupon = async (g: ChargeGuard) => {
    const coupon = g.data?.coupon as Attempt['coupon'];
    if (coupon) await d.coupons.releaseUse(coupon.id);
  };
  return {
    released: releaseCoupon,
    declined: releaseCoupon,
    legacy: {
      kind: JOB_MIFI_ORPHAN,
      toGuard: (p) => {
        const provider = d.payments.providerForMethod(String(p.paymentId), p.agent ? String(p.agent) : undefined);
        if (!provider) return null;
        const capture = p.capture === 'manual' ? 'manual' : 'automatic';
        const packageId = p.packageId ? String(p.packageId) : null;
        return guardOf(provider.id, {
          paymentId: String(p.paymentId),
          agent: p.agent ? String(p.agent) : null,
          userId: Number(p.userId),
          orderId: p.orderId ? String(p.orderId) : '',
          packageId,
          amount: Number(p.amount),
          currency: String(p.currency),
          capture,
          purpose: typeof p.purpose === 'string' ? p.purpose : purposeOf(packageId, capture),
          token: p.token ? String(p.token) : null,
          idempotencyKey: p.idempotencyKey ? String(p.idempotencyKey) : null,
          ref: p.ref ? String(p.ref) : null,
          methodType: p.methodType ? String(p.methodType) : null,
          coupon: (p.coupon as Attempt['coupon']) ?? null,
        });
      },
    },
  };
}
