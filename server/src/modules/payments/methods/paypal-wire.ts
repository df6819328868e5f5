// PayPal's wire: amounts in PayPal's decimal strings, references, the API's objects and states, and its errors
// (paypal.ts is the adapter).
import { currencyScale } from '#core/money.ts';
import type { AdapterDefinition, ExternalState, NotificationRequest } from './adapter.ts';
import { ProviderError } from './adapter.ts';

export const PAYPAL_LIVE = 'https://api-m.paypal.com';
export const PAYPAL_SANDBOX = 'https://api-m.sandbox.paypal.com';

/** PayPal's currency codes for payments and balances (developer.paypal.com/api/rest/reference/currency-codes). */
export const PAYPAL_CURRENCIES = [
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
];
/** "This currency does not support decimals" (same page): an amount with a fraction is refused. */
export const NO_DECIMALS = new Set(['HUF', 'JPY', 'TWD']);

/** The issues that mean the buyer's payment was refused (the payment fails; anything else is an error). */
export const DECLINES = new Set([
  'INSTRUMENT_DECLINED',
  'PAYER_CANNOT_PAY',
  'TRANSACTION_REFUSED',
  'PAYER_ACCOUNT_RESTRICTED',
  'PAYER_ACCOUNT_LOCKED_OR_CLOSED',
  'TRANSACTION_LIMIT_EXCEEDED',
  'TRANSACTION_RECEIVING_LIMIT_EXCEEDED',
  'PAYEE_BLOCKED_TRANSACTION',
  'TRANSACTION_BLOCKED_BY_PAYEE',
  'COMPLIANCE_VIOLATION',
  'MAX_NUMBER_OF_PAYMENT_ATTEMPTS_EXCEEDED',
  'DECLINED_DUE_TO_RELATED_TXN',
]);

/** Payout item transaction statuses after which the payee does not have the money. */
export const PAYOUT_FAILED = new Set(['FAILED', 'RETURNED', 'BLOCKED', 'REFUNDED', 'REVERSED', 'DENIED']);

/** Integer minor units → PayPal's decimal string ("12.50"; "1500" for JPY; whole units only for HUF and TWD). */
export function toPaypalValue(amount: number, currency: string): string {
  if (!Number.isSafeInteger(amount) || amount < 0)
    throw new ProviderError('INVALID_PARAMETER_VALUE', `amount must be a non-negative integer: ${amount}`);
  const exp = currencyScale(currency);
  const digits = NO_DECIMALS.has(currency) ? 0 : Math.min(exp, 2);
  const unit = 10 ** exp;
  const whole = Math.floor(amount / unit);
  const frac = amount % unit;
  const dropped = 10 ** (exp - digits);
  if (frac % dropped !== 0)
    throw new ProviderError('DECIMALS_NOT_SUPPORTED', `${currency} ${amount} has a fraction PayPal does not take`);
  if (digits === 0) return String(whole);
  return `${whole}.${String(frac / dropped).padStart(digits, '0')}`;
}

/** PayPal's decimal string → integer minor units of `currency`. */
export function fromPaypalValue(value: string, currency: string): number {
  const m = /^(\d+)(?:\.(\d+))?$/.exec(value);
  if (!m) throw new ProviderError('bad_response', `not an amount: ${value}`);
  const exp = currencyScale(currency);
  const frac = (m[2] ?? '').padEnd(exp, '0');
  if (frac.length > exp) throw new ProviderError('bad_response', `${value} has more decimals than ${currency}`);
  return Number(m[1]) * 10 ** exp + (exp ? Number(frac) : 0);
}

export type Money = { currency_code: string; value: string };
export type Link = { href: string; rel: string; method?: string };
export interface Capture {
  id: string;
  status: string;
  amount?: Money;
  custom_id?: string;
  invoice_id?: string;
  links?: Link[];
  status_details?: { reason?: string };
  supplementary_data?: { related_ids?: { order_id?: string; authorization_id?: string } };
}
export interface Authorization {
  id: string;
  status: string;
  amount?: Money;
  custom_id?: string;
  invoice_id?: string;
  status_details?: { reason?: string };
  supplementary_data?: { related_ids?: { order_id?: string } };
}
export interface Order {
  id: string;
  status: string;
  intent?: string;
  links?: Link[];
  purchase_units?: {
    reference_id?: string;
    custom_id?: string;
    invoice_id?: string;
    amount?: Money;
    payments?: { captures?: Capture[]; authorizations?: Authorization[] };
  }[];
}
export interface PaypalErrorBody {
  name?: string;
  message?: string;
  details?: { issue?: string; description?: string; field?: string }[];
  links?: Link[];
  error?: string;
  error_description?: string;
}

export class PaypalError extends ProviderError {
  constructor(
    code: string,
    message: string,
    status: number,
    readonly body: PaypalErrorBody,
  ) {
    super(code, message, status);
  }
}

/** Splits a ref into its kind and PayPal id (a bare id is taken as an order id: the return URL's token). */
export function parseRef(ref: string): { kind: 'order' | 'capture' | 'auth' | 'payout'; id: string } {
  const m = /^(order|capture|auth|payout):([A-Za-z0-9-]+)$/.exec(ref);
  if (m) return { kind: m[1] as 'order', id: m[2]! };
  if (/^[A-Za-z0-9]+$/.test(ref)) return { kind: 'order', id: ref };
  throw new ProviderError('INVALID_RESOURCE_ID', `not a PayPal ref: ${ref}`, 400);
}

export const header = (h: NotificationRequest['headers'], name: string) => {
  const key = Object.keys(h).find((k) => k.toLowerCase() === name);
  const v = key === undefined ? undefined : h[key];
  return Array.isArray(v) ? v[0] : v;
};

export function captureState(c: Capture): ExternalState {
  switch (c.status) {
    case 'COMPLETED':
    case 'PARTIALLY_REFUNDED':
    case 'REFUNDED':
      return 'paid';
    case 'DECLINED':
    case 'FAILED':
      return 'failed';
    default:
      return 'pending';
  }
}

export function authorizationState(a: Authorization): ExternalState {
  switch (a.status) {
    case 'CREATED':
      return 'authorized';
    case 'CAPTURED':
    case 'PARTIALLY_CAPTURED':
      return 'paid';
    case 'VOIDED':
    case 'EXPIRED':
      return 'cancelled';
    case 'DENIED':
      return 'failed';
    default:
      return 'pending';
  }
}

// PayPal's sandbox has no magic buyer accounts: the operator signs in on PayPal's page with a sandbox Personal
// account of the Developer Dashboard. Declines are PayPal's negative testing (mock_application_codes of the
// Orders API errors); payouts have the Payouts API test values.
export const PAYPAL_TEST_VALUES: NonNullable<AdapterDefinition<Record<string, string>>['testValues']> = [
  {
    value: 'sandbox Personal account',
    outcome: 'succeeds',
    note: 'any Personal account of Developer Dashboard → Testing tools → Sandbox accounts, signed in on the PayPal page',
  },
  {
    value: 'INSTRUMENT_DECLINED',
    outcome: 'declined',
    note: 'negative testing: PayPal-Mock-Response {"mock_application_codes":"INSTRUMENT_DECLINED"} on the order capture/authorize',
  },
  { value: 'TRANSACTION_REFUSED', outcome: 'declined', note: 'negative testing code on the order capture/authorize' },
  { value: 'PAYER_CANNOT_PAY', outcome: 'declined', note: 'negative testing code on the order capture/authorize' },
  { value: 'payouts-simulator-receiver@paypal.com', outcome: 'succeeds', note: 'Payouts API sandbox receiver' },
  {
    value: 'ERRPYO005',
    outcome: 'insufficient_funds',
    note: 'Payouts API test value: items[0].note (payout account field `note`) → INSUFFICIENT_FUNDS',
  },
];
