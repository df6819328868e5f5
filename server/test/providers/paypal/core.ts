// The PayPal test server's HTTP side (see ../paypal.ts): OAuth 2.0 tokens, bearer checks, PayPal-Request-Id
// idempotency, the buyer's payer-action page and the webhook certificate; each API area routes in a subclass.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { LocalServer } from '../local-server.ts';
import { generateKeyPairSync, randomBytes, type KeyObject } from 'node:crypto';
import { PaypalReporting } from '../paypal-reporting.ts';
import {
  debugId,
  PaypalApiError,
  unprocessable,
  type App,
  type Authorization,
  type Capture,
  type Order,
  type PayoutBatch,
  type Refund,
} from './model.ts';

export abstract class PaypalCore extends LocalServer {
  protected readonly apps = new Map<string, App>();
  protected readonly tokens = new Map<string, { app: string; expiresAt: number }>();
  protected readonly orders = new Map<string, Order>();
  protected readonly authorizations = new Map<string, Authorization>();
  protected readonly captures = new Map<string, Capture>();
  protected readonly refunds = new Map<string, Refund>();
  protected readonly batches = new Map<string, PayoutBatch>();
  protected readonly idem = new Map<string, { call: string; status: number; body: string }>();
  /** PayPal's webhook signing key; the "certificate" served at the cert URL is its public key (PEM). */
  protected readonly keys: { privateKey: KeyObject; publicKey: KeyObject };
  protected readonly certId = `CERT-360caa42-fca2a594-${randomBytes(4).toString('hex')}`;
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
    super();
    for (const a of apps)
      this.apps.set(a.clientId, { clientId: a.clientId, secret: a.secret, webhookIds: a.webhookIds ?? [] });
    this.keys = generateKeyPairSync('rsa', { modulusLength: 2048 });
  }

  override async stop() {
    this.server.closeAllConnections();
    await super.stop();
  }

  protected seq = 0;
  /** PayPal-style ids: 17 upper-case letters and digits. */
  protected id() {
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
  protected iso(offsetMs = 0) {
    return new Date(this.now() + offsetMs).toISOString().replace(/\.\d{3}Z$/, 'Z');
  }

  protected async handle(req: IncomingMessage, res: ServerResponse) {
    const raw = await this.readBody(req);
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

  protected token(req: IncomingMessage, raw: string): [number, string] {
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

  protected bearer(req: IncomingMessage): string {
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

  protected abstract route(
    app: string,
    method: string,
    path: string,
    b: Record<string, unknown>,
    raw: string,
    full: boolean,
    mock?: string,
  ): [number, unknown];

  abstract approve(orderId: string, opts?: { mock?: string; email?: string }): string;
}
