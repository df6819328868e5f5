// The ledger's invariants, checked on a live database (npm run ledger:check, and the tests):
//   1. every currency's posted and pending balances sum to zero over all accounts (double entry);
//   2. every account's balance columns equal what its transfers add up to (posted and open pending);
//   3. a pending transfer is resolved at most once, and a post never exceeds its pending amount;
//   4. no user wallet is overdrawn (available = posted credits − posted debits − pending debits ≥ 0);
//   5. transfers are in their accounts' currency and move a positive amount between two accounts;
//   6. withdrawals agree with their holds: pending ↔ open hold, paid ↔ posted in full, rejected ↔ voided; a bank
//      withdrawal's request transfer and settlement: still open (pending, awaiting payout) ↔ no settlement, paid or
//      rejected ↔ one settlement of its amount.
// 1–5 are the ledger's own checks (its checks-repository.ts); 6 joins the wallet's withdrawals to the ledger's holds.
import type { Queryable } from '../../db/db.ts';
import { LedgerChecks } from '../ledger/checks-repository.ts';
import { WalletRepository } from './repository.ts';

export interface Violation {
  invariant: string;
  detail: string;
}

export async function checkLedger(db: Queryable): Promise<Violation[]> {
  const ledger = new LedgerChecks(db);
  const out: Violation[] = [];
  const add = (invariant: string, rows: object[]) => {
    for (const r of rows) out.push({ invariant, detail: JSON.stringify(r) });
  };

  add('currency sums to zero', await ledger.unbalancedCurrencies());
  add('account balances match transfers', await ledger.accountsOutOfStep());
  add('pending resolved once, within its amount', await ledger.badResolutions());
  add('no user wallet overdrawn', await ledger.overdrawnWallets());
  add('transfers well-formed', await ledger.malformedTransfers());

  const withdrawals = await new WalletRepository(db).allWithHolds();
  const holds = new Map<string, Awaited<ReturnType<LedgerChecks['holdsWithResolution']>>>();
  const ids = withdrawals.flatMap((w) => [w.hold_transfer_id, ...(w.settle_transfer_id ? [w.settle_transfer_id] : [])]);
  for (const h of await ledger.holdsWithResolution(ids)) {
    holds.set(h.id, [...(holds.get(h.id) ?? []), h]);
  }
  const disagreeing: object[] = [];
  for (const w of withdrawals) {
    if (w.bank) {
      const open = w.status === 'pending' || w.status === 'awaiting_payout';
      const settled = w.settle_transfer_id ? holds.get(w.settle_transfer_id)?.[0] : undefined;
      const request = holds.get(w.hold_transfer_id)?.[0];
      if (
        Number(request?.amount) !== Number(w.amount) ||
        open !== !w.settle_transfer_id ||
        (!open && Number(settled?.amount) !== Number(w.amount))
      ) {
        disagreeing.push({ id: w.id, status: w.status, settlement: w.settle_transfer_id, amount: w.amount });
      }
      continue;
    }
    for (const h of holds.get(w.hold_transfer_id) ?? []) {
      const amount = Number(w.amount);
      const resolved = h.resolved == null ? null : Number(h.resolved);
      if (
        Number(h.amount) !== amount ||
        (w.status === 'pending' && h.resolution_id != null) ||
        (w.status === 'paid' && (h.resolution !== 'post_pending' || resolved !== amount)) ||
        (w.status === 'rejected' && h.resolution !== 'void_pending')
      )
        disagreeing.push({
          id: w.id,
          status: w.status,
          resolution: h.resolution,
          resolved: h.resolved,
          amount: w.amount,
        });
    }
  }
  add('withdrawals agree with holds', disagreeing);
  return out;
}
