// Wallets (Wallet, the wallet flows): balances, top-up, withdrawal, movements, saved cards.
import { Type, type Static } from 'typebox';
import { PayResume, PaymentAction } from './payments.ts';

export const Wallet = Type.Object({
  pBalance: Type.Number({ description: 'available balance, major units' }),
  pCurrencySymbol: Type.String(),
  pCurrencyType: Type.String(),
  pDepositAmount: Type.Number({ description: 'deposit currently held, major units' }),
  pDailiId: Type.String({ description: 'agent id: wallets, payment methods and cards are scoped by it' }),
});
export type Wallet = Static<typeof Wallet>;

/** A wire amount: major units as decimal text; parsed to minor units with src/core/money.ts parseAmount. */
export const Amount = Type.String({ minLength: 1, maxLength: 20, description: 'major units, e.g. "10" or "10.50"' });
export const Currency = Type.String({ minLength: 3, maxLength: 3 });
export const AgentId = Type.Optional(
  Type.String({ maxLength: 64, description: "pDailiId; default the platform's own" }),
);

export const PayoutField = Type.Object({
  fieldName: Type.String(),
  fieldType: Type.Union([Type.Literal('picker'), Type.Literal('input')]),
  fieldDefauldValues: Type.Array(Type.Object({ desc: Type.String(), value: Type.String() })),
});
export type PayoutField = Static<typeof PayoutField>;

export const PayoutChannel = Type.Object({
  channelName: Type.String(),
  paymentId: Type.String(),
  payoutConfig: Type.Array(PayoutField),
});
export type PayoutChannel = Static<typeof PayoutChannel>;

export const SavedCard = Type.Object({
  pId: Type.String(),
  pCardnumber: Type.String(),
  currencyName: Type.String(),
  brand: Type.String(),
  paymentId: Type.Optional(
    Type.String({
      description:
        'Powerly extension: the pId of the method the card was saved with (a Mercado Pago card pays only through Mercado Pago)',
    }),
  ),
});
export type SavedCard = Static<typeof SavedCard>;

export const RechargeBody = Type.Object({
  amount: Amount,
  currency: Currency,
  agentId: AgentId,
  paymentId: Type.String({ minLength: 1, maxLength: 100, description: 'pId of the payment method' }),
  stripeToken: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'single-use card token' })),
  cardId: Type.Optional(
    Type.String({ minLength: 1, maxLength: 100, description: 'a saved card (pId) instead of a token' }),
  ),
  saveCard: Type.Optional(
    Type.Boolean({
      description:
        'Powerly extension: once paid, the new card (stripeToken) is saved for the user (listed by cdb/user/card, paid with by its pId)',
    }),
  ),
  ...PayResume,
});
export type RechargeBody = Static<typeof RechargeBody>;
/** outTradeNo is empty when `action` is set: the customer finishes the payment, then calls again with paymentIntent (a new Idempotency-Key). */
export const RechargeResult = Type.Object({
  outTradeNo: Type.String(),
  pBalance: Type.Number(),
  pCurrencyType: Type.String(),
  action: Type.Optional(PaymentAction),
});
export type RechargeResult = Static<typeof RechargeResult>;

export const WithdrawApplyBody = Type.Object({ amount: Amount, currency: Currency, agentId: AgentId });
export type WithdrawApplyBody = Static<typeof WithdrawApplyBody>;
export const WithdrawApplyResult = Type.Object({
  refundTypes: Type.Array(Type.Integer(), {
    description:
      '0 back to the top-up card (auto-audit), 1 payout channel, 2 manual bank transfer; empty: no withdrawal support',
  }),
  checkNeedRemark: Type.Boolean(),
  channels: Type.Array(PayoutChannel),
});
export type WithdrawApplyResult = Static<typeof WithdrawApplyResult>;

export const WithdrawCreateBody = Type.Object({
  refundType: Type.Integer({ minimum: 0, maximum: 9 }),
  amount: Amount,
  amountType: Type.Optional(Type.Literal('balance')),
  currency: Currency,
  agentId: AgentId,
  checkNeedRemark: Type.Optional(Type.Boolean()),
  remark: Type.Optional(
    Type.String({ maxLength: 500, description: 'JSON {name, bankCard, phone} when checkNeedRemark' }),
  ),
  autoAudit: Type.Optional(Type.Integer({ minimum: 0, maximum: 1 })),
  receiverAccount: Type.Optional(
    Type.String({ maxLength: 2000, description: 'JSON {paymentId, accountData{fieldName: value}}' }),
  ),
});
export type WithdrawCreateBody = Static<typeof WithdrawCreateBody>;
/** The legacy remark, sent as JSON text in WithdrawCreateBody.remark when checkNeedRemark. */
export const Remark = Type.Object({ name: Type.String(), bankCard: Type.String(), phone: Type.String() });
export type Remark = Static<typeof Remark>;

export const WithdrawCreateResult = Type.Object({
  tixianOrderId: Type.String(),
  pBalance: Type.Number(),
  status: Type.String(),
});
export type WithdrawCreateResult = Static<typeof WithdrawCreateResult>;

export const MovementsQuery = Type.Object({
  currency: Type.Optional(Currency),
  agentId: AgentId,
  page: Type.Integer({ minimum: 1, maximum: 100_000, default: 1 }),
  pageSize: Type.Integer({ minimum: 1, maximum: 100, default: 10 }),
});
export type MovementsQuery = Static<typeof MovementsQuery>;
export const Movement = Type.Object({
  id: Type.String(),
  type: Type.String(),
  orderId: Type.String(),
  amount: Type.Number(),
  currency: Type.String(),
  pDailiId: Type.String(),
  status: Type.String(),
  createdAt: Type.String(),
});
export type Movement = Static<typeof Movement>;
export const MovementPage = Type.Object({
  page: Type.Object({
    records: Type.Array(Movement),
    total: Type.Integer(),
    current: Type.Integer(),
    size: Type.Integer(),
  }),
});
export type MovementPage = Static<typeof MovementPage>;

export const CardsQuery = Type.Object({
  userEnd: Type.Optional(Type.String({ maxLength: 10 })),
  agentId: AgentId,
  qrcode: Type.Optional(Type.String({ maxLength: 500 })),
});
export type CardsQuery = Static<typeof CardsQuery>;

export const CardSaveQuery = Type.Object({
  paymentId: Type.String({ minLength: 1, maxLength: 100 }),
  agentId: AgentId,
  currency: Type.Optional(Currency),
});
export type CardSaveQuery = Static<typeof CardSaveQuery>;
export const CardSetup = Type.Object({ clientSecret: Type.String(), paymentId: Type.String() });
export type CardSetup = Static<typeof CardSetup>;

export const CardConfirmBody = Type.Object({
  paymentId: Type.String({ minLength: 1, maxLength: 100, description: 'the setup id from card/save' }),
  paymentMethod: Type.String({ minLength: 1, maxLength: 200, description: 'single-use card token' }),
  clientSecret: Type.String({ minLength: 1, maxLength: 200 }),
});
export type CardConfirmBody = Static<typeof CardConfirmBody>;
export const CardConfirmResult = Type.Object({ pId: Type.String() });
export type CardConfirmResult = Static<typeof CardConfirmResult>;

/**
 * Mercado Pago "card save": a card token of the method's own card SDK (MercadoPago.js on /MercadoPago; the
 * sandbox card form in test mode) saved on the user's customer at the provider, listed with the other saved cards.
 */
export const CardTokenSaveBody = Type.Object({
  paymentId: Type.String({
    minLength: 1,
    maxLength: 100,
    description: 'pId of a method that saves cards (mercadopago:MercadoPago)',
  }),
  token: Type.String({ minLength: 1, maxLength: 200, description: "single-use card token of the method's card SDK" }),
  paymentMethodId: Type.Optional(Type.String({ maxLength: 40, pattern: '^[a-z0-9_]*$' })),
  issuerId: Type.Optional(Type.String({ maxLength: 20, pattern: '^[0-9]*$' })),
  email: Type.String({ minLength: 3, maxLength: 254, description: "the payer's e-mail (the provider's customer)" }),
  currency: Type.Optional(Currency),
});
export type CardTokenSaveBody = Static<typeof CardTokenSaveBody>;

export const CardRemoveParams = Type.Object({ cardId: Type.String({ minLength: 1, maxLength: 100 }) });
export type CardRemoveParams = Static<typeof CardRemoveParams>;
