// The ledger's invariants, read for the checks (npm run ledger:check, the back office's check, the tests): the
// ledger's own (1–5 of wallet/reconcile.ts) and the holds with their resolutions, which the owners of holds (the
// wallet's withdrawals) compare with their own rows. Read only; public, so that a check needs no repository of the ledger.
import type { Queryable } from '../../db/db.ts';

export class LedgerChecks {
  constructor(private readonly db: Queryable) {}

  /** Holds by id with their resolution (post or void), if any. */
  async holdsWithResolution(ids: string[]) {
    if (!ids.length) return [];
    const { rows } = await this.db.query<{
      id: string;
      amount: number;
      resolution: string | null;
      resolved: number | null;
      resolution_id: string | null;
    }>(
      `select h.id, h.amount, r.flag as resolution, r.amount as resolved, r.id as resolution_id
         from ledger_transfers h left join ledger_transfers r on r.pending_id = h.id where h.id = any($1::text[])`,
      [ids],
    );
    return rows;
  }

  /** 1. every currency's posted and pending balances sum to zero over all accounts (double entry). */
  async unbalancedCurrencies() {
    return (
      await this.db.query(
        `select currency, sum(credits_posted - debits_posted)::bigint as posted, sum(credits_pending - debits_pending)::bigint as pending
         from ledger_accounts group by currency
       having sum(credits_posted - debits_posted) <> 0 or sum(credits_pending - debits_pending) <> 0`,
      )
    ).rows;
  }

  /** 2. every account's balance columns equal what its transfers add up to (posted and open pending). */
  async accountsOutOfStep() {
    return (
      await this.db.query(
        `with open_pending as (
         select p.* from ledger_transfers p
          where p.flag = 'pending' and not exists (select 1 from ledger_transfers r where r.pending_id = p.id)
       ), moves as (
         select debit_account_id as id, amount as dp, 0::bigint as cp, 0::bigint as dpend, 0::bigint as cpend
           from ledger_transfers where flag in ('posted', 'post_pending')
         union all select credit_account_id, 0, amount, 0, 0 from ledger_transfers where flag in ('posted', 'post_pending')
         union all select debit_account_id, 0, 0, amount, 0 from open_pending
         union all select credit_account_id, 0, 0, 0, amount from open_pending
       )
       select a.id, a.debits_posted, a.credits_posted, a.debits_pending, a.credits_pending,
              coalesce(sum(m.dp), 0)::bigint as t_dp, coalesce(sum(m.cp), 0)::bigint as t_cp,
              coalesce(sum(m.dpend), 0)::bigint as t_dpend, coalesce(sum(m.cpend), 0)::bigint as t_cpend
         from ledger_accounts a left join moves m on m.id = a.id
        group by a.id
       having coalesce(sum(m.dp), 0) <> a.debits_posted or coalesce(sum(m.cp), 0) <> a.credits_posted
           or coalesce(sum(m.dpend), 0) <> a.debits_pending or coalesce(sum(m.cpend), 0) <> a.credits_pending`,
      )
    ).rows;
  }

  /** 3. a pending transfer is resolved at most once, and a post never exceeds its pending amount. */
  async badResolutions() {
    return (
      await this.db.query(
        `select p.id, p.amount, count(r.id) as resolutions, max(r.amount) as resolved_amount
         from ledger_transfers p join ledger_transfers r on r.pending_id = p.id
        group by p.id, p.amount, p.flag
       having count(r.id) > 1 or p.flag <> 'pending' or max(case when r.flag = 'post_pending' then r.amount else 0 end) > p.amount`,
      )
    ).rows;
  }

  /** 4. no user wallet is overdrawn (available = posted credits − posted debits − pending debits ≥ 0). */
  async overdrawnWallets() {
    return (
      await this.db.query(
        `select id, owner_id, currency, agent_id, credits_posted - debits_posted - debits_pending as available
         from ledger_accounts where owner_type = 'user' and kind = 'wallet'
          and credits_posted - debits_posted - debits_pending < 0`,
      )
    ).rows;
  }

  /** 5. transfers are in their accounts' currency and move a positive amount between two accounts. */
  async malformedTransfers() {
    return (
      await this.db.query(
        `select t.id from ledger_transfers t
         join ledger_accounts d on d.id = t.debit_account_id join ledger_accounts c on c.id = t.credit_account_id
        where d.currency <> t.currency or c.currency <> t.currency or t.debit_account_id = t.credit_account_id
           or (t.amount <= 0 and t.flag <> 'void_pending')`,
      )
    ).rows;
  }
}
