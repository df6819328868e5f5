// The payments module owns payments, payment_starts, payment_transitions, payment_customers and provider_events (webhook
// deliveries, one row per event id), and the sandbox acquirer's tables (sandbox_*: the state of the provider the sandbox
// models), whose repository is sandbox-repository.ts.
import type { Queryable } from '../../db/db.ts';

export { SandboxAcquirerRepository } from './sandbox-repository.ts';

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
  payment_method_ref?: string | null;
  customer_ref?: string | null;
  capture_before?: Date | null;
  refunded_amount?: number;
  card_brand?: string | null;
  card_last4?: string | null;
  created_at?: Date;
}

export class PaymentsRepository {
  constructor(private readonly db: Queryable) {}

  async insert(p: PaymentRow & { card_brand: string | null; card_last4: string | null; at: Date }) {
    // The payment and its first transition: one statement.
    await this.db.query(
      `with p as (
         insert into payments (id, provider, provider_ref, user_id, order_id, purpose, amount, currency, status, captured_amount,
           failure_code, card_brand, card_last4, created_at, updated_at, payment_method_ref, customer_ref, capture_before)
         values ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,$13,$14,$14,$15,$16,$17) returning id)
       insert into payment_transitions (payment_id, from_status, to_status, amount, at) select id, null, $9, $7, $14 from p`,
      [
        p.id,
        p.provider,
        p.provider_ref,
        p.user_id,
        p.order_id,
        p.purpose,
        p.amount,
        p.currency,
        p.status,
        p.captured_amount,
        p.failure_code,
        p.card_brand,
        p.card_last4,
        p.at,
        p.payment_method_ref ?? null,
        p.customer_ref ?? null,
        p.capture_before ?? null,
      ],
      { name: 'payments.insert' },
    );
  }

  async find(id: string) {
    const { rows } = await this.db.query<PaymentRow>('select * from payments where id = $1', [id]);
    return rows[0];
  }

  /** Compare-and-set on the status; returns false when someone else moved it first. */
  async setStatus(id: string, from: string, to: string, captured: number | null, at: Date) {
    const res = await this.db.query(
      `update payments set status = $3, captured_amount = coalesce($4, captured_amount), updated_at = $5
        where id = $1 and status = $2`,
      [id, from, to, captured, at],
    );
    if (res.rowCount === 1) await this.logTransition(id, from, to, captured, at);
    return res.rowCount === 1;
  }

  /**
   * Adds a refund to a captured payment (moving it to refunded once all is given back); false when it exceeds, or
   * when the refund of idempotency `key` was added already (a second process that made the same provider call).
   */
  async addRefund(id: string, amount: number, at: Date, key?: string) {
    const refundable = `status in ('captured','partially_captured') and refunded_amount + $2 <= captured_amount`;
    const res =
      key === undefined
        ? await this.db.query<{ status: string }>(
            `update payments set refunded_amount = refunded_amount + $2, updated_at = $3,
                status = case when refunded_amount + $2 >= captured_amount then 'refunded' else status end
          where id = $1 and ${refundable} returning status`,
            [id, amount, at],
          )
        : // The key is taken in the same statement; a concurrent one with the same key waits on it, then adds nothing.
          await this.db.query<{ status: string }>(
            `with k as (
           insert into payment_refund_keys (payment_id, key, amount, at)
           select $1, $4, $2, $3 where exists (select 1 from payments where id = $1 and ${refundable})
           on conflict do nothing returning 1
         )
         update payments set refunded_amount = refunded_amount + $2, updated_at = $3,
                status = case when refunded_amount + $2 >= captured_amount then 'refunded' else status end
          where id = $1 and ${refundable} and exists (select 1 from k) returning status`,
            [id, amount, at, key],
          );
    if (res.rowCount === 1) await this.logTransition(id, null, `refund:${res.rows[0]!.status}`, amount, at);
    return res.rowCount === 1;
  }

  /** Which of `keys` are recorded as refunds of the payment. */
  async refundKeys(paymentId: string, keys: string[]): Promise<Set<string>> {
    if (!keys.length) return new Set();
    const { rows } = await this.db.query<{ key: string }>(
      'select key from payment_refund_keys where payment_id = $1 and key = any($2::text[])',
      [paymentId, keys],
    );
    return new Set(rows.map((r) => r.key));
  }

  /** The payments of an order, oldest first (its money timeline). */
  async ofOrder(orderId: string) {
    const { rows } = await this.db.query<PaymentRow & { created_at: Date }>(
      'select * from payments where order_id = $1 order by created_at',
      [orderId],
    );
    return rows;
  }

  /** Every status change of an order's payments, in order. */
  async transitionsOfOrder(orderId: string) {
    const { rows } = await this.db.query<{
      payment_id: string;
      purpose: string;
      from_status: string | null;
      to_status: string;
      amount: number | null;
      at: Date;
      currency: string;
    }>(
      `select t.payment_id, p.purpose, t.from_status, t.to_status, t.amount, t.at, p.currency from payment_transitions t
         join payments p on p.id = t.payment_id where p.order_id = $1 order by t.at, t.id`,
      [orderId],
    );
    return rows;
  }

  /**
   * The payment row that decides a provider charge's fate, if any: one a flow took (anything but a plain decline,
   * which holds nothing) or one its guard released while the customer had not finished it (declined `abandoned`).
   */
  async takenOrReleased(provider: string, ref: string) {
    const { rows } = await this.db.query<PaymentRow>(
      `select * from payments where provider = $1 and provider_ref = $2 and (status <> 'declined' or failure_code = 'abandoned')
        order by created_at desc limit 1`,
      [provider, ref],
    );
    return rows[0];
  }

  /** Our payment of a provider object. */
  async byRef(provider: string, ref: string) {
    const { rows } = await this.db.query<PaymentRow>(
      'select * from payments where provider = $1 and provider_ref = $2 order by created_at desc limit 1',
      [provider, ref],
    );
    return rows[0];
  }

  async customer(provider: string, userId: number) {
    const { rows } = await this.db.query<{ customer_ref: string }>(
      'select customer_ref from payment_customers where provider = $1 and user_id = $2',
      [provider, userId],
    );
    return rows[0]?.customer_ref;
  }

  /** Stores the user's customer at the provider; the first one stored wins (returned). */
  async saveCustomer(provider: string, userId: number, ref: string) {
    await this.db.query(
      'insert into payment_customers (provider, user_id, customer_ref) values ($1,$2,$3) on conflict do nothing',
      [provider, userId, ref],
    );
    return (await this.customer(provider, userId))!;
  }

  private async logTransition(id: string, from: string | null, to: string, amount: number | null, at: Date) {
    await this.db.query(
      'insert into payment_transitions (payment_id, from_status, to_status, amount, at) values ($1,$2,$3,$4,$5)',
      [id, from, to, amount, at],
    );
  }

  /** The captured wallet top-up of a provider charge, if one was recorded (locked when `lock`). */
  async capturedTopUp(provider: string, ref: string, opts: { lock?: boolean } = {}) {
    const { rows } = await this.db.query<{ order_id: string }>(
      `select order_id from payments where provider = $1 and provider_ref = $2 and purpose = 'wallet_topup' and status = 'captured'
        ${opts.lock ? 'for update' : ''}`,
      [provider, ref],
    );
    return rows[0];
  }

  /** Serialises, for the rest of the unit of work, everything that decides the fate of one provider charge. */
  async lockCharge(provider: string, ref: string) {
    await this.db.query('select pg_advisory_xact_lock(hashtext($1))', [`charge:${provider}:${ref}`]);
  }

  /** Whether this provider charge was recorded as a refunded top-up (a replay must never credit it). */
  async isRefundedTopUp(provider: string, ref: string) {
    const { rows } = await this.db.query(
      `select 1 from payments where provider = $1 and provider_ref = $2 and purpose = 'wallet_topup' and status = 'refunded'`,
      [provider, ref],
    );
    return rows.length > 0;
  }

  /** The captured top-ups of a user in a currency, locked: a withdrawal checks what is left of them under this lock. */
  async lockCapturedTopUps(userId: number, currency: string) {
    await this.db.query(
      `select id from payments where user_id = $1 and currency = $2 and purpose = 'wallet_topup' and status = 'captured' for update`,
      [userId, currency],
    );
  }

  /** The captured top-up made as this order's deposit (a rental paid by top-up), if any. */
  async depositTopUpOf(orderId: string) {
    const { rows } = await this.db.query<{
      id: string;
      provider: string;
      captured_amount: number;
      refunded_amount: number;
      currency: string;
    }>(
      `select id, provider, captured_amount, refunded_amount, currency from payments
        where order_id = $1 and purpose = 'deposit_topup' and status in ('captured', 'partially_captured')`,
      [orderId],
    );
    return rows[0];
  }

  /** The user's captured card top-ups in `currency`, newest first. */
  async capturedTopUps(userId: number, currency: string) {
    const { rows } = await this.db.query<{
      id: string;
      provider: string;
      provider_ref: string;
      order_id: string;
      captured_amount: number;
    }>(
      `select id, provider, provider_ref, order_id, captured_amount from payments
        where user_id = $1 and currency = $2 and purpose = 'wallet_topup' and status = 'captured'
        order by created_at desc`,
      [userId, currency],
    );
    return rows;
  }

  /** What a payment waiting for its customer was started for (the first start of a provider payment is kept). */
  async insertStart(s: {
    provider: string;
    ref: string;
    userId: number;
    purpose: string;
    amount: number;
    currency: string;
    orderId?: string;
    at: Date;
  }) {
    await this.db.query(
      `insert into payment_starts (provider, provider_ref, user_id, purpose, amount, currency, order_id, created_at)
       values ($1,$2,$3,$4,$5,$6,$7,$8) on conflict do nothing`,
      [s.provider, s.ref, s.userId, s.purpose, s.amount, s.currency, s.orderId ?? null, s.at],
      { name: 'payments.insertStart' },
    );
  }

  /** Every record of what a provider payment is for: its start, and the payment rows of it (one round trip). */
  async claimsOf(provider: string, ref: string) {
    const { rows } = await this.db.query<{
      user_id: number;
      purpose: string;
      amount: number;
      currency: string;
      order_id: string | null;
    }>(
      `select user_id, purpose, amount, currency, order_id from payment_starts where provider = $1 and provider_ref = $2
       union all
       select user_id, purpose, amount, currency, order_id from payments where provider = $1 and provider_ref = $2`,
      [provider, ref],
      { name: 'payments.claimsOf' },
    );
    return rows;
  }

  /** Stores a provider event once per event id; false when it was stored before (a redelivery). */
  async recordProviderEvent(e: { id: string; provider: string; type: string; payload: unknown; at: Date }) {
    const ins = await this.db.query(
      `insert into provider_events (id, provider, type, payload, received_at) values ($1,$2,$3,$4,$5) on conflict (id) do nothing`,
      [e.id, e.provider, e.type, JSON.stringify(e.payload), e.at],
    );
    return ins.rowCount === 1;
  }
}
