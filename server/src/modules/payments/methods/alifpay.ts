// Alif Pay (Alif Bank, Tajikistan): the acquiring "WebCheckout" — the customer is sent to Alif's hosted page and
// pays with a Korti Milli card, the Alif Mobi wallet, Salom instalments or Visa/Mastercard (the terminal's `gate`).
//
// Wire protocol, from Alif's own material (github.com/alifcapital/sdk: integration-examples/{go,php,c#} and the
// 2018 manual sdk/manual.md) and docs.acquiring.alif.tj as cited by the SDKs built on it:
//   hosts         https://web.alif.tj (live), https://test-web.alif.tj (test)
//   secret        secret = HMAC-SHA256(key = terminal key, data = terminal password), lower-case hex; every token is
//                 HMAC-SHA256(key = that hex string, data = the concatenation below), lower-case hex
//   POST /v2/     JSON {key, token, order_id, amount "12.50", callback_url, return_url, gate, info, email, phone},
//                 header `gate`; token over key + order_id + amount + callback_url. Answer {code, message, url}:
//                 code 200 = created (send the customer to `url`), 208 = order_id already used, 400 = invalid
//                 request, 401 = bad token, 403 = unknown key, 404 = not found, 500 = Alif's error. Alif's examples
//                 check both the HTTP status and `code` (one SDK says HTTP is always 200): the adapter reads both,
//                 the test server answers with HTTP status = code.
//   callback      POST JSON to callback_url {orderId, transactionId, status: ok|failed|canceled|pending|to_approve,
//                 token, amount, account, phone, transaction_type}; token over orderId + status + transactionId.
//                 Alif retries until it gets HTTP 200.
//   POST /checktxn  {orderId, key, token over key + orderId} → {orderId, transactionId, status, token, amount,
//                 phone} (token as in the callback) or {orderId, status: "not found"}.
//   POST /cancel/standard  {key, transaction_id, amount, token over key + transaction_id + amount}: cancels or
//                 refunds a paid transaction, wholly or in part → {code, message}.
// Not confirmed from Alif's own text (modelled from the SDKs that cite docs.acquiring.alif.tj, say so in reviews):
// /cancel/standard (absent from Alif's integration examples), whether it takes several partial refunds, and the
// field name of /checktxn's order id on the v2 host (the 2018 manual says `orderId`, one SDK `order_id`: both are
// sent, the token does not cover them). Alif takes TJS only (the form has no currency field) and holds nothing on
// a standard payment (the hold/confirm-delivery flow is the marketplace's), so no hold, no payout.
//
// Our ref for a payment is our outTradeNo (= Alif's order_id): Alif answers /v2/ with a page URL only, its
// transactionId exists once the customer paid and is looked up with /checktxn when a refund needs it.
import { currencyScale } from '#core/money.ts';
import { createHmac, timingSafeEqual } from 'node:crypto';
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

export type AlifPayConfig = {
  /** The terminal key Alif issues (`key`, also called terminal id). */
  key: string;
  /** The terminal password Alif issues (never sent: it only derives the signing secret). */
  password: string;
  /** The payment gate: korti_milli (default), wallet, salom, vsa, mcr, … */
  gate?: string;
  /** live (default): web.alif.tj; test: test-web.alif.tj. */
  mode?: string;
  /** Overrides the host (a local test server). */
  apiBase?: string;
};

const HOSTS = { live: 'https://web.alif.tj', test: 'https://test-web.alif.tj' } as const;

/** Alif's answer codes (the `code` field, mirrored by the HTTP status) and what we call them. */
const CODES: Record<number, string> = {
  208: 'duplicate_order',
  400: 'invalid_request',
  401: 'invalid_token',
  403: 'invalid_key',
  404: 'not_found',
  500: 'provider_error',
};

/** Integer minor units → "12.50" (the exponent from Intl; Alif wants exactly two decimals, TJS has two). */
export function alifAmount(minor: number, currency: string): string {
  if (!Number.isSafeInteger(minor) || minor <= 0)
    throw new ProviderError('invalid_amount', `amount must be a positive integer of minor units: ${minor}`, 400);
  const exp = currencyScale(currency);
  if (exp > 2) throw new ProviderError('invalid_amount', `${currency} has ${exp} decimals; Alif takes two`, 400);
  const hundredths = (BigInt(minor) * 10n ** BigInt(2 - exp)).toString().padStart(3, '0');
  return `${hundredths.slice(0, -2)}.${hundredths.slice(-2)}`;
}

/** Alif's major-unit amount (a JSON number or string) → integer minor units of TJS. */
function minorOf(v: unknown): number | undefined {
  if (typeof v !== 'number' && typeof v !== 'string') return undefined;
  const m = /^(\d+)(?:\.(\d{1,2}))?$/.exec(String(v).trim());
  if (!m) return undefined;
  return Number(m[1]) * 100 + Number((m[2] ?? '').padEnd(2, '0'));
}

function stateOf(status: string): ExternalState {
  switch (status) {
    case 'ok':
    case 'approved':
      return 'paid';
    case 'failed':
      return 'failed';
    case 'canceled':
    case 'cancelled':
      return 'cancelled';
    default:
      // pending, to_approve, "not found" (the customer has not paid yet)
      return 'pending';
  }
}

function header(req: NotificationRequest, name: string): string | undefined {
  const v = req.headers[name] ?? req.headers[name.toLowerCase()];
  return Array.isArray(v) ? v[0] : v;
}

export const alifpayDefinition: AdapterDefinition<AlifPayConfig, AlifPayMethod> = {
  id: 'alifpay',
  payTypes: [{ type: 'Alif_Pay', kind: 'redirect', label: 'Alif Pay', platforms: ['web'] }],
  capabilities: { hold: false, partialCapture: false, offSession: false, refund: true, payout: false, webhook: true },
  currencies: ['TJS'],
  required: ['key', 'password'],
  optional: ['gate', 'mode', 'apiBase'],
  // Alif's test host has test cards, but their numbers are handed out with the test terminal, not published:
  // none are listed here (the test server's values are ours, see server/test/providers/alifpay.ts).
  testValues: [],
  create: (config, deps) => new AlifPayMethod(config, deps),
};

/** The provider's API as AlifPayMethod calls it: the connection and the helpers its wire operations share. */
function alifpayWire(config: AlifPayConfig, deps: AdapterDeps) {
  const base = (config.apiBase || (config.mode === 'test' ? HOSTS.test : HOSTS.live)).replace(/\/+$/, '');
  const gate = config.gate || 'korti_milli';
  // Step 1 of Alif's scheme: the password hashed with the terminal key is the signing secret.
  const secret = createHmac('sha256', config.key).update(config.password).digest('hex');
  const sign = (data: string) => createHmac('sha256', secret).update(data).digest('hex');
  const verify = (data: string, token: unknown) => {
    if (typeof token !== 'string' || !/^[0-9a-fA-F]{64}$/.test(token)) return false;
    return timingSafeEqual(Buffer.from(sign(data), 'hex'), Buffer.from(token.toLowerCase(), 'hex'));
  };

  const http = httpClient('Alif', deps);

  async function post(
    path: string,
    body: Record<string, unknown>,
    headers: Record<string, string> = {},
  ): Promise<Record<string, unknown>> {
    const res = await http.send({
      method: 'POST',
      url: `${base}${path}`,
      headers: { accept: 'application/json', ...headers },
      json: body,
    });
    const text = res.text;
    let json: Record<string, unknown>;
    try {
      json = JSON.parse(text) as Record<string, unknown>;
    } catch {
      throw new ProviderError(
        res.status >= 500 ? 'provider_error' : 'bad_response',
        `Alif ${path}: HTTP ${res.status} ${text.slice(0, 200)}`,
        res.status >= 500 ? 502 : res.status,
      );
    }
    if (json === null || typeof json !== 'object')
      throw new ProviderError('bad_response', `Alif ${path}: not an object`, 502);
    const code = typeof json.code === 'number' ? json.code : Number(json.code ?? res.status);
    const failed = !res.ok || (json.code !== undefined && code !== 200);
    if (failed) {
      const c = code !== 200 ? code : res.status;
      const name = CODES[c] ?? (c >= 500 ? 'provider_error' : 'invalid_request');
      throw new ProviderError(
        name,
        `Alif ${path}: ${String(json.message ?? `HTTP ${res.status}`)} (code ${c})`,
        c === 208 ? 409 : c >= 500 ? 502 : c,
      );
    }
    return json;
  }

  async function checktxn(orderId: string) {
    let r: Record<string, unknown>;
    try {
      r = await post('/checktxn', { orderId, order_id: orderId, key: config.key, token: sign(config.key + orderId) });
    } catch (err) {
      // "not found": Alif has no transaction for this order (yet).
      if (err instanceof ProviderError && err.code === 'not_found')
        return { status: 'not found', transactionId: undefined, amount: undefined };
      throw err;
    }
    const status = String(r.status ?? '').toLowerCase();
    const transactionId = r.transactionId ?? r.transaction_id;
    // The answer carries the transaction token (orderId + status + transactionId) when there is a transaction:
    // a wrong one means the answer is not Alif's.
    if (
      r.token !== undefined &&
      transactionId !== undefined &&
      !verify(String(r.orderId ?? orderId) + String(r.status) + String(transactionId), r.token)
    ) {
      throw new ProviderError(
        'bad_signature',
        `Alif /checktxn: the answer's token does not verify for ${orderId}`,
        502,
      );
    }
    return {
      status,
      transactionId: transactionId === undefined ? undefined : String(transactionId),
      amount: minorOf(r.amount),
    };
  }

  async function status(ref: string, outTradeNo: string): Promise<StatusResult> {
    const t = await checktxn(outTradeNo || ref);
    const state = stateOf(t.status);
    return {
      ref: outTradeNo || ref,
      state,
      ...(t.amount !== undefined ? { amount: t.amount, currency: 'TJS' } : {}),
      ...(state === 'failed' ? { failureCode: 'declined' } : {}),
    };
  }

  return { base, gate, secret, sign, verify, http, post, checktxn, status };
}

export class AlifPayMethod extends MethodProvider {
  private readonly w: ReturnType<typeof alifpayWire>;

  constructor(
    private readonly config: AlifPayConfig,
    deps: AdapterDeps,
  ) {
    super(alifpayDefinition, deps);
    this.w = alifpayWire(config, deps);
  }

  status(ref: string, outTradeNo: string): Promise<StatusResult> {
    return this.w.status(ref, outTradeNo);
  }

  async start(input: StartInput): Promise<StartResult> {
    const { gate, sign, post } = this.w;
    const { config } = this;
    if (input.currency !== 'TJS')
      throw new ProviderError('currency_unsupported', `Alif Pay takes TJS, not ${input.currency}`, 400);
    if (input.capture === 'manual')
      throw new ProviderError('hold_unsupported', 'Alif Pay standard payments cannot be held', 400);
    const amount = alifAmount(input.amount, input.currency);
    const body: Record<string, unknown> = {
      key: config.key,
      token: sign(config.key + input.outTradeNo + amount + input.notifyUrl),
      order_id: input.outTradeNo,
      amount,
      callback_url: input.notifyUrl,
      return_url: input.returnUrl,
      gate,
      info: input.description.slice(0, 255),
    };
    if (input.payer.email) body.email = input.payer.email;
    if (input.payer.phone) body.phone = input.payer.phone;
    const r = await post('/v2/', body, { gate });
    if (typeof r.url !== 'string' || !r.url)
      throw new ProviderError('bad_response', 'Alif /v2/: no payment page url in the answer', 502);
    return { ref: input.outTradeNo, state: 'pending' as const, action: { kind: 'redirect' as const, url: r.url } };
  }

  override async complete(ref: string, outTradeNo: string): Promise<StatusResult> {
    const { status } = this.w;
    // The customer is back on return_url: Alif adds nothing signed to it, so the answer is Alif's own state.
    return status(ref, outTradeNo);
  }

  async refundPayment(ref: string, amount: number, _call?: ProviderCall): Promise<void> {
    const { sign, post, checktxn } = this.w;
    const { config } = this;
    const t = await checktxn(ref);
    if (t.status !== 'ok' && t.status !== 'approved') {
      throw new ProviderError(
        'not_refundable',
        `Alif: order ${ref} is ${t.status || 'unknown'}, nothing to refund`,
        409,
      );
    }
    if (!t.transactionId)
      throw new ProviderError('bad_response', `Alif /checktxn: no transactionId for paid order ${ref}`, 502);
    const sum = alifAmount(amount, 'TJS');
    await post('/cancel/standard', {
      key: config.key,
      transaction_id: t.transactionId,
      amount: sum,
      token: sign(config.key + t.transactionId + sum),
    });
  }

  async readNotification(req: NotificationRequest): Promise<Notification | null> {
    const { verify } = this.w;
    const type = header(req, 'content-type') ?? '';
    let body: Record<string, unknown>;
    try {
      body = type.includes('application/x-www-form-urlencoded')
        ? Object.fromEntries(new URLSearchParams(req.rawBody))
        : (JSON.parse(req.rawBody) as Record<string, unknown>);
    } catch {
      return null;
    }
    if (!body || typeof body !== 'object') return null;
    const orderId = body.orderId ?? body.order_id;
    const transactionId = body.transactionId ?? body.transaction_id;
    const st = body.status;
    if (
      typeof orderId !== 'string' ||
      typeof st !== 'string' ||
      (typeof transactionId !== 'string' && typeof transactionId !== 'number')
    )
      return null;
    if (!verify(orderId + st + String(transactionId), body.token)) return null;
    const amount = minorOf(body.amount);
    return {
      eventId: `alif:${orderId}:${String(transactionId)}:${st}`,
      outTradeNo: orderId,
      ref: orderId,
      state: stateOf(st.toLowerCase()),
      ...(amount !== undefined ? { amount, currency: 'TJS' } : {}),
      ack: { status: 200, contentType: 'text/plain', body: 'OK' },
    };
  }
}
