// The ops API's money views (modules/ledger/ops-routes.ts): balances per currency, account kind and agent from the
// ledger, and the ledger's invariants (the zero-sum check of npm run ledger:check). Money in integer minor units.
import { Type, type Static } from 'typebox';
import { OpsError } from './common.ts';

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
