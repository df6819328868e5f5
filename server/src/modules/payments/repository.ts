import type { Queryable } from '../../db/db.ts';

export interface PaymentRow {
  id: string;
  provider: string;
  provider_ref: string | null;
  user_id: number;
  order_id: string | null;
  purpose: string;
  amount: number;
  currency: string;
  status: string;
  captured_amount: number;
  failure_code: string | null;
}

export class PaymentsRepository {
  constructor(private readonly db: Queryable) {}

  async insert(p: PaymentRow & { card_brand: string | null; card_last4: string | null; at: Date }, q: Queryable = this.db) {
    await q.query(
      `insert into payments (id, provider, provider_ref, user_id, order_id, purpose, amount, currency, status, captured_amount,
         failure_code, card_brand, card_last4, created_at, updated_at)
       values ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,$13,$14,$14)`,
      [p.id, p.provider, p.provider_ref, p.user_id, p.order_id, p.purpose, p.amount, p.currency, p.status, p.captured_amount,
        p.failure_code, p.card_brand, p.card_last4, p.at],
    );
    await this.logTransition(p.id, null, p.status, p.amount, p.at, q);
  }

  async find(id: string, q: Queryable = this.db) {
    const { rows } = await q.query<PaymentRow>('select * from payments where id = $1', [id]);
    return rows[0];
  }

  async forOrder(orderId: string, q: Queryable = this.db) {
    const { rows } = await q.query<PaymentRow>('select * from payments where order_id = $1 order by created_at', [orderId]);
    return rows;
  }

  /** Compare-and-set on the status; returns false when someone else moved it first. */
  async setStatus(id: string, from: string, to: string, captured: number | null, at: Date, q: Queryable = this.db) {
    const res = await q.query(
      `update payments set status = $3, captured_amount = coalesce($4, captured_amount), updated_at = $5
        where id = $1 and status = $2`,
      [id, from, to, captured, at],
    );
    if (res.rowCount === 1) await this.logTransition(id, from, to, captured, at, q);
    return res.rowCount === 1;
  }

  private async logTransition(id: string, from: string | null, to: string, amount: number | null, at: Date, q: Queryable) {
    await q.query('insert into payment_transitions (payment_id, from_status, to_status, amount, at) values ($1,$2,$3,$4,$5)', [
      id, from, to, amount, at,
    ]);
  }
}
