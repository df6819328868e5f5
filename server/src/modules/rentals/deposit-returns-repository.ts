// deposit_returns (owned by rentals): what became of a cancelled rental's deposit top-up (deposit-returns.ts).
import type { Queryable } from '../../db/db.ts';
import type { DepositReturnRow, DepositReturnState } from './deposit-returns.ts';

export class DepositReturnsRepository {
  constructor(private readonly db: Queryable) {}

  async insert(r: Omit<DepositReturnRow, 'refunded_amount'>, at: Date) {
    await this.db.query(
      `insert into deposit_returns (order_id, user_id, payment_id, amount, currency, state, at, job_id, created_at)
       values ($1, $2, $3, $4, $5, $6, $7, $8, $9) on conflict (order_id) do nothing`,
      [r.order_id, r.user_id, r.payment_id, r.amount, r.currency, r.state, r.at, r.job_id, at],
    );
  }

  async find(orderId: string, opts: { lock?: boolean } = {}) {
    const { rows } = await this.db.query<DepositReturnRow>(
      `select * from deposit_returns where order_id = $1${opts.lock ? ' for update' : ''}`,
      [orderId],
    );
    const r = rows[0];
    return (
      r && {
        ...r,
        amount: Number(r.amount),
        refunded_amount: Number(r.refunded_amount),
        user_id: Number(r.user_id),
        job_id: r.job_id == null ? null : Number(r.job_id),
      }
    );
  }

  async settle(orderId: string, state: DepositReturnState, refunded: number, at: Date) {
    await this.db.query(
      `update deposit_returns set state = $2, refunded_amount = $3, at = $4 where order_id = $1 and state = 'scheduled'`,
      [orderId, state, refunded, at],
    );
  }
}
