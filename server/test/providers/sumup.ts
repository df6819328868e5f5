// A SumUp Checkouts API test server (test tree only, never shipped), modelled from developer.sumup.com/api:
//   POST /v0.1/checkouts                         201 checkout {id, status: PENDING, hosted_checkout_url, transactions: []}
//                                                409 {error_code: DUPLICATED_CHECKOUT} for a reused checkout_reference
//                                                400 [{error_code: INVALID, param, message}] for a missing/invalid field
//   GET  /v0.1/checkouts?checkout_reference=…    [checkout]
//   GET  /v0.1/checkouts/{id}                    checkout | 404 {error_code: NOT_FOUND}
//   POST /v0.1/me/refund/{transaction id}        204 | 400 when the amount exceeds what is left to refund (modelled)
// Auth: `Authorization: Bearer <key>` of a known key, else 401 {error_code: NOT_AUTHORIZED}; a key sees only its
// merchant's checkouts. The customer's side of Hosted Checkout is `pay(id, card)`: SumUp's sandbox test cards
// succeed (4200000000000091, 5200000000000007, 4200000000000042, 5200000000000015), an amount of 11.00 fails, any
// other card fails. `expire(id)` lapses a checkout. `webhook(id)` is the delivery SumUp makes to return_url
// (unsigned JSON {event_type: CHECKOUT_STATUS_CHANGED, id}).
import type { IncomingMessage, ServerResponse } from 'node:http';
import { LocalServer } from './local-server.ts';
import { randomUUID } from 'node:crypto';

interface Txn {
  id: string;
  transaction_code: string;
  amount: number;
  currency: string;
  status: string;
  timestamp: string;
  refunded: number;
}
interface Checkout {
  id: string;
  checkout_reference: string;
  amount: number;
  currency: string;
  merchant_code: string;
  description?: string;
  return_url?: string;
  redirect_url?: string;
  status: 'PENDING' | 'PAID' | 'FAILED' | 'EXPIRED';
  date: string;
  hosted_checkout?: { enabled: boolean };
  hosted_checkout_url?: string;
  transactions: Txn[];
}

const SUCCESS_CARDS = new Set(['4200000000000091', '5200000000000007', '4200000000000042', '5200000000000015']);
const CURRENCIES = new Set([
  'BGN',
  'BRL',
  'CHF',
  'CLP',
  'COP',
  'CZK',
  'DKK',
  'EUR',
  'GBP',
  'HRK',
  'HUF',
  'NOK',
  'PLN',
  'RON',
  'SEK',
  'USD',
]);

class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly body: unknown,
  ) {
    super(`HTTP ${status}`);
  }
}

export class SumUpTestServer extends LocalServer {
  readonly checkouts = new Map<string, Checkout>();
  /** Every request (method, path, body) for assertions. */
  readonly requests: { method: string; path: string; body: string; auth?: string }[] = [];

  /** keys: API key → the merchant code it belongs to. */
  constructor(readonly keys: Record<string, string>) {
    super();
  }

  get base() {
    return `http://127.0.0.1:${this.port}`;
  }

  /** The customer pays on the Hosted Checkout page with a card. */
  pay(id: string, card: string) {
    const c = this.mustGet(id);
    if (c.status !== 'PENDING') throw new Error(`checkout ${id} is ${c.status}`);
    const ok = SUCCESS_CARDS.has(card) && c.amount !== 11;
    c.transactions.push({
      id: randomUUID(),
      transaction_code: `T${Math.random().toString(36).slice(2, 10).toUpperCase()}`,
      amount: c.amount,
      currency: c.currency,
      status: ok ? 'SUCCESSFUL' : 'FAILED',
      timestamp: new Date().toISOString(),
      refunded: 0,
    });
    c.status = ok ? 'PAID' : 'FAILED';
    return c;
  }

  expire(id: string) {
    const c = this.mustGet(id);
    if (c.status === 'PENDING') c.status = 'EXPIRED';
  }

  /** The delivery SumUp POSTs to the checkout's return_url when its status changes. */
  webhook(id: string): { headers: Record<string, string>; rawBody: string; url: string | undefined } {
    const c = this.mustGet(id);
    return {
      url: c.return_url,
      headers: { 'content-type': 'application/json', 'user-agent': 'SumUp Webhooks' },
      rawBody: JSON.stringify({ event_type: 'CHECKOUT_STATUS_CHANGED', id }),
    };
  }

  private mustGet(id: string) {
    const c = this.checkouts.get(id);
    if (!c) throw new Error(`no checkout ${id}`);
    return c;
  }

  protected async handle(req: IncomingMessage, res: ServerResponse) {
    const raw = await this.readBody(req);
    const url = new URL(req.url ?? '/', 'http://x');
    const auth = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    this.requests.push({ method: req.method ?? '', path: url.pathname + url.search, body: raw, auth });
    const send = (status: number, body?: unknown) => {
      if (body === undefined) {
        res.writeHead(status);
        res.end();
        return;
      }
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    try {
      const merchant = auth ? this.keys[auth] : undefined;
      if (!merchant) throw new HttpError(401, { error_message: 'invalid_token', error_code: 'NOT_AUTHORIZED' });
      const out = this.route(req.method ?? 'GET', url, raw, merchant);
      send(out.status, out.body);
    } catch (err) {
      if (err instanceof HttpError) return send(err.status, err.body);
      send(500, { error_code: 'INTERNAL_ERROR', message: String(err) });
    }
  }

  private route(method: string, url: URL, raw: string, merchant: string): { status: number; body?: unknown } {
    const seg = url.pathname.split('/').filter(Boolean); // v0.1, checkouts, id? | v0.1, me, refund, txn
    const mine = (id: string) => {
      const c = this.checkouts.get(id);
      if (!c || c.merchant_code !== merchant)
        throw new HttpError(404, { error_code: 'NOT_FOUND', message: 'Resource not found' });
      return c;
    };
    if (seg[0] !== 'v0.1') throw new HttpError(404, { error_code: 'NOT_FOUND', message: 'Resource not found' });
    if (seg[1] === 'checkouts' && method === 'POST' && seg.length === 2) {
      const p = parseJson(raw);
      const invalid = (param: string, message: string) =>
        new HttpError(400, [{ error_code: 'INVALID', param, message }]);
      if (typeof p.checkout_reference !== 'string' || !p.checkout_reference || p.checkout_reference.length > 64)
        throw invalid('checkout_reference', 'Validation error');
      if (typeof p.amount !== 'number' || !(p.amount > 0)) throw invalid('amount', 'Validation error');
      if (typeof p.currency !== 'string' || !CURRENCIES.has(p.currency)) throw invalid('currency', 'Validation error');
      if (p.merchant_code !== merchant)
        throw new HttpError(403, { error_code: 'FORBIDDEN', message: 'Merchant code does not match the credentials' });
      // Minor units must be whole: 12.505 EUR or 1500.5 CLP is refused.
      const exp = p.currency === 'CLP' ? 0 : 2;
      if (Math.abs(p.amount * 10 ** exp - Math.round(p.amount * 10 ** exp)) > 1e-6)
        throw invalid('amount', 'Validation error');
      for (const c of this.checkouts.values()) {
        if (c.merchant_code === merchant && c.checkout_reference === p.checkout_reference) {
          throw new HttpError(409, {
            error_code: 'DUPLICATED_CHECKOUT',
            message: 'Checkout with this checkout reference and pay to email already exists',
          });
        }
      }
      const id = randomUUID();
      const hosted = (p.hosted_checkout as { enabled?: boolean } | undefined)?.enabled === true;
      const c: Checkout = {
        id,
        checkout_reference: p.checkout_reference,
        amount: p.amount,
        currency: p.currency,
        merchant_code: merchant,
        description: typeof p.description === 'string' ? p.description : undefined,
        return_url: typeof p.return_url === 'string' ? p.return_url : undefined,
        redirect_url: typeof p.redirect_url === 'string' ? p.redirect_url : undefined,
        status: 'PENDING',
        date: new Date().toISOString(),
        transactions: [],
        ...(hosted ? { hosted_checkout: { enabled: true }, hosted_checkout_url: `${this.base}/pay/${id}` } : {}),
      };
      this.checkouts.set(id, c);
      return { status: 201, body: view(c) };
    }
    if (seg[1] === 'checkouts' && method === 'GET' && seg.length === 2) {
      const ref = url.searchParams.get('checkout_reference');
      return {
        status: 200,
        body: [...this.checkouts.values()]
          .filter((c) => c.merchant_code === merchant && (!ref || c.checkout_reference === ref))
          .map(view),
      };
    }
    if (seg[1] === 'checkouts' && method === 'GET' && seg.length === 3)
      return { status: 200, body: view(mine(seg[2]!)) };
    if (seg[1] === 'me' && seg[2] === 'refund' && method === 'POST' && seg[3]) {
      const c = [...this.checkouts.values()].find(
        (x) => x.merchant_code === merchant && x.transactions.some((t) => t.id === seg[3]),
      );
      const t = c?.transactions.find((x) => x.id === seg[3]);
      if (!c || !t) throw new HttpError(404, { error_code: 'NOT_FOUND', message: 'Resource not found' });
      if (t.status !== 'SUCCESSFUL' && t.status !== 'REFUNDED')
        throw new HttpError(409, { error_code: 'CONFLICT', message: 'The transaction is not refundable' });
      const p = raw ? parseJson(raw) : {};
      const left = Math.round((t.amount - t.refunded) * 100) / 100;
      const amount = p.amount === undefined ? left : p.amount;
      if (typeof amount !== 'number' || !(amount > 0) || amount > left + 1e-9) {
        throw new HttpError(400, {
          error_code: 'INVALID',
          param: 'amount',
          message: `Refund amount exceeds the amount available for refund (${left})`,
        });
      }
      t.refunded = Math.round((t.refunded + amount) * 100) / 100;
      if (t.refunded >= t.amount) t.status = 'REFUNDED';
      return { status: 204 };
    }
    throw new HttpError(404, { error_code: 'NOT_FOUND', message: 'Resource not found' });
  }
}

function parseJson(raw: string): Record<string, unknown> {
  try {
    const v: unknown = JSON.parse(raw);
    if (v && typeof v === 'object' && !Array.isArray(v)) return v as Record<string, unknown>;
  } catch {
    /* below */
  }
  throw new HttpError(400, { error_code: 'INVALID', message: 'Malformed JSON body' });
}

/** The wire view of a checkout (our bookkeeping `refunded` is SumUp's, not shown on the checkout). */
function view(c: Checkout) {
  return { ...c, transactions: c.transactions.map(({ refunded: _r, ...t }) => t) };
}
