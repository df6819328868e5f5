// SumUp Online Payments through the Checkouts API (https://developer.sumup.com/api/checkouts): a checkout is created
// server-side with `hosted_checkout: {enabled: true}` and the customer pays on SumUp's Hosted Checkout page
// (`hosted_checkout_url`), coming back to `redirect_url`.
//
//   start        POST /v0.1/checkouts {checkout_reference = outTradeNo, amount (major units, a number), currency,
//                merchant_code, description, return_url (our webhook), redirect_url, hosted_checkout}
//                → 201 {id, status: PENDING, hosted_checkout_url}. SumUp has no idempotency header: the
//                checkout_reference is unique per merchant, and a repeat is refused with 409 DUPLICATED_CHECKOUT,
//                which we answer by reading the existing checkout (GET /v0.1/checkouts?checkout_reference=…).
//   status       GET /v0.1/checkouts/{id} → status PENDING | PAID | FAILED | EXPIRED, transactions[].
//   complete     the customer is back: SumUp's page may redirect before the checkout settles, so the status is
//                asked up to 10 times, 1 s apart, until it leaves PENDING.
//   refund       POST /v0.1/me/refund/{transaction id} {amount} (major units; partial allowed) → 204.
//   notification SumUp POSTs {"event_type":"CHECKOUT_STATUS_CHANGED","id":"<checkout id>"} to return_url, unsigned;
//                SumUp's docs say to verify by calling the API, so a delivery counts only when the checkout it
//                names exists for our merchant (GET /v0.1/checkouts/{id}); any 2xx with an empty body acks it.
// No hold (SumUp's pre-authorisation is card-present only) and no payouts.
import { currencyScale } from '#core/money.ts';
import { createHash } from 'node:crypto';
import {
  ProviderError,
  type AdapterDefinition,
  type AdapterDeps,
  type ExternalState,
  type Notification,
  type NotificationRequest,
  type ProviderCall,
  type StartInput,
  type StartResult,
  type StatusResult,
} from './adapter.ts';
import { MethodProvider } from './external.ts';
import { httpClient, readJson, type HttpClient } from './http.ts';

export interface SumUpConfig extends Record<string, string> {
  /** A secret API key (sk_test_… / sk_live_…) or an OAuth access token with the payments scope. */
  apiKey: string;
  /** The merchant code the checkouts are paid to (e.g. MH4H92C7). */
  merchantCode: string;
  /** API root; default https://api.sumup.com (the sandbox merchant uses the same host with a test key). */
  apiBase: string;
}

const CURRENCIES = ['BGN', 'BRL', 'CHF', 'CLP', 'CZK', 'DKK', 'EUR', 'GBP', 'HUF', 'NOK', 'PLN', 'RON', 'SEK', 'USD'];
/** Confirm up to 10 tries at 1 s. */
const CONFIRM_TRIES = 10;
const CONFIRM_INTERVAL_MS = 1000;

interface SumUpTransaction {
  id: string;
  transaction_code?: string;
  amount?: number;
  currency?: string;
  status?: string;
}
interface SumUpCheckout {
  id: string;
  checkout_reference?: string;
  amount?: number;
  currency?: string;
  merchant_code?: string;
  status?: string;
  hosted_checkout_url?: string;
  transactions?: SumUpTransaction[];
}

/** Integer minor units → SumUp's major-unit number (1250 EUR → 12.5; 1500 CLP → 1500). */
export function toMajor(amount: number, currency: string): number {
  const e = currencyScale(currency);
  return Number((amount / 10 ** e).toFixed(e));
}
function toMinor(amount: number, currency: string): number {
  return Math.round(amount * 10 ** currencyScale(currency));
}

function stateOf(status: string | undefined): { state: ExternalState; failureCode?: string } {
  switch (status) {
    case 'PAID':
      return { state: 'paid' };
    case 'FAILED':
      return { state: 'failed', failureCode: 'declined' };
    case 'EXPIRED':
      return { state: 'cancelled', failureCode: 'expired' };
    default:
      return { state: 'pending' };
  }
}

export const sumupDefinition: AdapterDefinition<SumUpConfig, SumUpAdapter> = {
  id: 'sumup',
  payTypes: [{ type: 'SumUpOnlinePayment', kind: 'redirect', label: 'SumUp' }],
  capabilities: { hold: false, partialCapture: false, offSession: false, refund: true, payout: false, webhook: true },
  currencies: CURRENCIES,
  required: ['apiKey', 'merchantCode'],
  optional: ['apiBase'],
  // SumUp's online-payments sandbox (developer.sumup.com/online-payments/testing): any CVV, any future expiry.
  testValues: [
    { value: '4200000000000091', outcome: 'succeeds', note: 'Visa, frictionless' },
    { value: '5200000000000007', outcome: 'succeeds', note: 'Mastercard, frictionless' },
    { value: '4200000000000042', outcome: 'succeeds', note: 'Visa, 3-D Secure challenge' },
    { value: 'amount 11.00', outcome: 'declined', note: 'a checkout of 11.00 (any currency) fails in the sandbox' },
  ],
  create(config, deps) {
    return new SumUpAdapter(config, deps);
  },
};

export class SumUpAdapter extends MethodProvider {
  private readonly base: string;
  private readonly http: HttpClient;

  constructor(
    private readonly config: SumUpConfig,
    deps: AdapterDeps,
  ) {
    super(sumupDefinition, deps);
    this.base = (config.apiBase || 'https://api.sumup.com').replace(/\/+$/, '');
    this.http = httpClient('SumUp', deps);
  }

  /** One call to SumUp's API; errors become ProviderError with SumUp's error_code. */
  private async call<T>(method: 'GET' | 'POST', path: string, body?: unknown): Promise<{ status: number; data: T }> {
    const res = await this.http.send({
      method,
      url: `${this.base}${path}`,
      headers: { authorization: `Bearer ${this.config.apiKey}`, accept: 'application/json' },
      ...(body !== undefined ? { json: body } : {}),
    });
    const data: unknown = res.text ? readJson('SumUp', res) : undefined;
    if (!res.ok) {
      // SumUp's envelopes: {error_code, message, param} (v0.1), a list of those for validation errors,
      // {error_message, error_code} (auth), or RFC 7807 problem+json {type, title, status, detail}.
      const e = (Array.isArray(data) ? data[0] : data) as Record<string, unknown> | undefined;
      const code = String(e?.error_code ?? e?.title ?? `http_${res.status}`);
      const message = String(e?.message ?? e?.error_message ?? e?.detail ?? `SumUp answered ${res.status}`);
      throw new ProviderError(code, message, res.status);
    }
    return { status: res.status, data: data as T };
  }

  private result(c: SumUpCheckout): StatusResult {
    const { state, failureCode } = stateOf(c.status);
    const currency = c.currency ?? '';
    return {
      ref: c.id,
      state,
      ...(typeof c.amount === 'number' && currency ? { amount: toMinor(c.amount, currency), currency } : {}),
      ...(failureCode ? { failureCode } : {}),
    };
  }

  async start(input: StartInput): Promise<StartResult> {
    if (!Number.isInteger(input.amount) || input.amount <= 0) {
      throw new ProviderError('invalid_amount', 'SumUp: the amount must be a positive integer of minor units', 400);
    }
    if (!CURRENCIES.includes(input.currency)) {
      throw new ProviderError('unsupported_currency', `SumUp does not take ${input.currency}`, 400);
    }
    let checkout: SumUpCheckout;
    try {
      checkout = (
        await this.call<SumUpCheckout>('POST', '/v0.1/checkouts', {
          checkout_reference: input.outTradeNo,
          amount: toMajor(input.amount, input.currency),
          currency: input.currency,
          merchant_code: this.config.merchantCode,
          description: input.description,
          return_url: input.notifyUrl,
          redirect_url: input.returnUrl,
          hosted_checkout: { enabled: true },
        })
      ).data;
    } catch (err) {
      if (!(err instanceof ProviderError) || err.code !== 'DUPLICATED_CHECKOUT') throw err;
      // A retried start: the checkout exists already; continue with it (the reference is ours, unique per payment).
      const found = await this.byReference(input.outTradeNo);
      if (!found) throw err;
      if (found.amount !== undefined && toMinor(found.amount, found.currency ?? input.currency) !== input.amount) {
        throw new ProviderError(
          'DUPLICATED_CHECKOUT',
          'SumUp: a checkout with this reference exists for another amount',
          409,
        );
      }
      checkout = found;
    }
    const r = this.result(checkout);
    if (r.state !== 'pending')
      return { ref: checkout.id, state: r.state, action: { kind: 'none' }, failureCode: r.failureCode };
    if (!checkout.hosted_checkout_url) throw new ProviderError('bad_response', 'SumUp returned no hosted_checkout_url');
    return { ref: checkout.id, state: 'pending', action: { kind: 'redirect', url: checkout.hosted_checkout_url } };
  }

  private async byReference(reference: string): Promise<SumUpCheckout | undefined> {
    const { data } = await this.call<SumUpCheckout[]>(
      'GET',
      `/v0.1/checkouts?checkout_reference=${encodeURIComponent(reference)}`,
    );
    return (Array.isArray(data) ? data : []).find((c) => c.checkout_reference === reference);
  }

  private async checkout(ref: string): Promise<SumUpCheckout> {
    return (await this.call<SumUpCheckout>('GET', `/v0.1/checkouts/${encodeURIComponent(ref)}`)).data;
  }

  async status(ref: string, _outTradeNo?: string): Promise<StatusResult> {
    return this.result(await this.checkout(ref));
  }

  override async complete(ref: string): Promise<StatusResult> {
    let r = await this.status(ref);
    for (let i = 1; i < CONFIRM_TRIES && r.state === 'pending'; i++) {
      await new Promise((resolve) => setTimeout(resolve, CONFIRM_INTERVAL_MS));
      r = await this.status(ref);
    }
    return r;
  }

  async refundPayment(ref: string, amount: number, _call?: ProviderCall): Promise<void> {
    if (!Number.isInteger(amount) || amount <= 0)
      throw new ProviderError('invalid_amount', 'SumUp: refund amount must be positive', 400);
    const c = await this.checkout(ref);
    if (c.status !== 'PAID')
      throw new ProviderError('not_paid', `SumUp checkout ${ref} is ${c.status ?? 'unknown'}, nothing to refund`, 409);
    const txn = (c.transactions ?? []).find((t) => t.status === 'SUCCESSFUL') ?? c.transactions?.[0];
    if (!txn) throw new ProviderError('bad_response', `SumUp checkout ${ref} is PAID without a transaction`);
    await this.call('POST', `/v0.1/me/refund/${encodeURIComponent(txn.id)}`, {
      amount: toMajor(amount, c.currency ?? txn.currency ?? 'EUR'),
    });
  }

  async readNotification(req: NotificationRequest): Promise<Notification | null> {
    let body: { event_type?: unknown; id?: unknown };
    try {
      body = JSON.parse(req.rawBody) as typeof body;
    } catch {
      return null;
    }
    if (!body || typeof body !== 'object' || typeof body.id !== 'string' || !body.id) return null;
    const hash = createHash('sha256').update(req.rawBody).digest('hex').slice(0, 16);
    const ack = { status: 200, contentType: 'text/plain', body: '' };
    if (body.event_type !== 'CHECKOUT_STATUS_CHANGED') {
      // SumUp: "new events may be introduced at any time … silently ignore unknown events" — ack without a payment.
      return { eventId: `sumup:${String(body.event_type)}:${body.id}:${hash}`, ack };
    }
    // Unsigned: the delivery is believed only if SumUp's API knows this checkout for our merchant.
    let c: SumUpCheckout;
    try {
      c = await this.checkout(body.id);
    } catch (err) {
      if (err instanceof ProviderError && (err.status === 404 || err.status === 403)) return null;
      throw err;
    }
    if (c.merchant_code && c.merchant_code !== this.config.merchantCode) return null;
    // The body names only the checkout: the status read back keeps two different changes of one checkout apart,
    // while a redelivery of the same change keeps its id. The state is left to status() (the service asks it).
    return {
      eventId: `sumup:${c.id}:${c.status ?? 'UNKNOWN'}:${hash}`,
      ref: c.id,
      outTradeNo: c.checkout_reference,
      ack,
    };
  }
}
