// The Stripe test server's HTTP side (see fake-stripe.ts): API keys and accounts, object spaces, Idempotency-Key
// replay, injected failures; the resources route in subclasses.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { LocalServer } from '../providers/local-server.ts';
import { FakeBalance } from './fake-balance.ts';
import { ApiError, parseForm, type Obj } from './fake-stripe-model.ts';

export abstract class FakeStripeCore extends LocalServer {
  /** One object space per account (API key, or key + Stripe-Account). */
  protected readonly spaces = new Map<string, Map<string, Obj>>();
  protected readonly idem = new Map<string, { hash: string; status: number; body: string }>();
  protected seq = 0;
  /** Every request, for assertions (method, path, account, idempotency key). */
  readonly requests: { method: string; path: string; account: string; idempotencyKey?: string }[] = [];
  /** Seconds since the epoch (tests move it with their clock). */
  now = () => Math.floor(Date.now() / 1000);
  /** Fail the next N requests with a 500 (to exercise retries). */
  failNext = 0;
  /** Process the next N POSTs but cut the connection before answering (the response is lost; Stripe did it). */
  dropNext = 0;
  /** The accounts' balance transactions (fake-balance.ts). */
  readonly balance = new FakeBalance();

  constructor(readonly keys: string[]) {
    super();
  }

  transport() {
    return { host: '127.0.0.1', port: this.port, protocol: 'http' as const };
  }

  protected id(prefix: string) {
    return `${prefix}_${(++this.seq).toString(36).padStart(6, '0')}${Math.random().toString(36).slice(2, 8)}`;
  }

  protected space(account: string) {
    let s = this.spaces.get(account);
    if (!s) this.spaces.set(account, (s = new Map()));
    return s;
  }

  /** The account whose object space `s` is. */
  protected accountOf(s: Map<string, Obj>) {
    return [...this.spaces].find(([, v]) => v === s)![0];
  }

  /** An object of an account (tests inspect state). */
  get(account: string, id: string) {
    return this.space(account).get(id);
  }

  protected async handle(req: IncomingMessage, res: ServerResponse) {
    const raw = await this.readBody(req);
    const send = (status: number, body: string, replayed = false) => {
      res.writeHead(status, {
        'content-type': 'application/json',
        'request-id': `req_${++this.seq}`,
        ...(replayed ? { 'idempotent-replayed': 'true' } : {}),
      });
      res.end(body);
    };
    const auth = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    if (!auth || !this.keys.includes(auth)) {
      return send(
        401,
        JSON.stringify({
          error: { type: 'invalid_request_error', message: `Invalid API Key provided: ${auth ?? ''}` },
        }),
      );
    }
    const account = `${auth}|${String(req.headers['stripe-account'] ?? '')}`;
    const url = new URL(req.url ?? '/', 'http://x');
    const key = req.headers['idempotency-key'] as string | undefined;
    this.requests.push({ method: req.method ?? '', path: url.pathname, account, idempotencyKey: key });
    if (this.failNext > 0) {
      this.failNext--;
      return send(500, JSON.stringify({ error: { type: 'api_error', message: 'An unknown error occurred' } }));
    }
    const hash = `${req.method} ${url.pathname} ${raw}`;
    if (key && req.method === 'POST') {
      const prior = this.idem.get(`${account}|${key}`);
      if (prior) {
        if (prior.hash !== hash) {
          return send(
            400,
            JSON.stringify({
              error: {
                type: 'idempotency_error',
                message:
                  'Keys for idempotent requests can only be used with the same parameters they were first used with.',
              },
            }),
          );
        }
        return send(prior.status, prior.body, true);
      }
    }
    const params = req.method === 'GET' ? parseForm(url.search.slice(1)) : parseForm(raw);
    let status = 200;
    let body: string;
    try {
      body = JSON.stringify(this.route(req.method ?? 'GET', url.pathname, params, account));
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      status = err.status;
      body = JSON.stringify({ error: err.body });
    }
    if (key && req.method === 'POST' && status !== 500) this.idem.set(`${account}|${key}`, { hash, status, body });
    if (this.dropNext > 0 && req.method === 'POST') {
      this.dropNext--;
      req.socket.destroy();
      return;
    }
    send(status, body);
  }

  protected abstract route(method: string, path: string, p: Record<string, unknown>, account: string): unknown;
}
