// The Stripe test server's balance (fake-stripe.ts): a balance transaction for every charge captured (type
// "charge", the fee Stripe takes: 2.9 % + 30 minor units, rounded) and every refund (type "refund", negative, no fee),
// listed as Stripe's API reference describes GET /v1/balance_transactions: newest first, created[gte] / created[lt],
// limit (1 to 100), starting_after (the cursor of the next page) with has_more, and expand[]=data.source (the charge
// or refund object, with its payment_intent). Tests alter or drop a transaction to make a settlement disagree.

type Obj = Record<string, unknown> & { id: string; object: string };

export class FakeBalance {
  private readonly txs = new Map<string, Obj[]>();
  private seq = 0;
  /** The most a page holds whatever `limit` asks (a client must follow has_more). */
  maxPage = 100;

  private of(account: string) {
    let l = this.txs.get(account);
    if (!l) this.txs.set(account, (l = []));
    return l;
  }

  /** Stripe's fee for a charge of `amount` (minor units). */
  static fee(amount: number) {
    return Math.round(amount * 0.029) + 30;
  }

  /** Money captured on `charge` (its id) or given back by `refund`: one balance transaction. */
  record(account: string, source: Obj, amount: number, created: number) {
    const charge = source.object === 'charge';
    const fee = charge ? FakeBalance.fee(amount) : 0;
    const tx: Obj = {
      id: `txn_${(++this.seq).toString(36).padStart(6, '0')}`,
      object: 'balance_transaction',
      amount: charge ? amount : -amount,
      fee,
      net: (charge ? amount : -amount) - fee,
      currency: source.currency,
      created,
      available_on: created + 2 * 86_400,
      type: charge ? 'charge' : 'refund',
      reporting_category: charge ? 'charge' : 'refund',
      source: source.id,
      status: 'pending',
    };
    this.of(account).push(tx);
    source.balance_transaction = tx.id;
    return tx;
  }

  /** A transaction as the provider's books have it now (tests: an amount that differs). */
  alter(account: string, source: string, change: Partial<{ amount: number; fee: number }>) {
    const tx = this.of(account).find((t) => t.source === source);
    if (!tx) throw new Error(`no balance transaction of ${source}`);
    Object.assign(tx, change);
  }

  /** A transaction the provider's books lost (tests: missing at the provider). */
  drop(account: string, source: string) {
    const l = this.of(account);
    const at = l.findIndex((t) => t.source === source);
    if (at < 0) throw new Error(`no balance transaction of ${source}`);
    l.splice(at, 1);
  }

  /** GET /v1/balance_transactions. */
  list(account: string, p: Record<string, unknown>, objects: Map<string, Obj>) {
    const created = (p.created ?? {}) as Record<string, string>;
    const limit = Math.min(Number(p.limit ?? 10), 100, this.maxPage);
    if (!Number.isInteger(limit) || limit < 1) throw new Error('limit');
    let all = [...this.of(account)]
      .reverse()
      .filter(
        (t) =>
          (created.gte === undefined || Number(t.created) >= Number(created.gte)) &&
          (created.lt === undefined || Number(t.created) < Number(created.lt)),
      );
    if (p.starting_after) all = all.slice(all.findIndex((t) => t.id === p.starting_after) + 1);
    const page = all.slice(0, limit);
    const expand = ((p.expand as string[] | undefined) ?? []).includes('data.source');
    return {
      object: 'list',
      url: '/v1/balance_transactions',
      has_more: all.length > limit,
      data: page.map((t) => (expand ? { ...t, source: objects.get(String(t.source)) ?? t.source } : t)),
    };
  }
}
