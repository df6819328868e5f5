// Payment methods (cdb/payment/method/list) and the sandbox card provider's tokenisation.
import { Type, type Static } from 'typebox';

export const PaymentMethod = Type.Object({
  pId: Type.String(),
  pPaymentType: Type.String(),
  label: Type.String(),
  currencySymbol: Type.String(),
  pCurrencyType: Type.String(),
  publicKey: Type.String({ description: 'pk_sandbox_… means: use the sandbox card form' }),
  configDetails: Type.Object({ accountCountry: Type.String(), currency: Type.String() }),
  /**
   * How the customer pays a method beyond the card provider (docs/payments.md): redirect, form, jsapi (the WeChat or
   * Alipay bridge), push (confirm on the phone), card (the provider's card form). Absent: a card provider's method.
   */
  kind: Type.Optional(
    Type.Union([
      Type.Literal('redirect'),
      Type.Literal('form'),
      Type.Literal('jsapi'),
      Type.Literal('push'),
      Type.Literal('card'),
    ]),
  ),
  /** The method can hold a deposit (pre-authorisation); otherwise a deposit goes through the wallet. */
  hold: Type.Optional(Type.Boolean()),
  /**
   * A live card method whose card is entered in the provider's own SDK on an app screen (Monri Components on
   * /MonriPay, MercadoPago.js on /MercadoPago) after the paying call: the payer step takes no card.
   */
  sdk: Type.Optional(Type.Boolean()),
  /** Test mode: the provider's sandbox (the screen shows its test values). */
  sandbox: Type.Optional(Type.Boolean()),
  /** The provider's test-mode values (test phone numbers, cards) with what each does, in test mode only. */
  testValues: Type.Optional(Type.Array(Type.Object({ value: Type.String(), outcome: Type.String() }))),
  /**
   * Flutterwave's card form (number, expiry month and year, CVV, e-mail, phone with area
   * code). Live, its card fields go to the payer endpoint; in test mode (sandbox) the sandbox card form's token does.
   */
  directCard: Type.Optional(Type.Boolean()),
  /** Powerly extension: the method saves cards (Mercado Pago: cdb/user/card/saveToken), and pays with the saved ones. */
  savesCards: Type.Optional(Type.Boolean()),
});
export type PaymentMethod = Static<typeof PaymentMethod>;

export const PaymentMethodsQuery = Type.Object({
  qrcode: Type.Optional(Type.String({ minLength: 1, maxLength: 500 })),
  currency: Type.Optional(Type.String({ minLength: 3, maxLength: 3 })),
  agentId: Type.Optional(Type.String({ maxLength: 64 })),
  /** Where the app runs: the WeChat or Alipay browser offer their own in-app payment, a phone's browser their mobile-browser payment. */
  platform: Type.Optional(
    Type.Union([Type.Literal('web'), Type.Literal('mobile'), Type.Literal('wechat'), Type.Literal('alipay')], {
      description:
        "where the app runs: a desktop browser (web), a phone's browser (mobile), the WeChat or Alipay app's browser",
    }),
  ),
});
export type PaymentMethodsQuery = Static<typeof PaymentMethodsQuery>;

const CardField = Type.Optional(Type.String({ maxLength: 64 }));
/** POST /sandbox-pay/v1/tokens (the provider's own shape, not the app envelope). */
/** The expiry as the card forms send it in JSON (a number), or as text (a form). */
const CardExpiry = Type.Optional(Type.Union([Type.String({ maxLength: 64 }), Type.Integer()]));
export const SandboxTokenBody = Type.Object({
  publicKey: CardField,
  number: CardField,
  expMonth: CardExpiry,
  expYear: CardExpiry,
  cvc: CardField,
});
export type SandboxTokenBody = Static<typeof SandboxTokenBody>;
export const SandboxToken = Type.Object({
  id: Type.String(),
  card: Type.Object({
    brand: Type.String(),
    last4: Type.String(),
    expMonth: Type.Integer(),
    expYear: Type.Integer(),
    /** credit | debit | prepaid, as the card network reports it (the `debitcard` type takes only debit). */
    funding: Type.String(),
  }),
});
export type SandboxToken = Static<typeof SandboxToken>;

/**
 * POST cdb/payment/method/payer: what the payer gives for a method beyond the card provider (a phone for
 * M-Pesa and mobile money, an e-mail for Monri, the entrustment agreement for WeChat Pay score), checked and kept
 * as a single-use token that the paying call carries as `stripeToken`.
 */
export const PayerBody = Type.Object({
  paymentId: Type.String({ minLength: 1, maxLength: 100 }),
  phoneNumber: Type.Optional(Type.String({ maxLength: 20 })),
  areaCode: Type.Optional(Type.String({ maxLength: 6 })),
  email: Type.Optional(Type.String({ maxLength: 254 })),
  openId: Type.Optional(Type.String({ maxLength: 128 })),
  /** A card token made by the provider's card form (MercadoPago, Monri, the sandbox's). */
  cardToken: Type.Optional(Type.String({ maxLength: 200 })),
  paymentMethodId: Type.Optional(Type.String({ maxLength: 40 })),
  issuerId: Type.Optional(Type.String({ maxLength: 40 })),
  installments: Type.Optional(Type.Integer({ minimum: 1, maximum: 48 })),
  agreement: Type.Optional(Type.Boolean()),
  /**
   * "Card form (Flutterwave)": the card fields, taken only by a live method whose provider's API takes
   * them from our server (Flutterwave's direct charge, `directCard` in the method list); checked by the card rules,
   * sealed in the token (never stored in clear), never logged. Anywhere else they are refused.
   */
  cardNumber: Type.Optional(Type.String({ maxLength: 32 })),
  expiryMonth: Type.Optional(Type.String({ maxLength: 4 })),
  expiryYear: Type.Optional(Type.String({ maxLength: 4 })),
  cvv: Type.Optional(Type.String({ maxLength: 8 })),
  /**
   * "save this card" of the card form (Flutterwave): with the card fields of a live direct card charge, the
   * card is saved once the charge is paid (Flutterwave's card token); ignored anywhere else.
   */
  saveCardFlag: Type.Optional(Type.Boolean()),
  /** Does the deposit hold (a pre-authorisation) need this method to hold: then the agreement is required (WeChat Pay score). */
  hold: Type.Optional(Type.Boolean()),
});
export type PayerBody = Static<typeof PayerBody>;
export const PayerResult = Type.Object({ token: Type.String() });
export type PayerResult = Static<typeof PayerResult>;

/**
 * POST cdb/payment/method/otp: the one-time code the card's issuer sent (a Flutterwave card charge answering
 * `meta.authorization.mode: otp`; the app's OTP screen, `/CardOtp`), for the payment `outTradeNo` (the action's
 * field). Answers the payment's state and where the app resumes it (its screen with `payment_intent`).
 */
export const OtpBody = Type.Object({
  outTradeNo: Type.String({ pattern: '^[A-Za-z0-9]{1,40}$' }),
  otp: Type.String({ maxLength: 12 }),
});
export type OtpBody = Static<typeof OtpBody>;
export const OtpResult = Type.Object({
  state: Type.Union([
    Type.Literal('pending'),
    Type.Literal('authorized'),
    Type.Literal('paid'),
    Type.Literal('failed'),
    Type.Literal('cancelled'),
  ]),
  next: Type.String(),
});
export type OtpResult = Static<typeof OtpResult>;

/** The customer must finish the payment with Stripe.js (3-D Secure, a redirect, a QR code), then call again with paymentIntent. */
export const PaymentAction = Type.Object({
  clientSecret: Type.String(),
  paymentIntent: Type.String(),
});
export type PaymentAction = Static<typeof PaymentAction>;

/** Fields every paying call takes besides its own: a finished payment to resume, and where a redirect comes back. */
export const PayResume = {
  paymentIntent: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 200,
      pattern: '^[A-Za-z0-9_]+$',
      description: 'resume this payment after ActionRequired',
    }),
  ),
  returnUrl: Type.Optional(
    Type.String({
      maxLength: 500,
      pattern: '^https?://',
      description: 'where iDEAL / 3-D Secure redirects come back to',
    }),
  ),
};

/** A paying call's coupon: what is charged is lowered by it, or the call is refused (422) and nothing is charged. */
export const CouponNo = Type.String({
  minLength: 1,
  maxLength: 64,
  description: 'a coupon: what is charged is lowered by it, or the call is refused (422) and nothing is charged',
});

/** POST cdb/payment/stripe/multicurrency/payOrder (payType FK): pay what a failed deduction left on an order. */
export const PayOrderBody = Type.Object({
  outTradeNo: Type.String({ minLength: 1, maxLength: 64 }),
  paymentId: Type.String({ minLength: 1, maxLength: 100 }),
  couponNo: Type.Optional(CouponNo),
  stripeToken: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  cardId: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 100,
      description: 'a saved card (pId, cdb/user/card) of this user and agent instead of stripeToken',
    }),
  ),
  ...PayResume,
});
export type PayOrderBody = Static<typeof PayOrderBody>;
export const PayOrderResult = Type.Object({ outTradeNo: Type.String(), action: Type.Optional(PaymentAction) });
export type PayOrderResult = Static<typeof PayOrderResult>;

/** One step of an order's money timeline (held, captured, released, refunded, charged off-session, failed). */
export const MoneyStep = Type.Object({
  step: Type.Union([
    Type.Literal('held'),
    Type.Literal('captured'),
    Type.Literal('released'),
    Type.Literal('refunded'),
    Type.Literal('charged'),
    Type.Literal('failed'),
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
