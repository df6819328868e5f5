// Monri WebPay (Bosnia and Herzegovina, Croatia) with Monri Components: the card form is Monri's, mounted in our
// app; this adapter creates the payment server-side and manages it afterwards.
//
// How the customer pays: start() creates a Components payment and answers the Action
//   { kind: 'form', url: '#/MonriPay', fields: { authenticityToken, clientSecret, scriptUrl, outTradeNo, amount, currency } }
// A form action whose url starts with '#/' is routed INSIDE the app (to its /MonriPay screen), not posted to a
// provider page: /MonriPay loads Monri Components from `scriptUrl` (<apiBase>/dist/components.js), mounts
// (`Monri(authenticityToken)` → `components({clientSecret})` → `create('card')`) with an e-mail field, takes the
// billing full name from the e-mail, calls `monri.confirmPayment(card, {...})`, and sends the customer back through
// /payments/return/<outTradeNo>; the resume then asks Monri the payment's status (never the screen's word).
// The page's CSP allows <apiBase> (script, frame, connect) only while Monri is configured live (clientSdk).
//
// Wire API (Monri's documentation; test host https://ipgtest.monri.com, live https://ipg.monri.com):
//   POST /v2/payment/new            JSON {transaction_type: purchase | authorize, amount (minor units), currency,
//                                   order_number = our outTradeNo, order_info, scenario: 'charge'}
//                                   → {status: 'approved', id, client_secret}
//   GET  /v2/payment/{id}/status    → {status, payment_status: approved | executed | declined | action_required |
//                                   payment_method_required, payment_result: {status, response_code, amount,
//                                   currency, order_number, transaction_type, …}}
//     both with `Authorization: WP3-v2 <authenticity_token> <timestamp> <digest>`,
//     digest = SHA-512 hex of (merchant_key + timestamp + authenticity_token + body) (body '' for a GET)
//   POST /orders/show               XML <order><order-number/><authenticity-token/><digest = SHA-1(key + order_number)/>
//                                   (status by our reference when start's answer was lost)
//   POST /transactions/{order_number}/capture.xml | void.xml | refund.xml
//                                   XML <transaction><amount/><currency/><digest/><authenticity-token/><order-number/>
//                                   digest = SHA-1 hex of (merchant_key + order_number + amount + currency)
//                                   → <transaction>…<status>approved</status><response-code>0000</response-code>…;
//                                   refused → HTTP 406 <errors><error>…</error></errors>
// Callback (the URL set in Monri's merchant dashboard: our /webhooks/methods/monri[.<agent>]): POST JSON with
// `Authorization: WP3-callback <digest>`, digest = SHA-512 hex of (merchant_key + raw body); answered 200.
import { createHash, timingSafeEqual } from 'node:crypto';
import {
  originOf,
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

export type MonriConfig = {
  merchantKey: string;
  authenticityToken: string;
  /** API root: https://ipg.monri.com (default, live) or https://ipgtest.monri.com (test). */
  apiBase?: string;
};

interface PaymentResult {
  status?: string;
  response_code?: string;
  response_message?: string;
  amount?: number;
  currency?: string;
  order_number?: string;
  transaction_type?: string;
}

interface PaymentStatus {
  status?: string;
  payment_status?: string;
  payment_result?: PaymentResult | null;
}

const sha512 = (s: string) => createHash('sha512').update(s, 'utf8').digest('hex');
const sha1 = (s: string) => createHash('sha1').update(s, 'utf8').digest('hex');
const xmlEscape = (s: string) =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** The text of each child element of a flat XML answer: <transaction><status>approved</status>… → {status: 'approved'}. */
export function readXml(xml: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const m of xml.matchAll(/<([a-z][\w-]*)(?:\s[^>]*)?>([^<]*)<\/\1>/gi)) {
    const v = m[2]!
      .replace(/&lt;/g, '<')
      .replace(/&gt;/g, '>')
      .replace(/&quot;/g, '"')
      .replace(/&amp;/g, '&')
      .trim();
    out[m[1]!] = m[1]! in out ? `${out[m[1]!]}; ${v}` : v;
  }
  return out;
}

/** Monri response codes → the decline codes the app shows. */
export function failureCode(responseCode: string | undefined): string {
  switch (responseCode) {
    case '1005':
    case '1051':
      return 'insufficient_funds';
    case '1001':
    case '1054':
      return 'expired_card';
    case '1082':
      return 'incorrect_cvc';
    default:
      return 'card_declined';
  }
}

const APPROVED_CODES = new Set(['0000', '0001', '0002']);

const LIVE_BASE = 'https://ipg.monri.com';
/** Monri Components' script: <apiBase>/dist/components.js (https://ipgtest.monri.com/dist/components.js in test). */
export const componentsScript = (config: Pick<MonriConfig, 'apiBase'>) =>
  `${(config.apiBase || LIVE_BASE).replace(/\/+$/, '')}/dist/components.js`;

function stateOf(s: PaymentStatus): ExternalState {
  const r = s.payment_result;
  if (s.payment_status === 'declined' || r?.status === 'declined') return 'failed';
  if (s.payment_status === 'approved' || s.payment_status === 'executed') {
    if (r?.status && r.status !== 'approved') return 'failed';
    return r?.transaction_type === 'authorize' ? 'authorized' : 'paid';
  }
  return 'pending';
}

/** The provider's API as MonriMethod calls it: the connection and the helpers its wire operations share. */
function monriWire(config: MonriConfig, deps: AdapterDeps) {
  const base = (config.apiBase || LIVE_BASE).replace(/\/+$/, '');

  const http = httpClient('monri', deps);
  const send = (method: 'GET' | 'POST', path: string, body: string | undefined, headers: Record<string, string>) =>
    http.send({ method, url: `${base}${path}`, headers, ...(body === undefined ? {} : { body }) });

  /** The v2 JSON API, signed WP3-v2. */
  async function v2<T>(method: 'GET' | 'POST', path: string, payload?: unknown): Promise<T> {
    const body = payload === undefined ? '' : JSON.stringify(payload);
    const ts = String(Math.floor(deps.now().getTime() / 1000));
    const digest = sha512(config.merchantKey + ts + config.authenticityToken + body);
    const headers: Record<string, string> = {
      authorization: `WP3-v2 ${config.authenticityToken} ${ts} ${digest}`,
      accept: 'application/json',
    };
    if (payload !== undefined) headers['content-type'] = 'application/json';
    const res = await send(method, path, payload === undefined ? undefined : body, headers);
    const text = res.text;
    let json: Record<string, unknown>;
    try {
      json = (text ? JSON.parse(text) : {}) as Record<string, unknown>;
    } catch {
      throw new ProviderError('bad_response', `monri: ${method} ${path}: not JSON (HTTP ${res.status})`, res.status);
    }
    if (!res.ok || json.status === 'error' || json.status === 'declined') {
      const errors = Array.isArray(json.errors) ? json.errors.map(String).join('; ') : undefined;
      const message = errors ?? (typeof json.message === 'string' ? json.message : `HTTP ${res.status}`);
      const code =
        res.status === 401
          ? 'unauthorized'
          : res.status === 404
            ? 'not_found'
            : typeof json.code === 'string'
              ? json.code
              : 'invalid_request';
      throw new ProviderError(code, `monri: ${message}`, res.status);
    }
    return json as T;
  }

  /** The XML transaction management API (and orders/show). */
  async function xml(path: string, root: string, fields: Record<string, string>): Promise<Record<string, string>> {
    const body = `<?xml version="1.0" encoding="UTF-8"?><${root}>${Object.entries(fields)
      .map(([k, v]) => `<${k}>${xmlEscape(v)}</${k}>`)
      .join('')}</${root}>`;
    const res = await send('POST', path, body, { 'content-type': 'application/xml', accept: 'application/xml' });
    const text = res.text;
    const out = readXml(text);
    if (!res.ok) {
      const code = res.status === 404 ? 'not_found' : res.status === 401 ? 'unauthorized' : 'invalid_request';
      throw new ProviderError(code, `monri: ${out.error ?? (text.slice(0, 200) || `HTTP ${res.status}`)}`, res.status);
    }
    if (!out.status && !out['response-code'])
      throw new ProviderError('bad_response', `monri: ${path}: no transaction in the answer`, res.status);
    return out;
  }

  async function transaction(
    kind: 'capture' | 'void' | 'refund',
    orderNumber: string,
    amount: number,
    currency: string,
  ) {
    const a = String(amount);
    const t = await xml(`/transactions/${encodeURIComponent(orderNumber)}/${kind}.xml`, 'transaction', {
      amount: a,
      currency,
      digest: sha1(config.merchantKey + orderNumber + a + currency),
      'authenticity-token': config.authenticityToken,
      'order-number': orderNumber,
    });
    if (t.status !== 'approved' || (t['response-code'] && !APPROVED_CODES.has(t['response-code']))) {
      throw new ProviderError(
        t['response-code'] || 'declined',
        `monri: ${kind} ${t.status ?? ''}: ${t['response-message'] ?? ''}`,
        200,
      );
    }
  }

  async function paymentStatus(ref: string) {
    return v2<PaymentStatus>('GET', `/v2/payment/${encodeURIComponent(ref)}/status`);
  }

  /** The order the payment belongs to (capture, void, refund are by order number). */
  async function orderOf(ref: string) {
    const s = await paymentStatus(ref);
    const r = s.payment_result;
    if (!r?.order_number || r.amount === undefined || !r.currency)
      throw new ProviderError('invalid_state', `monri: payment ${ref} has no transaction yet`, 409);
    return { orderNumber: r.order_number, amount: r.amount, currency: r.currency, state: stateOf(s) };
  }

  return { base, http, send, v2, xml, transaction, paymentStatus, orderOf };
}

export class MonriMethod extends MethodProvider {
  private readonly w: ReturnType<typeof monriWire>;

  constructor(
    private readonly config: MonriConfig,
    deps: AdapterDeps,
  ) {
    super(monriDefinition, deps);
    this.w = monriWire(config, deps);
  }

  async start(input: StartInput): Promise<StartResult> {
    const { v2 } = this.w;
    const { config } = this;
    // order_info: 3–100 characters.
    const info = (input.description || 'Powerly').slice(0, 100).padEnd(3, '.');
    const r = await v2<{ status: string; id: string; client_secret: string }>('POST', '/v2/payment/new', {
      transaction_type: input.capture === 'manual' ? 'authorize' : 'purchase',
      amount: input.amount,
      currency: input.currency,
      order_number: input.outTradeNo,
      order_info: info,
      scenario: 'charge',
    });
    if (r.status !== 'approved' || !r.id || !r.client_secret)
      throw new ProviderError('bad_response', 'monri: payment/new answered without a client secret');
    return {
      ref: r.id,
      state: 'pending' as const,
      action: {
        kind: 'form' as const,
        url: '#/MonriPay',
        fields: {
          authenticityToken: config.authenticityToken,
          clientSecret: r.client_secret,
          scriptUrl: componentsScript(config),
          outTradeNo: input.outTradeNo,
          amount: String(input.amount),
          currency: input.currency,
        },
      },
    };
  }

  async status(ref: string, outTradeNo: string): Promise<StatusResult> {
    const { xml, paymentStatus } = this.w;
    const { config } = this;
    if (!ref) {
      // No payment id (start's answer lost): the order by our reference.
      let o: Record<string, string>;
      try {
        o = await xml('/orders/show', 'order', {
          'order-number': outTradeNo,
          'authenticity-token': config.authenticityToken,
          digest: sha1(config.merchantKey + outTradeNo),
        });
      } catch (err) {
        if (err instanceof ProviderError && err.code === 'not_found') return { ref: '', state: 'pending' };
        throw err;
      }
      const approved = o.status === 'approved' && APPROVED_CODES.has(o['response-code'] ?? '');
      const state: ExternalState = approved
        ? o['transaction-type'] === 'authorize'
          ? 'authorized'
          : 'paid'
        : o.status === 'declined'
          ? 'failed'
          : 'pending';
      return {
        ref: '',
        state,
        ...(o.amount ? { amount: Number(o.amount) } : {}),
        ...(o.currency ? { currency: o.currency } : {}),
        ...(state === 'failed' ? { failureCode: failureCode(o['response-code']) } : {}),
      };
    }
    const s = await paymentStatus(ref);
    const state = stateOf(s);
    const r = s.payment_result;
    return {
      ref,
      state,
      ...(r?.amount !== undefined ? { amount: r.amount } : {}),
      ...(r?.currency ? { currency: r.currency } : {}),
      ...(state === 'failed' ? { failureCode: failureCode(r?.response_code) } : {}),
    };
  }

  override async capturePayment(ref: string, amount: number, _call?: ProviderCall): Promise<void> {
    const { transaction, orderOf } = this.w;
    const o = await orderOf(ref);
    if (amount > o.amount)
      throw new ProviderError('amount_too_large', `monri: capture ${amount} above the authorised ${o.amount}`, 400);
    await transaction('capture', o.orderNumber, amount, o.currency);
  }

  override async voidPayment(ref: string, _call?: ProviderCall): Promise<void> {
    const { transaction, orderOf } = this.w;
    const o = await orderOf(ref);
    await transaction('void', o.orderNumber, o.amount, o.currency);
  }

  async refundPayment(ref: string, amount: number, _call: ProviderCall): Promise<void> {
    const { transaction, orderOf } = this.w;
    const o = await orderOf(ref);
    await transaction('refund', o.orderNumber, amount, o.currency);
  }

  async readNotification(req: NotificationRequest): Promise<Notification | null> {
    const { config } = this;
    const raw = req.headers.authorization ?? req.headers.Authorization;
    const auth = Array.isArray(raw) ? raw[0] : raw;
    const m = /^WP3-callback\s+([0-9a-f]{128})$/i.exec(auth?.trim() ?? '');
    if (!m) return null;
    const expected = Buffer.from(sha512(config.merchantKey + req.rawBody), 'hex');
    if (!timingSafeEqual(expected, Buffer.from(m[1]!, 'hex'))) return null;
    let body: {
      order_number?: string;
      status?: string;
      response_code?: string;
      transaction_type?: string;
      amount?: number;
      currency?: string;
    };
    try {
      body = JSON.parse(req.rawBody) as typeof body;
    } catch {
      return null;
    }
    if (!body.order_number || !body.status) return null;
    const approved = body.status === 'approved' && (!body.response_code || APPROVED_CODES.has(body.response_code));
    const type = body.transaction_type ?? 'purchase';
    let state: ExternalState | undefined;
    if (!approved) state = type === 'purchase' || type === 'authorize' ? 'failed' : undefined;
    else if (type === 'authorize') state = 'authorized';
    else if (type === 'purchase' || type === 'capture') state = 'paid';
    else if (type === 'void') state = 'cancelled';
    return {
      // One event per order, transaction type and outcome (the authorisation and its capture are two events).
      eventId: `monri:${body.order_number}:${type}:${body.status}`,
      outTradeNo: body.order_number,
      ...(state ? { state } : {}),
      ...(typeof body.amount === 'number' ? { amount: body.amount } : {}),
      ...(body.currency ? { currency: body.currency } : {}),
      ack: { status: 200, contentType: 'text/plain', body: '' },
    };
  }

  override clientConfig() {
    const { config } = this;
    return { authenticityToken: config.authenticityToken };
  }
}

export const monriDefinition: AdapterDefinition<MonriConfig, MonriMethod> = {
  id: 'monri',
  payTypes: [{ type: 'Monri_WebPay', kind: 'card', label: 'Card (Monri)' }],
  capabilities: { hold: true, partialCapture: true, offSession: false, refund: true, payout: false, webhook: true },
  // HRK left out: the kuna was replaced by the euro in Croatia on 1 January 2023.
  currencies: ['BAM', 'EUR', 'USD'],
  required: ['merchantKey', 'authenticityToken'],
  optional: ['apiBase'],
  // Monri's test cards (test environment, any future expiry, any CVV).
  testValues: [
    { value: '4341 7920 0000 0044', outcome: 'succeeds', note: 'Visa, 3-D Secure' },
    { value: '4058 4000 0000 0005', outcome: 'succeeds', note: 'Visa' },
    { value: '5464 0000 0000 0008', outcome: 'succeeds', note: 'Mastercard' },
    { value: '6769 0642 1999 2611', outcome: 'succeeds', note: 'Maestro, 3-D Secure' },
  ],
  // Components is loaded from the API host, mounts its card form in a frame of that host and confirms there.
  clientSdk(config) {
    const o = originOf(config.apiBase || LIVE_BASE);
    return o ? { script: [o], frame: [o], connect: [o] } : { script: [], frame: [], connect: [] };
  },
  create: (config, deps) => new MonriMethod(config, deps),
};
