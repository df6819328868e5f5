// N1co (n1co Business, El Salvador): a CheckoutLink payment link per payment, paid on n1co's hosted page.
//
// Two n1co APIs are used (docs.n1co.com, api-docs.n1co.com):
//   CheckoutLink API   https://api-pay.n1co.shop/api (sandbox https://api-pay-sandbox.n1co.shop/api)
//     start     POST /paymentlink/checkout {orderReference = outTradeNo, orderName, orderDescription, amount (USD, a
//               decimal number), successUrl, cancelUrl, locationCode?, metadata: [{name, value}]}
//               → {orderId, orderCode, paymentLinkUrl}. Action: redirect to paymentLinkUrl; our ref is orderCode.
//     status    GET /paymentlink/order/{orderCode} → {orderId, orderCode, orderReference, orderStatus (PENDING, PAID,
//               FINALIZED, CANCELLED, …), total, store.currencyCode, payment}; confirmed by a GET.
//   Integration API    https://api.n1co.com (sandbox https://api-sandbox.n1co.shop)
//     token     POST /api/v3/Token {clientId, clientSecret} → {tokenType: Bearer, expiresIn, accessToken} (cached).
//     refund    POST /api/v3/Refunds {orderId, cancellationReason} → {success, refundId, amount, status: SUCCEEDED}.
//               n1co refunds the whole charge ("the amount of the refund will be the one registered in the charge"):
//               a partial refund is refused here with ProviderError('partial_refund_unsupported').
// Auth of the CheckoutLink API: n1co merchants use the checkout secret key (sk_…) of the portal as the Bearer; when
// `checkoutSecretKey` is not configured the Integration API's OAuth token is sent instead.
// Webhook: configured once in n1co's portal (Settings → Webhook; not per request), which generates the secret. Each
// delivery is a JSON POST {orderId, orderReference, orderType, type, description, level, metadata} with the header
// X-H4B-Hmac-Sha256 = HMAC-SHA256(secret, raw body), Base64 (as n1co sends it; hex is also accepted, as an older
// text of n1co's docs said). Event types: Created, SuccessPayment, PaymentError, Cancelled, Finalized,
// SuccessReverse, ReverseError, ThreeDSecureAuthSucceeded, ThreeDSecureAuthError.
// NOT CONFIRMED from a full reference (n1co publishes only parts; the rest is from integrations of its API): the
// order statuses beyond PENDING/PAID/FINALIZED/CANCELLED, the webhook body and type names, the error envelope, and
// whether a reused orderReference is refused (n1co documents no idempotency key; a retried start may make a second
// link, which charges nothing unless the customer pays it).
import { currencyScale } from '#core/money.ts';
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
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
import { httpClient, type HttpClient } from './http.ts';

export interface N1coConfig extends Record<string, string> {
  /** Integration API credentials (portal → Settings → API): the OAuth client. */
  clientId: string;
  clientSecret: string;
  /** The webhook's secret key generated in the portal (Settings → Webhook). */
  webhookSecret: string;
  /** The CheckoutLink API's secret key (sk_…); default: the OAuth token. */
  checkoutSecretKey: string;
  /** The branch (sucursal) the links are charged to. */
  locationCode: string;
  /** sandbox | live (default live): picks n1co's hosts. */
  mode: string;
  /** Integration API root (token, refunds); default by mode. */
  apiBase: string;
  /** CheckoutLink API root (payment links, orders); default by mode. */
  payApiBase: string;
}

const HOSTS = {
  live: { api: 'https://api.n1co.com', pay: 'https://api-pay.n1co.shop/api' },
  sandbox: { api: 'https://api-sandbox.n1co.shop', pay: 'https://api-pay-sandbox.n1co.shop/api' },
};

interface N1coOrder {
  orderId?: number | string;
  orderCode?: string;
  orderReference?: string;
  orderStatus?: string;
  total?: number | string;
  store?: { currencyCode?: string };
}

function stateOf(orderStatus: string | undefined): { state: ExternalState; failureCode?: string } {
  switch ((orderStatus ?? '').toUpperCase()) {
    case 'PAID':
    case 'FINALIZED':
      return { state: 'paid' };
    case 'CANCELLED':
    case 'CANCELED':
      return { state: 'cancelled', failureCode: 'cancelled' };
    case 'EXPIRED':
      return { state: 'cancelled', failureCode: 'expired' };
    case 'FAILED':
    case 'DECLINED':
      return { state: 'failed', failureCode: 'declined' };
    default:
      return { state: 'pending' };
  }
}

/** What a webhook type says about the payment (undefined: the order is unchanged or the event is not a payment's). */
const EVENT_STATE: Record<string, ExternalState | undefined> = {
  SuccessPayment: 'paid',
  Finalized: 'paid',
  Cancelled: 'cancelled',
};

export const n1coDefinition: AdapterDefinition<N1coConfig, N1coAdapter> = {
  id: 'n1co',
  payTypes: [{ type: 'N1co', kind: 'redirect', label: 'N1co' }],
  capabilities: { hold: false, partialCapture: false, offSession: false, refund: true, payout: false, webhook: true },
  currencies: ['USD'],
  required: ['clientId', 'clientSecret', 'webhookSecret'],
  optional: ['checkoutSecretKey', 'locationCode', 'mode', 'apiBase', 'payApiBase'],
  // n1co's sandbox cards (any CVV, any future expiry).
  testValues: [
    { value: '4000056655665556', outcome: 'succeeds', note: 'Visa, approved without 3-D Secure' },
    { value: '5267260000000001', outcome: 'succeeds', note: 'Mastercard, approved without 3-D Secure' },
    { value: '4000000000001000', outcome: 'succeeds', note: 'Visa, 3-D Secure then approved' },
    { value: '4242424242424242', outcome: 'declined', note: 'Visa, declined without 3-D Secure' },
    { value: '5555555555554444', outcome: 'declined', note: 'Mastercard, declined without 3-D Secure' },
    { value: '4000000000001013', outcome: 'declined', note: 'Visa, 3-D Secure then declined' },
  ],
  create(config, deps) {
    return new N1coAdapter(config, deps);
  },
};

export class N1coAdapter extends MethodProvider {
  private readonly api: string;
  private readonly pay: string;
  private token: { value: string; expires: number } | null = null;

  private readonly http: HttpClient;

  constructor(
    private readonly config: N1coConfig,
    deps: AdapterDeps,
  ) {
    super(n1coDefinition, deps);
    const hosts = config.mode === 'sandbox' ? HOSTS.sandbox : HOSTS.live;
    this.api = (config.apiBase || hosts.api).replace(/\/+$/, '');
    this.pay = (config.payApiBase || hosts.pay).replace(/\/+$/, '');
    this.http = httpClient('n1co', deps);
  }

  private async request<T>(
    url: string,
    method: 'GET' | 'POST',
    bearer: string | null,
    body?: unknown,
  ): Promise<{ status: number; data: T }> {
    const res = await this.http.send({
      method,
      url,
      headers: { accept: 'application/json', ...(bearer ? { authorization: `Bearer ${bearer}` } : {}) },
      ...(body !== undefined ? { json: body } : {}),
    });
    const text = res.text;
    let data: unknown = undefined;
    if (text) {
      try {
        data = JSON.parse(text);
      } catch {
        if (res.ok)
          throw new ProviderError(
            'bad_response',
            `n1co answered ${res.status} with a body that is not JSON`,
            res.status,
          );
      }
    }
    if (!res.ok) {
      const e = (data ?? {}) as Record<string, unknown>;
      const nested = (e.error && typeof e.error === 'object' ? e.error : {}) as Record<string, unknown>;
      const code = String(
        e.code ??
          nested.code ??
          (res.status === 401 ? 'unauthorized' : res.status === 404 ? 'not_found' : `http_${res.status}`),
      );
      const message = String(
        e.message ?? nested.message ?? e.title ?? e.detail ?? (text || `n1co answered ${res.status}`),
      );
      throw new ProviderError(code, message, res.status);
    }
    return { status: res.status, data: data as T };
  }

  /** The Integration API's OAuth token, cached until a minute before it lapses. */
  private async accessToken(force = false): Promise<string> {
    const now = this.deps.now().getTime();
    if (!force && this.token && this.token.expires > now) return this.token.value;
    const { data } = await this.request<{ accessToken?: string; expiresIn?: number }>(
      `${this.api}/api/v3/Token`,
      'POST',
      null,
      {
        clientId: this.config.clientId,
        clientSecret: this.config.clientSecret,
      },
    );
    if (!data?.accessToken) throw new ProviderError('bad_response', 'n1co token answer has no accessToken');
    this.token = { value: data.accessToken, expires: now + Math.max(0, (Number(data.expiresIn) || 3600) - 60) * 1000 };
    return this.token.value;
  }

  /** A call with the OAuth token: a 401 (token revoked or lapsed early) gets one fresh token and one retry. */
  private async authed<T>(url: string, method: 'GET' | 'POST', body?: unknown): Promise<T> {
    try {
      return (await this.request<T>(url, method, await this.accessToken(), body)).data;
    } catch (err) {
      if (!(err instanceof ProviderError) || err.status !== 401) throw err;
      return (await this.request<T>(url, method, await this.accessToken(true), body)).data;
    }
  }

  private checkoutCall<T>(path: string, method: 'GET' | 'POST', body?: unknown): Promise<T> {
    if (this.config.checkoutSecretKey)
      return this.request<T>(`${this.pay}${path}`, method, this.config.checkoutSecretKey, body).then((r) => r.data);
    return this.authed<T>(`${this.pay}${path}`, method, body);
  }

  async start(input: StartInput): Promise<StartResult> {
    if (!Number.isInteger(input.amount) || input.amount <= 0) {
      throw new ProviderError('invalid_amount', 'n1co: the amount must be a positive integer of minor units', 400);
    }
    if (input.currency !== 'USD')
      throw new ProviderError('unsupported_currency', `n1co takes USD, not ${input.currency}`, 400);
    const e = currencyScale(input.currency);
    const link = await this.checkoutCall<{ orderId?: number | string; orderCode?: string; paymentLinkUrl?: string }>(
      '/paymentlink/checkout',
      'POST',
      {
        orderReference: input.outTradeNo,
        orderName: input.description.slice(0, 255) || input.outTradeNo,
        orderDescription: input.description.slice(0, 2048),
        amount: Number((input.amount / 10 ** e).toFixed(e)),
        successUrl: input.returnUrl,
        cancelUrl: input.cancelUrl,
        ...(this.config.locationCode ? { locationCode: this.config.locationCode } : {}),
        metadata: [{ name: 'outTradeNo', value: input.outTradeNo }],
      },
    );
    if (!link?.orderCode || !link.paymentLinkUrl)
      throw new ProviderError('bad_response', 'n1co returned no orderCode / paymentLinkUrl');
    return { ref: link.orderCode, state: 'pending', action: { kind: 'redirect', url: link.paymentLinkUrl } };
  }

  private async order(ref: string): Promise<N1coOrder> {
    return this.checkoutCall<N1coOrder>(`/paymentlink/order/${encodeURIComponent(ref)}`, 'GET');
  }

  async status(ref: string, outTradeNo: string): Promise<StatusResult> {
    const o = await this.order(ref);
    if (outTradeNo && o.orderReference && o.orderReference !== outTradeNo) {
      throw new ProviderError(
        'reference_mismatch',
        `n1co order ${ref} is for ${o.orderReference}, not ${outTradeNo}`,
        409,
      );
    }
    const { state, failureCode } = stateOf(o.orderStatus);
    const currency = o.store?.currencyCode ?? 'USD';
    const total = Number(o.total);
    return {
      ref,
      state,
      ...(o.total !== undefined && Number.isFinite(total)
        ? { amount: Math.round(total * 10 ** currencyScale(currency)), currency }
        : {}),
      ...(failureCode ? { failureCode } : {}),
    };
  }

  async refundPayment(ref: string, amount: number, _call?: ProviderCall): Promise<void> {
    const o = await this.order(ref);
    if (stateOf(o.orderStatus).state !== 'paid')
      throw new ProviderError('not_paid', `n1co order ${ref} is ${o.orderStatus ?? 'unknown'}`, 409);
    const currency = o.store?.currencyCode ?? 'USD';
    const total = Math.round(Number(o.total) * 10 ** currencyScale(currency));
    if (amount !== total) {
      throw new ProviderError(
        'partial_refund_unsupported',
        `n1co refunds the whole charge (${total}); ${amount} asked`,
        400,
      );
    }
    const r = await this.authed<{ success?: boolean; status?: string; message?: string }>(
      `${this.api}/api/v3/Refunds`,
      'POST',
      {
        orderId: String(o.orderId),
        cancellationReason: 'Powerly refund',
      },
    );
    if (r?.success === false || (r?.status && r.status !== 'SUCCEEDED')) {
      throw new ProviderError(r.status ?? 'refund_failed', r.message ?? 'n1co refused the refund', 400);
    }
  }

  readNotification(req: NotificationRequest): Promise<Notification | null> {
    const header = req.headers['x-h4b-hmac-sha256'];
    const given = (Array.isArray(header) ? header[0] : header)?.trim();
    if (!given || !this.config.webhookSecret) return Promise.resolve(null);
    const mac = createHmac('sha256', this.config.webhookSecret).update(req.rawBody, 'utf8').digest();
    const same = (expected: string) => {
      const a = Buffer.from(expected);
      const b = Buffer.from(given);
      return a.length === b.length && timingSafeEqual(a, b);
    };
    if (!same(mac.toString('base64')) && !same(mac.toString('hex'))) return Promise.resolve(null);
    let body: { orderId?: unknown; orderReference?: unknown; type?: unknown; metadata?: unknown };
    try {
      body = JSON.parse(req.rawBody) as typeof body;
    } catch {
      return Promise.resolve(null);
    }
    if (!body || typeof body !== 'object' || body.orderId === undefined || typeof body.type !== 'string')
      return Promise.resolve(null);
    const meta = (body.metadata && typeof body.metadata === 'object' ? body.metadata : {}) as Record<string, unknown>;
    const ref = body.orderReference ?? meta.OrderReference ?? meta.orderReference;
    const hash = createHash('sha256').update(req.rawBody).digest('hex').slice(0, 16);
    return Promise.resolve({
      eventId: `n1co:${String(body.orderId)}:${body.type}:${hash}`,
      ...(typeof ref === 'string' && ref ? { outTradeNo: ref } : {}),
      state: EVENT_STATE[body.type],
      ack: { status: 200, contentType: 'text/plain', body: '' },
    });
  }
}
