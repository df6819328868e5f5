// Ledger SQL: the ledger module owns ledger_accounts and ledger_transfers. Transfers are inserted, never
// updated; account balance columns move in the same unit of work (db.tx).
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
    ...a,
    id: Number(a.id),
    debits_pending: Number(a.debits_pending),
    debits_posted: Number(a.debits_posted),
    credits_pending: Number(a.credits_pending),
    credits_posted: Number(a.credits_posted),
  };
}

type FullKey = { owner: { type: string; id: string }; kind: string; currency: string; agent: string };
const keyColumns = (keys: FullKey[]) => [
  keys.map((k) => k.owner.type),
  keys.map((k) => k.owner.id),
  keys.map((k) => k.kind),
  keys.map((k) => k.currency),
  keys.map((k) => k.agent),
];

export type BalanceColumn = 'debits_pending' | 'debits_posted' | 'credits_pending' | 'credits_posted';

export class LedgerRepository {
  constructor(private readonly db: Queryable) {}

  async ensureAccount(owner: { type: string; id: string }, kind: string, currency: string, agent = DEFAULT_AGENT) {
    // Most accounts exist already: one read. A new one is inserted (a concurrent insert wins: read again).
    const found = await this.findAccount(owner, kind, currency, agent);
    if (found) return found;
    const { rows } = await this.db.query<Account>(
      `insert into ledger_accounts (owner_type, owner_id, kind, currency, agent_id) values ($1, $2, $3, $4, $5)
       on conflict (owner_type, owner_id, kind, currency, agent_id) do nothing returning *`,
      [owner.type, owner.id, kind, currency, agent],
    );
    return rows[0] ?? (await this.findAccount(owner, kind, currency, agent))!;
  }

  async findAccount(owner: { type: string; id: string }, kind: string, currency: string, agent = DEFAULT_AGENT) {
    const { rows } = await this.db.query<Account>(
      `select * from ledger_accounts where owner_type = $1 and owner_id = $2 and kind = $3 and currency = $4
          and agent_id = $5`,
      [owner.type, owner.id, kind, currency, agent],
    );
    return rows[0] && numericAccount(rows[0]);
  }

  /** Locks accounts in id order (no deadlocks between two transfers over the same pair). */
  async lockAccounts(ids: number[]) {
    const { rows } = await this.db.query<Account>(
      'select * from ledger_accounts where id = any($1::bigint[]) order by id for update',
      [[...new Set(ids)].sort((a, b) => a - b)],
    );
    return new Map(rows.map((r) => [Number(r.id), r]));
  }

  /** The accounts with these keys (owner, kind, currency, agent) that exist, locked in id order for the caller's unit of work. */
  async lockAccountsByKey(keys: FullKey[]) {
    const { rows } = await this.db.query<Account>(
      `select * from ledger_accounts where (owner_type, owner_id, kind, currency, agent_id) in
          (select * from unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[]))
        order by id for update`,
      keyColumns(keys),
    );
    return rows;
  }

  /** Creates the accounts of `keys` that do not exist yet, in one statement (a concurrent insert wins). */
  async createAccounts(keys: FullKey[]) {
    await this.db.query(
      `insert into ledger_accounts (owner_type, owner_id, kind, currency, agent_id)
         select * from unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[])
       on conflict (owner_type, owner_id, kind, currency, agent_id) do nothing`,
      keyColumns(keys),
    );
  }

  async insertTransfer(t: Omit<Transfer, 'created_at'> & { created_at: Date }) {
    await this.db.query(
      `insert into ledger_transfers (id, debit_account_id, credit_account_id, amount, currency, flag, pending_id, code,
         order_id, created_at) values ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10)`,
      [
        t.id,
        t.debit_account_id,
        t.credit_account_id,
        t.amount,
        t.currency,
        t.flag,
        t.pending_id,
        t.code,
        t.order_id,
        t.created_at,
      ],
    );
  }

  async bump(accountId: number, column: BalanceColumn, delta: number) {
    await this.db.query(`update ledger_accounts set ${column} = ${column} + $2 where id = $1`, [accountId, delta]);
  }

  /** A transfer and its two balance moves, in one statement (the accounts are locked by the caller). */
  async insertTransferMoving(
    t: Omit<Transfer, 'created_at'> & { created_at: Date },
    debitColumn: BalanceColumn,
    creditColumn: BalanceColumn,
  ) {
    await this.db.query(
      `with t as (
         insert into ledger_transfers (id, debit_account_id, credit_account_id, amount, currency, flag, pending_id, code, order_id, created_at)
         values ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10))
       update ledger_accounts set ${debitColumn} = ${debitColumn} + case when id = $2 then $4 else 0 end,
         ${creditColumn} = ${creditColumn} + case when id = $3 then $4 else 0 end
        where id in ($2, $3)`,
      [
        t.id,
        t.debit_account_id,
        t.credit_account_id,
        t.amount,
        t.currency,
        t.flag,
        t.pending_id,
        t.code,
        t.order_id,
        t.created_at,
      ],
    );
  }

  async findTransfer(id: string) {
    const { rows } = await this.db.query<Transfer>('select * from ledger_transfers where id = $1', [id]);
    return rows[0];
  }

  async findResolution(pendingId: string) {
    const { rows } = await this.db.query<Transfer>('select * from ledger_transfers where pending_id = $1', [pendingId]);
    return rows[0];
  }

  async userAccounts(userId: string, currency?: string, agent?: string) {
    const { rows } = await this.db.query<Account>(
      `select * from ledger_accounts where owner_type = 'user' and owner_id = $1 and ($2::text is null or currency = $2)
          and ($3::text is null or agent_id = $3)
        order by currency, agent_id, kind`,
      [userId, currency ?? null, agent ?? null],
    );
    return rows.map(numericAccount);
  }

  /** Per currency: posted balance sums over accounts, and the same recomputed from the transfers. */
  async audit() {
    const { rows: fromAccounts } = await this.db.query<{ currency: string; net: number; pending_net: number }>(
      `select currency, sum(credits_posted - debits_posted)::bigint as net,
              sum(credits_pending - debits_pending)::bigint as pending_net
         from ledger_accounts group by currency order by currency`,
    );
    const { rows: mismatched } = await this.db.query<{ id: number }>(
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
  /** Currencies in which the user has a wallet account. */
  async walletCurrencies(userId: string) {
    const { rows } = await this.db.query<{ currency: string }>(
      `select currency from ledger_accounts where owner_type = 'user' and owner_id = $1 and kind = 'wallet'`,
      [userId],
    );
    return rows.map((r) => r.currency);
  }

  /** How many of the user's accounts have a pending (open) hold on either side. */
  async openHoldCount(userId: string) {
    const { rows } = await this.db.query<{ n: number }>(
      `select count(*)::int as n from ledger_accounts where owner_type = 'user' and owner_id = $1
          and (debits_pending > 0 or credits_pending > 0)`,
      [userId],
    );
    return Number(rows[0]?.n ?? 0);
  }

  /** Of these orders, those with a top-up transfer into a wallet of `agent`. */
  async toppedUpOrders(orderIds: string[], agent: string) {
    if (!orderIds.length) return new Set<string>();
    const { rows } = await this.db.query<{ order_id: string }>(
      `select distinct t.order_id from ledger_transfers t join ledger_accounts a on a.id = t.credit_account_id and a.agent_id = $2
        where t.order_id = any($1::text[]) and t.code = 'wallet_topup'`,
      [orderIds, agent],
    );
    return new Set(rows.map((r) => r.order_id));
  }

  /** A page of the posted and pending transfers in or out of the user's wallets (newest first), and the total. */
  /**
   * A page of the user's wallet movements, newest first. A deposit hold's release is a movement of its own (what
   * came back to the wallet: all of a voided hold, the rest of a partly posted one); each hold says whether it is
   * resolved.
   */
  async walletMovements(
    userId: string,
    f: { currency: string | null; agent: string | null; limit: number; offset: number },
  ) {
    const params = [userId, f.currency, f.agent, f.limit, f.offset];
    const base = `from ledger_transfers t join ledger_accounts a on a.id in (t.debit_account_id, t.credit_account_id)
       left join ledger_transfers h on h.id = t.pending_id and h.code in ('deposit_hold', 'mifi_deposit')
       where a.owner_type = 'user' and a.owner_id = $1 and a.kind = 'wallet'
         and ($2::text is null or a.currency = $2) and ($3::text is null or a.agent_id = $3)
         and (t.flag in ('posted', 'pending')
              or (h.id is not null and (t.flag = 'void_pending' or (t.flag = 'post_pending' and t.amount < h.amount))))`;
    const { rows } = await this.db.query<{
      id: string;
      code: string;
      amount: number;
      currency: string;
      created_at: Date;
      flag: string;
      credit: boolean;
      agent_id: string;
      order_id: string | null;
      pending_id: string | null;
      resolved: boolean;
    }>(
      `select t.id, case when h.id is null then t.code else 'deposit_release' end as code,
              case when t.flag = 'post_pending' then h.amount - t.amount else t.amount end as amount,
              t.currency, t.created_at, t.flag, (t.credit_account_id = a.id) <> (h.id is not null) as credit, a.agent_id,
              t.order_id, t.pending_id,
              exists (select 1 from ledger_transfers r where r.pending_id = t.id) as resolved
         ${base} order by t.created_at desc, t.id limit $4 offset $5`,
      params,
    );
    const total = await this.db.query<{ n: number }>(`select count(*)::int as n ${base}`, params.slice(0, 3));
    return { total: Number(total.rows[0]?.n ?? 0), rows };
  }

  /** Per currency: how many accounts and transfers (debit side) the ledger holds. */
  async summary() {
    const { rows } = await this.db.query<{ currency: string; accounts: number; transfers: number }>(
      `select a.currency, count(distinct a.id)::int as accounts, count(t.id)::int as transfers
         from ledger_accounts a left join ledger_transfers t on t.debit_account_id = a.id group by a.currency order by a.currency`,
    );
    return rows;
  }

  /** The agents a user has an account with (the back office's scope of a rider). */
  async agentsOfUser(userId: string): Promise<string[]> {
    const { rows } = await this.db.query<{ agent_id: string }>(
      "select distinct agent_id from ledger_accounts where owner_type = 'user' and owner_id = $1 order by agent_id",
      [userId],
    );
    return rows.map((r) => r.agent_id);
  }

  /** Balances per currency, agent, owner type and account kind (of these agents; null: every agent). */
  async balances(agents: string[] | null) {
    const { rows } = await this.db.query<{
      currency: string;
      agent_id: string;
      owner_type: string;
      kind: string;
      accounts: number;
      posted: string;
      pending: string;
    }>(
      `select currency, agent_id, owner_type, kind, count(*)::int as accounts,
              sum(credits_posted - debits_posted)::bigint as posted, sum(credits_pending - debits_pending)::bigint as pending
         from ledger_accounts where ($1::text[] is null or agent_id = any($1))
        group by currency, agent_id, owner_type, kind order by currency, agent_id, owner_type, kind`,
      [agents],
    );
    return rows;
  }
}
