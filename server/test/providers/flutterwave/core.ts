// The Flutterwave test server's HTTP side (see ../flutterwave.ts): Bearer secret-key auth, the envelope, card
// payload encryption (3DES), the wire form of a transaction; the endpoints route in subclasses.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { LocalServer } from '../local-server.ts';
import type { FlwRefund } from '../flutterwave-reports.ts';
import { ApiError, type FlwTransfer, type FlwTx, type Outcome, type TestCard } from './model.ts';

export abstract class FlutterwaveCore extends LocalServer {
  protected seq = 1000;
  readonly txs = new Map<number, FlwTx>();
  readonly transfers = new Map<number, FlwTransfer>();
  readonly refunds: FlwRefund[] = [];
  /** The server's clock (created_at of charges and refunds; the report's from/to days). */
  now = () => new Date();
  /** Every request (path with query, the decrypted card payload for card charges). */
  readonly requests: { method: string; path: string; body: unknown; payload?: Record<string, unknown> }[] = [];
  /** Cut the connection of the next N requests before answering. */
  dropNext = 0;
  /** Tamper with the next verify answer's amount (a provider-side mismatch: what was paid is not what we asked). */
  verifyAmountOverride: number | null = null;

  /**
   * Cards beyond Flutterwave's list, e.g. one answering with the `otp` auth mode at once (some local cards do; no
   * documented test card does), so that the OTP validation step can be exercised.
   */
  readonly extraCards: Record<string, TestCard> = {};
  /** Card tokens given on successful charges: the card and the e-mail they were made with. */
  readonly tokens = new Map<string, { number: string; email: string; outcome: Outcome }>();

  constructor(readonly keys: { secretKey: string; encryptionKey: string; secretHash: string }) {
    super();
  }

  get base() {
    return `http://127.0.0.1:${this.port}`;
  }

  override async stop() {
    this.server.closeAllConnections();
    await super.stop();
  }

  byTxRef(txRef: string) {
    return [...this.txs.values()].find((t) => t.tx_ref === txRef);
  }

  /** Encrypts a card payload as a Flutterwave client does (tests of the server's own decryption). */
  encrypt(payload: unknown) {
    const c = createCipheriv('des-ede3', Buffer.from(this.keys.encryptionKey, 'utf8'), null);
    return Buffer.concat([c.update(JSON.stringify(payload), 'utf8'), c.final()]).toString('base64');
  }

  protected decrypt(client: string): Record<string, unknown> {
    const d = createDecipheriv('des-ede3', Buffer.from(this.keys.encryptionKey, 'utf8'), null);
    const plain = Buffer.concat([d.update(Buffer.from(client, 'base64')), d.final()]).toString('utf8');
    return JSON.parse(plain) as Record<string, unknown>;
  }

  protected wire(tx: FlwTx) {
    const { held: _h, refunded: _r, awaiting: _a, cardToken: _t, card, ...rest } = tx;
    // The card's token appears once the charge is successful (Flutterwave: data.card.token of the verify answer).
    if (card && tx.status === 'successful' && !tx.cardToken) {
      tx.cardToken = `flw-t1nf-${randomBytes(16).toString('hex')}-m03k`;
      this.tokens.set(tx.cardToken, { number: String(tx.meta?.__card ?? ''), email: tx.customer.email, outcome: 'ok' });
    }
    return {
      ...rest,
      ...(card ? { card: { ...card, ...(tx.status === 'successful' ? { token: tx.cardToken } : {}) } } : {}),
      app_fee: Number((tx.amount * 0.014).toFixed(2)),
      merchant_fee: 0,
      narration: 'CARD Transaction ',
      ip: '127.0.0.1',
      device_fingerprint: 'N/A',
      fraud_status: 'ok',
    };
  }

  protected async handle(req: IncomingMessage, res: ServerResponse) {
    const raw = await this.readBody(req);
    const url = new URL(req.url ?? '/', 'http://x');
    const send = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    let body: Record<string, unknown>;
    try {
      body = raw ? (JSON.parse(raw) as Record<string, unknown>) : {};
    } catch {
      return send(400, { status: 'error', message: 'Invalid JSON body', data: null });
    }
    const entry: (typeof this.requests)[number] = { method: req.method ?? '', path: url.pathname + url.search, body };
    this.requests.push(entry);
    if (this.dropNext > 0) {
      this.dropNext--;
      req.socket.destroy();
      return;
    }
    const auth = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    if (auth !== this.keys.secretKey)
      return send(401, { status: 'error', message: 'Invalid authorization key', data: null });
    try {
      const out = this.route(req.method ?? 'GET', url, body, entry);
      send(200, { status: 'success', ...out });
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      send(err.status, { status: 'error', message: err.message, data: err.data });
    }
  }

  protected abstract route(
    method: string,
    url: URL,
    body: Record<string, unknown>,
    entry: { payload?: Record<string, unknown> },
  ): Record<string, unknown>;
}
