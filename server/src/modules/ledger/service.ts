// The ledger (double entry) under the wallet, deposits and rent: double entry, two-phase holds (TigerBeetle's pending → post_pending | void_pending).
//
// Accounts per (owner, kind, currency):
//   user/<id>/wallet          credit-normal: what we owe the user (their balance)
//   user/<id>/deposit_hold    credit-normal: the user's deposit while a rental is open (pending credits)
//   provider/<id>/clearing    debit-normal: what the card provider owes us (captured card money); the card
//                             rentals' holds use its shards provider/<id>#<n>/clearing (CLEARING_SHARDS): every
//                             rental's transaction moves the clearing account's balance, and with one row they all
//                             queued on its lock, each to its commit. What the provider owes is the sum.
//   platform/powerly/revenue  credit-normal: rent earned
//
// Every transfer moves `amount` from the debit account to the credit account. Pending transfers only move the
// *_pending columns; posting (possibly less) or voiding is a new row that references the pending one.
// Every write here must run inside a unit of work (db.tx) opened by the caller, so the transfer rows and the
// balance columns move together; the repository joins it without being handed a transaction.
import { allOf, type Db } from '../../db/db.ts';
import { AppError, refused } from '../../lib/errors.ts';
import { uuid } from '../../lib/ids.ts';
import { DEFAULT_AGENT, LedgerRepository, type Account } from './repository.ts';

export { DEFAULT_AGENT, numericAccount, type Account } from './repository.ts';

export const PLATFORM = { type: 'platform', id: 'powerly' } as const;
export const userOwner = (userId: number | string) => ({ type: 'user', id: String(userId) });
/** The rows a provider's clearing account is spread over for the rentals' deposit holds. */
export const CLEARING_SHARDS = 32;
/**
 * A provider's clearing account; with `shardOf` (a user id), one of its CLEARING_SHARDS rows, so that concurrent
 * rentals of different users do not wait on one row lock (shard 0 is the account itself).
 */
export const providerOwner = (providerId: string, shardOf?: number) => {
  const shard = shardOf === undefined ? 0 : Math.abs(shardOf) % CLEARING_SHARDS;
  return { type: 'provider', id: shard === 0 ? providerId : `${providerId}#${shard}` };
};

export interface TransferInput {
  debit: Account;
  credit: Account;
  amount: number;
  code: string;
  orderId?: string | null;
  at: Date;
  /** Refuse if the debit account's available credit balance would go below zero (user wallets). */
  mustNotOverdraw?: boolean;
  /** The transfer's id, when the caller must name it before the transfer is made (default: a new uuid). */
  id?: string;
  /** Both accounts were read with lockedAccounts() in this unit of work (their balances are current). */
  locked?: boolean;
}

export interface AccountKey {
  owner: { type: string; id: string };
  kind: string;
  currency: string;
  agent?: string;
}

export class LedgerService {
  constructor(
    private readonly repo: LedgerRepository,
    private readonly db: Db,
  ) {}

  /** Runs a write in the caller's unit of work, or in its own when called outside one (never half-applied). */
  private atomic<T>(fn: () => Promise<T>): Promise<T> {
    return this.db.inTx() ? fn() : this.db.tx(fn);
  }

  account(owner: { type: string; id: string }, kind: string, currency: string, agent?: string) {
    return this.repo.ensureAccount(owner, kind, currency, agent);
  }

  /**
   * The accounts, created if missing, locked in id order for the caller's unit of work (one statement when they
   * all exist, three in two round trips when some are new), in the order of `keys`: transfers between them pass `locked: true`.
   */
  async lockedAccounts(keys: AccountKey[]): Promise<Account[]> {
    const full = keys.map((k) => ({ ...k, agent: k.agent ?? DEFAULT_AGENT }));
    const key = (a: { owner_type: string; owner_id: string; kind: string; currency: string; agent_id: string }) =>
      `${a.owner_type}|${a.owner_id}|${a.kind}|${a.currency}|${a.agent_id}`;
    const wanted = full.map((k) =>
      key({ owner_type: k.owner.type, owner_id: k.owner.id, kind: k.kind, currency: k.currency, agent_id: k.agent }),
    );
    let found = new Map((await this.repo.lockAccountsByKey(full)).map((a) => [key(a), a]));
    if (wanted.some((w) => !found.has(w))) {
      // Created, then locked again: sent together in a unit of work (pipelined, the lock runs after the insert and
      // sees its rows); outside one, one after the other (each its own connection).
      const locked = this.db.inTx()
        ? (await allOf([this.repo.createAccounts(full), this.repo.lockAccountsByKey(full)]))[1]
        : await this.repo.createAccounts(full).then(() => this.repo.lockAccountsByKey(full));
      found = new Map(locked.map((a) => [key(a), a]));
    }
    return wanted.map((w) => found.get(w)!);
  }

  /** Available wallet balance: posted credits − posted debits − pending debits. */
  static available(a: Account | undefined): number {
    return a ? a.credits_posted - a.debits_posted - a.debits_pending : 0;
  }

  async walletOf(userId: number, currency: string, agent = DEFAULT_AGENT) {
    const accounts = await this.repo.userAccounts(String(userId), currency, agent);
    const wallet = accounts.find((a) => a.kind === 'wallet');
    const hold = accounts.find((a) => a.kind === 'deposit_hold');
    return { balance: LedgerService.available(wallet), held: hold ? hold.credits_pending : 0 };
  }

  /**
   * One wallet per currency × agent the user has an account in; the primary currency with the default agent
   * always (maybe empty).
   */
  async wallets(userId: number, primary: string) {
    const accounts = await this.repo.userAccounts(String(userId));
    const keys = [`${primary}|${DEFAULT_AGENT}`, ...accounts.map((a) => `${a.currency}|${a.agent_id}`)];
    return [...new Set(keys)].map((k) => {
      const [currency, agent] = k.split('|') as [string, string];
      const of = (kind: string) =>
        accounts.find((a) => a.currency === currency && a.agent_id === agent && a.kind === kind);
      const hold = of('deposit_hold');
      return { currency, agent, balance: LedgerService.available(of('wallet')), held: hold ? hold.credits_pending : 0 };
    });
  }

  transfer(input: TransferInput & { pending?: boolean }): Promise<string> {
    return this.atomic(() => this.move(input));
  }

  private async move(input: TransferInput & { pending?: boolean }): Promise<string> {
    if (!Number.isSafeInteger(input.amount) || input.amount <= 0) throw new RangeError('transfer amount must be > 0');
    if (input.debit.currency !== input.credit.currency) throw new RangeError('transfer across currencies');
    const debit = input.locked
      ? input.debit
      : (await this.repo.lockAccounts([input.debit.id, input.credit.id])).get(Number(input.debit.id))!;
    if (input.mustNotOverdraw && LedgerService.available(debit) < input.amount) {
      throw refused('error.insufficientBalance');
    }
    const id = input.id ?? uuid();
    const pending = input.pending === true;
    await this.repo.insertTransferMoving(
      {
        id,
        debit_account_id: input.debit.id,
        credit_account_id: input.credit.id,
        amount: input.amount,
        currency: input.debit.currency,
        flag: pending ? 'pending' : 'posted',
        pending_id: null,
        code: input.code,
        order_id: input.orderId ?? null,
        created_at: input.at,
      },
      pending ? 'debits_pending' : 'debits_posted',
      pending ? 'credits_pending' : 'credits_posted',
    );
    return id;
  }

  /** Posts a pending transfer for `amount` (≤ the pending amount); the remainder is released. */
  postPending(pendingId: string, amount: number, at: Date): Promise<string> {
    return this.atomic(() => this.post(pendingId, amount, at));
  }

  private async post(pendingId: string, amount: number, at: Date): Promise<string> {
    const p = await this.pendingOpen(pendingId);
    if (!Number.isSafeInteger(amount) || amount <= 0 || amount > p.amount) throw new RangeError('bad post amount');
    await this.repo.lockAccounts([p.debit_account_id, p.credit_account_id]);
    const id = uuid();
    await this.repo.insertTransfer({ ...p, id, amount, flag: 'post_pending', pending_id: p.id, created_at: at });
    await this.repo.bump(p.debit_account_id, 'debits_pending', -p.amount);
    await this.repo.bump(p.credit_account_id, 'credits_pending', -p.amount);
    await this.repo.bump(p.debit_account_id, 'debits_posted', amount);
    await this.repo.bump(p.credit_account_id, 'credits_posted', amount);
    return id;
  }

  voidPending(pendingId: string, at: Date): Promise<string> {
    return this.atomic(() => this.void(pendingId, at));
  }

  private async void(pendingId: string, at: Date): Promise<string> {
    const p = await this.pendingOpen(pendingId);
    await this.repo.lockAccounts([p.debit_account_id, p.credit_account_id]);
    const id = uuid();
    await this.repo.insertTransfer({ ...p, id, flag: 'void_pending', pending_id: p.id, created_at: at });
    await this.repo.bump(p.debit_account_id, 'debits_pending', -p.amount);
    await this.repo.bump(p.credit_account_id, 'credits_pending', -p.amount);
    return id;
  }

  /** Whether a pending transfer is still open (neither posted nor voided). */
  async isPendingOpen(pendingId: string): Promise<boolean> {
    const p = await this.repo.findTransfer(pendingId);
    return p?.flag === 'pending' && !(await this.repo.findResolution(pendingId));
  }

  private async pendingOpen(pendingId: string) {
    const p = await this.repo.findTransfer(pendingId);
    if (!p || p.flag !== 'pending') throw new Error(`no pending transfer ${pendingId}`);
    if (await this.repo.findResolution(pendingId)) throw new AppError(409, 'error.conflict');
    return { ...p, debit_account_id: Number(p.debit_account_id), credit_account_id: Number(p.credit_account_id) };
  }

  audit() {
    return this.repo.audit();
  }

  /** Currencies in which the user has a wallet account. */
  walletCurrencies(userId: number) {
    return this.repo.walletCurrencies(String(userId));
  }

  /** Whether the user has any open hold (a deposit or a withdrawal waiting for its outcome). */
  async hasOpenHold(userId: number) {
    return (await this.repo.openHoldCount(String(userId))) > 0;
  }

  /** Of these orders, those whose top-up went into a wallet of `agent`. */
  toppedUpOrders(orderIds: string[], agent: string) {
    return this.repo.toppedUpOrders(orderIds, agent);
  }

  /** A page of movements of the user's wallets, newest first. */
  walletMovements(userId: number, f: { currency: string | null; agent: string | null; limit: number; offset: number }) {
    return this.repo.walletMovements(String(userId), f);
  }
}
