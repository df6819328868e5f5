// Rentals (Order, the rent and order flows): borrow, the eject poll, the order list and detail, buy-out,
// the share sign and the token-less order detail.
import { Type, type Static } from 'typebox';
import { PayResume, PaymentAction } from './payments.ts';

/** A grace period as the rider's screens see it (src/contract/returns.ts GracePeriod has the desk's evidence too). */
export const GraceSpan = Type.Object({
  from: Type.String(),
  until: Type.String(),
  reason: Type.Union([Type.Literal('closed'), Type.Literal('full'), Type.Literal('offline'), Type.Literal('none')]),
});

/** An order (pZujie: src/core/orders.ts ORDER_STATE; pJiesuanid 0 open, 1 settled). */
export const Order = Type.Object({
  pOrderid: Type.String(),
  pType: Type.String(),
  pZujie: Type.Integer(),
  pJiesuanid: Type.Integer(),
  pBorrowtime: Type.String(),
  pGhtime: Type.Union([Type.String(), Type.Null()]),
  pShopName: Type.String(),
  pGhShopName: Type.String(),
  pUseMins: Type.Integer(),
  pJiesuan: Type.Number(),
  pCurrency: Type.String(),
  pCurrencyName: Type.String(),
  pYajin: Type.Number(),
  pJifei: Type.Number(),
  pJifeiDanwei: Type.Integer(),
  pFengding: Type.Number(),
  priceUnit: Type.Integer(),
  overtimeAmount: Type.Number(),
  pUserid: Type.Integer(),
  pCabinetid: Type.String(),
  pPowerbankId: Type.String(),
  palipayjsSm: Type.String(),
  estimatedAmount: Type.Number(),
  boughtOut: Type.Boolean(),
  buyOutAt: Type.Union([Type.String(), Type.Null()]),
  buyOutAmount: Type.Number(),
  depositFrom: Type.Union([Type.Literal('card'), Type.Literal('wallet')], {
    description: 'Powerly extension: where the deposit is held (a card pre-authorisation or the wallet)',
  }),
  /** Powerly extension: what a failed deduction left unpaid (payType FK), 0 when nothing is owed. */
  debtAmount: Type.Optional(Type.Number()),
  /** Powerly extension: the device rented (src/core/devices.ts); pType says the same in the operator's words. */
  deviceType: Type.Optional(Type.Union([Type.Literal('cdb'), Type.Literal('station'), Type.Literal('mifi')])),
  /** Powerly extension: grace periods granted, oldest first (the rental does not count inside them). */
  grace: Type.Optional(Type.Array(GraceSpan)),
  /** Powerly extension: the end of the grace period running now (by the server's clock), else null. */
  graceUntil: Type.Optional(Type.Union([Type.String(), Type.Null()])),
});
export type Order = Static<typeof Order>;

export const Tier = Type.Object({ startMinute: Type.Integer(), endMinute: Type.Integer(), totalFee: Type.Integer() });
/** The price plan that charges (src/core/pricing.ts), in integer minor units of its currency. */
export const Plan = Type.Object({
  kind: Type.Union([Type.Literal('unit'), Type.Literal('tiered')]),
  currency: Type.String(),
  unitPrice: Type.Integer(),
  unitMinutes: Type.Integer(),
  freeMinutes: Type.Integer(),
  dailyCap: Type.Integer(),
  deposit: Type.Integer(),
  overtimeAmount: Type.Integer(),
  overtimeDays: Type.Number(),
  tiers: Type.Array(Tier),
});
export type Plan = Static<typeof Plan>;

/** The token-less detail: no user id, power bank, cabinet or payment fields. */
export const PublicOrder = Type.Object(
  {
    pOrderid: Type.String(),
    pZujie: Type.Integer(),
    pJiesuanid: Type.Integer(),
    pBorrowtime: Type.String(),
    pGhtime: Type.Union([Type.String(), Type.Null()]),
    pShopName: Type.String(),
    pGhShopName: Type.String(),
    pUseMins: Type.Integer(),
    pJiesuan: Type.Number(),
    pCurrency: Type.String(),
    pCurrencyName: Type.String(),
    pYajin: Type.Number(),
    pJifei: Type.Number(),
    pJifeiDanwei: Type.Integer(),
    pFengding: Type.Number(),
    priceUnit: Type.Integer(),
    overtimeAmount: Type.Number(),
    estimatedAmount: Type.Number(),
    boughtOut: Type.Boolean(),
    buyOutAt: Type.Union([Type.String(), Type.Null()]),
    buyOutAmount: Type.Number(),
    plan: Plan,
    faultAt: Type.Union([Type.String(), Type.Null()]),
    serverTime: Type.String(),
    grace: Type.Array(GraceSpan, {
      description: 'Grace periods: the running fee leaves them out (src/core/pricing.ts countedMs)',
    }),
  },
  { additionalProperties: false },
);
export type PublicOrder = Static<typeof PublicOrder>;

export const DepositRentBody = Type.Object({
  qrcode: Type.String({ minLength: 1, maxLength: 500 }),
  stripeToken: Type.String({
    minLength: 1,
    maxLength: 200,
    description: 'single-use card token, or a Stripe payment method (pm_…)',
  }),
  paymentId: Type.String({ minLength: 1, maxLength: 100, description: 'pId of the payment method' }),
  deviceType: Type.Optional(
    Type.Union([Type.Literal('cdb'), Type.Literal('station')], {
      description: 'Powerly extension: the device rented (default cdb, a power bank; station a power station)',
    }),
  ),
  ...PayResume,
});
export type DepositRentBody = Static<typeof DepositRentBody>;
/** POST cdb/cabinet/savedCardToRent: the deposit with a saved card (pId of cdb/user/card) instead of a new one. */
export const SavedCardRentBody = Type.Object({
  qrcode: Type.String({ minLength: 1, maxLength: 500 }),
  cardId: Type.String({ minLength: 1, maxLength: 100 }),
  paymentId: Type.String({ minLength: 1, maxLength: 100, description: 'pId of the payment method' }),
  deviceType: Type.Optional(
    Type.Union([Type.Literal('cdb'), Type.Literal('station')], {
      description: 'Powerly extension: the device rented (default cdb, a power bank; station a power station)',
    }),
  ),
  ...PayResume,
});
export type SavedCardRentBody = Static<typeof SavedCardRentBody>;
/** outTradeNo is empty when `action` is set: the customer finishes the payment, then the call is repeated with paymentIntent. */
export const DepositRentResult = Type.Object({ outTradeNo: Type.String(), action: Type.Optional(PaymentAction) });
export type DepositRentResult = Static<typeof DepositRentResult>;

export const BalanceRentQuery = Type.Object({
  qrcode: Type.String({ minLength: 1, maxLength: 500 }),
  deviceType: Type.Optional(
    Type.Union([Type.Literal('cdb'), Type.Literal('station')], {
      description: 'Powerly extension: the device rented (default cdb, a power bank; station a power station)',
    }),
  ),
});
export type BalanceRentQuery = Static<typeof BalanceRentQuery>;
/** `outTradNo` (sic) is the operator contract's spelling for this call. */
export const BalanceRentResult = Type.Object({ outTradNo: Type.String() });
export type BalanceRentResult = Static<typeof BalanceRentResult>;

export const OrderCheckParams = Type.Object({
  tradeNo: Type.String({ minLength: 1, maxLength: 64 }),
  payMode: Type.String({ maxLength: 32 }),
});
export type OrderCheckParams = Static<typeof OrderCheckParams>;
/** The eject poll's answer once the power bank is out; `number` is the slot it came from. */
export const OrderCheck = Type.Object({
  orderId: Type.String(),
  orderStatus: Type.Integer(),
  type: Type.String(),
  out_trade_no: Type.String(),
  pay_type: Type.String(),
  shebei: Type.String(),
  number: Type.Integer(),
});
export type OrderCheck = Static<typeof OrderCheck>;
/** Data is null while the cabinet has not answered (code 1). */
export const OrderCheckResult = Type.Union([Type.Null(), OrderCheck]);

/** Page numbers are bounded: Infinity or 1e21 would reach SQL as an OFFSET (a 500). */
export const MAX_PAGE = 100_000;
export const OrderListQuery = Type.Object({
  page: Type.Integer({ minimum: 1, maximum: MAX_PAGE, default: 1 }),
  pageSize: Type.Integer({ minimum: 1, maximum: 100, default: 10 }),
});
export type OrderListQuery = Static<typeof OrderListQuery>;
export const OrderPage = Type.Object({
  page: Type.Object({
    records: Type.Array(Order),
    total: Type.Integer(),
    current: Type.Integer(),
    size: Type.Integer(),
  }),
});
export type OrderPage = Static<typeof OrderPage>;

export const OrderIdQuery = Type.Object({ orderId: Type.String({ minLength: 1, maxLength: 64 }) });
export type OrderIdQuery = Static<typeof OrderIdQuery>;
/** buyOrder and share. */
export const OrderIdBody = Type.Object({ orderId: Type.String({ minLength: 1, maxLength: 64 }) });
export type OrderIdBody = Static<typeof OrderIdBody>;

export const OrderShare = Type.Object({ orderId: Type.String(), sign: Type.String() });
export type OrderShare = Static<typeof OrderShare>;

export const PublicOrderQuery = Type.Object({
  orderId: Type.String({ minLength: 1, maxLength: 64 }),
  sign: Type.String({ minLength: 1, maxLength: 128 }),
});
export type PublicOrderQuery = Static<typeof PublicOrderQuery>;
