// A PayPal REST test server (test tree only, never shipped): the part of PayPal's API the paypal adapter uses,
// modelled from PayPal's API reference and OpenAPI files (github.com/paypal/paypal-rest-api-specifications):
//   OAuth 2.0   POST /v1/oauth2/token: HTTP Basic client id:secret, grant_type=client_credentials → a bearer token
//               with expires_in; bad credentials → 401 {error: 'invalid_client', error_description}; an unknown or
//               expired bearer → 401 {error: 'invalid_token'}; no bearer → 401 AUTHENTICATION_FAILURE.
//   Errors      {name, message, debug_id, details: [{issue, description, field?}], links} with PayPal's statuses
//               (400 INVALID_REQUEST, 404 RESOURCE_NOT_FOUND, 422 UNPROCESSABLE_ENTITY + the issue).
//   Orders v2   CREATED | PAYER_ACTION_REQUIRED (payment_source.paypal.experience_context: the `payer-action` link)
//               → APPROVED (the buyer, approve()) → COMPLETED (capture | authorize); ORDER_NOT_APPROVED,
//               ORDER_ALREADY_CAPTURED / _AUTHORIZED, ACTION_DOES_NOT_MATCH_INTENT, DUPLICATE_INVOICE_ID, and the
//               buyer's decline (INSTRUMENT_DECLINED …) from negative testing: a PayPal-Mock-Response header
//               {"mock_application_codes": CODE} or a test buyer given to approve().
//   Payments v2 authorizations CREATED → CAPTURED (final_capture) | PARTIALLY_CAPTURED | VOIDED; captures ≤ 115 %
//               of the authorised amount (MAX_CAPTURE_AMOUNT_EXCEEDED); void 204 (PREVIOUSLY_VOIDED,
//               PREVIOUSLY_CAPTURED); refunds ≤ what is left (REFUND_AMOUNT_EXCEEDED, CAPTURE_FULLY_REFUNDED);
//               capture COMPLETED → PARTIALLY_REFUNDED → REFUNDED.
//   Idempotency PayPal-Request-Id: the same id on the same call → the first answer again (200 instead of 201).
//   Payouts v1  POST /v1/payments/payouts → batch PENDING; a sender_batch_id used before → 400 USER_BUSINESS_ERROR
//               with a link to the original batch; the Payouts test values in items[0].note (ERRPYO002, ERRPYO005…);
//               settlePayout() finishes an item and gives its PAYMENT.PAYOUTS-ITEM.* webhook.
//   Webhooks    deliveries signed as PayPal signs them (SHA256withRSA over
//               `<transmission id>|<transmission time>|<webhook id>|<CRC32 of the body>`, a cert URL to fetch the key
//               from); POST /v1/notifications/verify-webhook-signature checks the signature against the event bytes
//               as sent back and the app's own webhook id → {verification_status: SUCCESS | FAILURE}.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { generateKeyPairSync, randomBytes, sign, verify, type KeyObject } from 'node:crypto';
import { PaypalReporting } from './paypal-reporting.ts';

type Money = { currency_code: string; value: string };
type Link = { href: string; rel: string; method: string };

interface App {
  clientId: string;
  secret: string;
  webhookIds: string[];
}
interface Order {
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
interface Authorization {
  id: string;
  app: string;
  order: string;
  status: string;
  amount: Money;
  captured: number;
  expiration_time: string;
  captures: string[];
}
interface Capture {
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
interface Refund {
  id: string;
  app: string;
  capture: string;
  status: string;
  amount: Money;
}
interface PayoutItem {
  payout_item_id: string;
  transaction_id?: string;
  transaction_status: string;
  payout_batch_id: string;
  payout_item: Record<string, unknown> & { amount: { value: string; currency: string } };
  errors?: { name: string; message: string };
}
interface PayoutBatch {
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

const CURRENCIES = new Set([
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
const NO_DECIMALS = new Set(['HUF', 'JPY', 'TWD']);
/** Negative-testing codes the buyer's approval or a PayPal-Mock-Response header can carry (Orders v2 issues). */
const BUYER_DECLINES = new Set([
  'INSTRUMENT_DECLINED',
  'PAYER_CANNOT_PAY',
  'TRANSACTION_REFUSED',
  'PAYER_ACCOUNT_RESTRICTED',
]);
/** The Payouts API test values (items[0].note) and the errors they answer. */
const PAYOUT_TEST_VALUES: Record<string, [number, string, string]> = {
  ERRPYO001: [403, 'SENDER_RESTRICTED', 'Sender is restricted.'],
  ERRPYO002: [403, 'SENDER_EMAIL_UNCONFIRMED', 'Authorization error occurred'],
  ERRPYO005: [422, 'INSUFFICIENT_FUNDS', 'Sender does not have sufficient funds. Please add funds and retry.'],
  ERRPYO006: [500, 'INTERNAL_ERROR', 'An internal service error has occurred.'],
};

const ISSUE_TEXT: Record<string, string> = {
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

const debugId = () => randomBytes(7).toString('hex').slice(0, 13);
const unprocessable = (issue: string, links: Link[] = []) =>
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
const invalidRequest = (field: string, issue: string, description: string) =>
  new PaypalApiError(400, {
    name: 'INVALID_REQUEST',
    message: 'Request is not well-formed, syntactically incorrect, or violates schema.',
    debug_id: debugId(),
    details: [{ field, location: 'body', issue, description }],
  });
const notFound = (id: string) =>
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
function parseMoney(
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
const fmt = (cents: number, currency: string) =>
  NO_DECIMALS.has(currency) ? String(cents / 100) : (cents / 100).toFixed(2);

/** CRC-32 (IEEE, as zlib's crc32), decimal: the last part of the string PayPal signs. */
const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
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
function topLevelSpans(raw: string): Map<string, string> {
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

export class FakePaypal {
  private server!: Server;
  port = 0;
  private readonly apps = new Map<string, App>();
  private readonly tokens = new Map<string, { app: string; expiresAt: number }>();
  private readonly orders = new Map<string, Order>();
  private readonly authorizations = new Map<string, Authorization>();
  private readonly captures = new Map<string, Capture>();
  private readonly refunds = new Map<string, Refund>();
  private readonly batches = new Map<string, PayoutBatch>();
  private readonly idem = new Map<string, { call: string; status: number; body: string }>();
  /** PayPal's webhook signing key; the "certificate" served at the cert URL is its public key (PEM). */
  private readonly keys: { privateKey: KeyObject; publicKey: KeyObject };
  private readonly certId = `CERT-360caa42-fca2a594-${randomBytes(4).toString('hex')}`;
  /** Every request, for assertions. */
  readonly requests: { method: string; path: string; requestId?: string; body: string }[] = [];
  /** Seconds a token lives (PayPal: 32400). */
  tokenLifetime = 32_400;
  /** Milliseconds since the epoch (tests move it). */
  now = () => Date.now();
  /** Transaction Search (paypal-reporting.ts): every capture and refund, listed after `reporting.lagMs`. */
  readonly reporting = new PaypalReporting(() => this.now());
  /** Cut the connection of the next N requests without answering (a network failure). */
  dropNext = 0;

  constructor(apps: { clientId: string; secret: string; webhookIds?: string[] }[]) {
    for (const a of apps)
      this.apps.set(a.clientId, { clientId: a.clientId, secret: a.secret, webhookIds: a.webhookIds ?? [] });
    this.keys = generateKeyPairSync('rsa', { modulusLength: 2048 });
  }

  async start() {
    this.server = createServer((req, res) => void this.handle(req, res));
    this.server.keepAliveTimeout = 0; // idle connections stay open until close(): no reset on a loaded machine
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r));
    this.port = (this.server.address() as AddressInfo).port;
    return this;
  }

  async stop() {
    this.server.closeAllConnections();
    await new Promise<void>((r) => this.server.close(() => r()));
  }

  get url() {
    return `http://127.0.0.1:${this.port}`;
  }

  private seq = 0;
  /** PayPal-style ids: 17 upper-case letters and digits. */
  private id() {
    const n = (++this.seq).toString(36).toUpperCase();
    return (
      randomBytes(12)
        .toString('hex')
        .toUpperCase()
        .replace(/[^A-Z0-9]/g, '') + n
    )
      .slice(-17)
      .padStart(17, '0');
  }
  private iso(offsetMs = 0) {
    return new Date(this.now() + offsetMs).toISOString().replace(/\.\d{3}Z$/, 'Z');
  }

  private async handle(req: IncomingMessage, res: ServerResponse) {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const raw = Buffer.concat(chunks).toString();
    const url = new URL(req.url ?? '/', 'http://x');
    const method = req.method ?? 'GET';
    const requestId = req.headers['paypal-request-id'] as string | undefined;
    this.requests.push({ method, path: url.pathname, requestId, body: raw });
    if (this.dropNext > 0) {
      this.dropNext--;
      req.socket.destroy();
      return;
    }
    const send = (status: number, body: string, type = 'application/json') => {
      res.writeHead(status, { 'content-type': type, 'paypal-debug-id': debugId() });
      res.end(body);
    };
    try {
      // The buyer's side (a browser, not the API): the payer-action page and the signing certificate.
      if (method === 'GET' && url.pathname === '/checkoutnow') {
        const location = this.approve(url.searchParams.get('token') ?? '');
        res.writeHead(302, { location });
        return res.end();
      }
      if (method === 'GET' && url.pathname === `/v1/notifications/certs/${this.certId}`) {
        return send(
          200,
          this.keys.publicKey.export({ type: 'spki', format: 'pem' }).toString(),
          'application/x-pem-file',
        );
      }
      if (method === 'POST' && url.pathname === '/v1/oauth2/token') return send(...this.token(req, raw));
      const app = this.bearer(req);
      let body: unknown;
      try {
        body = raw ? JSON.parse(raw) : {};
      } catch {
        throw new PaypalApiError(400, {
          name: 'MALFORMED_REQUEST_JSON',
          message: 'The request JSON is not well formed.',
          debug_id: debugId(),
        });
      }
      const call = `${method} ${url.pathname} ${raw}`;
      const idemKey = requestId && method === 'POST' ? `${app}|${requestId}` : undefined;
      if (idemKey) {
        const prior = this.idem.get(idemKey);
        if (prior) {
          if (prior.call.split(' ')[1] !== url.pathname) throw unprocessable('PAYPAL_REQUEST_ID_PREVIOUSLY_USED');
          return send(prior.status === 201 ? 200 : prior.status, prior.body);
        }
      }
      const mock = req.headers['paypal-mock-response'] as string | undefined;
      if (method === 'GET' && url.pathname === '/v1/reporting/transactions') {
        const [st, out] = this.reporting.list(app, url.searchParams);
        return send(st, JSON.stringify(out));
      }
      const [status, out] = this.route(
        app,
        method,
        url.pathname,
        body as Record<string, unknown>,
        raw,
        req.headers.prefer === 'return=representation',
        mock,
      );
      const text = out === undefined ? '' : JSON.stringify(out);
      if (idemKey) this.idem.set(idemKey, { call, status, body: text });
      send(status, text);
    } catch (err) {
      if (!(err instanceof PaypalApiError)) throw err;
      send(err.status, JSON.stringify(err.body));
    }
  }

  private token(req: IncomingMessage, raw: string): [number, string] {
    const basic = /^Basic (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    const [clientId, secret] = basic ? Buffer.from(basic, 'base64').toString().split(':') : [];
    const app = clientId ? this.apps.get(clientId) : undefined;
    if (!app || app.secret !== secret)
      return [401, JSON.stringify({ error: 'invalid_client', error_description: 'Client Authentication failed' })];
    if (new URLSearchParams(raw).get('grant_type') !== 'client_credentials') {
      return [400, JSON.stringify({ error: 'unsupported_grant_type', error_description: 'Grant Type is NULL' })];
    }
    const access = `A21AA${randomBytes(24).toString('base64url')}`;
    this.tokens.set(access, { app: app.clientId, expiresAt: this.now() + this.tokenLifetime * 1000 });
    return [
      200,
      JSON.stringify({
        scope:
          'https://uri.paypal.com/services/payments/payment https://uri.paypal.com/services/payments/refund https://uri.paypal.com/payments/payouts https://uri.paypal.com/services/applications/webhooks',
        access_token: access,
        token_type: 'Bearer',
        app_id: `APP-${app.clientId.slice(0, 8)}`,
        expires_in: this.tokenLifetime,
        nonce: `${this.iso()}${randomBytes(8).toString('hex')}`,
      }),
    ];
  }

  private bearer(req: IncomingMessage): string {
    const t = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    if (!t) {
      throw new PaypalApiError(401, {
        name: 'AUTHENTICATION_FAILURE',
        message: 'Authentication failed due to invalid authentication credentials or a missing Authorization header.',
        debug_id: debugId(),
        links: [],
      });
    }
    const tok = this.tokens.get(t);
    if (!tok || tok.expiresAt <= this.now())
      throw new PaypalApiError(401, {
        error: 'invalid_token',
        error_description: tok ? 'Access Token not found in cache' : 'Token signature verification failed',
      });
    return tok.app;
  }

  /** PayPal forgets the PayPal-Request-Ids it stored (they are kept for hours to days, then dropped). */
  forgetRequestIds() {
    this.idem.clear();
  }

  /** Every token issued so far stops working (PayPal rotated them). */
  revokeTokens() {
    this.tokens.clear();
  }

  private route(
    app: string,
    method: string,
    path: string,
    b: Record<string, unknown>,
    raw: string,
    full: boolean,
    mock?: string,
  ): [number, unknown] {
    const seg = path.split('/').filter(Boolean);
    if (path === '/v2/checkout/orders' && method === 'POST') return [201, this.createOrder(app, b)];
    if (seg[0] === 'v2' && seg[1] === 'checkout' && seg[2] === 'orders' && seg[3]) {
      const order = this.orders.get(seg[3]);
      if (!order || order.app !== app) throw notFound(seg[3]);
      if (method === 'GET' && !seg[4]) return [200, this.orderView(order)];
      if (method === 'POST' && (seg[4] === 'capture' || seg[4] === 'authorize'))
        return [201, this.completeOrder(order, seg[4], mock)];
    }
    if (seg[0] === 'v2' && seg[1] === 'payments' && seg[3]) {
      const id = seg[3];
      if (seg[2] === 'authorizations') {
        const a = this.authorizations.get(id);
        if (!a || a.app !== app) throw notFound(id);
        if (method === 'GET' && !seg[4]) return [200, this.authorizationView(a)];
        if (method === 'POST' && seg[4] === 'capture') return [201, this.captureAuthorization(a, b, mock)];
        if (method === 'POST' && seg[4] === 'void') {
          this.voidAuthorization(a, mock);
          return full ? [200, this.authorizationView(a)] : [204, undefined];
        }
      }
      if (seg[2] === 'captures') {
        const c = this.captures.get(id);
        if (!c || c.app !== app) throw notFound(id);
        if (method === 'GET' && !seg[4]) return [200, this.captureView(c)];
        if (method === 'POST' && seg[4] === 'refund') return [201, this.refund(c, b, mock)];
      }
      if (seg[2] === 'refunds' && method === 'GET') {
        const r = this.refunds.get(id);
        if (!r || r.app !== app) throw notFound(id);
        return [200, this.refundView(r)];
      }
    }
    if (path === '/v1/payments/payouts' && method === 'POST') return [201, this.createPayout(app, b)];
    if (seg[0] === 'v1' && seg[1] === 'payments' && seg[2] === 'payouts' && seg[3] && method === 'GET') {
      const batch = this.batches.get(seg[3]);
      if (!batch || batch.app !== app) throw notFound(seg[3]);
      return [200, this.batchView(batch)];
    }
    if (path === '/v1/notifications/verify-webhook-signature' && method === 'POST')
      return [200, this.verifyWebhook(app, b, raw)];
    throw new PaypalApiError(404, {
      name: 'RESOURCE_NOT_FOUND',
      message: `The specified resource does not exist: ${method} ${path}`,
      debug_id: debugId(),
    });
  }

  // ---- Orders v2 -------------------------------------------------------------------------------------------------

  private createOrder(app: string, b: Record<string, unknown>) {
    if (b.intent !== 'CAPTURE' && b.intent !== 'AUTHORIZE')
      throw invalidRequest('/intent', 'INVALID_PARAMETER_VALUE', 'The value of a field is invalid.');
    const units = b.purchase_units as Record<string, unknown>[] | undefined;
    if (!Array.isArray(units) || units.length === 0)
      throw invalidRequest('/purchase_units', 'MISSING_REQUIRED_PARAMETER', 'A required field / parameter is missing.');
    const unit = units[0]!;
    parseMoney(unit.amount, "/purchase_units/@reference_id=='default'/amount");
    const paypal = (b.payment_source as { paypal?: { experience_context?: Record<string, string> } } | undefined)
      ?.paypal;
    const ctx = paypal?.experience_context;
    if (paypal && (!ctx?.return_url || !ctx.cancel_url))
      throw unprocessable(!ctx?.return_url ? 'RETURN_URL_REQUIRED' : 'CANCEL_URL_REQUIRED');
    const order: Order = {
      id: this.id(),
      app,
      intent: b.intent,
      status: paypal ? 'PAYER_ACTION_REQUIRED' : 'CREATED',
      unit: { reference_id: 'default', ...unit } as Order['unit'],
      returnUrl: ctx?.return_url,
      cancelUrl: ctx?.cancel_url,
      create_time: this.iso(),
      authorizations: [],
      captures: [],
    };
    this.orders.set(order.id, order);
    return this.orderView(order);
  }

  private orderLinks(o: Order): Link[] {
    const self = { href: `${this.url}/v2/checkout/orders/${o.id}`, rel: 'self', method: 'GET' };
    const buyer = `${this.url}/checkoutnow?token=${o.id}`;
    if (o.status === 'PAYER_ACTION_REQUIRED') return [self, { href: buyer, rel: 'payer-action', method: 'GET' }];
    if (o.status === 'CREATED')
      return [
        self,
        { href: buyer, rel: 'approve', method: 'GET' },
        { href: self.href, rel: 'update', method: 'PATCH' },
      ];
    if (o.status === 'APPROVED')
      return [
        self,
        { href: self.href, rel: 'update', method: 'PATCH' },
        {
          href: `${self.href}/${o.intent === 'CAPTURE' ? 'capture' : 'authorize'}`,
          rel: o.intent === 'CAPTURE' ? 'capture' : 'authorize',
          method: 'POST',
        },
      ];
    return [self];
  }

  private orderView(o: Order) {
    const payments =
      o.authorizations.length || o.captures.length
        ? {
            payments: {
              ...(o.authorizations.length
                ? { authorizations: o.authorizations.map((id) => this.authorizationView(this.authorizations.get(id)!)) }
                : {}),
              ...(o.captures.length
                ? { captures: o.captures.map((id) => this.captureView(this.captures.get(id)!)) }
                : {}),
            },
          }
        : {};
    return {
      id: o.id,
      intent: o.intent,
      status: o.status,
      payment_source: {
        paypal: o.payer
          ? { email_address: o.payer.email_address, account_id: o.payer.payer_id, account_status: 'VERIFIED' }
          : {},
      },
      purchase_units: [
        { ...o.unit, payee: { merchant_id: 'MERCHANT7Q2X9', email_address: 'merchant@example.com' }, ...payments },
      ],
      ...(o.payer ? { payer: { payer_id: o.payer.payer_id, email_address: o.payer.email_address } } : {}),
      create_time: o.create_time,
      links: this.orderLinks(o),
    };
  }

  private completeOrder(o: Order, action: 'capture' | 'authorize', mockHeader?: string) {
    if (o.status === 'COMPLETED')
      throw unprocessable(o.intent === 'CAPTURE' ? 'ORDER_ALREADY_CAPTURED' : 'ORDER_ALREADY_AUTHORIZED');
    if ((action === 'capture') !== (o.intent === 'CAPTURE')) throw unprocessable('ACTION_DOES_NOT_MATCH_INTENT');
    if (o.status !== 'APPROVED') throw unprocessable('ORDER_NOT_APPROVED');
    const mock = mockCode(mockHeader) ?? o.mock;
    if (mock && BUYER_DECLINES.has(mock)) {
      // "INSTRUMENT_DECLINED: redirect the payer to choose another funding source": the order goes back to the buyer.
      o.status = 'PAYER_ACTION_REQUIRED';
      o.mock = undefined;
      throw unprocessable(mock, [{ href: `${this.url}/checkoutnow?token=${o.id}`, rel: 'redirect', method: 'GET' }]);
    }
    // Any other negative-testing code is answered as that error, the order unchanged.
    if (mock) throw unprocessable(mock);
    const invoice = o.unit.invoice_id;
    if (invoice) {
      for (const other of this.orders.values()) {
        if (other !== o && other.app === o.app && other.status === 'COMPLETED' && other.unit.invoice_id === invoice)
          throw unprocessable('DUPLICATE_INVOICE_ID');
      }
    }
    const { cents, currency } = parseMoney(o.unit.amount, 'amount');
    if (action === 'capture') {
      const c: Capture = {
        id: this.id(),
        app: o.app,
        order: o.id,
        status: 'COMPLETED',
        amount: { currency_code: currency, value: fmt(cents, currency) },
        refunded: 0,
        final_capture: true,
        refunds: [],
      };
      this.captures.set(c.id, c);
      this.reporting.captured(c.app, c.id, c.amount, o.unit);
      o.captures.push(c.id);
    } else {
      const a: Authorization = {
        id: this.id(),
        app: o.app,
        order: o.id,
        status: 'CREATED',
        amount: { currency_code: currency, value: fmt(cents, currency) },
        captured: 0,
        expiration_time: this.iso(29 * 86_400_000),
        captures: [],
      };
      this.authorizations.set(a.id, a);
      o.authorizations.push(a.id);
    }
    o.status = 'COMPLETED';
    return this.orderView(o);
  }

  // ---- Payments v2 -----------------------------------------------------------------------------------------------

  private authorizationView(a: Authorization) {
    const o = this.orders.get(a.order)!;
    const self = `${this.url}/v2/payments/authorizations/${a.id}`;
    return {
      id: a.id,
      status: a.status,
      amount: a.amount,
      invoice_id: o.unit.invoice_id,
      custom_id: o.unit.custom_id,
      seller_protection: { status: 'ELIGIBLE' },
      expiration_time: a.expiration_time,
      supplementary_data: { related_ids: { order_id: a.order } },
      links: [
        { href: self, rel: 'self', method: 'GET' },
        ...(a.status === 'CREATED' || a.status === 'PARTIALLY_CAPTURED'
          ? [
              { href: `${self}/capture`, rel: 'capture', method: 'POST' },
              { href: `${self}/void`, rel: 'void', method: 'POST' },
            ]
          : []),
        { href: `${this.url}/v2/checkout/orders/${a.order}`, rel: 'up', method: 'GET' },
      ],
    };
  }

  private captureView(c: Capture) {
    const o = this.orders.get(c.order)!;
    const self = `${this.url}/v2/payments/captures/${c.id}`;
    return {
      id: c.id,
      status: c.status,
      amount: c.amount,
      final_capture: c.final_capture,
      invoice_id: o.unit.invoice_id,
      custom_id: o.unit.custom_id,
      seller_protection: { status: 'ELIGIBLE' },
      supplementary_data: {
        related_ids: { order_id: c.order, ...(c.authorization ? { authorization_id: c.authorization } : {}) },
      },
      links: [
        { href: self, rel: 'self', method: 'GET' },
        { href: `${self}/refund`, rel: 'refund', method: 'POST' },
        c.authorization
          ? { href: `${this.url}/v2/payments/authorizations/${c.authorization}`, rel: 'up', method: 'GET' }
          : { href: `${this.url}/v2/checkout/orders/${c.order}`, rel: 'up', method: 'GET' },
      ],
    };
  }

  private refundView(r: Refund) {
    const c = this.captures.get(r.capture)!;
    const o = this.orders.get(c.order)!;
    return {
      id: r.id,
      status: r.status,
      amount: r.amount,
      invoice_id: o.unit.invoice_id,
      custom_id: o.unit.custom_id,
      links: [
        { href: `${this.url}/v2/payments/refunds/${r.id}`, rel: 'self', method: 'GET' },
        { href: `${this.url}/v2/payments/captures/${r.capture}`, rel: 'up', method: 'GET' },
      ],
    };
  }

  private captureAuthorization(a: Authorization, b: Record<string, unknown>, mockHeader?: string) {
    if (a.status === 'VOIDED') throw unprocessable('AUTHORIZATION_VOIDED');
    if (a.status === 'CAPTURED') throw unprocessable('AUTHORIZATION_ALREADY_CAPTURED');
    const mock = mockCode(mockHeader);
    if (mock) throw unprocessable(mock);
    const held = parseMoney(a.amount, 'amount');
    const want =
      b.amount === undefined
        ? { cents: held.cents - a.captured, currency: held.currency }
        : parseMoney(b.amount, '/amount');
    if (want.currency !== held.currency) throw unprocessable('AUTH_CAPTURE_CURRENCY_MISMATCH');
    // "The default overage limit is 115%, which allows the sum of all captures to be up to 115% of the order amount."
    if (a.captured + want.cents > Math.floor(held.cents * 1.15)) throw unprocessable('MAX_CAPTURE_AMOUNT_EXCEEDED');
    const final = b.final_capture === true;
    const c: Capture = {
      id: this.id(),
      app: a.app,
      order: a.order,
      authorization: a.id,
      status: 'COMPLETED',
      amount: { currency_code: want.currency, value: fmt(want.cents, want.currency) },
      refunded: 0,
      final_capture: final,
      refunds: [],
    };
    this.captures.set(c.id, c);
    this.reporting.captured(c.app, c.id, c.amount, this.orders.get(a.order)?.unit ?? {});
    a.captures.push(c.id);
    this.orders.get(a.order)!.captures.push(c.id);
    a.captured += want.cents;
    a.status = final || a.captured >= held.cents ? 'CAPTURED' : 'PARTIALLY_CAPTURED';
    return this.captureView(c);
  }

  private voidAuthorization(a: Authorization, mockHeader?: string) {
    if (a.status === 'VOIDED') throw unprocessable('PREVIOUSLY_VOIDED');
    if (a.status === 'CAPTURED') throw unprocessable('PREVIOUSLY_CAPTURED');
    const mock = mockCode(mockHeader);
    if (mock) throw unprocessable(mock);
    a.status = 'VOIDED';
  }

  private refund(c: Capture, b: Record<string, unknown>, mockHeader?: string) {
    if (c.status === 'REFUNDED') throw unprocessable('CAPTURE_FULLY_REFUNDED');
    const mock = mockCode(mockHeader);
    if (mock) throw unprocessable(mock);
    const captured = parseMoney(c.amount, 'amount');
    const left = captured.cents - c.refunded;
    const want =
      b.amount === undefined ? { cents: left, currency: captured.currency } : parseMoney(b.amount, '/amount');
    if (want.currency !== captured.currency) throw unprocessable('REFUND_CAPTURE_CURRENCY_MISMATCH');
    if (want.cents > left) throw unprocessable('REFUND_AMOUNT_EXCEEDED');
    const r: Refund = {
      id: this.id(),
      app: c.app,
      capture: c.id,
      status: 'COMPLETED',
      amount: { currency_code: want.currency, value: fmt(want.cents, want.currency) },
    };
    this.refunds.set(r.id, r);
    this.reporting.refunded(r.app, r.id, c.id, r.amount, this.orders.get(c.order)?.unit ?? {});
    c.refunds.push(r.id);
    c.refunded += want.cents;
    c.status = c.refunded >= captured.cents ? 'REFUNDED' : 'PARTIALLY_REFUNDED';
    return this.refundView(r);
  }

  // ---- Payouts v1 ------------------------------------------------------------------------------------------------

  private createPayout(app: string, b: Record<string, unknown>) {
    const header = b.sender_batch_header as Record<string, unknown> | undefined;
    const items = b.items as Record<string, unknown>[] | undefined;
    if (!header || !Array.isArray(items) || items.length === 0) {
      throw new PaypalApiError(400, {
        name: 'VALIDATION_ERROR',
        message: 'Invalid request - see details',
        debug_id: debugId(),
        details: [
          { field: items ? 'sender_batch_header' : 'items', location: 'body', issue: 'Required field is missing' },
        ],
      });
    }
    const senderBatchId = String(header.sender_batch_id ?? '');
    for (const other of this.batches.values()) {
      if (other.app === app && senderBatchId && other.header.sender_batch_id === senderBatchId) {
        throw new PaypalApiError(400, {
          name: 'USER_BUSINESS_ERROR',
          message: 'User business error.',
          debug_id: debugId(),
          information_link: 'https://developer.paypal.com/docs/api/payments.payouts-batch/#errors',
          details: [
            { field: 'SENDER_BATCH_ID', location: 'body', issue: `Batch with given sender_batch_id already exists` },
          ],
          links: [
            {
              href: `${this.url}/v1/payments/payouts/${other.id}`,
              rel: 'self',
              method: 'GET',
              encType: 'application/json',
            },
          ],
        });
      }
    }
    const test = PAYOUT_TEST_VALUES[String(items[0]!.note ?? '')];
    if (test)
      throw new PaypalApiError(test[0], {
        name: test[1],
        message: test[2],
        debug_id: debugId(),
        information_link: 'https://developer.paypal.com/docs/api/payments.payouts-batch/v1/#errors',
      });
    const batch: PayoutBatch = { id: this.id().slice(0, 13), app, status: 'PENDING', header: { ...header }, items: [] };
    for (const item of items) {
      if (
        !['EMAIL', 'PHONE', 'PAYPAL_ID'].includes(String(item.recipient_type ?? header.recipient_type)) ||
        !item.receiver
      ) {
        throw new PaypalApiError(400, {
          name: 'VALIDATION_ERROR',
          message: 'Invalid request - see details',
          debug_id: debugId(),
          details: [
            { field: 'items[0].receiver', location: 'body', issue: 'Receiver is invalid or does not match with type' },
          ],
        });
      }
      parseMoney(item.amount, 'items[0].amount', 'currency');
      batch.items.push({
        payout_item_id: this.id().slice(0, 13),
        transaction_status: 'PENDING',
        payout_batch_id: batch.id,
        payout_item: { ...item } as PayoutItem['payout_item'],
      });
    }
    this.batches.set(batch.id, batch);
    return {
      batch_header: { payout_batch_id: batch.id, batch_status: batch.status, sender_batch_header: batch.header },
      links: [
        {
          href: `${this.url}/v1/payments/payouts/${batch.id}`,
          rel: 'self',
          method: 'GET',
          encType: 'application/json',
        },
      ],
    };
  }

  private batchView(batch: PayoutBatch) {
    return {
      batch_header: { payout_batch_id: batch.id, batch_status: batch.status, sender_batch_header: batch.header },
      items: batch.items.map((i) => ({ ...i, links: [] })),
      links: [{ href: `${this.url}/v1/payments/payouts/${batch.id}`, rel: 'self', method: 'GET' }],
    };
  }

  // ---- Webhooks --------------------------------------------------------------------------------------------------

  private verifyWebhook(app: string, b: Record<string, unknown>, raw: string) {
    const need = [
      'auth_algo',
      'cert_url',
      'transmission_id',
      'transmission_sig',
      'transmission_time',
      'webhook_id',
      'webhook_event',
    ];
    const missing = need.filter((k) => b[k] === undefined || b[k] === '');
    if (missing.length) {
      throw new PaypalApiError(400, {
        name: 'VALIDATION_ERROR',
        message: 'Invalid request - see details',
        debug_id: debugId(),
        details: missing.map((field) => ({ field, location: 'body', issue: 'Required field cannot be blank' })),
      });
    }
    const failure = { verification_status: 'FAILURE' };
    // Only the app's own webhooks verify, and only with PayPal's certificate.
    if (!this.apps.get(app)?.webhookIds.includes(String(b.webhook_id))) return failure;
    if (b.cert_url !== `${this.url}/v1/notifications/certs/${this.certId}` || b.auth_algo !== 'SHA256withRSA')
      return failure;
    // The event's bytes as the caller sent them back (not a re-serialisation).
    const eventBytes = topLevelSpans(raw).get('webhook_event') ?? '';
    const message = `${String(b.transmission_id)}|${String(b.transmission_time)}|${String(b.webhook_id)}|${crc32(eventBytes)}`;
    let ok: boolean;
    try {
      ok = verify(
        'sha256',
        Buffer.from(message),
        this.keys.publicKey,
        Buffer.from(String(b.transmission_sig), 'base64'),
      );
    } catch {
      ok = false;
    }
    return ok ? { verification_status: 'SUCCESS' } : failure;
  }

  /**
   * A webhook delivery as PayPal sends it: the event JSON and the PAYPAL-* headers signed for `webhookId`.
   * `redeliver` sends an earlier delivery again (same event id, a new transmission).
   */
  webhook(
    eventType: string,
    resource: Record<string, unknown>,
    webhookId: string,
    opts: { id?: string; raw?: string } = {},
  ) {
    const resourceType = eventType.startsWith('CHECKOUT.ORDER')
      ? 'checkout-order'
      : eventType.includes('PAYOUTS-ITEM')
        ? 'payouts_item'
        : eventType === 'PAYMENT.CAPTURE.REFUNDED'
          ? 'refund'
          : eventType.startsWith('PAYMENT.AUTHORIZATION')
            ? 'authorization'
            : 'capture';
    const rawBody =
      opts.raw ??
      JSON.stringify({
        id:
          opts.id ??
          `WH-${randomBytes(8).toString('hex').toUpperCase()}-${randomBytes(8).toString('hex').toUpperCase()}`,
        event_version: '1.0',
        create_time: this.iso(),
        resource_type: resourceType,
        resource_version: '2.0',
        event_type: eventType,
        summary: `${eventType} event`,
        resource,
        links: [{ href: `${this.url}/v1/notifications/webhooks-events/x`, rel: 'self', method: 'GET' }],
      });
    return { rawBody, headers: this.sign(rawBody, webhookId) };
  }

  /** The same event delivered again: a new transmission id, time and signature over the same body. */
  redeliver(delivery: { rawBody: string }, webhookId: string) {
    return { rawBody: delivery.rawBody, headers: this.sign(delivery.rawBody, webhookId) };
  }

  private sign(rawBody: string, webhookId: string): Record<string, string> {
    const transmissionId = `${randomBytes(4).toString('hex')}-${randomBytes(2).toString('hex')}-11f0-${randomBytes(2).toString('hex')}-${randomBytes(6).toString('hex')}`;
    const time = this.iso();
    const sig = sign(
      'sha256',
      Buffer.from(`${transmissionId}|${time}|${webhookId}|${crc32(rawBody)}`),
      this.keys.privateKey,
    ).toString('base64');
    return {
      'paypal-auth-algo': 'SHA256withRSA',
      'paypal-auth-version': 'v2',
      'paypal-cert-url': `${this.url}/v1/notifications/certs/${this.certId}`,
      'paypal-transmission-id': transmissionId,
      'paypal-transmission-sig': sig,
      'paypal-transmission-time': time,
      'content-type': 'application/json',
    };
  }

  // ---- What happens outside our calls (the buyer, PayPal's back office) ------------------------------------------

  /**
   * The buyer signs in at the payer-action link and approves; returns where PayPal sends them (return_url with
   * token and PayerID). `mock` is a test buyer that will be declined when the order is captured or authorised.
   */
  approve(orderId: string, opts: { mock?: string; email?: string } = {}) {
    const o = this.orders.get(orderId);
    if (!o) throw new Error(`no order ${orderId}`);
    if (o.status !== 'PAYER_ACTION_REQUIRED' && o.status !== 'CREATED')
      throw new Error(`order ${orderId} is ${o.status}`);
    o.status = 'APPROVED';
    o.payer = { payer_id: 'QYR5Z8XDVJNXQ', email_address: opts.email ?? 'sb-buyer@personal.example.com' };
    o.mock = opts.mock;
    const back = new URL(o.returnUrl ?? 'https://example.invalid/return');
    back.searchParams.set('token', o.id);
    back.searchParams.set('PayerID', o.payer.payer_id);
    return back.toString();
  }

  /** The buyer cancels on PayPal's page: back to cancel_url with the token; the order stays unapproved. */
  cancel(orderId: string) {
    const o = this.orders.get(orderId)!;
    const back = new URL(o.cancelUrl ?? 'https://example.invalid/cancel');
    back.searchParams.set('token', o.id);
    return back.toString();
  }

  /** A payout batch is processed: its item succeeds or fails; returns the item's webhook for `webhookId`. */
  settlePayout(batchId: string, outcome: 'SUCCESS' | 'FAILED' | 'UNCLAIMED', webhookId: string) {
    const batch = this.batches.get(batchId);
    if (!batch) throw new Error(`no payout batch ${batchId}`);
    batch.status = 'SUCCESS';
    const item = batch.items[0]!;
    item.transaction_status = outcome;
    item.transaction_id = this.id();
    if (outcome === 'FAILED') item.errors = { name: 'RECEIVER_UNREGISTERED', message: 'Receiver is unregistered' };
    const type =
      outcome === 'SUCCESS'
        ? 'PAYMENT.PAYOUTS-ITEM.SUCCEEDED'
        : outcome === 'FAILED'
          ? 'PAYMENT.PAYOUTS-ITEM.FAILED'
          : 'PAYMENT.PAYOUTS-ITEM.UNCLAIMED';
    return this.webhook(type, { ...item, sender_batch_id: batch.header.sender_batch_id }, webhookId);
  }

  /** The resources as PayPal shows them (tests read state and build webhook resources). */
  order(id: string) {
    const o = this.orders.get(id);
    return o && this.orderView(o);
  }
  capture(id: string) {
    const c = this.captures.get(id);
    return c && this.captureView(c);
  }
  authorization(id: string) {
    const a = this.authorizations.get(id);
    return a && this.authorizationView(a);
  }
  refundsOf(captureId: string) {
    return (this.captures.get(captureId)?.refunds ?? []).map((id) => this.refundView(this.refunds.get(id)!));
  }
  payoutBatch(id: string) {
    const b = this.batches.get(id);
    return b && this.batchView(b);
  }
}

function mockCode(header: string | undefined): string | undefined {
  if (!header) return undefined;
  try {
    const code = (JSON.parse(header) as { mock_application_codes?: string }).mock_application_codes;
    return code || undefined;
  } catch {
    return undefined;
  }
}
