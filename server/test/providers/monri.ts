// A Monri WebPay test server (test tree only, never shipped): the part of Monri's API the monri adapter uses,
// modelled from Monri's documentation and its official plugins' wire calls —
//   POST /v2/payment/new                 JSON, Authorization: WP3-v2 <authenticity_token> <timestamp> <digest>,
//                                        digest = sha512(merchant_key + timestamp + authenticity_token + body);
//                                        an order number is used once (a second payment/new with it is refused)
//   GET  /v2/payment/{id}/status         same authorization (body '')
//   POST /orders/show                    XML, digest = sha1(merchant_key + order_number)
//   POST /transactions/{order}/capture.xml | void.xml | refund.xml
//                                        XML, digest = sha1(merchant_key + order_number + amount + currency);
//                                        refused → 406 <errors><error>…</error></errors>
// The customer's side is `confirm(clientSecret, card)`: what Monri Components' confirmPayment does in the app's
// /MonriPay screen. Monri's documented test cards approve (4341 7920 0000 0044 and 6769 0642 1999 2611 with a
// 3-D Secure step that this server passes). Monri's public test documentation we could read names no card that
// declines, so this server (only) declines 4111 1111 1111 1111 (response code 1002) and answers 4000 0000 0000 9995
// with insufficient funds (1005); the adapter's testValues do not list them.
// `callback` makes the delivery Monri posts to the merchant's callback URL, signed WP3-callback.
// For the browser tests it also serves Monri Components (monri-components.ts): GET /dist/components.js, the card
// frame GET /components/card, and the frame's POST /components/confirm (confirmPayment), which validates the
// cardholder details as Monri does (ch_full_name 3–30 characters, an e-mail) and answers confirmPayment's result.
import { createHash, randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { LocalServer } from './local-server.ts';
import { CARD_FRAME_HTML, COMPONENTS_JS } from './monri-components.ts';

const CARDS: Record<string, { brand: string; code: string }> = {
  '4341792000000044': { brand: 'visa', code: '0000' },
  '4058400000000005': { brand: 'visa', code: '0000' },
  '5464000000000008': { brand: 'master', code: '0000' },
  '6769064219992611': { brand: 'maestro', code: '0000' },
  // This server's own declining cards (see above).
  '4111111111111111': { brand: 'visa', code: '1002' },
  '4000000000009995': { brand: 'visa', code: '1005' },
};
const MESSAGES: Record<string, string> = {
  '0000': 'transaction approved',
  '1002': 'card suspicious: declined',
  '1005': 'insufficient funds',
};

export interface FakeMonriPayment {
  id: string;
  clientSecret: string;
  transactionType: 'purchase' | 'authorize';
  amount: number;
  currency: string;
  orderNumber: string;
  orderInfo: string;
  /** payment_method_required → approved | declined */
  paymentStatus: 'payment_method_required' | 'approved' | 'declined';
  result: Record<string, unknown> | null;
  captured: number;
  refunded: number;
  voided: boolean;
  /** The cardholder details confirmPayment sent (browser flow). */
  transaction?: Record<string, unknown>;
}

const sha512 = (s: string) => createHash('sha512').update(s, 'utf8').digest('hex');
const sha1 = (s: string) => createHash('sha1').update(s, 'utf8').digest('hex');

export class FakeMonri extends LocalServer {
  readonly payments = new Map<string, FakeMonriPayment>();
  /** Every request (method, path) for assertions. */
  readonly requests: { method: string; path: string; body: string }[] = [];
  private seq = 1000;
  readonly currencies = ['BAM', 'EUR', 'USD'];

  constructor(
    readonly authenticityToken: string,
    readonly merchantKey: string,
  ) {
    super();
  }

  byOrder(orderNumber: string) {
    return [...this.payments.values()].find((p) => p.orderNumber === orderNumber);
  }

  /**
   * What Monri Components' confirmPayment does with the card the customer typed in /MonriPay (authenticity token +
   * client secret + card + cardholder). Returns the transaction and the callback Monri then posts.
   */
  confirm(clientSecret: string, card: { pan: string; email: string; fullName?: string }) {
    const p = [...this.payments.values()].find((x) => x.clientSecret === clientSecret);
    if (!p) throw new Error('unknown client secret');
    if (p.paymentStatus !== 'payment_method_required') throw new Error(`payment ${p.id} is ${p.paymentStatus}`);
    const pan = card.pan.replace(/\s/g, '');
    const c = CARDS[pan] ?? { brand: 'visa', code: '1002' };
    const approved = c.code === '0000';
    p.paymentStatus = approved ? 'approved' : 'declined';
    if (approved && p.transactionType === 'purchase') p.captured = p.amount;
    p.result = {
      id: ++this.seq,
      acquirer: 'integration_acq',
      order_number: p.orderNumber,
      amount: p.amount,
      currency: p.currency,
      outgoing_amount: p.amount,
      outgoing_currency: p.currency,
      ch_full_name: card.fullName ?? card.email,
      ch_email: card.email,
      approval_code: approved ? String(100000 + this.seq) : null,
      response_code: c.code,
      response_message: MESSAGES[c.code] ?? 'declined',
      reference_number: String(900000000 + this.seq),
      systan: String(this.seq),
      cc_type: c.brand,
      status: approved ? 'approved' : 'declined',
      transaction_type: p.transactionType,
      created_at: new Date().toISOString(),
      masked_pan: `${pan.slice(0, 6)}-xxx-xxx-${pan.slice(-4)}`,
      number_of_installments: null,
      custom_params: '{}',
    };
    return this.callback(p.result);
  }

  /** The callback delivery: the transaction as JSON, `Authorization: WP3-callback sha512(merchant_key + body)`. */
  callback(transaction: Record<string, unknown>, key = this.merchantKey) {
    const rawBody = JSON.stringify(transaction);
    return {
      headers: { 'content-type': 'application/json', authorization: `WP3-callback ${sha512(key + rawBody)}` } as Record<
        string,
        string
      >,
      rawBody,
      query: {} as Record<string, string>,
    };
  }

  protected async handle(req: IncomingMessage, res: ServerResponse) {
    const raw = await this.readBody(req);
    const url = new URL(req.url ?? '/', 'http://x');
    const method = req.method ?? 'GET';
    this.requests.push({ method, path: url.pathname, body: raw });
    const json = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    const xml = (status: number, body: string) => {
      res.writeHead(status, { 'content-type': 'application/xml' });
      res.end(`<?xml version="1.0" encoding="UTF-8"?>\n${body}`);
    };
    const xmlErrors = (status: number, ...errors: string[]) =>
      xml(status, `<errors>${errors.map((e) => `<error>${e}</error>`).join('')}</errors>`);

    if (method === 'GET' && url.pathname === '/dist/components.js') {
      res.writeHead(200, { 'content-type': 'text/javascript; charset=utf-8' });
      return res.end(COMPONENTS_JS);
    }
    if (method === 'GET' && url.pathname === '/components/card') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      return res.end(CARD_FRAME_HTML);
    }
    if (method === 'POST' && url.pathname === '/components/confirm') return this.componentsConfirm(raw, json);
    if (url.pathname.startsWith('/v2/')) {
      const m = /^WP3-v2 (\S+) (\d+) ([0-9a-f]{128})$/.exec(req.headers.authorization ?? '');
      if (!m || m[1] !== this.authenticityToken || m[3] !== sha512(this.merchantKey + m[2] + m[1] + raw)) {
        return json(401, { status: 'error', message: 'Unauthorized: invalid authorization header' });
      }
      if (url.pathname === '/v2/payment/new' && method === 'POST') return this.create(raw, json);
      const s = /^\/v2\/payment\/([^/]+)\/status$/.exec(url.pathname);
      if (s && method === 'GET') {
        const p = this.payments.get(s[1]!);
        if (!p) return json(404, { status: 'error', message: 'Payment not found' });
        return json(200, { status: 'approved', payment_status: p.paymentStatus, payment_result: p.result });
      }
      return json(404, { status: 'error', message: 'Not found' });
    }

    const f = readFields(raw);
    if (url.pathname === '/orders/show' && method === 'POST') {
      const order = f['order-number'] ?? '';
      if (f['authenticity-token'] !== this.authenticityToken || f.digest !== sha1(this.merchantKey + order))
        return xmlErrors(406, 'Invalid digest or authenticity token');
      const p = this.byOrder(order);
      if (!p) return xmlErrors(404, 'Order not found');
      const r = p.result;
      if (!r)
        return xml(
          200,
          `<transaction><order-number>${order}</order-number><status>pending</status><response-code></response-code><amount type="integer">${p.amount}</amount><currency>${p.currency}</currency></transaction>`,
        );
      return xml(
        200,
        `<transaction><id type="integer">${String(r.id)}</id><order-number>${order}</order-number><amount type="integer">${p.amount}</amount><currency>${p.currency}</currency><response-code>${String(r.response_code)}</response-code><status>${String(r.status)}</status><transaction-type>${p.transactionType}</transaction-type></transaction>`,
      );
    }
    const t = /^\/transactions\/([^/]+)\/(capture|void|refund)\.xml$/.exec(url.pathname);
    if (t && method === 'POST') {
      const order = decodeURIComponent(t[1]!);
      const kind = t[2] as 'capture' | 'void' | 'refund';
      const amountStr = f.amount ?? '';
      const currency = f.currency ?? '';
      if (f['authenticity-token'] !== this.authenticityToken) return xmlErrors(406, 'Authenticity token is invalid');
      if (f['order-number'] !== order) return xmlErrors(406, 'Order number does not match');
      if (f.digest !== sha1(this.merchantKey + order + amountStr + currency))
        return xmlErrors(406, 'Digest is invalid');
      const p = this.byOrder(order);
      if (!p || p.paymentStatus !== 'approved') return xmlErrors(404, 'Transaction not found');
      if (currency !== p.currency) return xmlErrors(406, 'Currency is invalid');
      const amount = Number(amountStr);
      if (!/^\d+$/.test(amountStr) || amount <= 0) return xmlErrors(406, 'Amount is invalid');
      if (kind === 'capture') {
        if (p.transactionType !== 'authorize' || p.captured > 0 || p.voided)
          return xmlErrors(406, 'Transaction cannot be captured');
        if (amount > p.amount) return xmlErrors(406, 'Amount is greater than authorized amount');
        p.captured = amount;
      } else if (kind === 'void') {
        if (p.transactionType !== 'authorize' || p.captured > 0 || p.voided)
          return xmlErrors(406, 'Transaction cannot be voided');
        p.voided = true;
      } else {
        if (p.captured === 0) return xmlErrors(406, 'Transaction cannot be refunded');
        if (amount > p.captured - p.refunded) return xmlErrors(406, 'Amount is greater than refundable amount');
        p.refunded += amount;
      }
      return xml(
        200,
        [
          '<transaction>',
          `<id type="integer">${++this.seq}</id><acquirer>integration_acq</acquirer><order-number>${order}</order-number>`,
          `<amount type="integer">${amount}</amount><currency>${currency}</currency><response-code>0000</response-code>`,
          `<approval-code>${100000 + this.seq}</approval-code><response-message>transaction approved</response-message>`,
          `<status>approved</status><transaction-type>${kind}</transaction-type><created-at type="datetime">${new Date().toISOString()}</created-at>`,
          '</transaction>',
        ].join(''),
      );
    }
    return xmlErrors(404, 'Not found');
  }

  /** confirmPayment from the card frame: the transaction's result as Monri Components resolves it. */
  private componentsConfirm(raw: string, json: (status: number, body: unknown) => void) {
    let b: { authenticity_token?: string; client_secret?: string; pan?: string; transaction?: Record<string, unknown> };
    try {
      b = JSON.parse(raw) as typeof b;
    } catch {
      return json(400, { error: { message: 'Invalid request' }, result: null });
    }
    const p = [...this.payments.values()].find((x) => x.clientSecret === b.client_secret);
    if (b.authenticity_token !== this.authenticityToken || !p)
      return json(200, { error: { message: 'Invalid payment session' }, result: null });
    if (p.paymentStatus !== 'payment_method_required')
      return json(200, { error: { message: 'Payment already processed' }, result: null });
    const tr = b.transaction ?? {};
    const fullName = String(tr.fullName ?? '');
    const email = String(tr.email ?? '');
    if (fullName.length < 3 || fullName.length > 30)
      return json(200, { error: { message: 'ch_full_name is invalid' }, result: null });
    if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email))
      return json(200, { error: { message: 'ch_email is invalid' }, result: null });
    p.transaction = tr;
    this.confirm(p.clientSecret, { pan: String(b.pan ?? ''), email, fullName });
    const r = p.result!;
    return json(200, {
      error: null,
      result: {
        id: r.id,
        status: r.status,
        currency: p.currency,
        amount: p.amount,
        order_number: p.orderNumber,
        transaction_type: p.transactionType,
        created_at: r.created_at,
        pan_token: null,
        errors: r.status === 'approved' ? [] : [String(r.response_message)],
      },
    });
  }

  private create(raw: string, json: (status: number, body: unknown) => void) {
    let b: Record<string, unknown>;
    try {
      b = JSON.parse(raw) as Record<string, unknown>;
    } catch {
      return json(400, { status: 'error', message: 'Invalid JSON' });
    }
    const errors: string[] = [];
    if (b.transaction_type !== 'purchase' && b.transaction_type !== 'authorize')
      errors.push('transaction_type is invalid');
    if (!Number.isInteger(b.amount) || (b.amount as number) <= 0) errors.push('amount is invalid');
    if (!this.currencies.includes(String(b.currency))) errors.push('currency is invalid');
    const order = String(b.order_number ?? '');
    if (!/^[\w-]{1,40}$/.test(order)) errors.push('order_number is invalid');
    const info = String(b.order_info ?? '');
    if (info.length < 3 || info.length > 100) errors.push('order_info is invalid');
    if (this.byOrder(order)) errors.push('order_number has already been taken');
    if (errors.length) return json(400, { status: 'error', errors });
    const p: FakeMonriPayment = {
      id: randomBytes(20).toString('hex'),
      clientSecret: randomBytes(20).toString('hex'),
      transactionType: b.transaction_type as 'purchase' | 'authorize',
      amount: b.amount as number,
      currency: String(b.currency),
      orderNumber: order,
      orderInfo: info,
      paymentStatus: 'payment_method_required',
      result: null,
      captured: 0,
      refunded: 0,
      voided: false,
    };
    this.payments.set(p.id, p);
    return json(200, { status: 'approved', id: p.id, client_secret: p.clientSecret });
  }
}

function readFields(xml: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const m of xml.matchAll(/<([a-z][\w-]*)>([^<]*)<\/\1>/gi)) out[m[1]!] = m[2]!;
  return out;
}
