// The sandbox acquirer's tables (sandbox_*: the state of the provider the sandbox models), owned by the payments
// module like its other tables (repository.ts re-exports this repository).
import type { Queryable } from '../../db/db.ts';
import type { PayoutInput } from './provider.ts';
import type { IntentStatus } from './sandbox.ts';

interface TokenRow {
  id: string;
  brand: string;
  last4: string;
  outcome: string;
  /** credit | debit | prepaid (as the card network reports it). */
  funding: string;
}

export interface IntentRow {
  id: string;
  amount: number;
  amount_captured: number;
  amount_refunded: number;
  status: IntentStatus;
}

/**
 * The sandbox acquirer's own records (sandbox_tokens, sandbox_payment_methods, sandbox_setup_intents,
 * sandbox_intents, sandbox_payouts): the state a real provider keeps on its side, persisted here for test mode.
 */
export class SandboxAcquirerRepository {
  constructor(private readonly db: Queryable) {}

  async insertToken(t: {
    id: string;
    publicKey: string;
    brand: string;
    last4: string;
    expMonth: number;
    expYear: number;
    outcome: string;
    funding: string;
    at: Date;
  }) {
    await this.db.query(
      `insert into sandbox_tokens (id, public_key, brand, last4, exp_month, exp_year, outcome, funding, created_at)
       values ($1,$2,$3,$4,$5,$6,$7,$8,$9)`,
      [t.id, t.publicKey, t.brand, t.last4, t.expMonth, t.expYear, t.outcome, t.funding, t.at],
    );
  }

  /** The intents changed in [from, to), with their totals (the sandbox's settlement records): `limit` after the id `after`. */
  async intentsTouched(from: Date, to: Date, after = '', limit = 500) {
    const { rows } = await this.db.query<{
      id: string;
      currency: string;
      amount_captured: string;
      amount_refunded: string;
    }>(
      'select id, currency, amount_captured, amount_refunded from sandbox_intents where updated_at >= $1 and updated_at < $2 and id > $3 order by id limit $4',
      [from, to, after, limit],
    );
    return rows.map((r) => ({
      id: r.id,
      currency: r.currency.trim(),
      amount_captured: Number(r.amount_captured),
      amount_refunded: Number(r.amount_refunded),
    }));
  }

  /** Marks a single-use card token used; undefined when it is unknown or was used already. */
  async useToken(token: string, at: Date) {
    const { rows } = await this.db.query<TokenRow>(
      'update sandbox_tokens set used_at = $2 where id = $1 and used_at is null returning id, brand, last4, outcome, funding',
      [token, at],
    );
    return rows[0];
  }

  async insertPaymentMethod(id: string, tokenId: string, at: Date) {
    await this.db.query('insert into sandbox_payment_methods (id, token_id, created_at) values ($1,$2,$3)', [
      id,
      tokenId,
      at,
    ]);
  }

  /** The card behind a saved payment method that is still attached. */
  async paymentMethodToken(id: string) {
    const { rows } = await this.db.query<TokenRow>(
      `select t.id, t.brand, t.last4, t.outcome, t.funding from sandbox_payment_methods m join sandbox_tokens t on t.id = m.token_id
        where m.id = $1 and m.detached_at is null`,
      [id],
    );
    return rows[0];
  }

  async detachPaymentMethod(id: string, at: Date) {
    await this.db.query('update sandbox_payment_methods set detached_at = $2 where id = $1 and detached_at is null', [
      id,
      at,
    ]);
  }

  async insertSetupIntent(id: string, clientSecret: string, at: Date) {
    await this.db.query(
      `insert into sandbox_setup_intents (id, client_secret, status, created_at) values ($1,$2,'requires_payment_method',$3)`,
      [id, clientSecret, at],
    );
  }

  async setupIntent(id: string) {
    const { rows } = await this.db.query<{ status: string; client_secret: string; payment_method_id: string | null }>(
      'select status, client_secret, payment_method_id from sandbox_setup_intents where id = $1',
      [id],
    );
    return rows[0];
  }

  async completeSetupIntent(id: string, paymentMethodId: string) {
    await this.db.query(`update sandbox_setup_intents set status = 'succeeded', payment_method_id = $2 where id = $1`, [
      id,
      paymentMethodId,
    ]);
  }

  /**
   * A new intent already confirmed (its outcome as status) and, when the card is kept, its payment method: one
   * statement. False when an intent with this id exists (a replay: nothing is written).
   */
  async insertConfirmedIntent(i: {
    id: string;
    tokenId: string;
    amount: number;
    currency: string;
    capture: string;
    at: Date;
    status: IntentStatus;
    amountCaptured: number;
    declineCode: string | null;
    paymentMethod: string | null;
  }) {
    const { rows } = await this.db.query<{ id: string }>(
      `with i as (
         insert into sandbox_intents (id, token_id, amount, currency, capture_method, status, amount_captured, decline_code, created_at, updated_at)
         values ($1,$2,$3,$4,$5,$6,$7,$8,$9,$9) on conflict (id) do nothing returning id),
       m as (insert into sandbox_payment_methods (id, token_id, created_at) select $10, $2, $9 from i where $10::text is not null)
       select id from i`,
      [
        i.id,
        i.tokenId,
        i.amount,
        i.currency,
        i.capture,
        i.status,
        i.amountCaptured,
        i.declineCode,
        i.at,
        i.paymentMethod,
      ],
      { name: 'sandbox.insertConfirmedIntent' },
    );
    return rows.length === 1;
  }

  /**
   * A single-use card token taken and its intent made, confirmed, in one statement (one commit): the token marked
   * used; its outcome as the intent's status (declined: the card's own outcome, or `debitOnly` when the payment type
   * takes debit cards only and this is not one); the payment method `paymentMethod` kept when it is not declined.
   * Undefined when the token is unknown or used already; `made` false when an intent with this id exists (a replay:
   * only the token is marked used).
   */
  async takeTokenIntoIntent(
    token: string,
    i: { id: string; amount: number; currency: string; capture: string; at: Date; paymentMethod: string | null },
    debitOnly: string | null,
  ) {
    const { rows } = await this.db.query<
      TokenRow & { made: boolean; status: IntentStatus | null; decline_code: string | null }
    >(
      `with t as (
         update sandbox_tokens set used_at = $6::timestamptz where id = $1::text and used_at is null
         returning id, brand, last4, outcome, funding,
           case when $8::text is not null and funding <> 'debit' then $8::text
                when outcome <> 'ok' then outcome end as declined),
       i as (
         insert into sandbox_intents (id, token_id, amount, currency, capture_method, status, amount_captured, decline_code, created_at, updated_at)
         select $2::text, t.id, $3::bigint, $4::text, $5::text,
           case when t.declined is not null then 'declined' when $5::text = 'manual' then 'authorized' else 'captured' end,
           case when t.declined is null and $5::text <> 'manual' then $3::bigint else 0 end, t.declined, $6, $6
         from t on conflict (id) do nothing returning id, status, decline_code),
       m as (insert into sandbox_payment_methods (id, token_id, created_at)
         select $7::text, $1, $6 from i where $7::text is not null and i.decline_code is null)
       select t.id, t.brand, t.last4, t.outcome, t.funding, i.id is not null as made, i.status, i.decline_code
         from t left join i on true`,
      [token, i.id, i.amount, i.currency, i.capture, i.at, i.paymentMethod, debitOnly],
      { name: 'sandbox.takeTokenIntoIntent' },
    );
    return rows[0];
  }

  async intent(id: string) {
    const { rows } = await this.db.query<IntentRow>(
      'select id, amount, amount_captured, amount_refunded, status from sandbox_intents where id = $1',
      [id],
    );
    return (
      rows[0] && {
        ...rows[0],
        amount: Number(rows[0].amount),
        amount_captured: Number(rows[0].amount_captured),
        amount_refunded: Number(rows[0].amount_refunded),
      }
    );
  }

  /** Whether the refund of idempotency `key` was made already. */
  async refundMade(id: string, key: string) {
    return (
      (await this.db.query('select 1 from sandbox_refunds where intent_id = $1 and idempotency_key = $2', [id, key]))
        .rows.length > 0
    );
  }

  /** A refund of `amount` on top of `before` already refunded (compare-and-set); false when another call came first. */
  async addRefund(id: string, key: string, amount: number, before: number, at: Date) {
    const { rows } = await this.db.query(
      `with u as (update sandbox_intents set amount_refunded = amount_refunded + $3, status = 'refunded', updated_at = $5
                   where id = $1 and amount_refunded = $4 and amount_refunded + $3 <= amount_captured returning id)
       insert into sandbox_refunds (intent_id, idempotency_key, amount, created_at) select id, $2, $3, $5 from u returning intent_id`,
      [id, key, amount, before, at],
    );
    return rows.length === 1;
  }

  /** An intent with the card it was made with (an idempotent replay answers from it). */
  async intentWithCard(id: string) {
    const { rows } = await this.db.query<{
      id: string;
      status: IntentStatus;
      decline_code: string | null;
      brand: string;
      last4: string;
    }>(
      `select i.id, i.status, i.decline_code, t.brand, t.last4 from sandbox_intents i join sandbox_tokens t on t.id = i.token_id
        where i.id = $1`,
      [id],
    );
    return rows[0];
  }

  /** Compare-and-set of an intent's status (with extra columns); false when another call moved it first. */
  async moveIntent(id: string, from: IntentStatus, to: IntentStatus, extra: Record<string, string | number>, at: Date) {
    const cols = Object.keys(extra);
    if (cols.some((c) => !/^[a-z_]+$/.test(c))) throw new Error('bad column name');
    const sets = cols.map((c, n) => `${c} = $${n + 5}`).join(', ');
    const res = await this.db.query(
      `update sandbox_intents set status = $2, updated_at = $3${sets ? `, ${sets}` : ''} where id = $1 and status = $4`,
      [id, to, at, from, ...cols.map((c) => extra[c])],
    );
    return res.rowCount === 1;
  }

  /** A payout, once per id (the idempotency key): false when it existed already. */
  async insertPayout(id: string, amount: number, currency: string, destination: PayoutInput['destination'], at: Date) {
    const ins = await this.db.query(
      `insert into sandbox_payouts (id, amount, currency, destination, status, created_at, updated_at)
       values ($1,$2,$3,$4,'in_transit',$5,$5) on conflict (id) do nothing`,
      [id, amount, currency, JSON.stringify(destination), at],
    );
    return ins.rowCount === 1;
  }

  async payout(id: string) {
    const { rows } = await this.db.query<{
      destination: PayoutInput['destination'] | string;
      status: string;
      failure_code: string | null;
    }>('select destination, status, failure_code from sandbox_payouts where id = $1', [id]);
    return rows[0];
  }

  async settlePayout(id: string, status: 'paid' | 'failed', failureCode: string | null, at: Date) {
    await this.db.query(
      `update sandbox_payouts set status = $2, failure_code = $3, updated_at = $4 where id = $1 and status = 'in_transit'`,
      [id, status, failureCode, at],
    );
  }
}
