// The Mercado Pago test server's HTTP side (see ../mercadopago.ts): the access token and public key, idempotency
// keys, the request log, card tokens (what MercadoPago.js makes in the browser), webhook deliveries, and the browser's
// side (MercadoPago.js, its Secure Fields, CORS); the API areas route in the subclasses.
import { createHmac, randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { LocalServer } from '../local-server.ts';
import { MERCADOPAGO_JS, secureFieldHtml } from '../mercadopago-js.ts';
import { ApiError, TEST_CARDS, type FakePayment, type Token } from './model.ts';

export abstract class MercadoPagoCore extends LocalServer {
  readonly payments = new Map<number, FakePayment>();
  /** The server's clock (payment dates; the reconciliation's search by date_last_updated). */
  now = () => new Date();
  protected readonly tokens = new Map<string, Token>();
  protected readonly customers = new Map<string, { id: string; email: string; cards: Record<string, unknown>[] }>();
  /** A saved card's number and holder (what Mercado Pago keeps of it), by card id. */
  protected readonly savedCards = new Map<string, { customer: string; card: string; holder: string }>();
  protected readonly idem = new Map<string, { hash: string; status: number; body: string }>();
  protected seq = 1_000_000_000;
  /** Every request (method, path, idempotency key) for assertions. */
  readonly requests: { method: string; path: string; idempotencyKey?: string; body: unknown }[] = [];
  /** The account's currency (a Mercado Pago account charges in its site's currency). */
  currency = 'BRL';

  constructor(
    readonly accessToken: string,
    readonly publicKey: string,
    readonly webhookSecret: string,
  ) {
    super();
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

  protected async handle(req: IncomingMessage, res: ServerResponse) {
    const raw = await this.readBody(req);
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

  protected makeToken(b: Record<string, unknown>) {
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

  protected useToken(id: string): Token {
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

  protected abstract route(method: string, url: URL, b: Record<string, unknown>): [number, unknown];
}
