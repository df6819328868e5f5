// Fair returns: what became of a cancelled rental's deposit (and the rider's choice to keep a top-up in the wallet).
import { Type, type Static } from 'typebox';

export const DepositBack = Type.Object({
  orderId: Type.String(),
  kind: Type.Union([Type.Literal('card_hold'), Type.Literal('refund'), Type.Literal('wallet')], {
    description: 'card_hold: a card pre-authorisation, voided; refund: a deposit top-up going back to the card or method it was charged to; wallet: the deposit was held from the wallet balance and is back there',
  }),
  state: Type.Union([
    Type.Literal('releasing'), Type.Literal('released'), Type.Literal('in_wallet'), Type.Literal('scheduled'), Type.Literal('refunded'),
    Type.Literal('kept'), Type.Literal('kept_spent'), Type.Literal('kept_unrefundable'),
  ], {
    description: 'releasing/released (card_hold); in_wallet (wallet); scheduled (refunded at `at` unless kept), refunded, kept (the rider chose the wallet), kept_spent (the wallet balance was used meanwhile), kept_unrefundable (the method takes no refunds) (refund)',
  }),
  amount: Type.Number({ description: 'The deposit, major units' }),
  refunded: Type.Number({ description: 'Refunded to the card or method, major units (state refunded; less than amount when some was spent meanwhile)' }),
  currency: Type.String(),
  at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description: 'When it happened; for `scheduled`, when the refund is made' }),
  method: Type.Union([Type.String(), Type.Null()], { description: 'The card the money goes back to ("Visa •••• 4242"), when known' }),
  canKeep: Type.Boolean({ description: 'The refund is still scheduled: POST cdb/mine/order/deposit/keep keeps it in the wallet instead' }),
});
export type DepositBack = Static<typeof DepositBack>;
