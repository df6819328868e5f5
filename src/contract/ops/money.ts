// The ops API's money views (modules/ledger/ops-routes.ts): balances per currency, account kind and agent from the
// ledger, and the ledger's invariants (the zero-sum check of npm run ledger:check). Money in integer minor units.
import { Type, type Static } from 'typebox';
import { OpsError, Reason } from './common.ts';

export const BalanceRow = Type.Object({
  currency: Type.String(),
  agentId: Type.String(),
  ownerType: Type.String({ description: 'user, platform or provider' }),
  kind: Type.String({ description: 'wallet, deposit_hold, revenue, clearing, payouts_in_transit, …' }),
  accounts: Type.Integer(),
  posted: Type.Integer({ description: 'credits − debits posted, minor units' }),
  pending: Type.Integer({ description: 'credits − debits pending, minor units' }),
});
export const Balances = Type.Object({ items: Type.Array(BalanceRow) });
export type Balances = Static<typeof Balances>;
export const LedgerCheck = Type.Object({
  ok: Type.Boolean({ description: 'every invariant holds (each currency sums to zero, balances match transfers, …)' }),
  violations: Type.Array(Type.Object({ invariant: Type.String(), detail: Type.String() })),
});
export type LedgerCheck = Static<typeof LedgerCheck>;
export const MoneyResponses = { 403: OpsError };

/** What one side holds for an order in the day (minor units): captured, refunded, and the provider's fee. */
const Side = Type.Object({ charged: Type.Integer(), refunded: Type.Integer(), fee: Type.Integer() });
export const MISMATCH_KINDS = ['missing_in_ledger', 'missing_at_provider', 'amount_differs', 'fee_differs'] as const;
export const Mismatch = Type.Object({
  kind: Type.Unsafe<(typeof MISMATCH_KINDS)[number]>(Type.String({ enum: [...MISMATCH_KINDS] })),
  orderId: Type.Optional(Type.String()),
  refs: Type.Array(Type.String(), { description: "the provider's references (payment intents) involved" }),
  currency: Type.String(),
  provider: Side,
  ledger: Side,
});
export type Mismatch = Static<typeof Mismatch>;
export const ReconciliationShape = Type.Object({
  provider: Type.String(),
  day: Type.String({ description: 'YYYY-MM-DD (UTC)' }),
  status: Type.Union([Type.Literal('matched'), Type.Literal('mismatched'), Type.Literal('unavailable')], {
    description: "unavailable: not available from this provider's API",
  }),
  lines: Type.Integer({ description: "the provider's settlement lines read" }),
  mismatches: Type.Array(Mismatch),
  ranAt: Type.String(),
});
export type ReconciliationShape = Static<typeof ReconciliationShape>;
export const ReconciliationList = Type.Object({ items: Type.Array(ReconciliationShape) });
export type ReconciliationList = Static<typeof ReconciliationList>;
const Day = Type.String({ pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}$', description: 'YYYY-MM-DD (UTC)' });
export const ReconciliationQuery = Type.Object({ from: Type.Optional(Day), to: Type.Optional(Day) });
export const ReconciliationRun = Type.Object({ day: Day, reason: Reason }, { additionalProperties: false });
