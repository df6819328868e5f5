// An Espees Merchant Web API test server (test tree only, never shipped), modelled from Espees's merchant
// documentation (see the header of server/src/modules/payments/methods/espees.ts):
//   POST /v2/payment/product    x-api-key; {product_sku, narration, price, merchant_wallet, success_url, fail_url,
//                               user_data} → {statusCode: 200, payment_ref, message: "Successfully Done"}
//   POST /v2/payment/confirm/   x-api-key; {payment_ref} → {customer_username, product_sku, narration, price,
//                               transaction_status: APPROVED | DECLINE | PENDING | NOT FOUND, status_details,
//                               transaction_date, user_data}
//   GET  /pay/<payment_ref>     the payment portal (the redirect target; the same server plays both hosts)
// Modelled where Espees's text says nothing (ours): a missing or unknown x-api-key → 403 {message: "Forbidden"}
// (the shape of the API Gateway Espees's keys look like), a wallet the key does not own or a bad field → 400
// {statusCode: 400, message}, a reused product_sku → 400 "Product SKU already exists", an unknown payment_ref →
// transaction_status NOT FOUND. Espees has no test mode: the customer is simulated by pay(ref, username), whose
// username decides the outcome (TEST_USERS — OUR values), and the answer is where Espees sends the browser back
// (success_url or fail_url with payment_ref added), which is also the only "notification" Espees gives.
import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { LocalServer } from './local-server.ts';

/** Our test customers (Espees usernames) for the simulated portal. */
export const TEST_USERS = {
  succeeds: 'powerly_test_ok',
  declined: 'powerly_test_decline',
  insufficient_funds: 'powerly_test_nofunds',
  /** The payment never completes: PENDING for ever. */
  no_answer: 'powerly_test_noanswer',
} as const;

interface Product {
  apiKey: string;
  ref: string;
  sku: string;
  narration: string;
  price: number;
  wallet: string;
  successUrl: string;
  failUrl: string;
  userData: unknown;
  status: 'NOT FOUND' | 'PENDING' | 'APPROVED' | 'DECLINE';
  details: string;
  customer?: string;
  date?: string;
}

export class FakeEspees extends LocalServer {
  private readonly products = new Map<string, Product>();
  readonly requests: { method: string; path: string; apiKey?: string; body: Record<string, unknown> }[] = [];
  /** Answer the next N API requests with a 502 (a gateway error). */
  failNext = 0;

  /** keys: API key → the merchant wallets it may be paid to. */
  constructor(readonly keys: Record<string, string[]>) {
    super();
  }

  get base() {
    return `http://127.0.0.1:${this.port}`;
  }

  product(ref: string) {
    return this.products.get(ref);
  }

  protected async handle(req: IncomingMessage, res: ServerResponse) {
    const raw = await this.readBody(req);
    const url = new URL(req.url ?? '/', 'http://x');
    const send = (status: number, body: unknown, type = 'application/json') => {
      res.writeHead(status, { 'content-type': type });
      res.end(typeof body === 'string' ? body : JSON.stringify(body));
    };
    if (req.method === 'GET' && url.pathname.startsWith('/pay/')) {
      const p = this.products.get(decodeURIComponent(url.pathname.slice(5)));
      return p
        ? send(200, `<html><body>Pay ${p.price} ESP for ${p.narration}</body></html>`, 'text/html')
        : send(404, 'Not found', 'text/plain');
    }
    const apiKey = req.headers['x-api-key'] as string | undefined;
    let body: Record<string, unknown>;
    try {
      body = raw ? (JSON.parse(raw) as Record<string, unknown>) : {};
      if (!body || typeof body !== 'object' || Array.isArray(body)) throw new Error('not an object');
    } catch {
      // an unreadable body is a bad request below
      body = { __unreadable: true };
    }
    this.requests.push({ method: req.method ?? '', path: url.pathname, apiKey, body });
    if (!apiKey || !(apiKey in this.keys)) return send(403, { message: 'Forbidden' });
    if (this.failNext > 0) {
      this.failNext--;
      return send(502, { message: 'Internal server error' });
    }
    if (req.method !== 'POST') return send(404, { statusCode: 404, message: 'Not Found' });
    if (body.__unreadable) return send(400, { statusCode: 400, message: 'Invalid JSON body' });
    const bad = (message: string) => send(400, { statusCode: 400, message });

    if (url.pathname === '/v2/payment/product') {
      for (const f of ['product_sku', 'narration', 'merchant_wallet', 'success_url', 'fail_url']) {
        if (typeof body[f] !== 'string' || !body[f]) return bad(`${f} is required`);
      }
      if (typeof body.price !== 'number' || !(body.price > 0)) return bad('price must be a positive number');
      const wallet = String(body.merchant_wallet);
      if (!this.keys[apiKey]!.includes(wallet)) return bad('Invalid merchant wallet');
      const sku = String(body.product_sku);
      if ([...this.products.values()].some((p) => p.apiKey === apiKey && p.sku === sku))
        return bad('Product SKU already exists');
      const ref = randomBytes(16).toString('hex');
      this.products.set(ref, {
        apiKey,
        ref,
        sku,
        narration: String(body.narration),
        price: body.price,
        wallet,
        successUrl: String(body.success_url),
        failUrl: String(body.fail_url),
        userData: body.user_data ?? {},
        status: 'NOT FOUND',
        details: 'No payment attempt found',
      });
      return send(200, { statusCode: 200, payment_ref: ref, message: 'Successfully Done' });
    }
    if (url.pathname === '/v2/payment/confirm/' || url.pathname === '/v2/payment/confirm') {
      const ref = typeof body.payment_ref === 'string' ? body.payment_ref : '';
      if (!ref) return bad('payment_ref is required');
      const p = this.products.get(ref);
      if (!p || p.apiKey !== apiKey)
        return send(200, { transaction_status: 'NOT FOUND', status_details: 'No payment attempt found' });
      return send(200, {
        customer_username: p.customer ?? '',
        product_sku: p.sku,
        narration: p.narration,
        price: p.price,
        transaction_status: p.status,
        status_details: p.details,
        transaction_date: p.date ?? '',
        user_data: p.userData,
      });
    }
    return send(404, { statusCode: 404, message: 'Not Found' });
  }

  /**
   * The customer pays on the portal as a test user. Returns where Espees sends the browser back: success_url or
   * fail_url with payment_ref added (null while the payment stays pending).
   */
  pay(ref: string, username: string = TEST_USERS.succeeds): string | null {
    const p = this.products.get(ref);
    if (!p) throw new Error(`no Espees payment ${ref}`);
    p.customer = username;
    p.date = '23-11-2026 9:30:00';
    const back = (u: string) => `${u}${u.includes('?') ? '&' : '?'}payment_ref=${encodeURIComponent(ref)}`;
    switch (username) {
      case TEST_USERS.no_answer:
        Object.assign(p, { status: 'PENDING', details: 'Transaction is processing' });
        return null;
      case TEST_USERS.declined:
        Object.assign(p, { status: 'DECLINE', details: 'Transaction declined' });
        return back(p.failUrl);
      case TEST_USERS.insufficient_funds:
        Object.assign(p, { status: 'DECLINE', details: 'Insufficient balance' });
        return back(p.failUrl);
      default:
        Object.assign(p, { status: 'APPROVED', details: 'Successfully Done' });
        return back(p.successUrl);
    }
  }

  /**
   * The customer's return as our "Espees confirm GET (tradeNo, outTradeNo)" receives it — Espees's payment_ref,
   * our outTradeNo (already in our returnUrl) and tradeNo = payment_ref.
   */
  returnDelivery(returnUrl: string) {
    const q = Object.fromEntries(new URL(returnUrl).searchParams);
    return { headers: {}, rawBody: '', query: { ...q, ...(q.payment_ref ? { tradeNo: q.payment_ref } : {}) } };
  }
}
