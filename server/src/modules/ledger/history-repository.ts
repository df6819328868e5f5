// The ledger entries of one order (the support desk's timeline and its refund limits), with each side's account.
import type { Queryable } from '../../db/db.ts';

export interface OrderTransferRow {
  id: string;
  amount: number;
  currency: string;
  flag: string;
  code: string;
  created_at: Date;
  debit_owner: string;
  debit_kind: string;
  credit_owner: string;
  credit_kind: string;
}

export class LedgerHistoryRepository {
  constructor(private readonly db: Queryable) {}

  async ofOrder(orderId: string): Promise<OrderTransferRow[]> {
    const { rows } = await this.db.query<OrderTransferRow>(
      `select t.id, t.amount, t.currency, t.flag, t.code, t.created_at,
              d.owner_type || '/' || d.owner_id as debit_owner, d.kind as debit_kind,
              c.owner_type || '/' || c.owner_id as credit_owner, c.kind as credit_kind
         from ledger_transfers t
         join ledger_accounts d on d.id = t.debit_account_id
         join ledger_accounts c on c.id = t.credit_account_id
        where t.order_id = $1 order by t.created_at, t.id`,
      [orderId],
    );
    return rows.map((r) => ({ ...r, amount: Number(r.amount), currency: String(r.currency).trim() }));
  }

  /**
   * The money that moved through a provider's clearing accounts (its shards too) per order and currency: into it
   * (captured: debits posted) and out of it (refunded: credits posted), and the provider fees the ledger recorded.
   * Within [from, to) (`window`), or of every entry of these orders (`orders`).
   */
  async clearingByOrder(provider: string, f: { window: [Date, Date] } | { orders: string[] }) {
    const window = 'window' in f ? f.window : null;
    const { rows } = await this.db.query<{
      order_id: string;
      currency: string;
      charged: string;
      refunded: string;
      fee: string;
    }>(clearingByOrderSql({ provider: '$1', from: '$2::timestamptz', to: '$3::timestamptz', orders: '$4::text[]' }), [
      provider,
      window?.[0] ?? null,
      window?.[1] ?? null,
      'orders' in f ? f.orders : null,
    ]);
    return rows.map((r) => ({
      orderId: r.order_id,
      currency: r.currency.trim(),
      charged: Number(r.charged),
      refunded: Number(r.refunded),
      fee: Number(r.fee),
    }));
  }
}

/**
 * The one query of a provider's clearing per order and currency (LedgerHistoryRepository.clearingByOrder, and the
 * reconciliation's comparison, which embeds it): rows (order_id, currency, charged, refunded, fee). Each argument is
 * an SQL expression: the provider's id, the window's bounds (timestamptz; null: any time) and the orders (text[];
 * null: any order).
 */
export function clearingByOrderSql(a: { provider: string; from: string; to: string; orders: string }): string {
  return `select t.order_id, rtrim(t.currency) as currency,
              coalesce(sum(t.amount) filter (where d.kind = 'clearing' and d.owner_type = 'provider'), 0) as charged,
              coalesce(sum(t.amount) filter (where c.kind = 'clearing' and c.owner_type = 'provider'), 0) as refunded,
              coalesce(sum(t.amount) filter (where c.kind = 'fees' and c.owner_type = 'provider'), 0)
                - coalesce(sum(t.amount) filter (where d.kind = 'fees' and d.owner_type = 'provider'), 0) as fee
         from ledger_transfers t
         join ledger_accounts d on d.id = t.debit_account_id
         join ledger_accounts c on c.id = t.credit_account_id
        where t.order_id is not null and t.flag in ('posted', 'post_pending')
          and ((d.owner_type = 'provider' and (d.owner_id = ${a.provider} or d.owner_id like ${a.provider} || '#%'))
               or (c.owner_type = 'provider' and (c.owner_id = ${a.provider} or c.owner_id like ${a.provider} || '#%')))
          and (${a.from} is null or (t.created_at >= ${a.from} and t.created_at < ${a.to}))
          and (${a.orders} is null or t.order_id = any(${a.orders}))
        group by t.order_id, t.currency`;
}
