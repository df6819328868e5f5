// M-Pesa's (Daraja) wire: shillings, phone numbers, Nairobi timestamps, references, STK outcomes, header reads and
// the initiator's SecurityCredential (mpesa.ts is the adapter).
import { currencyScale } from '#core/money.ts';
import { constants, createHash, publicEncrypt, timingSafeEqual } from 'node:crypto';
import { ProviderError, type NotificationRequest, type StatusResult } from './adapter.ts';

export const MPESA_LIVE = 'https://api.safaricom.co.ke';
export const MPESA_SANDBOX = 'https://sandbox.safaricom.co.ke';

/** Daraja's AccountReference is at most 12 characters; TransactionDesc at most 13. */
export const ACCOUNT_REF_MAX = 12;
export const DESC_MAX = 13;

/** STK ResultCodes (query and callback) → our state and failure code. */
export function stkOutcome(code: string): { state: StatusResult['state']; failureCode?: string } {
  switch (code) {
    case '0':
      return { state: 'paid' };
    case '1032':
      return { state: 'cancelled', failureCode: 'cancelled_by_user' };
    case '1037':
      return { state: 'failed', failureCode: 'no_answer' };
    case '1019':
      return { state: 'failed', failureCode: 'expired' };
    case '1':
      return { state: 'failed', failureCode: 'insufficient_funds' };
    case '2001':
      return { state: 'failed', failureCode: 'wrong_pin' };
    default:
      return { state: 'failed', failureCode: `mpesa_${code}` };
  }
}

/** Our minor units → whole shillings (M-Pesa takes no cents: an amount with cents is refused, never rounded). */
export function toShillings(amount: number, currency: string): number {
  if (currency.toUpperCase() !== 'KES')
    throw new ProviderError('unsupported_currency', `M-Pesa takes KES, not ${currency}`, 400);
  const major = amount / 10 ** currencyScale('KES');
  if (!Number.isInteger(major) || major < 1)
    throw new ProviderError('invalid_amount', `M-Pesa takes whole shillings: ${amount} minor units is not one`, 400);
  return major;
}

export const fromShillings = (kes: number) => Math.round(kes * 10 ** currencyScale('KES'));

/** E.164 digits (254…), also from +254…, 07…/01…: Daraja wants 2547XXXXXXXX / 2541XXXXXXXX. */
export function msisdn(phone: string | undefined): string {
  const d = (phone ?? '').replace(/[\s+-]/g, '');
  const n = /^0[17]\d{8}$/.test(d) ? `254${d.slice(1)}` : d;
  if (!/^254[17]\d{8}$/.test(n))
    throw new ProviderError('invalid_phone', 'M-Pesa needs a Safaricom number (2547XXXXXXXX or 2541XXXXXXXX)', 400);
  return n;
}

/** Daraja's Timestamp: yyyyMMddHHmmss in Nairobi time (EAT = UTC+3 all year). */
export function nairobiTimestamp(now: Date): string {
  return new Date(now.getTime() + 3 * 3600_000).toISOString().replace(/\D/g, '').slice(0, 14);
}

/** AccountReference ≤ 12 characters: our outTradeNo's last 12 (its random tail; the full one is in the callback URL). */
export function accountReference(outTradeNo: string) {
  return outTradeNo.slice(-ACCOUNT_REF_MAX);
}

export interface PaidRef {
  checkoutId: string;
  receipt?: string;
  amount?: number;
}
export function parseRef(ref: string): PaidRef {
  const [checkoutId = '', receipt, amount] = ref.split('.');
  return { checkoutId, receipt: receipt || undefined, amount: amount ? Number(amount) : undefined };
}
export const paidRef = (checkoutId: string, receipt: string, amount: number) => `${checkoutId}.${receipt}.${amount}`;

/** Daraja's error envelope (and the OAuth error's resultCode/resultDesc form). */
export interface DarajaError {
  requestId?: string;
  errorCode?: string;
  errorMessage?: string;
  resultCode?: string;
  resultDesc?: string;
  /** An accepted-looking answer with a non-zero ResponseCode (the request was not taken). */
  ResponseCode?: string;
  ResponseDescription?: string;
}

export function safeEqual(a: string, b: string) {
  const x = createHash('sha256').update(a).digest();
  const y = createHash('sha256').update(b).digest();
  return timingSafeEqual(x, y) && a.length === b.length;
}

export function header(h: NotificationRequest['headers'], name: string) {
  const v = h[name] ?? h[name.toLowerCase()];
  return Array.isArray(v) ? v[0] : v;
}

/** Keeps at most `max` entries (oldest dropped): per-instance memos must not grow without bound. */
export function remember<K, V>(m: Map<K, V>, k: K, v: V, max = 5000) {
  m.set(k, v);
  if (m.size > max) m.delete(m.keys().next().value as K);
}

/** SecurityCredential: the initiator's password RSA-encrypted (PKCS#1 v1.5) with Safaricom's certificate, base64. */
export function initiator(
  c: { initiatorName?: string; initiatorPassword?: string; certificate?: string; resultUrl?: string },
  what: string,
) {
  const { initiatorName, initiatorPassword, certificate, resultUrl } = c;
  if (!initiatorName || !initiatorPassword || !certificate || !resultUrl) {
    throw new ProviderError(
      'not_configured',
      `M-Pesa ${what} needs initiatorName, initiatorPassword, certificate and resultUrl`,
      400,
    );
  }
  let credential: string;
  try {
    credential = publicEncrypt(
      { key: certificate, padding: constants.RSA_PKCS1_PADDING },
      Buffer.from(initiatorPassword),
    ).toString('base64');
  } catch (e) {
    throw new ProviderError('not_configured', `M-Pesa certificate unusable: ${(e as Error).message}`, 400);
  }
  return { name: initiatorName, credential, resultUrl };
}
