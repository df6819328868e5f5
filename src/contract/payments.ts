// Payment methods (spec §7 cdb/payment/method/list) and the sandbox card provider's tokenisation.
import { Type, type Static } from 'typebox';

export const PaymentMethod = Type.Object({
  pId: Type.String(),
  pPaymentType: Type.String(),
  label: Type.String(),
  currencySymbol: Type.String(),
  pCurrencyType: Type.String(),
  publicKey: Type.String({ description: 'pk_sandbox_… means: use the sandbox card form' }),
  configDetails: Type.Object({ accountCountry: Type.String(), currency: Type.String() }),
});
export type PaymentMethod = Static<typeof PaymentMethod>;

export const PaymentMethodsQuery = Type.Object({
  qrcode: Type.Optional(Type.String({ minLength: 1, maxLength: 500 })),
  currency: Type.Optional(Type.String({ minLength: 3, maxLength: 3 })),
  agentId: Type.Optional(Type.String({ maxLength: 64 })),
});
export type PaymentMethodsQuery = Static<typeof PaymentMethodsQuery>;

const CardField = Type.Optional(Type.String({ maxLength: 64 }));
/** POST /sandbox-pay/v1/tokens (the provider's own shape, not the app envelope). */
export const SandboxTokenBody = Type.Object({ publicKey: CardField, number: CardField, expMonth: CardField, expYear: CardField, cvc: CardField });
export type SandboxTokenBody = Static<typeof SandboxTokenBody>;
export const SandboxToken = Type.Object({
  id: Type.String(),
  card: Type.Object({ brand: Type.String(), last4: Type.String(), expMonth: Type.Integer(), expYear: Type.Integer() }),
});
export type SandboxToken = Static<typeof SandboxToken>;

/** The customer must finish the payment with Stripe.js (3-D Secure, a redirect, a QR code), then call again with paymentIntent. */
export const PaymentAction = Type.Object({
  clientSecret: Type.String(),
  paymentIntent: Type.String(),
});
export type PaymentAction = Static<typeof PaymentAction>;

/** Fields every paying call takes besides its own: a finished payment to resume, and where a redirect comes back. */
export const PayResume = {
  paymentIntent: Type.Optional(Type.String({ minLength: 1, maxLength: 200, pattern: '^[A-Za-z0-9_]+$', description: 'resume this payment after ActionRequired' })),
  returnUrl: Type.Optional(Type.String({ maxLength: 500, pattern: '^https?://', description: 'where iDEAL / 3-D Secure redirects come back to' })),
};

/** POST cdb/payment/stripe/multicurrency/payOrder (payType FK): pay what a failed deduction left on an order. */
export const PayOrderBody = Type.Object({
  outTradeNo: Type.String({ minLength: 1, maxLength: 64 }),
  paymentId: Type.String({ minLength: 1, maxLength: 100 }),
  couponNo: Type.Optional(Type.String({ maxLength: 64 })),
  stripeToken: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  ...PayResume,
});
export type PayOrderBody = Static<typeof PayOrderBody>;
export const PayOrderResult = Type.Object({ outTradeNo: Type.String(), action: Type.Optional(PaymentAction) });
export type PayOrderResult = Static<typeof PayOrderResult>;

/** One step of an order's money timeline (held, captured, released, refunded, charged off-session, failed). */
export const MoneyStep = Type.Object({
  step: Type.Union([
    Type.Literal('held'), Type.Literal('captured'), Type.Literal('released'), Type.Literal('refunded'), Type.Literal('charged'), Type.Literal('failed'),
  ]),
  /** What the payment was for: deposit_preauth, deposit_topup, rent_extra, debt. */
  purpose: Type.String(),
  amount: Type.Number({ description: 'major units' }),
  currency: Type.String(),
  at: Type.String(),
});
export type MoneyStep = Static<typeof MoneyStep>;
export const MoneyTimelineQuery = Type.Object({ orderId: Type.String({ minLength: 1, maxLength: 64 }) });
export type MoneyTimelineQuery = Static<typeof MoneyTimelineQuery>;
