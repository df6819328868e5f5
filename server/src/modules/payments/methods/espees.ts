// Espees (LoveWorld's digital currency, ESP): the Espees Merchant Web API — the customer pays on Espees's payment
// portal with their Espees wallet and comes back; the merchant confirms the outcome with Espees's server.
//
// Wire protocol, from Espees's merchant documentation ("Espees Merchant Web APIs", as republished in integrators'
// repositories, and Espees's own JS plugin github.com/giftty/espees_payment_integration):
//   auth          header `x-api-key: <developer token>` (the Espees developer console's token)
//   POST https://api.espees.org/v2/payment/product
//                 {product_sku (unique, ours), narration, price (float, ESP), merchant_wallet, success_url, fail_url,
//                 user_data (free JSON, echoed back by confirm)} → {statusCode: 200, payment_ref, message}
//   GET  https://payment.espees.org/pay/<payment_ref>   the payment portal (the redirect)
//                 the customer comes back to success_url or fail_url with `payment_ref` in the query
//   POST https://api.espees.org/v2/payment/confirm/   {payment_ref} → {customer_username, product_sku, narration,
//                 price, transaction_status: APPROVED | DECLINE | PENDING | NOT FOUND, status_details,
//                 transaction_date, user_data}
// Espees documents no webhook, no refund, no hold and no test mode. So:
//   - a "notification" is the customer's return (Espees' confirm GET with tradeNo = payment_ref and
//     outTradeNo, or Espees's own `payment_ref` parameter): nothing in it is signed, so it is verified the way Espees
//     says a payment is verified — by asking Confirm Payment — and accepted only when Espees's answer names the
//     same product_sku (our outTradeNo) and reports an attempt. Its state is Espees's, never the request's.
//   - refund() is ProviderError('refund_unsupported') and capabilities.refund is false.
// Not confirmed from Espees's text (modelled, say so in reviews): the error envelope (we read {statusCode,
// message} and API Gateway's 403 {message: "Forbidden"} for a bad key), whether a reused product_sku is refused
// (the test server refuses it), and the minor unit of ESP: ESP is not an ISO 4217 code (Intl reads it as the
// Spanish peseta, 0 decimals), and Espees prices carry decimals (0.1 in its own example), so we count ESP in
// hundredths — 1250 = 12.50 ESP.
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
import { httpClient } from './http.ts';

export type EspeesConfig = {
  /** The developer token from the Espees developer console (`x-api-key`). */
  apiKey: string;
  /** The merchant's Espees wallet address payments go to. */
  merchantWallet: string;
  /** Overrides https://api.espees.org (a local test server). */
  apiBase?: string;
  /** Overrides https://payment.espees.org, the payment portal (a local test server). */
  payBase?: string;
};

/** ESP has two decimals here (see the header); any other currency is refused. */
const ESP_DECIMALS = 2;

/** Integer hundredths of ESP → the float Espees takes (exact for two decimals). */
export function espeesPrice(minor: number): number {
  if (!Number.isSafeInteger(minor) || minor <= 0)
    throw new ProviderError('invalid_amount', `amount must be a positive integer of minor units: ${minor}`, 400);
  return Number(
    `${Math.floor(minor / 10 ** ESP_DECIMALS)}.${String(minor % 10 ** ESP_DECIMALS).padStart(ESP_DECIMALS, '0')}`,
  );
}

/** Espees's float price → integer hundredths of ESP. */
function minorOf(v: unknown): number | undefined {
  const x = typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : NaN;
  return Number.isFinite(x) && x >= 0 ? Math.round(x * 10 ** ESP_DECIMALS) : undefined;
}

function stateOf(s: string): ExternalState {
  switch (s) {
    case 'APPROVED':
      return 'paid';
    case 'DECLINE':
    case 'DECLINED':
      return 'failed';
    default:
      // PENDING; NOT FOUND (no attempt yet: the customer may still pay)
      return 'pending';
  }
}

function failureOf(details: unknown): string {
  return /insufficient|balance|not enough/i.test(String(details ?? '')) ? 'insufficient_funds' : 'declined';
}

interface Confirmed {
  status: string;
  productSku?: string;
  amount?: number;
  details?: string;
  userData?: Record<string, unknown>;
}

export const espeesDefinition: AdapterDefinition<EspeesConfig, EspeesMethod> = {
  id: 'espees',
  payTypes: [{ type: 'Espees', kind: 'redirect', label: 'Espees', platforms: ['web'] }],
  capabilities: { hold: false, partialCapture: false, offSession: false, refund: false, payout: false, webhook: true },
  currencies: ['ESP'],
  required: ['apiKey', 'merchantWallet'],
  optional: ['apiBase', 'payBase'],
  // Espees documents no test mode: no test values of Espees's own (the test server's are ours).
  testValues: [],
  create: (config, deps) => new EspeesMethod(config, deps),
};

/** The provider's API as EspeesMethod calls it: the connection and the helpers its wire operations share. */
function espeesWire(config: EspeesConfig, deps: AdapterDeps) {
  const api = (config.apiBase || 'https://api.espees.org').replace(/\/+$/, '');
  const portal = (config.payBase || 'https://payment.espees.org').replace(/\/+$/, '');

  const http = httpClient('Espees', deps);

  async function post(path: string, body: Record<string, unknown>): Promise<Record<string, unknown>> {
    const res = await http.send({
      method: 'POST',
      url: `${api}${path}`,
      headers: { accept: 'application/json', 'x-api-key': config.apiKey },
      json: body,
    });
    const text = res.text;
    let json: Record<string, unknown> | null;
    try {
      json = JSON.parse(text) as Record<string, unknown>;
    } catch {
      json = null;
    }
    const message = String((json && (json.message ?? json.error)) ?? text.slice(0, 200) ?? '');
    if (res.status === 401 || res.status === 403)
      throw new ProviderError('unauthorized', `Espees ${path}: ${message || 'Forbidden'}`, res.status);
    if (res.status >= 500)
      throw new ProviderError('provider_error', `Espees ${path}: HTTP ${res.status} ${message}`, 502);
    if (!json || typeof json !== 'object')
      throw new ProviderError('bad_response', `Espees ${path}: HTTP ${res.status} not JSON`, 502);
    const code = json.statusCode === undefined ? res.status : Number(json.statusCode);
    if (!res.ok || code !== 200) {
      const c = code !== 200 ? code : res.status;
      const name = /already|exist|duplicate/i.test(message)
        ? 'duplicate_order'
        : c === 404
          ? 'not_found'
          : c >= 500
            ? 'provider_error'
            : 'invalid_request';
      throw new ProviderError(
        name,
        `Espees ${path}: ${message} (statusCode ${c})`,
        name === 'duplicate_order' ? 409 : c >= 500 ? 502 : c,
      );
    }
    return json;
  }

  async function confirm(paymentRef: string): Promise<Confirmed> {
    const r = await post('/v2/payment/confirm/', { payment_ref: paymentRef });
    const userData =
      r.user_data && typeof r.user_data === 'object' ? (r.user_data as Record<string, unknown>) : undefined;
    return {
      status: String(r.transaction_status ?? '')
        .trim()
        .toUpperCase(),
      ...(typeof r.product_sku === 'string' ? { productSku: r.product_sku } : {}),
      ...(minorOf(r.price) !== undefined ? { amount: minorOf(r.price) } : {}),
      ...(r.status_details !== undefined ? { details: String(r.status_details) } : {}),
      ...(userData ? { userData } : {}),
    };
  }

  /** Espees's answer is about this payment: its product_sku (or the user_data we sent) is our outTradeNo. */
  const ours = (c: Confirmed, outTradeNo: string) =>
    c.productSku === outTradeNo || (c.productSku === undefined && c.userData?.outTradeNo === outTradeNo);

  async function status(ref: string, outTradeNo: string): Promise<StatusResult> {
    const c = await confirm(ref);
    if (c.productSku !== undefined && outTradeNo && c.productSku !== outTradeNo) {
      throw new ProviderError(
        'reference_mismatch',
        `Espees payment ${ref} is product ${c.productSku}, not ${outTradeNo}`,
        502,
      );
    }
    const state = stateOf(c.status);
    return {
      ref,
      state,
      ...(c.amount !== undefined && c.status !== 'NOT FOUND' ? { amount: c.amount, currency: 'ESP' } : {}),
      ...(state === 'failed' ? { failureCode: failureOf(c.details) } : {}),
    };
  }

  return { api, portal, http, post, confirm, ours, status };
}

export class EspeesMethod extends MethodProvider {
  private readonly w: ReturnType<typeof espeesWire>;

  constructor(
    private readonly config: EspeesConfig,
    deps: AdapterDeps,
  ) {
    super(espeesDefinition, deps);
    this.w = espeesWire(config, deps);
  }

  status(ref: string, outTradeNo: string): Promise<StatusResult> {
    return this.w.status(ref, outTradeNo);
  }

  async start(input: StartInput): Promise<StartResult> {
    const { portal, post } = this.w;
    const { config } = this;
    if (input.currency !== 'ESP')
      throw new ProviderError('currency_unsupported', `Espees takes ESP, not ${input.currency}`, 400);
    if (input.capture === 'manual') throw new ProviderError('hold_unsupported', 'Espees payments cannot be held', 400);
    const r = await post('/v2/payment/product', {
      product_sku: input.outTradeNo,
      narration: input.description,
      price: espeesPrice(input.amount),
      merchant_wallet: config.merchantWallet,
      success_url: input.returnUrl,
      fail_url: input.cancelUrl,
      user_data: { outTradeNo: input.outTradeNo, userId: String(input.payer.userId) },
    });
    const ref = r.payment_ref;
    if (typeof ref !== 'string' || !/^[A-Za-z0-9_-]+$/.test(ref))
      throw new ProviderError('bad_response', 'Espees /v2/payment/product: no payment_ref in the answer', 502);
    return {
      ref,
      state: 'pending' as const,
      action: { kind: 'redirect' as const, url: `${portal}/pay/${encodeURIComponent(ref)}` },
    };
  }

  override async complete(ref: string, outTradeNo: string): Promise<StatusResult> {
    const { status } = this.w;
    // The customer is back with payment_ref in the query: proof of nothing, Espees's confirm answer decides.
    return status(ref, outTradeNo);
  }

  async refundPayment(_ref: string, _amount: number, _call?: ProviderCall): Promise<void> {
    throw new ProviderError(
      'refund_unsupported',
      'Espees documents no refund API: refund from the merchant wallet by hand',
      422,
    );
  }

  async readNotification(req: NotificationRequest): Promise<Notification | null> {
    const { confirm, ours } = this.w;
    let fields: Record<string, unknown> = { ...req.query };
    if (req.rawBody.trim()) {
      try {
        const parsed: unknown = req.rawBody.trim().startsWith('{')
          ? JSON.parse(req.rawBody)
          : Object.fromEntries(new URLSearchParams(req.rawBody));
        if (parsed && typeof parsed === 'object') fields = { ...fields, ...(parsed as Record<string, unknown>) };
      } catch {
        return null;
      }
    }
    const ref = fields.tradeNo ?? fields.payment_ref;
    const outTradeNo = fields.outTradeNo;
    if (typeof ref !== 'string' || !/^[A-Za-z0-9_-]{1,128}$/.test(ref) || typeof outTradeNo !== 'string' || !outTradeNo)
      return null;
    let c: Confirmed;
    try {
      c = await confirm(ref);
    } catch (err) {
      // Espees could not be asked: not verified now (the caller answers an error and the check retries).
      if (err instanceof ProviderError && (err.code === 'not_found' || err.code === 'invalid_request')) return null;
      throw err;
    }
    if (!ours(c, outTradeNo) || !['APPROVED', 'DECLINE', 'DECLINED', 'PENDING'].includes(c.status)) return null;
    return {
      eventId: `espees:${ref}:${c.status}`,
      outTradeNo,
      ref,
      state: stateOf(c.status),
      ...(c.amount !== undefined ? { amount: c.amount, currency: 'ESP' } : {}),
      ack: { status: 200, contentType: 'text/plain', body: 'OK' },
    };
  }
}
