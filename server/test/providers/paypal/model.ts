// The PayPal test server's records, errors and money and JSON helpers (see ../paypal.ts).
import { randomBytes } from 'node:crypto';

export type Money = { currency_code: string; value: string };
export type Link = { href: string; rel: string; method: string };

export interface App {
  clientId: string;
  secret: string;
  webhookIds: string[];
}
export interface Order {
  id: string;
  app: string;
  intent: 'CAPTURE' | 'AUTHORIZE';
  status: string;
  unit: Record<string, unknown> & { amount: Money; invoice_id?: string; custom_id?: string; reference_id?: string };
  returnUrl?: string;
  cancelUrl?: string;
  payer?: { payer_id: string; email_address: string };
  mock?: string;
  create_time: string;
  authorizations: string[];
  captures: string[];
}
export interface Authorization {
  id: string;
  app: string;
  order: string;
  status: string;
  amount: Money;
  captured: number;
  expiration_time: string;
  captures: string[];
}
export interface Capture {
  id: string;
  app: string;
  order: string;
  authorization?: string;
  status: string;
  amount: Money;
  refunded: number;
  final_capture: boolean;
  refunds: string[];
}
export interface Refund {
  id: string;
  app: string;
  capture: string;
  status: string;
  amount: Money;
}
export interface PayoutItem {
  payout_item_id: string;
  transaction_id?: string;
  transaction_status: string;
  payout_batch_id: string;
  payout_item: Record<string, unknown> & { amount: { value: string; currency: string } };
  errors?: { name: string; message: string };
}
export interface PayoutBatch {
  id: string;
  app: string;
  status: string;
  header: Record<string, unknown>;
  items: PayoutItem[];
}

export class PaypalApiError extends Error {
  constructor(
    readonly status: number,
    readonly body: Record<string, unknown>,
  ) {
    super(String(body.message ?? body.error));
  }
}

export const CURRENCIES = new Set([
  'AUD',
  'BRL',
  'CAD',
  'CNY',
  'CZK',
  'DKK',
  'EUR',
  'HKD',
  'HUF',
  'ILS',
  'JPY',
  'MYR',
  'MXN',
  'TWD',
  'NZD',
  'NOK',
  'PHP',
  'PLN',
  'GBP',
  'SGD',
  'SEK',
  'CHF',
  'THB',
  'USD',
]);
export const NO_DECIMALS = new Set(['HUF', 'JPY', 'TWD']);
/** Negative-testing codes the buyer's approval or a PayPal-Mock-Response header can carry (Orders v2 issues). */
export const BUYER_DECLINES = new Set([
  'INSTRUMENT_DECLINED',
  'PAYER_CANNOT_PAY',
  'TRANSACTION_REFUSED',
  'PAYER_ACCOUNT_RESTRICTED',
]);
/** The Payouts API test values (items[0].note) and the errors they answer. */
export const PAYOUT_TEST_VALUES: Record<string, [number, string, string]> = {
  ERRPYO001: [403, 'SENDER_RESTRICTED', 'Sender is restricted.'],
  ERRPYO002: [403, 'SENDER_EMAIL_UNCONFIRMED', 'Authorization error occurred'],
  ERRPYO005: [422, 'INSUFFICIENT_FUNDS', 'Sender does not have sufficient funds. Please add funds and retry.'],
  ERRPYO006: [500, 'INTERNAL_ERROR', 'An internal service error has occurred.'],
};

export const ISSUE_TEXT: Record<string, string> = {
  ORDER_NOT_APPROVED:
    "Payer has not yet approved the Order for payment. Please redirect the payer to the 'rel':'approve' url returned as part of the HATEOAS links within the Create Order call or provide a valid payment_source in the request.",
  ORDER_ALREADY_CAPTURED: 'Order already captured.If intent=CAPTURE only one capture per order is allowed.',
  ORDER_ALREADY_AUTHORIZED: 'Order already authorized.If intent=AUTHORIZE only one authorization per order is allowed.',
  ACTION_DOES_NOT_MATCH_INTENT: 'The action does not match the intent of the order.',
  INSTRUMENT_DECLINED:
    "The instrument presented  was either declined by the processor or bank, or it can't be used for this payment.",
  PAYER_CANNOT_PAY: 'Combination of payer and payee settings mean that this buyer cannot pay this seller.',
  TRANSACTION_REFUSED: 'The request was refused.',
  PAYER_ACCOUNT_RESTRICTED: 'PAYER_ACCOUNT_RESTRICTED',
  DUPLICATE_INVOICE_ID:
    'Duplicate Invoice ID detected. To avoid a potential duplicate transaction your account setting requires that Invoice Id be unique for each transaction.',
  AUTHORIZATION_VOIDED: 'A voided authorization cannot be captured or reauthorized.',
  AUTHORIZATION_ALREADY_CAPTURED: 'Authorization has previously been captured.',
  AUTH_CAPTURE_CURRENCY_MISMATCH: 'Currency of capture must be the same as currency of authorization.',
  MAX_CAPTURE_AMOUNT_EXCEEDED: 'Capture amount exceeds allowable limit.',
  PREVIOUSLY_VOIDED: 'Authorization has been previously voided and hence cannot be voided again.',
  PREVIOUSLY_CAPTURED: 'Authorization has been previously captured and hence cannot be voided.',
  REFUND_AMOUNT_EXCEEDED:
    'The refund amount must be less than or equal to the capture amount that has not yet been refunded.',
  CAPTURE_FULLY_REFUNDED: 'The capture has already been fully refunded',
  REFUND_CAPTURE_CURRENCY_MISMATCH: 'Refund must be in the same currency as the capture.',
  CANNOT_BE_ZERO_OR_NEGATIVE:
    'Must be greater than zero. If the currency supports decimals, only two decimal place precision is supported.',
  DECIMAL_PRECISION: 'If the currency supports decimals, only two decimal place precision is supported.',
  DECIMALS_NOT_SUPPORTED: 'Currency does not support decimals.',
  CURRENCY_NOT_SUPPORTED: 'Currency code is invalid or is not currently supported.',
  PAYPAL_REQUEST_ID_PREVIOUSLY_USED: 'The PayPal-Request-ID has already been used for another request.',
};

export const debugId = () => randomBytes(7).toString('hex').slice(0, 13);
export const unprocessable = (issue: string, links: Link[] = []) =>
  new PaypalApiError(422, {
    name: 'UNPROCESSABLE_ENTITY',
    message: 'The requested action could not be performed, semantically incorrect, or failed business validation.',
    debug_id: debugId(),
    details: [{ issue, description: ISSUE_TEXT[issue] ?? issue }],
    links: [
      {
        href: `https://developer.paypal.com/docs/api/orders/v2/#error-${issue}`,
        rel: 'information_link',
        method: 'GET',
      },
      ...links,
    ],
  });
export const invalidRequest = (field: string, issue: string, description: string) =>
  new PaypalApiError(400, {
    name: 'INVALID_REQUEST',
    message: 'Request is not well-formed, syntactically incorrect, or violates schema.',
    debug_id: debugId(),
    details: [{ field, location: 'body', issue, description }],
  });
export const notFound = (id: string) =>
  new PaypalApiError(404, {
    name: 'RESOURCE_NOT_FOUND',
    message: 'The specified resource does not exist.',
    debug_id: debugId(),
    details: [
      {
        field: 'id',
        value: id,
        location: 'path',
        issue: 'INVALID_RESOURCE_ID',
        description: 'Specified resource ID does not exist. Please check the resource ID and try again.',
      },
    ],
  });

/** Checks a money object the way PayPal validates it; returns the value in hundredths (or whole units). */
export function parseMoney(
  m: unknown,
  field: string,
  codeKey: 'currency_code' | 'currency' = 'currency_code',
): { cents: number; currency: string } {
  const x = m as Record<string, unknown> | undefined;
  const currency = String(x?.[codeKey] ?? '');
  const value = String(x?.value ?? '');
  if (!x || !currency || !value)
    throw invalidRequest(`${field}`, 'MISSING_REQUIRED_PARAMETER', 'A required field / parameter is missing.');
  if (!CURRENCIES.has(currency)) throw unprocessable('CURRENCY_NOT_SUPPORTED');
  const mm = /^(\d+)(?:\.(\d+))?$/.exec(value);
  if (!mm)
    throw invalidRequest(
      `${field}/value`,
      'INVALID_PARAMETER_SYNTAX',
      'The value of a field does not conform to the expected format.',
    );
  if (NO_DECIMALS.has(currency) && mm[2] !== undefined) throw unprocessable('DECIMALS_NOT_SUPPORTED');
  if ((mm[2] ?? '').length > 2) throw unprocessable('DECIMAL_PRECISION');
  const cents = Number(mm[1]) * 100 + Number((mm[2] ?? '').padEnd(2, '0'));
  if (cents <= 0) throw unprocessable('CANNOT_BE_ZERO_OR_NEGATIVE');
  return { cents, currency };
}
export const fmt = (cents: number, currency: string) =>
  NO_DECIMALS.has(currency) ? String(cents / 100) : (cents / 100).toFixed(2);

/** CRC-32 (IEEE, as zlib's crc32), decimal: the last part of the string PayPal signs. */
export const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});
export function crc32(s: string): number {
  let c = 0xffffffff;
  for (const b of Buffer.from(s, 'utf8')) c = CRC_TABLE[(c ^ b) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

/** The top-level members of a JSON object as their exact text (to read a member byte for byte as it was sent). */
export function topLevelSpans(raw: string): Map<string, string> {
  const out = new Map<string, string>();
  let i = raw.indexOf('{') + 1;
  const ws = () => {
    while (i < raw.length && /\s/.test(raw[i]!)) i++;
  };
  const skipString = () => {
    i++;
    while (i < raw.length && raw[i] !== '"') i += raw[i] === '\\' ? 2 : 1;
    i++;
  };
  while (i < raw.length) {
    ws();
    if (raw[i] === ',') {
      i++;
      continue;
    }
    if (raw[i] !== '"') break;
    const keyStart = i;
    skipString();
    const key = JSON.parse(raw.slice(keyStart, i)) as string;
    ws();
    if (raw[i] !== ':') break;
    i++;
    ws();
    const start = i;
    if (raw[i] === '"') skipString();
    else if (raw[i] === '{' || raw[i] === '[') {
      let depth = 0;
      do {
        const ch = raw[i];
        if (ch === '"') {
          skipString();
          continue;
        }
        if (ch === '{' || ch === '[') depth++;
        else if (ch === '}' || ch === ']') depth--;
        i++;
      } while (i < raw.length && depth > 0);
    } else {
      while (i < raw.length && raw[i] !== ',' && raw[i] !== '}') i++;
    }
    out.set(key, raw.slice(start, i).trim());
  }
  return out;
}

export function mockCode(header: string | undefined): string | undefined {
  if (!header) return undefined;
  try {
    const code = (JSON.parse(header) as { mock_application_codes?: string }).mock_application_codes;
    return code || undefined;
  } catch {
    return undefined;
  }
}
