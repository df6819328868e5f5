// An Alif Pay WebCheckout test server (test tree only, never shipped): the part of Alif's acquiring API the
// alifpay adapter uses, modelled from Alif's own examples (github.com/alifcapital/sdk) and docs.acquiring.alif.tj as
// cited by the SDKs built on it — see the header of server/src/modules/payments/methods/alifpay.ts.
//   POST /v2/              create a payment page; key → 403, token → 401, fields/amount format → 400, order_id
//                          reused → 208 (Alif refuses a second order with the same order_id); {code, message, url}
//   POST /checktxn         {orderId, key, token}: the transaction with its token, or {orderId, status: "not found"}
//   POST /cancel/standard  {key, transaction_id, amount, token}: refund of a paid transaction, in part or whole;
//                          more than what is left → 400
//   GET  /pay/<id>         the hosted page (the redirect target)
// States: pending → ok | failed | canceled. The HTTP status mirrors `code` (modelled: Alif's examples check both).
// Also modelled (not in Alif's text): refunds leave /checktxn's status at "ok", several partial refunds are taken.
// The customer is simulated by pay(orderId, account): the account decides the outcome (TEST_ACCOUNTS — these
// values are OURS: Alif hands its test cards out with a test terminal and does not publish them), and the answer
// is the callback delivery Alif would POST to callback_url, signed as Alif signs it.
import { createHmac, randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { LocalServer } from './local-server.ts';

/** Our test accounts (Korti Milli-like card numbers) for the simulated hosted page. */
export const TEST_ACCOUNTS = {
  succeeds: '9762000000000001',
  declined: '9762000000000002',
  insufficient_funds: '9762000000000003',
  /** The customer never finishes: the transaction stays pending and no callback is sent. */
  no_answer: '9762000000000004',
} as const;

interface Txn {
  key: string;
  orderId: string;
  transactionId: string;
  pageId: string;
  /** Hundredths of TJS. */
  amount: number;
  refunded: number;
  status: 'pending' | 'ok' | 'failed' | 'canceled';
  callbackUrl: string;
  returnUrl: string;
  gate: string;
  phone?: string;
  account?: string;
}

export interface Delivery {
  url: string;
  headers: Record<string, string>;
  rawBody: string;
  query: Record<string, string>;
}

const hmac = (key: string, data: string) => createHmac('sha256', key).update(data).digest('hex');
const hundredths = (s: string) => {
  const [a = '0', b = '00'] = s.split('.');
  return Number(a) * 100 + Number(b);
};
const major = (h: number) => `${Math.floor(h / 100)}.${String(h % 100).padStart(2, '0')}`;

export class FakeAlif extends LocalServer {
  private readonly txns = new Map<string, Txn>();
  private seq = 700000;
  /** Every request, for assertions. */
  readonly requests: { path: string; gateHeader?: string; body: Record<string, unknown> }[] = [];
  /** Answer the next N requests with a 500. */
  failNext = 0;

  /** terminals: key → password. */
  constructor(readonly terminals: Record<string, string>) {
    super();
  }

  get base() {
    return `http://127.0.0.1:${this.port}`;
  }

  /** Alif's signing secret: HMAC-SHA256 keyed with the terminal key over the password (hex). */
  secret(key: string) {
    return hmac(key, this.terminals[key] ?? '');
  }

  private token(key: string, data: string) {
    return hmac(this.secret(key), data);
  }

  /** The transaction of an order (tests inspect state). */
  txn(key: string, orderId: string) {
    return this.txns.get(`${key}|${orderId}`);
  }

  protected async handle(req: IncomingMessage, res: ServerResponse) {
    const raw = await this.readBody(req);
    const url = new URL(req.url ?? '/', 'http://x');
    const send = (status: number, body: unknown, type = 'application/json') => {
      res.writeHead(status, { 'content-type': type });
      res.end(typeof body === 'string' ? body : JSON.stringify(body));
    };
    if (req.method === 'GET' && url.pathname.startsWith('/pay/')) {
      const t = [...this.txns.values()].find((x) => x.pageId === url.pathname.slice(5));
      return t
        ? send(200, `<html><body>Alif: ${major(t.amount)} TJS</body></html>`, 'text/html')
        : send(404, 'Not found', 'text/plain');
    }
    if (req.method !== 'POST') return send(405, { code: 405, message: 'Method not allowed' });
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(raw) as Record<string, unknown>;
      if (!body || typeof body !== 'object') throw new Error('not an object');
    } catch {
      return send(400, { code: 400, message: 'Неверный формат запроса' });
    }
    const gateHeader = req.headers.gate as string | undefined;
    this.requests.push({ path: url.pathname, gateHeader, body });
    if (this.failNext > 0) {
      this.failNext--;
      return send(500, { code: 500, message: 'Внутренняя ошибка сервера' });
    }
    const [status, answer] = this.route(url.pathname, body, gateHeader);
    send(status, answer);
  }

  private route(path: string, b: Record<string, unknown>, gateHeader: string | undefined): [number, unknown] {
    const err = (code: number, message: string): [number, unknown] => [code, { code, message, url: '' }];
    const key = String(b.key ?? '');
    if (!key || !(key in this.terminals)) return err(403, 'Доступ запрещён: неверный ключ терминала');
    if (path === '/v2/' || path === '/v2') {
      const orderId = String(b.order_id ?? '');
      const amount = String(b.amount ?? '');
      const callbackUrl = String(b.callback_url ?? '');
      if (this.token(key, key + orderId + amount + callbackUrl) !== b.token)
        return err(401, 'Ошибка авторизации: неверный токен');
      if (!orderId || !callbackUrl || !b.return_url) return err(400, 'Не заполнены обязательные поля');
      if (!/^\d+\.\d{2}$/.test(amount) || hundredths(amount) <= 0) return err(400, 'Неверный формат суммы');
      const gate = String(b.gate ?? gateHeader ?? 'korti_milli');
      if (gateHeader && b.gate && gateHeader !== b.gate) return err(400, 'gate в заголовке и в теле не совпадают');
      if (this.txns.has(`${key}|${orderId}`)) return err(208, 'Дубликат: order_id уже существует');
      const t: Txn = {
        key,
        orderId,
        transactionId: String(++this.seq),
        pageId: randomBytes(12).toString('hex'),
        amount: hundredths(amount),
        refunded: 0,
        status: 'pending',
        callbackUrl,
        returnUrl: String(b.return_url),
        gate,
        ...(b.phone ? { phone: String(b.phone) } : {}),
      };
      this.txns.set(`${key}|${orderId}`, t);
      return [200, { code: 200, message: 'Успешно', url: `${this.base}/pay/${t.pageId}` }];
    }
    if (path === '/checktxn') {
      const orderId = String(b.orderId ?? b.order_id ?? '');
      if (this.token(key, key + orderId) !== b.token) return err(401, 'Ошибка авторизации: неверный токен');
      const t = this.txns.get(`${key}|${orderId}`);
      if (!t) return [200, { orderId, status: 'not found' }];
      return [200, this.callbackBody(t)];
    }
    if (path === '/cancel/standard') {
      const transactionId = String(b.transaction_id ?? '');
      const amount = String(b.amount ?? '');
      if (this.token(key, key + transactionId + amount) !== b.token)
        return err(401, 'Ошибка авторизации: неверный токен');
      const t = [...this.txns.values()].find((x) => x.key === key && x.transactionId === transactionId);
      if (!t) return err(404, 'Транзакция не найдена');
      if (!/^\d+\.\d{2}$/.test(amount) || hundredths(amount) <= 0) return err(400, 'Неверный формат суммы');
      if (t.status !== 'ok') return err(400, 'Транзакция не может быть отменена');
      if (hundredths(amount) > t.amount - t.refunded) return err(400, 'Сумма отмены превышает остаток транзакции');
      t.refunded += hundredths(amount);
      return [200, { code: 200, message: 'Успешно' }];
    }
    return err(404, 'Не найдено');
  }

  private callbackBody(t: Txn) {
    return {
      orderId: t.orderId,
      transactionId: t.transactionId,
      status: t.status,
      token: this.token(t.key, t.orderId + t.status + t.transactionId),
      amount: t.amount / 100,
      ...(t.account ? { account: `${t.account.slice(0, 6)}******${t.account.slice(-4)}` } : {}),
      ...(t.phone ? { phone: t.phone } : {}),
      transaction_type: t.gate,
    };
  }

  /** The callback Alif POSTs to callback_url for the transaction's current state (JSON, signed). */
  callback(key: string, orderId: string): Delivery {
    const t = this.txn(key, orderId);
    if (!t) throw new Error(`no Alif order ${orderId}`);
    return {
      url: t.callbackUrl,
      headers: { 'content-type': 'application/json' },
      rawBody: JSON.stringify(this.callbackBody(t)),
      query: {},
    };
  }

  /**
   * The customer pays on the hosted page with a test account. Returns the callback delivery Alif sends (null when
   * the customer never finishes) and where the browser goes back to.
   */
  pay(
    key: string,
    orderId: string,
    account: string = TEST_ACCOUNTS.succeeds,
  ): { callback: Delivery | null; returnUrl: string } {
    const t = this.txn(key, orderId);
    if (!t) throw new Error(`no Alif order ${orderId}`);
    if (t.status !== 'pending') throw new Error(`Alif order ${orderId} is ${t.status}`);
    t.account = account;
    if (account === TEST_ACCOUNTS.no_answer) return { callback: null, returnUrl: t.returnUrl };
    t.status = account === TEST_ACCOUNTS.declined || account === TEST_ACCOUNTS.insufficient_funds ? 'failed' : 'ok';
    return { callback: this.callback(key, orderId), returnUrl: t.returnUrl };
  }

  /** The customer leaves the hosted page without paying. */
  cancel(key: string, orderId: string): Delivery {
    const t = this.txn(key, orderId);
    if (!t) throw new Error(`no Alif order ${orderId}`);
    t.status = 'canceled';
    return this.callback(key, orderId);
  }
}
