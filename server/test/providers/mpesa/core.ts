// The Daraja test server's HTTP side (see ../mpesa.ts): OAuth tokens, Safaricom's certificate, the request log
// and injected failures; the M-Pesa APIs route in the subclass.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { LocalServer } from '../local-server.ts';
import { generateKeyPairSync } from 'node:crypto';
import { ApiError, type Delivery, type FakeDarajaOptions, type Stk } from './model.ts';

export abstract class DarajaCore extends LocalServer {
  /** Safaricom's "certificate" for this environment (here an RSA public key PEM) and its private half. */
  readonly certificate: string;
  protected readonly privateKey: string;
  protected readonly tokens = new Map<string, number>();
  readonly stk = new Map<string, Stk>();
  readonly b2c = new Map<string, { response: Record<string, unknown>; phone: string; amount: number; paid: boolean }>();
  /** Results posted to ResultURL / QueueTimeOutURL (by OriginatorConversationID). */
  readonly results = new Map<string, Delivery>();
  /** Every request (method, path, parsed JSON body, authorization header), for assertions. */
  readonly requests: { method: string; path: string; body: Record<string, unknown>; auth: string }[] = [];
  protected seq = 0;
  /** The clock the server checks Timestamps and token lifetimes against. */
  now = () => new Date();
  /** Process the next N requests but cut the connection before answering. */
  dropNext = 0;
  /** Answer the sandbox's automatic PIN entry after this many ms (0: only approve()/cancel()/timeout()). */
  autoAnswerMs = 0;
  /** An unanswered prompt times out (ResultCode 1037) after this long, freeing the phone for another push. */
  promptMs = 60_000;
  b2cBalance: number;

  constructor(readonly opts: FakeDarajaOptions) {
    super();
    const kp =
      opts.keys ??
      (() => {
        const k = generateKeyPairSync('rsa', {
          modulusLength: 2048,
          publicKeyEncoding: { type: 'spki', format: 'pem' },
          privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
        });
        return { certificate: k.publicKey, privateKey: k.privateKey };
      })();
    this.certificate = kp.certificate;
    this.privateKey = kp.privateKey;
    this.b2cBalance = opts.b2cBalance ?? 100_000;
  }

  override async stop() {
    this.server.closeAllConnections();
    await super.stop();
  }

  /** Invalidates every issued access token (as when one lapses after its hour). */
  revokeTokens() {
    this.tokens.clear();
  }

  /** How many OAuth tokens were issued. */
  get tokensIssued() {
    return this.requests.filter((r) => r.path === '/oauth/v1/generate').length;
  }

  protected id() {
    return (++this.seq).toString().padStart(4, '0');
  }

  protected nairobi(d = this.now()) {
    return new Date(d.getTime() + 3 * 3600_000).toISOString().replace(/\D/g, '').slice(0, 14);
  }

  protected async handle(req: IncomingMessage, res: ServerResponse) {
    const raw = await this.readBody(req);
    const url = new URL(req.url ?? '/', 'http://x');
    const send = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json;charset=UTF-8' });
      res.end(JSON.stringify(body));
    };
    const requestId = `${this.id()}-${Math.floor(Math.random() * 1e7)}-1`;
    let body: Record<string, unknown> = {};
    try {
      if (raw) body = JSON.parse(raw) as Record<string, unknown>;
    } catch {
      return send(400, { requestId, errorCode: '400.002.02', errorMessage: 'Bad Request - Invalid JSON' });
    }
    this.requests.push({ method: req.method ?? '', path: url.pathname, body, auth: req.headers.authorization ?? '' });
    if (this.dropNext > 0) {
      this.dropNext--;
      try {
        this.route(req.method ?? '', url, body, req.headers.authorization ?? '');
      } catch {
        // the answer is lost either way
      }
      req.socket.destroy();
      return;
    }
    try {
      const [status, answer] = this.route(req.method ?? '', url, body, req.headers.authorization ?? '');
      send(status, answer);
    } catch (e) {
      if (e instanceof ApiError) return send(e.status, { requestId, errorCode: e.code, errorMessage: e.message });
      send(500, { requestId, errorCode: '500.003.02', errorMessage: 'Internal Server Error' });
    }
  }

  protected oauth(url: URL, auth: string) {
    if (url.searchParams.get('grant_type') !== 'client_credentials')
      throw new ApiError(400, '400.008.02', 'Invalid grant type passed');
    const basic = /^Basic (.+)$/.exec(auth)?.[1] ?? '';
    if (Buffer.from(basic, 'base64').toString() !== `${this.opts.consumerKey}:${this.opts.consumerSecret}`) {
      throw new ApiError(400, '400.008.01', 'Invalid Authentication passed');
    }
    const token = `tok${this.id()}${Math.random().toString(36).slice(2, 14)}`;
    this.tokens.set(token, this.now().getTime() + 3599_000);
    return { access_token: token, expires_in: '3599' };
  }

  protected abstract route(method: string, url: URL, body: Record<string, unknown>, auth: string): [number, unknown];
}
