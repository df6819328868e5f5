// A Mercado Pago test server (test tree only, never shipped): the part of the Checkout API the mercadopago adapter
// uses, modelled from Mercado Pago's API reference —
//   POST /v1/card_tokens?public_key=…   what MercadoPago.js does in the browser: card fields → single-use token
//   POST /v1/payments                   Bearer access token; X-Idempotency-Key required (same key + same body → the
//                                       first answer again; same key + another body → 409); capture:false → authorized
//   GET  /v1/payments/{id}, GET /v1/payments/search?external_reference=
//   PUT  /v1/payments/{id}              {capture:true, transaction_amount ≤ authorised} | {status:'cancelled'}
//   POST /v1/payments/{id}/refunds      {amount?} partial; over the refundable amount → 400
//   POST /v1/customers, GET /v1/customers/search?email=, POST /v1/customers/{id}/cards {token},
//   DELETE /v1/customers/{id}/cards/{card_id}
//   Saved cards: POST /v1/card_tokens {card_id, security_code} (MercadoPago.js createCardToken({cardId})) makes a
//   token of a saved card; a payment with it must name the card's customer (payer {type: 'customer', id}), else 400
//   (2034 "Invalid users involved"); a payment naming a customer takes the customer's e-mail.
// Errors use Mercado Pago's envelope {message, error, status, cause: [{code, description}]}.
// Test cards: 5031 4332 1540 6351 / 4235 6477 2802 5682 (Brazil), 4509 9535 6623 3704 (Argentina), 5474 9254 3267
// 0366 (Mexico), 3711 803032 57522 (Amex); the
// cardholder name picks the outcome: APRO approved, OTHE / CALL / SECU / EXPI / FORM rejected, FUND insufficient
// amount, CONT pending (in_process; `settle` decides it later).
// `webhook` produces a delivery signed as Mercado Pago does (x-signature ts/v1 over the id/request-id/ts manifest).
// For the browser tests it also serves a stand-in of MercadoPago.js (mercadopago-js.ts): GET /js/v2 and its Secure
// Fields' frames GET /secure-fields/<field>; /v1/card_tokens answers the browser (CORS), as Mercado Pago's does.
import { createHmac, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { MERCADOPAGO_JS, secureFieldHtml } from './mercadopago-js.ts';
import { searchPayments } from './mercadopago-search.ts';

const TEST_CARDS: Record<string, { brand: string; type: string }> = {
  '5031433215406351': { brand: 'master', type: 'credit_card' },
  '4509953566233704': { brand: 'visa', type: 'credit_card' },
  '4235647728025682': { brand: 'visa', type: 'credit_card' },
  '5474925432670366': { brand: 'master', type: 'credit_card' },
  '371180303257522': { brand: 'amex', type: 'credit_card' },
};

/** Cardholder name → [status, status_detail]. */
const OUTCOMES: Record<string, [string, string]> = {
  APRO: ['approved', 'accredited'],
  OTHE: ['rejected', 'cc_rejected_other_reason'],
  CALL: ['rejected', 'cc_rejected_call_for_authorize'],
  FUND: ['rejected', 'cc_rejected_insufficient_amount'],
  SECU: ['rejected', 'cc_rejected_bad_filled_security_code'],
  EXPI: ['rejected', 'cc_rejected_bad_filled_date'],
  FORM: ['rejected', 'cc_rejected_bad_filled_other'],
  CONT: ['in_process', 'pending_contingency'],
};

interface Token {
  id: string;
  card: string;
  holder: string;
  used: boolean;
  live: boolean;
  customer?: string;
}
export interface FakePayment {
  id: number;
  status: string;
  status_detail: string;
  transaction_amount: number;
  transaction_amount_refunded: number;
  currency_id: string;
  captured: boolean;
  external_reference: string | null;
  description: string;
  payment_method_id: string;
  installments: number;
  payer: { email: string };
  notification_url: string | null;
  date_created: string;
  date_last_updated: string;
  card: { last_four_digits: string; first_six_digits: string; cardholder: { name: string } };
  refunds: { id: number; payment_id: number; amount: number; status: string }[];
}

class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly error: string,
    message: string,
    override readonly cause: { code: number | string; description: string }[] = [],
  ) {
    super(message);
  }
}

const round2 = (n: number) => Math.round(n * 100) / 100;

export class FakeMercadoPago {
  private server!: Server;
  port = 0;
  readonly payments = new Map<number, FakePayment>();
  /** The server's clock (payment dates; the reconciliation's search by date_last_updated). */
  now = () => new Date();
  private readonly tokens = new Map<string, Token>();
  private readonly customers = new Map<string, { id: string; email: string; cards: Record<string, unknown>[] }>();
  /** A saved card's number and holder (what Mercado Pago keeps of it), by card id. */
  private readonly savedCards = new Map<string, { customer: string; card: string; holder: string }>();
  private readonly idem = new Map<string, { hash: string; status: number; body: string }>();
  private seq = 1_000_000_000;
  /** Every request (method, path, idempotency key) for assertions. */
  readonly requests: { method: string; path: string; idempotencyKey?: string; body: unknown }[] = [];
  /** The account's currency (a Mercado Pago account charges in its site's currency). */
  currency = 'BRL';

  constructor(
    readonly accessToken: string,
    readonly publicKey: string,
    readonly webhookSecret: string,
  ) {}

  async start() {
    this.server = createServer((req, res) => void this.handle(req, res));
    this.server.keepAliveTimeout = 0; // idle connections stay open until close(): no reset on a loaded machine
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r));
    this.port = (this.server.address() as AddressInfo).port;
    return this;
  }

  async stop() {
    await new Promise<void>((r) => this.server.close(() => r()));
  }

  get url() {
    return `http://127.0.0.1:${this.port}`;
  }

  /** What MercadoPago.js does with the card fields in the browser: a single-use card token. */
  async cardToken(card: {
    number: string;
    holder: string;
    cvv?: string;
    expMonth?: number;
    expYear?: number;
  }): Promise<string> {
    const res = await fetch(`${this.url}/v1/card_tokens?public_key=${encodeURIComponent(this.publicKey)}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        card_number: card.number.replace(/\s/g, ''),
        security_code: card.cvv ?? '123',
        expiration_month: card.expMonth ?? 11,
        expiration_year: card.expYear ?? 2030,
        cardholder: { name: card.holder, identification: { type: 'CPF', number: '12345678909' } },
      }),
    });
    const j = (await res.json()) as { id: string };
    if (!res.ok) throw new Error(`card token refused: ${JSON.stringify(j)}`);
    return j.id;
  }

  /** What MercadoPago.js's createCardToken({cardId}) does: a token of a saved card with its security code. */
  async savedCardToken(cardId: string, securityCode = '123'): Promise<string> {
    const res = await fetch(`${this.url}/v1/card_tokens?public_key=${encodeURIComponent(this.publicKey)}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ card_id: cardId, security_code: securityCode }),
    });
    const j = (await res.json()) as { id: string };
    if (!res.ok) throw new Error(`card token refused: ${JSON.stringify(j)}`);
    return j.id;
  }

  /** The saved cards of a customer, as GET /v1/customers/{id}/cards lists them. */
  cardsOf(customerId: string) {
    return this.customers.get(customerId)?.cards ?? [];
  }

  /** Decides a pending (CONT) payment, as Mercado Pago's review does later; returns the webhook it sends. */
  settle(id: number | string, outcome: 'approved' | 'rejected') {
    const p = this.payment(String(id));
    if (p.status !== 'in_process') throw new Error(`payment ${p.id} is ${p.status}`);
    p.status = outcome;
    p.status_detail = outcome === 'approved' ? 'accredited' : 'cc_rejected_other_reason';
    return this.webhook(p.id, 'payment.updated');
  }

  /**
   * A webhook delivery as Mercado Pago sends it: POST notification_url?data.id=<id>&type=payment with the JSON
   * body {id, live_mode, type, date_created, user_id, api_version, action, data: {id}} and the headers x-request-id
   * and x-signature: ts=<ms>,v1=HMAC-SHA256(secret, "id:<data.id>;request-id:<x-request-id>;ts:<ts>;").
   * A redelivery (`notificationId` of an earlier one) keeps the notification id and gets a new request id and ts.
   */
  webhook(
    paymentId: number | string,
    action = 'payment.updated',
    opts: { notificationId?: number; secret?: string } = {},
  ) {
    const notificationId = opts.notificationId ?? ++this.seq;
    const dataId = String(paymentId);
    const rawBody = JSON.stringify({
      id: notificationId,
      live_mode: false,
      type: 'payment',
      date_created: new Date().toISOString(),
      user_id: 44444,
      api_version: 'v1',
      action,
      data: { id: dataId },
    });
    const requestId = randomUUID();
    const ts = String(Date.now());
    const manifest = `id:${/^[a-z0-9]+$/i.test(dataId) ? dataId.toLowerCase() : dataId};request-id:${requestId};ts:${ts};`;
    const v1 = createHmac('sha256', opts.secret ?? this.webhookSecret)
      .update(manifest)
      .digest('hex');
    return {
      notificationId,
      headers: {
        'content-type': 'application/json',
        'x-request-id': requestId,
        'x-signature': `ts=${ts},v1=${v1}`,
      } as Record<string, string>,
      query: { 'data.id': dataId, type: 'payment' } as Record<string, string>,
      rawBody,
    };
  }

  payment(id: string): FakePayment {
    const p = this.payments.get(Number(id));
    if (!p || !/^\d+$/.test(id))
      throw new ApiError(404, 'not_found', 'Payment not found', [{ code: 2000, description: 'Payment not found' }]);
    return p;
  }

  private async handle(req: IncomingMessage, res: ServerResponse) {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const raw = Buffer.concat(chunks).toString();
    const url = new URL(req.url ?? '/', 'http://x');
    const method = req.method ?? 'GET';
    const key = req.headers['x-idempotency-key'] as string | undefined;
    const send = (status: number, body: string) => {
      res.writeHead(status, {
        'content-type': 'application/json',
        'x-request-id': randomUUID(),
        'access-control-allow-origin': '*',
      });
      res.end(body);
    };
    // The browser's side: MercadoPago.js, its Secure Fields, and the card token call's CORS preflight.
    if (method === 'OPTIONS') {
      res.writeHead(204, {
        'access-control-allow-origin': '*',
        'access-control-allow-methods': 'POST, GET',
        'access-control-allow-headers': 'content-type',
      });
      return res.end();
    }
    if (method === 'GET' && url.pathname === '/js/v2') {
      res.writeHead(200, { 'content-type': 'text/javascript; charset=utf-8' });
      return res.end(MERCADOPAGO_JS);
    }
    const field = /^\/secure-fields\/(cardNumber|expirationDate|securityCode)$/.exec(url.pathname);
    if (method === 'GET' && field) {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      return res.end(secureFieldHtml(field[1]!, url.searchParams.get('placeholder') ?? ''));
    }
    const fail = (e: ApiError) =>
      send(e.status, JSON.stringify({ message: e.message, error: e.error, status: e.status, cause: e.cause }));
    let body: Record<string, unknown>;
    try {
      body = raw ? (JSON.parse(raw) as Record<string, unknown>) : {};
    } catch {
      return fail(new ApiError(400, 'bad_request', 'Invalid JSON body'));
    }
    this.requests.push({ method, path: url.pathname, idempotencyKey: key, body });
    // Card tokens are made with the public key (from the browser); everything else needs the access token.
    if (url.pathname === '/v1/card_tokens' && method === 'POST') {
      if (url.searchParams.get('public_key') !== this.publicKey)
        return fail(
          new ApiError(401, 'unauthorized', 'invalid public_key', [{ code: 1000, description: 'invalid public key' }]),
        );
      try {
        return send(201, JSON.stringify(this.makeToken(body)));
      } catch (e) {
        if (e instanceof ApiError) return fail(e);
        throw e;
      }
    }
    if (req.headers.authorization !== `Bearer ${this.accessToken}`) {
      return fail(
        new ApiError(401, 'unauthorized', 'invalid access token', [
          { code: 2002, description: 'Invalid access token' },
        ]),
      );
    }
    const needsKey =
      method === 'POST' && (url.pathname === '/v1/payments' || /^\/v1\/payments\/\d+\/refunds$/.test(url.pathname));
    if (needsKey && !key)
      return fail(
        new ApiError(400, 'bad_request', "Header X-Idempotency-Key can't be null", [
          { code: 'empty_required_header', description: 'X-Idempotency-Key is required' },
        ]),
      );
    const hash = `${method} ${url.pathname} ${raw}`;
    if (key && method === 'POST') {
      const prior = this.idem.get(key);
      if (prior) {
        if (prior.hash !== hash)
          return fail(
            new ApiError(409, 'conflict', 'The idempotency key was already used with another request', [
              { code: 'idempotency_key_already_used', description: 'conflict' },
            ]),
          );
        return send(prior.status, prior.body);
      }
    }
    let status: number;
    let out: string;
    try {
      const r = this.route(method, url, body);
      status = r[0];
      out = JSON.stringify(r[1]);
    } catch (e) {
      if (!(e instanceof ApiError)) throw e;
      status = e.status;
      out = JSON.stringify({ message: e.message, error: e.error, status: e.status, cause: e.cause });
    }
    if (key && method === 'POST') this.idem.set(key, { hash, status, body: out });
    send(status, out);
  }

  private makeToken(b: Record<string, unknown>) {
    if (b.card_id !== undefined) {
      const saved = this.savedCards.get(String(b.card_id));
      if (!saved)
        throw new ApiError(400, 'bad_request', 'invalid card_id', [{ code: 'E301', description: 'invalid card_id' }]);
      if (!/^\d{3,4}$/.test(String(b.security_code ?? '')))
        throw new ApiError(400, 'bad_request', 'invalid security_code', [
          { code: 'E302', description: 'invalid security_code' },
        ]);
      const t: Token = {
        id: randomUUID().replace(/-/g, ''),
        card: saved.card,
        holder: saved.holder,
        used: false,
        live: true,
        customer: saved.customer,
      };
      this.tokens.set(t.id, t);
      return {
        id: t.id,
        card_id: String(b.card_id),
        first_six_digits: saved.card.slice(0, 6),
        last_four_digits: saved.card.slice(-4),
        status: 'active',
        cardholder: { name: saved.holder },
      };
    }
    const number = String(b.card_number ?? '');
    const holder = (b.cardholder as { name?: string } | undefined)?.name ?? '';
    if (!TEST_CARDS[number])
      throw new ApiError(400, 'bad_request', 'invalid card_number', [
        { code: 'E205', description: 'invalid card_number' },
      ]);
    const t: Token = { id: randomUUID().replace(/-/g, ''), card: number, holder, used: false, live: true };
    this.tokens.set(t.id, t);
    return {
      id: t.id,
      first_six_digits: number.slice(0, 6),
      last_four_digits: number.slice(-4),
      status: 'active',
      cardholder: { name: holder },
    };
  }

  private route(method: string, url: URL, b: Record<string, unknown>): [number, unknown] {
    const path = url.pathname;
    if (path === '/v1/payments' && method === 'POST') return [201, this.createPayment(b)];
    if (path === '/v1/payments/search' && method === 'GET')
      return searchPayments([...this.payments.values()], url.searchParams);
    let m = /^\/v1\/payments\/([^/]+)$/.exec(path);
    if (m && method === 'GET') return [200, this.payment(m[1]!)];
    if (m && method === 'PUT') return [200, this.updatePayment(this.payment(m[1]!), b)];
    m = /^\/v1\/payments\/([^/]+)\/refunds$/.exec(path);
    if (m && method === 'POST') return [201, this.refund(this.payment(m[1]!), b)];
    if (path === '/v1/customers' && method === 'POST') {
      const email = String(b.email ?? '');
      if (!/^[^@\s]+@[^@\s]+$/.test(email))
        throw new ApiError(400, 'bad_request', 'invalid email', [
          { code: 100, description: 'the parameter email is invalid' },
        ]);
      if ([...this.customers.values()].some((c) => c.email === email))
        throw new ApiError(400, 'bad_request', 'the customer already exist', [
          { code: 101, description: 'the customer already exist' },
        ]);
      const c = { id: `${++this.seq}-cust`, email, cards: [] };
      this.customers.set(c.id, c);
      return [201, { id: c.id, email: c.email, cards: c.cards }];
    }
    if (path === '/v1/customers/search' && method === 'GET') {
      const email = url.searchParams.get('email');
      const results = [...this.customers.values()]
        .filter((c) => c.email === email)
        .map((c) => ({ id: c.id, email: c.email, cards: c.cards }));
      return [200, { paging: { total: results.length, limit: 10, offset: 0 }, results }];
    }
    m = /^\/v1\/customers\/([^/]+)\/cards$/.exec(path);
    if (m && method === 'POST') {
      const c = this.customers.get(m[1]!);
      if (!c)
        throw new ApiError(404, 'not_found', 'Customer not found', [
          { code: 'not_found', description: 'Customer not found' },
        ]);
      const t = this.useToken(String(b.token ?? ''));
      const card = {
        id: String(++this.seq),
        customer_id: c.id,
        first_six_digits: t.card.slice(0, 6),
        last_four_digits: t.card.slice(-4),
        payment_method: { id: TEST_CARDS[t.card]!.brand },
        cardholder: { name: t.holder },
      };
      c.cards.push(card);
      this.savedCards.set(card.id, { customer: c.id, card: t.card, holder: t.holder });
      return [200, card];
    }
    m = /^\/v1\/customers\/([^/]+)\/cards\/([^/]+)$/.exec(path);
    if (m && method === 'DELETE') {
      const c = this.customers.get(m[1]!);
      const i = c?.cards.findIndex((x) => x.id === m![2]) ?? -1;
      if (!c || i < 0)
        throw new ApiError(404, 'not_found', 'Card not found', [{ code: 'not_found', description: 'Card not found' }]);
      const [card] = c.cards.splice(i, 1);
      this.savedCards.delete(m[2]!);
      return [200, card];
    }
    throw new ApiError(404, 'not_found', `resource ${method} ${path} not found`);
  }

  private useToken(id: string): Token {
    const t = this.tokens.get(id);
    if (!t)
      throw new ApiError(400, 'bad_request', 'Card Token not found', [
        { code: 2006, description: 'Card Token not found' },
      ]);
    if (t.used)
      throw new ApiError(400, 'bad_request', 'Invalid card_token_id', [
        { code: 3003, description: 'Invalid card_token_id' },
      ]);
    t.used = true;
    return t;
  }

  private createPayment(b: Record<string, unknown>): FakePayment {
    const amount = b.transaction_amount;
    if (typeof amount !== 'number' || !(amount > 0))
      throw new ApiError(400, 'bad_request', 'Invalid transaction_amount', [
        { code: 4037, description: 'Invalid transaction_amount' },
      ]);
    if (this.currency === 'CLP' && !Number.isInteger(amount))
      throw new ApiError(400, 'bad_request', 'Invalid transaction_amount', [
        { code: 4037, description: 'Invalid transaction_amount' },
      ]);
    const payer = (b.payer ?? {}) as { email?: string; type?: string; id?: string };
    const customer = payer.type === 'customer' ? this.customers.get(String(payer.id ?? '')) : undefined;
    if (payer.type === 'customer' && !customer)
      throw new ApiError(404, 'not_found', 'Customer not found', [
        { code: 'not_found', description: 'Customer not found' },
      ]);
    const email = payer.email ?? customer?.email;
    if (!email)
      throw new ApiError(400, 'bad_request', 'payer.email must be a valid email', [
        { code: 4050, description: 'payer.email must be a valid email' },
      ]);
    const tok = this.tokens.get(String(b.token ?? ''));
    // A saved card's token pays only for the card's own customer.
    if (tok?.customer && tok.customer !== customer?.id)
      throw new ApiError(400, 'bad_request', 'Invalid users involved', [
        { code: 2034, description: 'Invalid users involved' },
      ]);
    const t = this.useToken(String(b.token ?? ''));
    const [status0, detail] = OUTCOMES[t.holder.toUpperCase()] ?? OUTCOMES.APRO!;
    const hold = b.capture === false;
    const approved = status0 === 'approved';
    const p: FakePayment = {
      id: ++this.seq,
      status: approved && hold ? 'authorized' : status0,
      status_detail: approved && hold ? 'pending_capture' : detail,
      transaction_amount: round2(amount),
      transaction_amount_refunded: 0,
      currency_id: this.currency,
      captured: !hold,
      external_reference: (b.external_reference as string | undefined) ?? null,
      description: String(b.description ?? ''),
      payment_method_id: String(b.payment_method_id ?? TEST_CARDS[t.card]!.brand),
      installments: Number(b.installments ?? 1),
      payer: { email },
      notification_url: (b.notification_url as string | undefined) ?? null,
      date_created: this.now().toISOString(),
      date_last_updated: this.now().toISOString(),
      card: {
        first_six_digits: t.card.slice(0, 6),
        last_four_digits: t.card.slice(-4),
        cardholder: { name: t.holder },
      },
      refunds: [],
    };
    this.payments.set(p.id, p);
    return p;
  }

  private updatePayment(p: FakePayment, b: Record<string, unknown>): FakePayment {
    p.date_last_updated = this.now().toISOString();
    if (b.capture === true) {
      if (p.status !== 'authorized')
        throw new ApiError(400, 'bad_request', `Payment can't be captured in status ${p.status}`, [
          { code: 4305, description: 'Payment cannot be captured' },
        ]);
      const amount = b.transaction_amount === undefined ? p.transaction_amount : Number(b.transaction_amount);
      if (!(amount > 0) || amount > p.transaction_amount) {
        throw new ApiError(
          400,
          'bad_request',
          'transaction_amount must be less than or equal to the authorized amount',
          [{ code: 4041, description: 'Invalid capture amount' }],
        );
      }
      Object.assign(p, {
        status: 'approved',
        status_detail: 'accredited',
        captured: true,
        transaction_amount: round2(amount),
      });
      return p;
    }
    if (b.status === 'cancelled') {
      if (!['authorized', 'pending', 'in_process'].includes(p.status)) {
        throw new ApiError(400, 'bad_request', `Payment can't be cancelled in status ${p.status}`, [
          { code: 4306, description: 'Payment cannot be cancelled' },
        ]);
      }
      Object.assign(p, { status: 'cancelled', status_detail: 'by_collector' });
      return p;
    }
    throw new ApiError(400, 'bad_request', 'Nothing to update', [{ code: 4000, description: 'invalid update' }]);
  }

  private refund(p: FakePayment, b: Record<string, unknown>) {
    if (!(p.status === 'approved' && p.captured) && p.status !== 'refunded') {
      throw new ApiError(400, 'bad_request', `Payment can't be refunded in status ${p.status}`, [
        { code: 2063, description: 'The action requested is not valid for the current payment state' },
      ]);
    }
    const left = round2(p.transaction_amount - p.transaction_amount_refunded);
    const amount = b.amount === undefined ? left : Number(b.amount);
    if (!(amount > 0) || amount > left + 1e-9) {
      throw new ApiError(400, 'bad_request', 'Invalid refund amount: it exceeds the available amount', [
        { code: 2085, description: 'Invalid refund amount' },
      ]);
    }
    p.transaction_amount_refunded = round2(p.transaction_amount_refunded + amount);
    p.date_last_updated = this.now().toISOString();
    if (p.transaction_amount_refunded >= p.transaction_amount)
      Object.assign(p, { status: 'refunded', status_detail: 'refunded' });
    else p.status_detail = 'partially_refunded';
    const r = { id: ++this.seq, payment_id: p.id, amount, status: 'approved' };
    p.refunds.push(r);
    return r;
  }
}
