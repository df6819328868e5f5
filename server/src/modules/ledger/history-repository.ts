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
}
