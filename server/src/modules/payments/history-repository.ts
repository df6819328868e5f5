// The support desk's reads of payments: the orders paid with a card (last 4 digits), the provider notifications
// about an order's payments, and whether a refund of an idempotency key is recorded already.
import type { Queryable } from '../../db/db.ts';

export interface ProviderEventRow {
  id: string;
  provider: string;
  type: string;
  received_at: Date;
  payload: unknown;
}

export class PaymentsHistoryRepository {
  constructor(private readonly db: Queryable) {}

  async ordersOfCard(last4: string, limit = 1000): Promise<string[]> {
    const { rows } = await this.db.query<{ order_id: string }>(
      'select distinct order_id from payments where card_last4 = $1 and order_id is not null limit $2',
      [last4, limit],
    );
    return rows.map((r) => r.order_id);
  }

  /** The riders who paid with a card ending in these 4 digits. */
  async usersOfCard(last4: string, limit = 1000): Promise<number[]> {
    const { rows } = await this.db.query<{ user_id: string }>(
      'select distinct user_id from payments where card_last4 = $1 limit $2',
      [last4, limit],
    );
    return rows.map((r) => Number(r.user_id));
  }

  /** Provider notifications naming a payment of the order (by its provider reference). */
  async eventsOfOrder(orderId: string): Promise<ProviderEventRow[]> {
    const { rows } = await this.db.query<ProviderEventRow>(
      `select e.id, e.provider, e.type, e.received_at, e.payload from provider_events e
        where exists (select 1 from payments p where p.order_id = $1 and p.provider = e.provider and p.provider_ref is not null
                        and p.provider_ref in (e.payload->'data'->>'ref', e.payload->'data'->>'paymentRef'))
        order by e.received_at, e.id limit 200`,
      [orderId],
    );
    return rows;
  }

  async refundRecorded(paymentId: string, key: string): Promise<boolean> {
    const { rows } = await this.db.query('select 1 from payment_refund_keys where payment_id = $1 and key = $2', [
      paymentId,
      key,
    ]);
    return rows.length > 0;
  }
}
