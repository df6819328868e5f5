// Alipay's wire: yuan amounts, China time, RSA2 signing of the sorted parameters, the raw JSON value a signature
// covers, request numbers and trade states (alipay.ts is the adapter).
import { currencyScale } from '#core/money.ts';
import { createHash, createSign, createVerify } from 'node:crypto';
import type { ExternalState } from './adapter.ts';
import { ProviderError } from './adapter.ts';

export const ALIPAY_GATEWAY = 'https://openapi.alipay.com/gateway.do';
export const HOLD = 'auth:';
/** A WAP payment's ref prefix (then our out_trade_no). */
export const WAP = 'wap:';

/** Integer minor units → Alipay's yuan string with the currency's decimals ("12.50"). */
export function toYuan(amount: number, currency: string): string {
  if (!Number.isInteger(amount) || amount < 0)
    throw new ProviderError('invalid_amount', `amount must be a non-negative integer, got ${amount}`, 400);
  const exp = currencyScale(currency);
  if (exp === 0) return String(amount);
  const s = String(amount).padStart(exp + 1, '0');
  return `${s.slice(0, -exp)}.${s.slice(-exp)}`;
}

/** Alipay's yuan string → integer minor units. */
export function fromYuan(value: string | undefined, currency: string): number | undefined {
  if (value === undefined || value === '' || !/^\d+(\.\d+)?$/.test(value)) return undefined;
  const exp = currencyScale(currency);
  const [whole, frac = ''] = value.split('.');
  return Number(whole) * 10 ** exp + Number((frac + '0'.repeat(exp)).slice(0, exp) || '0');
}

/** "yyyy-MM-dd HH:mm:ss" in China time (UTC+8, no daylight saving), as the gateway's timestamp wants it. */
export function chinaTime(d: Date): string {
  const t = new Date(d.getTime() + 8 * 3600_000);
  const p = (n: number) => String(n).padStart(2, '0');
  return `${t.getUTCFullYear()}-${p(t.getUTCMonth() + 1)}-${p(t.getUTCDate())} ${p(t.getUTCHours())}:${p(t.getUTCMinutes())}:${p(t.getUTCSeconds())}`;
}

/** The string Alipay signs: non-empty parameters except the excluded ones, sorted by name, `k=v` joined by `&`. */
export function signContent(params: Record<string, string | undefined>, exclude: string[] = ['sign']): string {
  return Object.keys(params)
    .filter((k) => !exclude.includes(k) && params[k] !== undefined && params[k] !== '')
    .sort()
    .map((k) => `${k}=${params[k]!}`)
    .join('&');
}

export function rsa2Sign(content: string, privateKey: string): string {
  return createSign('RSA-SHA256').update(content, 'utf8').sign(privateKey, 'base64');
}

export function rsa2Verify(content: string, signature: string, publicKey: string): boolean {
  try {
    return createVerify('RSA-SHA256').update(content, 'utf8').verify(publicKey, signature, 'base64');
  } catch {
    return false;
  }
}

/**
 * The text of the value of `"key":` in a JSON document exactly as it appears (the object the gateway signed), found
 * by scanning to its matching brace (strings and escapes skipped).
 */
export function rawJsonValue(text: string, key: string): string | undefined {
  const m = new RegExp(`"${key}"\\s*:\\s*`).exec(text);
  if (!m) return undefined;
  const start = m.index + m[0].length;
  if (text[start] !== '{') return undefined;
  let depth = 0;
  let inString = false;
  for (let i = start; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '{') depth++;
    else if (c === '}' && --depth === 0) return text.slice(start, i + 1);
  }
  return undefined;
}

/** A merchant request number (out_request_no, out_biz_no: ≤ 64 letters, digits, `_`) from our idempotency key. */
export function requestNo(key: string): string {
  return /^[A-Za-z0-9_]{1,64}$/.test(key) ? key : createHash('sha256').update(key).digest('hex');
}

export const TRADE_STATE: Record<string, ExternalState> = {
  WAIT_BUYER_PAY: 'pending',
  TRADE_SUCCESS: 'paid',
  TRADE_FINISHED: 'paid',
  TRADE_CLOSED: 'cancelled',
};

export type Answer = Record<string, string | undefined>;
