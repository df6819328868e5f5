// The SQL of the payment methods beyond the card provider: external_payments (our side of a payment the
// customer finishes at the provider), external_method_tokens (the payer's details, single-use) and the sandbox's
// model of such a provider (sandbox_method_payments).
import type { Queryable } from '../../../db/db.ts';
import type { Action, ExternalState } from './adapter.ts';
import type { SealedCard } from './card-seal.ts';

export interface ExternalRow {
  out_trade_no: string;
  provider: string;
  pay_type: string;
  provider_ref: string;
  user_id: number;
  amount: number;
  currency: string;
  capture: 'manual' | 'automatic';
  state: ExternalState;
  failure_code: string | null;
  action: Action;
  app_return_url: string | null;
  return_params: Record<string, string> | null;
  /** The payer asked to save the card (saveCardFlag): saved once the provider reports it paid. */
  save_card?: boolean;
}

export interface PayerDetails {
  phone?: string;
  email?: string;
  openId?: string;
  name?: string;
  /** A card token of the provider's client SDK (MercadoPago, Monri, the sandbox's), never card fields in clear. */
  card?: { token?: string; paymentMethodId?: string; issuerId?: string; installments?: number };
  /** Card fields for a direct card charge (Flutterwave), sealed (card-seal.ts); removed from the row when the token is used. */
  sealedCard?: SealedCard;
  /** WeChat Pay score: the user ticked the entrustment agreement. */
  agreement?: boolean;
  /** saveCardFlag: save the card once paid (a method that saves cards after a payment: Flutterwave). */
  saveCard?: boolean;
  /** The payer's IP address, for a provider that requires it (WeChat Pay H5). */
  ip?: string;
}

export interface SandboxMethodRow {
  ref: string;
  pay_type: string;
  out_trade_no: string;
  amount: number;
  currency: string;
  capture: 'manual' | 'automatic';
  phone: string | null;
  state: ExternalState;
  captured: number;
  refunded: number;
  failure_code: string | null;
  created_at: Date;
  decide_at: Date | null;
}

const num = <T extends { amount: unknown }>(r: T) => ({ ...r, amount: Number(r.amount) });

export class ExternalRepository {
  constructor(private readonly db: Queryable) {}

  async insert(r: ExternalRow, at: Date) {
    const { rowCount } = await this.db.query(
      `insert into external_payments (out_trade_no, provider, pay_type, provider_ref, user_id, amount, currency, capture, state,
         failure_code, action, app_return_url, save_card, created_at, updated_at)
       values ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,$14,$13,$13) on conflict (out_trade_no) do nothing`,
      [
        r.out_trade_no,
        r.provider,
        r.pay_type,
        r.provider_ref,
        r.user_id,
        r.amount,
        r.currency,
        r.capture,
        r.state,
        r.failure_code,
        JSON.stringify(r.action),
        r.app_return_url,
        at,
        r.save_card === true,
      ],
    );
    return rowCount === 1;
  }

  async find(outTradeNo: string, opts: { lock?: boolean } = {}) {
    const { rows } = await this.db.query<ExternalRow>(
      `select * from external_payments where out_trade_no = $1${opts.lock ? ' for update' : ''}`,
      [outTradeNo],
    );
    return rows[0] ? num(rows[0]) : undefined;
  }

  async byProviderRef(provider: string, ref: string) {
    const { rows } = await this.db.query<ExternalRow>(
      'select * from external_payments where provider = $1 and provider_ref = $2',
      [provider, ref],
    );
    return rows[0] ? num(rows[0]) : undefined;
  }

  /** Moves the state (and the provider's ref, which may change as the payment moves); never out of a final state but `authorized`. Whether it moved. */
  async update(outTradeNo: string, s: { state: ExternalState; ref: string; failureCode?: string | null }, at: Date) {
    const { rowCount } = await this.db.query(
      `update external_payments set state = $2, provider_ref = $3, failure_code = $4, updated_at = $5
        where out_trade_no = $1 and state in ('pending', 'authorized')`,
      [outTradeNo, s.state, s.ref, s.failureCode ?? null, at],
    );
    return rowCount === 1;
  }

  /** A released payment the customer paid anyway has been given back (refunded or voided). */
  async givenBack(outTradeNo: string, ref: string, failureCode: 'released_refunded' | 'released_voided', at: Date) {
    await this.db.query(
      `update external_payments set provider_ref = $2, failure_code = $3, updated_at = $4
        where out_trade_no = $1 and state = 'cancelled' and failure_code = 'released'`,
      [outTradeNo, ref, failureCode, at],
    );
  }

  async saveReturn(outTradeNo: string, params: Record<string, string>, at: Date) {
    const { rows } = await this.db.query<{ app_return_url: string | null }>(
      'update external_payments set return_params = $2, updated_at = $3 where out_trade_no = $1 returning app_return_url',
      [outTradeNo, JSON.stringify(params), at],
    );
    return rows[0];
  }

  async insertToken(
    t: { id: string; userId: number; provider: string; payType: string; details: PayerDetails; expiresAt?: Date },
    at: Date,
  ) {
    await this.db.query(
      'insert into external_method_tokens (id, user_id, provider, pay_type, details, created_at, expires_at) values ($1,$2,$3,$4,$5,$6,$7)',
      [t.id, t.userId, t.provider, t.payType, JSON.stringify(t.details), at, t.expiresAt ?? null],
    );
  }

  /**
   * Uses a payer token once; undefined when unknown, used, expired, or not this user's and provider's. The details
   * come back as they were; the row keeps them without the sealed card (a used token holds no card data).
   */
  async useToken(id: string, userId: number, provider: string, at: Date) {
    const { rows } = await this.db.query<{ pay_type: string; details: PayerDetails }>(
      `update external_method_tokens t set used_at = $4, details = t.details - 'sealedCard'
         from (select id, details from external_method_tokens where id = $1 for update) old
        where t.id = old.id and t.user_id = $2 and t.provider = $3 and t.used_at is null and (t.expires_at is null or t.expires_at > $4)
       returning t.pay_type, old.details`,
      [id, userId, provider, at],
    );
    return rows[0];
  }

  /** Retention: payer tokens past their expiry (those with a sealed card) go, in batches. */
  async sweepExpiredTokens(before: Date) {
    const { rowCount } = await this.db.query(
      `delete from external_method_tokens where id in (select id from external_method_tokens where expires_at < $1 limit 1000)`,
      [before],
    );
    return rowCount ?? 0;
  }

  // ── The sandbox's provider side ─────────────────────────────────────────────────────────────────────────

  async sandboxInsert(r: Omit<SandboxMethodRow, 'captured' | 'refunded'>) {
    const { rowCount } = await this.db.query(
      `insert into sandbox_method_payments (ref, pay_type, out_trade_no, amount, currency, capture, phone, state, failure_code, created_at, decide_at)
       values ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11) on conflict (out_trade_no) do nothing`,
      [
        r.ref,
        r.pay_type,
        r.out_trade_no,
        r.amount,
        r.currency,
        r.capture,
        r.phone,
        r.state,
        r.failure_code,
        r.created_at,
        r.decide_at,
      ],
    );
    return rowCount === 1;
  }

  async sandboxFind(ref: string, opts: { lock?: boolean } = {}) {
    const { rows } = await this.db.query<SandboxMethodRow>(
      `select * from sandbox_method_payments where ref = $1${opts.lock ? ' for update' : ''}`,
      [ref],
    );
    const r = rows[0];
    return r
      ? { ...r, amount: Number(r.amount), captured: Number(r.captured), refunded: Number(r.refunded) }
      : undefined;
  }

  async sandboxByOut(outTradeNo: string) {
    const { rows } = await this.db.query<{ ref: string }>(
      'select ref from sandbox_method_payments where out_trade_no = $1',
      [outTradeNo],
    );
    return rows[0] ? this.sandboxFind(rows[0].ref) : undefined;
  }

  async sandboxSet(
    ref: string,
    s: { state?: ExternalState; captured?: number; refunded?: number; failureCode?: string | null },
  ) {
    await this.db.query(
      `update sandbox_method_payments set state = coalesce($2, state), captured = coalesce($3, captured),
         refunded = coalesce($4, refunded), failure_code = coalesce($5, failure_code) where ref = $1`,
      [ref, s.state ?? null, s.captured ?? null, s.refunded ?? null, s.failureCode ?? null],
    );
  }
}
