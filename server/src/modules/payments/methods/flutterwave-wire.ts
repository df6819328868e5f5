// Flutterwave's wire model (v3): amounts, charge states, failure texts, the webhook's verification and reading.
// The adapter (flutterwave.ts) makes the calls.
import { currencyScale } from '#core/money.ts';
import { createCipheriv, createHmac, timingSafeEqual } from 'node:crypto';
import type { ExternalState, Notification, NotificationRequest } from './adapter.ts';

/** Mobile money charge type per currency (Flutterwave v3 direct charge). */
export const MOBILE_MONEY_TYPES: Record<string, string> = {
  KES: 'mpesa',
  GHS: 'mobile_money_ghana',
  UGX: 'mobile_money_uganda',
  RWF: 'mobile_money_rwanda',
  ZMW: 'mobile_money_zambia',
  XAF: 'mobile_money_franco',
  XOF: 'mobile_money_franco',
  TZS: 'mobile_money_tanzania',
};

export const CARD_CURRENCIES = [
  'NGN',
  'GHS',
  'KES',
  'UGX',
  'TZS',
  'ZAR',
  'XAF',
  'XOF',
  'RWF',
  'ZMW',
  'USD',
  'EUR',
  'GBP',
];

/** Integer minor units → Flutterwave's major-unit number (1250 NGN → 12.5; 1500 UGX → 1500). */
export function toMajor(amount: number, currency: string): number {
  const e = currencyScale(currency);
  return Number((amount / 10 ** e).toFixed(e));
}
/** Flutterwave's major-unit amount → integer minor units. */
export function toMinor(amount: number | string, currency: string): number {
  return Math.round(Number(amount) * 10 ** currencyScale(currency));
}

/** Flutterwave's card payload encryption: 3DES (DES-EDE3, 24-byte key) in ECB mode, PKCS#7 padding, base64. */
export function encrypt3des(encryptionKey: string, plain: string): string {
  const cipher = createCipheriv('des-ede3', Buffer.from(encryptionKey, 'utf8'), null);
  return Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]).toString('base64');
}

/** The network Flutterwave's mobile money charge needs, from the number's operator prefix (E.164 digits). */
export function mobileNetwork(currency: string, phone: string): string | undefined {
  const nsn = (cc: string) => (phone.startsWith(cc) ? phone.slice(cc.length) : phone.replace(/^0/, ''));
  const pick = (cc: string, table: Record<string, string[]>) => {
    const p = nsn(cc).slice(0, 2);
    return Object.entries(table).find(([, prefixes]) => prefixes.includes(p))?.[0];
  };
  switch (currency) {
    case 'GHS':
      return pick('233', {
        MTN: ['24', '25', '53', '54', '55', '59'],
        VODAFONE: ['20', '50'],
        TIGO: ['26', '27', '56', '57'],
      });
    case 'UGX':
      return pick('256', { MTN: ['76', '77', '78', '39'], AIRTEL: ['70', '74', '75', '20'] });
    case 'RWF':
      return pick('250', { MTN: ['78', '79'], AIRTEL: ['72', '73'] });
    case 'ZMW':
      return pick('260', { MTN: ['76', '96'], AIRTEL: ['77', '97'], ZAMTEL: ['95'] });
    case 'TZS':
      return pick('255', {
        VODAFONE: ['74', '75', '76'],
        AIRTEL: ['68', '69', '78'],
        TIGO: ['65', '67', '71'],
        HALOPESA: ['62'],
      });
    default:
      return undefined;
  }
}

/** Francophone mobile money needs the payer's country (CM, SN, BF, CI), from the number's calling code. */
export function francoCountry(phone: string, currency: string): string {
  const byCode: Record<string, string> = { '237': 'CM', '221': 'SN', '226': 'BF', '225': 'CI' };
  return byCode[phone.slice(0, 3)] ?? (currency === 'XAF' ? 'CM' : 'CI');
}

/**
 * A saved Flutterwave card's reference at the provider (SavedCardRef.cardRef): its token and the e-mail it was made
 * with (a tokenized charge must name that e-mail).
 */
export function cardRefOf(token: string, email: string): string {
  return `${token} ${email}`;
}
export function parseCardRef(ref: string): { token: string; email: string } {
  const [token = '', email = ''] = ref.split(' ');
  return { token, email };
}

/** Flutterwave's status of a charge → ours. */
export function chargeState(status: unknown): ExternalState {
  switch (String(status ?? '').toLowerCase()) {
    case 'successful':
    case 'completed':
      return 'paid';
    case 'pending-capture':
      return 'authorized';
    case 'voided':
    case 'cancelled':
      return 'cancelled';
    case 'failed':
    case 'error':
      return 'failed';
    default:
      return 'pending';
  }
}

/** A failure reason (processor_response or an error message) → a stable code. */
export function failureCode(text: unknown): string {
  const t = String(text ?? '').toLowerCase();
  if (/insufficient/.test(t)) return 'insufficient_funds';
  if (/pin/.test(t) && /incorrect|invalid|wrong/.test(t)) return 'incorrect_pin';
  if (/otp/.test(t) && /incorrect|invalid|wrong|expired/.test(t)) return 'incorrect_otp';
  if (/fraud/.test(t)) return 'fraudulent';
  if (/expired card|card expired/.test(t)) return 'expired_card';
  if (/declin|do not honou?r|not permitted|restricted/.test(t)) return 'declined';
  if (/timed? ?out|no response|cancel/.test(t)) return 'no_answer';
  return 'failed';
}

export interface FlwBody {
  status?: string;
  message?: string;
  data?: Record<string, unknown> | null;
  meta?: { authorization?: { mode?: string; redirect?: string; fields?: string[] } } | null;
}

export type Tx = Record<string, unknown> & {
  id?: number | string;
  tx_ref?: string;
  flw_ref?: string;
  status?: string;
  amount?: number;
  currency?: string;
};

export const TX_PREFIX = 'tx:';

/** An error answer's message → a stable code (the HTTP status decides when the text does not). */
export function errorCode(status: number, message: string): string {
  const m = message.toLowerCase();
  if (status === 401 || /authorization key|unauthori[sz]ed/.test(m)) return 'unauthorized';
  if (/duplicate|already (exists|been used)/.test(m)) return 'duplicate_reference';
  if (/(refund|amount).*(greater|exceed|more than)|exceed.*(refund|amount)/.test(m)) return 'amount_too_large';
  if (/no transaction|not found|does not exist/.test(m) || status === 404) return 'not_found';
  if (status >= 500) return 'provider_unavailable';
  const f = failureCode(m);
  return f === 'failed' ? 'invalid_request' : f;
}

/**
 * A webhook delivery, verified: `verif-hash` = the secret hash (legacy) and/or `flutterwave-signature` =
 * base64(HMAC-SHA256(secret hash, raw body)); every header present must verify. Null when it does not.
 */
export function readNotification(req: NotificationRequest, secretHash: string): Notification | null {
  const header = (name: string) => {
    const v = req.headers[name] ?? req.headers[name.toLowerCase()];
    return Array.isArray(v) ? v[0] : v;
  };
  const same = (a: string, b: string) => {
    const x = Buffer.from(a);
    const y = Buffer.from(b);
    return x.length === y.length && timingSafeEqual(x, y);
  };
  const verifHash = header('verif-hash');
  const signature = header('flutterwave-signature');
  if (verifHash === undefined && signature === undefined) return null;
  if (!secretHash) return null;
  if (verifHash !== undefined && !same(verifHash, secretHash)) return null;
  if (
    signature !== undefined &&
    !same(signature, createHmac('sha256', secretHash).update(req.rawBody, 'utf8').digest('base64'))
  )
    return null;
  let body: { event?: string; 'event.type'?: string; data?: Tx };
  try {
    body = JSON.parse(req.rawBody) as typeof body;
  } catch {
    return null;
  }
  const data = body.data;
  if (!data || data.id === undefined) return null;
  const event = body.event ?? body['event.type'] ?? 'unknown';
  const status = String(data.status ?? '');
  const ack = { status: 200, contentType: 'text/plain', body: 'OK' };
  const currency = typeof data.currency === 'string' ? data.currency.toUpperCase() : undefined;
  const amount = data.amount !== undefined && currency ? toMinor(data.amount, currency) : undefined;
  const eventId = `${String(data.id)}:${event}:${status.toLowerCase()}`;
  if (event.startsWith('transfer.')) {
    const ts = status.toUpperCase();
    const state: ExternalState = ts === 'SUCCESSFUL' ? 'paid' : ts === 'FAILED' ? 'failed' : 'pending';
    return {
      eventId,
      ref: String(data.id),
      outTradeNo: typeof data.reference === 'string' ? data.reference : undefined,
      state,
      amount,
      currency,
      ack,
    };
  }
  return {
    eventId,
    ref: String(data.id),
    outTradeNo: data.tx_ref,
    state: chargeState(status),
    amount,
    currency,
    ack,
  };
}
