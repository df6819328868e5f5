// An n1co test server (test tree only, never shipped): the CheckoutLink API and the parts of the Integration API the
// n1co adapter uses, modelled from docs.n1co.com / api-docs.n1co.com and from integrations of n1co's API (n1co
// publishes no complete reference; see the header of methods/n1co.ts for what is not confirmed).
//   POST /api/v3/Token                      {clientId, clientSecret} → {tokenType, expiresIn, accessToken} | 401
//   POST /api/paymentlink/checkout          Bearer sk_… or token → {orderId, orderCode, paymentLinkUrl} | 400
//   GET  /api/paymentlink/order/{orderCode} → {orderId, orderCode, orderReference, orderStatus, total, store, payment}
//   POST /api/v3/Refunds                    Bearer token (not sk_) {orderId, cancellationReason} → {success, refundId, …};
//                                           the whole charge, once (a second refund: 400 ORDER_ALREADY_REFUNDED)
// Errors: {success: false, code, message} with 400/401/404 (modelled). The customer's side of the hosted page is
// `pay(orderCode, card)` with n1co's sandbox cards (approved → PAID; declined → the order stays PENDING, the link
// can be paid again). `webhook(orderCode, type)` is the delivery to the portal's webhook URL, signed
// X-H4B-Hmac-Sha256: Base64(HMAC-SHA256(webhook secret, raw body)).
import type { IncomingMessage, ServerResponse } from 'node:http';
import { LocalServer } from './local-server.ts';
import { createHmac, randomBytes, randomUUID } from 'node:crypto';

const APPROVE = new Set(['4000056655665556', '5267260000000001', '4000000000001000', '5200000000001005']);
const DECLINE = new Set(['4242424242424242', '5555555555554444', '4000000000001013', '5200000000001018']);

interface Order {
  orderId: number;
  orderCode: string;
  orderReference: string;
  name: string;
  description?: string;
  total: number;
  successUrl?: string;
  cancelUrl?: string;
  locationCode?: string;
  metadata: { name: string; value: string }[];
  orderStatus: 'PENDING' | 'PAID' | 'FINALIZED' | 'CANCELLED';
  payment: { authorizationCode?: string; cardBrand?: string; attempts: { card: string; approved: boolean }[] } | null;
  refunded: boolean;
}

class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly body: unknown,
  ) {
    super(`HTTP ${status}`);
  }
}

export class N1coTestServer extends LocalServer {
  readonly orders = new Map<string, Order>();
  readonly tokens = new Set<string>();
  readonly requests: { method: string; path: string; body: string; auth?: string }[] = [];
  private seq = 50581;

  constructor(
    readonly client: { clientId: string; clientSecret: string },
    readonly checkoutSecretKey: string,
    readonly webhookSecret: string,
  ) {
    super();
  }

  get base() {
    return `http://127.0.0.1:${this.port}`;
  }

  /** Revokes every issued token (the next call with one gets 401). */
  revokeTokens() {
    this.tokens.clear();
  }

  private mustGet(code: string) {
    const o = this.orders.get(code);
    if (!o) throw new Error(`no order ${code}`);
    return o;
  }

  /** The customer pays on the payment link page. */
  pay(orderCode: string, card: string) {
    const o = this.mustGet(orderCode);
    if (o.orderStatus !== 'PENDING') throw new Error(`order ${orderCode} is ${o.orderStatus}`);
    const approved = APPROVE.has(card);
    if (!approved && !DECLINE.has(card)) throw new Error(`not an n1co sandbox card: ${card}`);
    o.payment ??= { attempts: [] };
    o.payment.attempts.push({ card, approved });
    if (approved) {
      o.orderStatus = 'PAID';
      o.payment.authorizationCode = String(100000 + Math.floor(Math.random() * 900000));
      o.payment.cardBrand = card.startsWith('4') ? 'VISA' : 'MASTERCARD';
    }
    return o;
  }

  cancel(orderCode: string) {
    this.mustGet(orderCode).orderStatus = 'CANCELLED';
  }

  /** A webhook delivery as n1co signs it. */
  webhook(
    orderCode: string,
    type: string,
    secret = this.webhookSecret,
  ): { headers: Record<string, string>; rawBody: string } {
    const o = this.mustGet(orderCode);
    const rawBody = JSON.stringify({
      orderId: o.orderId,
      orderReference: o.orderReference,
      orderType: 'PaymentLink',
      type,
      description: `Order ${o.orderId} ${type}`,
      level: type.endsWith('Error') ? 'Error' : 'Info',
      metadata: { OrderId: String(o.orderId), OrderReference: o.orderReference, PaymentLinkCode: o.orderCode },
    });
    return {
      headers: {
        'content-type': 'application/json',
        'x-h4b-hmac-sha256': createHmac('sha256', secret).update(rawBody).digest('base64'),
      },
      rawBody,
    };
  }

  protected async handle(req: IncomingMessage, res: ServerResponse) {
    const raw = await this.readBody(req);
    const url = new URL(req.url ?? '/', 'http://x');
    const auth = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    this.requests.push({ method: req.method ?? '', path: url.pathname, body: raw, auth });
    const send = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' });
      res.end(JSON.stringify(body));
    };
    try {
      const out = this.route(req.method ?? 'GET', url.pathname, raw, auth);
      send(200, out);
    } catch (err) {
      if (err instanceof HttpError) return send(err.status, err.body);
      send(500, { success: false, code: 'INTERNAL_ERROR', message: String(err) });
    }
  }

  private route(method: string, path: string, raw: string, auth: string | undefined): unknown {
    const unauthorized = () =>
      new HttpError(401, { success: false, code: 'UNAUTHORIZED', message: 'invalid credentials' });
    const json = () => {
      try {
        const v: unknown = JSON.parse(raw);
        if (v && typeof v === 'object') return v as Record<string, unknown>;
      } catch {
        /* below */
      }
      throw new HttpError(400, { success: false, code: 'BAD_REQUEST', message: 'Malformed JSON body' });
    };
    if (method === 'POST' && path === '/api/v3/Token') {
      const p = json();
      if (p.clientId !== this.client.clientId || p.clientSecret !== this.client.clientSecret) throw unauthorized();
      const token = `eyJ${randomBytes(24).toString('base64url')}`;
      this.tokens.add(token);
      return { tokenType: 'Bearer', expiresIn: 3599, accessToken: token };
    }
    const isToken = !!auth && this.tokens.has(auth);
    const isSecret = !!auth && auth === this.checkoutSecretKey;
    if (path.startsWith('/api/paymentlink/')) {
      if (!isToken && !isSecret) throw unauthorized();
      if (method === 'POST' && path === '/api/paymentlink/checkout') {
        const p = json();
        if (typeof p.amount !== 'number' || !(p.amount > 0))
          throw new HttpError(400, {
            success: false,
            code: 'VALIDATION_ERROR',
            message: 'amount must be greater than 0',
          });
        if (Math.abs(p.amount * 100 - Math.round(p.amount * 100)) > 1e-6)
          throw new HttpError(400, {
            success: false,
            code: 'VALIDATION_ERROR',
            message: 'amount has more than 2 decimals',
          });
        const o: Order = {
          orderId: ++this.seq,
          orderCode: randomUUID().replace(/-/g, '').slice(0, 20),
          orderReference: String(p.orderReference ?? ''),
          name: String(p.orderName ?? 'PaymentLink Order'),
          description: typeof p.orderDescription === 'string' ? p.orderDescription : undefined,
          total: p.amount,
          successUrl: typeof p.successUrl === 'string' ? p.successUrl : undefined,
          cancelUrl: typeof p.cancelUrl === 'string' ? p.cancelUrl : undefined,
          locationCode: typeof p.locationCode === 'string' ? p.locationCode : undefined,
          metadata: Array.isArray(p.metadata) ? (p.metadata as { name: string; value: string }[]) : [],
          orderStatus: 'PENDING',
          payment: null,
          refunded: false,
        };
        this.orders.set(o.orderCode, o);
        return { orderId: o.orderId, orderCode: o.orderCode, paymentLinkUrl: `${this.base}/pl/${o.orderCode}` };
      }
      const m = /^\/api\/paymentlink\/order\/([^/]+)$/.exec(path);
      if (method === 'GET' && m) {
        const o = this.orders.get(decodeURIComponent(m[1]!));
        if (!o) throw new HttpError(404, { success: false, code: 'NOT_FOUND', message: 'Order not found' });
        return {
          orderId: o.orderId,
          orderCode: o.orderCode,
          orderReference: o.orderReference,
          orderStatus: o.orderStatus,
          name: o.name,
          total: o.total,
          store: { currencyCode: 'USD', locationCode: o.locationCode ?? null },
          payment:
            o.payment && o.orderStatus !== 'PENDING'
              ? { authorizationCode: o.payment.authorizationCode, cardBrand: o.payment.cardBrand }
              : null,
        };
      }
    }
    if (method === 'POST' && path === '/api/v3/Refunds') {
      if (!isToken) throw unauthorized();
      const p = json();
      const o = [...this.orders.values()].find((x) => String(x.orderId) === String(p.orderId));
      if (!o) throw new HttpError(404, { success: false, code: 'NOT_FOUND', message: 'Order not found' });
      if (typeof p.cancellationReason !== 'string' || !p.cancellationReason)
        throw new HttpError(400, {
          success: false,
          code: 'VALIDATION_ERROR',
          message: 'cancellationReason is required',
        });
      if (o.refunded)
        throw new HttpError(400, {
          success: false,
          code: 'ORDER_ALREADY_REFUNDED',
          message: 'The order was already refunded',
        });
      if (o.orderStatus !== 'PAID' && o.orderStatus !== 'FINALIZED')
        throw new HttpError(400, {
          success: false,
          code: 'ORDER_NOT_PAID',
          message: 'The order has no charge to refund',
        });
      o.refunded = true;
      return {
        success: true,
        message: 'Ok',
        refundId: randomUUID(),
        orderId: o.orderId,
        amount: o.total,
        currency: 'USD',
        refundedAt: new Date().toISOString(),
        status: 'SUCCEEDED',
      };
    }
    throw new HttpError(404, { success: false, code: 'NOT_FOUND', message: `No route ${method} ${path}` });
  }
}
