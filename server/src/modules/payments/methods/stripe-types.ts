// The test mode of the Stripe card provider's own payment types beyond the card: the wallets (APPLE_PAY,
// GOOGLE_PAY), iDEAL and WeChat Pay. Live they are Stripe's (payments/stripe.ts, STRIPE_TYPES: the Express Checkout
// Element, iDEAL's bank redirect, WeChat Pay's QR code); in test mode without Stripe keys the sandbox card provider
// has no such types, so these definitions run through the sandbox of every method (methods/sandbox.ts) as Stripe's
// test mode does: the customer is sent to a hosted test page and authorises or fails the payment there, then comes
// back. Like Stripe, the wallets can hold a deposit (a wallet pays with a card) and iDEAL and WeChat Pay charge at
// once. They are offered only where the agent's card provider is the sandbox (`cardProviderTypes`), never beside
// Stripe's own, and cannot be configured in PAYMENT_METHODS (methods/registry.ts adds them in test mode only).
import type { MethodDefinition } from './adapter.ts';
import { STRIPE_TYPES } from '../service-shapes.ts';

const stripeType = (type: string) => STRIPE_TYPES.find((t) => t.type === type)!;

/** Apple Pay and Google Pay: a card underneath, so they hold, capture and refund as the card does. */
export const stripeWalletsTestDefinition: MethodDefinition = {
  id: 'stripe-wallets',
  payTypes: ['APPLE_PAY', 'GOOGLE_PAY'].map((type) => ({
    type,
    kind: 'redirect' as const,
    label: stripeType(type).label,
  })),
  capabilities: { hold: true, partialCapture: true, offSession: false, refund: true, payout: false, webhook: false },
  required: [],
  cardProviderTypes: true,
};

/** iDEAL (EUR) and WeChat Pay (Stripe's currencies for it): charged at once, refundable, never a hold. */
export const stripeRedirectsTestDefinition: MethodDefinition = {
  id: 'stripe-redirects',
  payTypes: ['STRIPE_IDEAL', 'STRIPE_WECHAT'].map((type) => {
    const t = stripeType(type);
    return { type, kind: 'redirect' as const, label: t.label, ...(t.currencies ? { currencies: t.currencies } : {}) };
  }),
  capabilities: { hold: false, partialCapture: false, offSession: false, refund: true, payout: false, webhook: false },
  required: [],
  cardProviderTypes: true,
};

export const STRIPE_TEST_DEFINITIONS = [stripeWalletsTestDefinition, stripeRedirectsTestDefinition];
