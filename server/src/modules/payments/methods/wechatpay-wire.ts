// WeChat Pay's (API v3) wire: fen amounts, refund numbers, China time, keys, the transaction and service-order
// states, header reads (wechatpay.ts is the adapter).
import { currencyScale } from '#core/money.ts';
import { createHash, randomBytes } from 'node:crypto';
import { ProviderError, type ExternalState, type NotificationRequest } from './adapter.ts';

export const DEFAULT_BASE = 'https://api.mch.weixin.qq.com';
export const SCORE = 'score:';
/** Notifications and answers older or newer than this are refused (WeChat's recommendation: 5 minutes). */
export const MAX_SKEW_S = 300;
export const ACK = {
  status: 200,
  contentType: 'application/json',
  body: JSON.stringify({ code: 'SUCCESS', message: '成功' }),
};

export interface Transaction {
  out_trade_no: string;
  transaction_id?: string;
  trade_state: string;
  trade_state_desc?: string;
  amount?: { total?: number; payer_total?: number; currency?: string };
}

export interface ServiceOrder {
  out_order_no: string;
  state: string;
  state_description?: string;
  total_amount?: number;
  risk_fund?: { name: string; amount: number };
  collection?: {
    state?: string;
    total_amount?: number;
    paid_amount?: number;
    details?: { seq?: number; amount: number; transaction_id?: string }[];
  };
}

export interface Refund {
  refund_id: string;
  out_refund_no: string;
  status: string;
}

/** Integer minor units → fen; WeChat Pay's JSAPI and pay score take CNY only. */
export function toFen(amount: number, currency: string): number {
  if (currency.toUpperCase() !== 'CNY')
    throw new ProviderError('currency_not_supported', `WeChat Pay takes CNY, not ${currency}`, 400);
  const exp = currencyScale(currency);
  const fen = Math.round(amount * 10 ** (2 - exp));
  if (!Number.isInteger(amount) || fen < 1)
    throw new ProviderError('invalid_amount', `amount must be a positive integer of minor units: ${amount}`, 400);
  return fen;
}

/** out_refund_no: 1–64 of [0-9A-Za-z_-|*@]; a key outside that is hashed (stable, so a retry reuses it). */
export function refundNo(key: string, part = 0): string {
  const base = /^[0-9A-Za-z_\-|*@]{1,60}$/.test(key)
    ? key
    : createHash('sha256').update(key).digest('hex').slice(0, 40);
  return part === 0 ? base : `${base}-${part}`;
}

export const nonce = () => randomBytes(16).toString('hex').toUpperCase();

/** yyyyMMddHHmmss in China Standard Time (UTC+8), the pay-score time format. */
export function cst(d: Date): string {
  const t = new Date(d.getTime() + 8 * 3_600_000).toISOString();
  return t.slice(0, 19).replace(/[-T:]/g, '');
}

/** PEM from an env variable may carry literal "\n". */
export const pem = (s: string) => s.replace(/\\n/g, '\n');

export function tradeState(t: Transaction): { state: ExternalState; failureCode?: string } {
  switch (t.trade_state) {
    case 'SUCCESS':
    case 'REFUND':
      return { state: 'paid' };
    case 'CLOSED':
    case 'REVOKED':
      return { state: 'cancelled' };
    case 'PAYERROR':
      return {
        state: 'failed',
        failureCode: /余额不足|insufficient/i.test(t.trade_state_desc ?? '') ? 'insufficient_funds' : 'declined',
      };
    default: // NOTPAY, USERPAYING, ACCEPT
      return { state: 'pending' };
  }
}

export function scoreState(o: ServiceOrder): ExternalState {
  switch (o.state) {
    case 'CREATED':
      return 'pending';
    case 'DOING':
      // The user confirmed (the deposit is waived against their score); after MCH_COMPLETE WeChat is collecting.
      return 'authorized';
    case 'DONE':
      return 'paid';
    default: // REVOKED, EXPIRED
      return 'cancelled';
  }
}

export function header(h: NotificationRequest['headers'], name: string): string | undefined {
  const v =
    h[name] ?? h[name.toLowerCase()] ?? Object.entries(h).find(([k]) => k.toLowerCase() === name.toLowerCase())?.[1];
  return Array.isArray(v) ? v[0] : v;
}
