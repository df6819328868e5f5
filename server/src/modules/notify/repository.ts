// The notify module owns order_receipts: one row per receipt e-mail sent.
import type { Queryable } from '../../db/db.ts';

export class NotifyRepository {
  constructor(private readonly db: Queryable) {}

  /** The address the order's latest receipt went to. */
  async lastReceiptEmail(orderId: string) {
    const { rows } = await this.db.query<{ email: string }>(
      'select email from order_receipts where order_id = $1 order by sent_at desc limit 1',
      [orderId],
    );
    return rows[0]?.email;
  }

  async recordReceipt(r: { orderId: string; userId: number; email: string; messageId: string; at: Date }) {
    await this.db.query(
      'insert into order_receipts (order_id, user_id, email, message_id, sent_at) values ($1, $2, $3, $4, $5)',
      [r.orderId, r.userId, r.email, r.messageId, r.at],
    );
  }
}
