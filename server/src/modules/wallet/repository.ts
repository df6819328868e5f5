// Ledger SQL. Transfers are inserted, never updated; account balance columns move in the same transaction.
import type { Queryable } from '../../db/db.ts';

export interface Account {
  id: number;
  owner_type: string;
  owner_id: string;
  kind: string;
  currency: string;
  /** The agent (pDailiId) the account belongs to; 'powerly' unless an agent runs the venue. */
  agent_id: string;
  debits_pending: number;
  debits_posted: number;
  credits_pending: number;
  credits_posted: number;
}

export interface Transfer {
  id: string;
  debit_account_id: number;
  credit_account_id: number;
  amount: number;
  currency: string;
  flag: 'posted' | 'pending' | 'post_pending' | 'void_pending';
  pending_id: string | null;
  code: string;
  order_id: string | null;
  created_at: Date;
}

/** The agent of venues and wallets that no agent runs. */
export const DEFAULT_AGENT = 'powerly';

/** bigint columns come back as strings from node-postgres: numbers here (minor units fit in 2^53). */
export function numericAccount(a: Account): Account {
  return {
    ...a, id: Number(a.id), debits_pending: Number(a.debits_pending), debits_posted: Number(a.debits_posted),
    credits_pending: Number(a.credits_pending), credits_posted: Number(a.credits_posted),
  };
}

export type BalanceColumn = 'debits_pending' | 'debits_posted' | 'credits_pending' | 'credits_posted';

export class LedgerRepository {
  constructor(private readonly db: Queryable) {}

  async ensureAccount(owner: { type: string; id: string }, kind: string, currency: string, q: Queryable = this.db, agent = DEFAULT_AGENT) {
    await q.query(
      `insert into ledger_accounts (owner_type, owner_id, kind, currency, agent_id) values ($1, $2, $3, $4, $5)
       on conflict (owner_type, owner_id, kind, currency, agent_id) do nothing`,
      [owner.type, owner.id, kind, currency, agent],
    );
    return (await this.findAccount(owner, kind, currency, q, agent))!;
  }

  async findAccount(owner: { type: string; id: string }, kind: string, currency: string, q: Queryable = this.db, agent = DEFAULT_AGENT) {
    const { rows } = await q.query<Account>(
      `select * from ledger_accounts where owner_type = $1 and owner_id = $2 and kind = $3 and currency = $4
          and agent_id = $5`,
      [owner.type, owner.id, kind, currency, agent],
    );
    return rows[0] && numericAccount(rows[0]);
  }

  /** Locks accounts in id order (no deadlocks between two transfers over the same pair). */
  async lockAccounts(ids: number[], q: Queryable = this.db) {
    const { rows } = await q.query<Account>(
      'select * from ledger_accounts where id = any($1::bigint[]) order by id for update',
      [[...new Set(ids)].sort((a, b) => a - b)],
    );
    return new Map(rows.map((r) => [Number(r.id), r]));
  }

  async insertTransfer(t: Omit<Transfer, 'created_at'> & { created_at: Date }, q: Queryable = this.db) {
    await q.query(
      `insert into ledger_transfers (id, debit_account_id, credit_account_id, amount, currency, flag, pending_id, code,
         order_id, created_at) values ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10)`,
      [t.id, t.debit_account_id, t.credit_account_id, t.amount, t.currency, t.flag, t.pending_id, t.code, t.order_id, t.created_at],
    );
  }

  async bump(accountId: number, column: BalanceColumn, delta: number, q: Queryable = this.db) {
    await q.query(`update ledger_accounts set ${column} = ${column} + $2 where id = $1`, [accountId, delta]);
  }

  async findTransfer(id: string, q: Queryable = this.db) {
    const { rows } = await q.query<Transfer>('select * from ledger_transfers where id = $1', [id]);
    return rows[0];
  }

  async findResolution(pendingId: string, q: Queryable = this.db) {
    const { rows } = await q.query<Transfer>('select * from ledger_transfers where pending_id = $1', [pendingId]);
    return rows[0];
  }

  async userAccounts(userId: string, q: Queryable = this.db, currency?: string, agent?: string) {
    const { rows } = await q.query<Account>(
      `select * from ledger_accounts where owner_type = 'user' and owner_id = $1 and ($2::text is null or currency = $2)
          and ($3::text is null or agent_id = $3)
        order by currency, agent_id, kind`,
      [userId, currency ?? null, agent ?? null],
    );
    return rows.map(numericAccount);
  }

  /** Per currency: posted balance sums over accounts, and the same recomputed from the transfers. */
  async audit(q: Queryable = this.db) {
    const { rows: fromAccounts } = await q.query<{ currency: string; net: number; pending_net: number }>(
      `select currency, sum(credits_posted - debits_posted)::bigint as net,
              sum(credits_pending - debits_pending)::bigint as pending_net
         from ledger_accounts group by currency order by currency`,
    );
    const { rows: mismatched } = await q.query<{ id: number }>(
      `with posted as (
         select debit_account_id as account_id, -amount as amount from ledger_transfers where flag in ('posted', 'post_pending')
         union all
         select credit_account_id, amount from ledger_transfers where flag in ('posted', 'post_pending')
       )
       select a.id from ledger_accounts a left join posted p on p.account_id = a.id
        group by a.id, a.credits_posted, a.debits_posted
       having coalesce(sum(p.amount), 0) <> a.credits_posted - a.debits_posted`,
    );
    return { byCurrency: fromAccounts, accountsOutOfStep: mismatched.map((r) => Number(r.id)) };
  }
}
