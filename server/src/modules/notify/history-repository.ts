// The messages sent to a rider about one order (the support desk's timeline): receipts by e-mail.
import type { Queryable } from '../../db/db.ts';

export class NotifyHistoryRepository {
  constructor(private readonly db: Queryable) {}

  async ofOrder(orderId: string) {
    const { rows } = await this.db.query<{ email: string; message_id: string; sent_at: Date }>(
      'select email, message_id, sent_at from order_receipts where order_id = $1 order by sent_at, id',
      [orderId],
    );
    return rows;
  }
}
