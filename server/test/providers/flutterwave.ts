// A Flutterwave v3 test server (test tree only, never shipped): the part of Flutterwave's v3 HTTP API the
// flutterwave adapter calls, modelled from developer.flutterwave.com (v3) — Bearer secret-key auth (401 "Invalid
// authorization key"), the envelope {status: 'success' | 'error', message, data, meta?}, amounts in major units.
//   charges    POST /v3/charges?type=card {client}: the payload 3DES-24-ECB encrypted with the encryption key
//              (undecryptable → 400); card behaviour per Flutterwave's test cards (below); tx_ref unique per account
//              (a reused one → 400). POST /v3/charges?type=mpesa|mobile_money_*: pending until the customer
//              approves on the phone (approve()); Ghana and Uganda answer with a redirect and no data, as documented.
//   validate   POST /v3/validate-charge {otp, flw_ref, type}: OTP 12345 completes the charge.
//   verify     GET /v3/transactions/{id}/verify, GET /v3/transactions/verify_by_reference?tx_ref=
//   preauth    status pending-capture; POST /v3/charges/{flw_ref}/capture {amount ≤ held} → successful (the rest
//              released); /void → voided; /refund {amount} on a captured preauth.
//   refunds    POST /v3/transactions/{id}/refund {amount}: successful charges, partial, ≤ what is left.
//   transfers  POST /v3/transfers: reference unique (reused → 400); status NEW until completeTransfer().
//   tokens     a successful card charge's verify answer carries data.card {first_6digits, last_4digits, issuer,
//              country, type, token, expiry}; the token is given only once the charge is successful.
//              POST /v3/tokenized-charges {token, email, currency, amount, tx_ref, narration?, preauthorize?}
//              charges that card again (no customer step): the email must be the one the token was made with; an
//              unknown token → 400; the card's outcome (tokenOutcome() sets a later decline or insufficient funds).
// webhook() makes a delivery exactly as Flutterwave sends one: JSON {event, 'event.type', data}, headers verif-hash
// (the secret hash) and flutterwave-signature (base64 HMAC-SHA256 of the raw body keyed by the secret hash).
import { listRefunds, listTransactions, type FlwRefund } from './flutterwave-reports.ts';
import { createCipheriv, createDecipheriv, createHmac, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

type Outcome = 'ok' | 'insufficient' | 'declined' | 'fraud';
export interface TestCard {
  auth: 'noauth' | 'pin' | 'avs_noauth' | 'redirect' | 'otp';
  outcome: Outcome;
  cvv: string;
  brand: string;
}
/** Flutterwave's v3 test cards (developer.flutterwave.com/docs/testing). */
export const TEST_CARDS: Record<string, TestCard> = {
  '5531886652142950': { auth: 'pin', outcome: 'ok', cvv: '564', brand: 'MASTERCARD' },
  '4187427415564246': { auth: 'redirect', outcome: 'ok', cvv: '828', brand: 'VISA' },
  '5438898014560229': { auth: 'redirect', outcome: 'ok', cvv: '564', brand: 'MASTERCARD' },
  '5061460166976054667': { auth: 'noauth', outcome: 'ok', cvv: '564', brand: 'VERVE' },
  '4556052704172643': { auth: 'avs_noauth', outcome: 'ok', cvv: '899', brand: 'VISA' },
  '5377283645077450': { auth: 'noauth', outcome: 'ok', cvv: '789', brand: 'MASTERCARD' },
  '5143010522339965': { auth: 'noauth', outcome: 'declined', cvv: '276', brand: 'MASTERCARD' },
  '5590131743294314': { auth: 'noauth', outcome: 'fraud', cvv: '887', brand: 'MASTERCARD' },
  '5258585922666506': { auth: 'noauth', outcome: 'insufficient', cvv: '883', brand: 'MASTERCARD' },
};
const PROCESSOR: Record<Outcome, string> = {
  ok: 'Approved',
  insufficient: 'Insufficient Funds',
  declined: 'Do Not Honour',
  fraud: 'Transaction declined: suspected fraud',
};
const TEST_PIN = '3310';
const TEST_OTP = '12345';

const MOBILE: Record<string, { currency: string[]; redirect: boolean; needs?: string[] }> = {
  mpesa: { currency: ['KES'], redirect: false },
  mobile_money_ghana: { currency: ['GHS'], redirect: true, needs: ['network'] },
  mobile_money_uganda: { currency: ['UGX'], redirect: true },
  mobile_money_rwanda: { currency: ['RWF'], redirect: false },
  mobile_money_zambia: { currency: ['ZMW'], redirect: false },
  mobile_money_tanzania: { currency: ['TZS'], redirect: false },
  mobile_money_franco: { currency: ['XAF', 'XOF'], redirect: false, needs: ['country'] },
};

export interface FlwTx {
  id: number;
  tx_ref: string;
  flw_ref: string;
  amount: number;
  charged_amount: number;
  currency: string;
  status: 'pending' | 'successful' | 'failed' | 'pending-capture' | 'voided';
  payment_type: string;
  charge_type: 'normal' | 'preauth';
  processor_response: string;
  auth_model: string;
  meta: Record<string, unknown> | null;
  customer: { email: string; phone_number: string | null };
  created_at: string;
  card?: { first_6digits: string; last_4digits: string; issuer: string; country: string; type: string; expiry: string };
  /** Model state (not on the wire). */
  cardToken?: string;
  held: number;
  refunded: number;
  awaiting: 'none' | 'otp' | 'redirect' | 'phone';
}
export interface FlwTransfer {
  id: number;
  reference: string;
  account_number: string;
  bank_code: string;
  amount: number;
  currency: string;
  status: 'NEW' | 'PENDING' | 'SUCCESSFUL' | 'FAILED';
  narration: string;
  complete_message: string;
  created_at: string;
}

class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly data: unknown = null,
  ) {
    super(message);
  }
}

export class FakeFlutterwave {
  private server!: Server;
  port = 0;
  private seq = 1000;
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

  /** What a saved card's next tokenized charge does (a card that has since run out of funds, been blocked). */
  tokenOutcome(token: string, outcome: Outcome) {
    const t = this.tokens.get(token);
    if (!t) throw new Error(`no token ${token}`);
    t.outcome = outcome;
  }

  constructor(readonly keys: { secretKey: string; encryptionKey: string; secretHash: string }) {}

  get base() {
    return `http://127.0.0.1:${this.port}`;
  }

  async start() {
    this.server = createServer((req, res) => void this.handle(req, res));
    this.server.keepAliveTimeout = 0; // idle connections stay open until close(): no reset on a loaded machine
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r));
    this.port = (this.server.address() as AddressInfo).port;
    return this;
  }

  async stop() {
    this.server.closeAllConnections();
    await new Promise<void>((r) => this.server.close(() => r()));
  }

  byTxRef(txRef: string) {
    return [...this.txs.values()].find((t) => t.tx_ref === txRef);
  }

  /** The customer approves: on the phone (mobile money) or on the 3-D Secure page (OTP 12345). */
  approve(txRef: string) {
    const tx = this.byTxRef(txRef);
    if (!tx || tx.status !== 'pending') throw new Error(`no pending charge ${txRef}`);
    tx.status = tx.charge_type === 'preauth' ? 'pending-capture' : 'successful';
    tx.processor_response = 'Approved';
    tx.awaiting = 'none';
    return tx;
  }

  /** The customer declines on the phone / the issuer refuses on the 3DS page. */
  decline(txRef: string, reason = 'Transaction declined by customer') {
    const tx = this.byTxRef(txRef);
    if (!tx || tx.status !== 'pending') throw new Error(`no pending charge ${txRef}`);
    tx.status = 'failed';
    tx.processor_response = reason;
    tx.awaiting = 'none';
    return tx;
  }

  completeTransfer(id: number, ok: boolean) {
    const t = this.transfers.get(id);
    if (!t) throw new Error(`no transfer ${id}`);
    t.status = ok ? 'SUCCESSFUL' : 'FAILED';
    t.complete_message = ok ? 'Transaction was successful' : 'DISBURSE FAILED: Insufficient funds in customer wallet';
    return t;
  }

  /** A webhook delivery as Flutterwave makes it (charge.completed / transfer.completed). */
  webhook(event: 'charge.completed' | 'transfer.completed', id: number, secretHash = this.keys.secretHash) {
    let data: Record<string, unknown>;
    let type: string;
    if (event === 'transfer.completed') {
      const t = this.transfers.get(id)!;
      data = {
        id: t.id,
        account_number: t.account_number,
        bank_code: t.bank_code,
        created_at: t.created_at,
        currency: t.currency,
        debit_currency: t.currency,
        amount: t.amount,
        fee: 10.75,
        status: t.status,
        reference: t.reference,
        meta: null,
        narration: t.narration,
        approver: null,
        complete_message: t.complete_message,
        requires_approval: 0,
        is_approved: 1,
      };
      type = 'Transfer';
    } else {
      data = this.wire(this.txs.get(id)!);
      type = this.txs.get(id)!.payment_type === 'card' ? 'CARD_TRANSACTION' : 'MOBILEMONEY_TRANSACTION';
    }
    const rawBody = JSON.stringify({ event, data, 'event.type': type });
    return {
      rawBody,
      headers: {
        'content-type': 'application/json',
        'verif-hash': secretHash,
        'flutterwave-signature': createHmac('sha256', secretHash).update(rawBody).digest('base64'),
      } as Record<string, string>,
      query: {} as Record<string, string>,
    };
  }

  /** Encrypts a card payload as a Flutterwave client does (tests of the server's own decryption). */
  encrypt(payload: unknown) {
    const c = createCipheriv('des-ede3', Buffer.from(this.keys.encryptionKey, 'utf8'), null);
    return Buffer.concat([c.update(JSON.stringify(payload), 'utf8'), c.final()]).toString('base64');
  }

  private decrypt(client: string): Record<string, unknown> {
    const d = createDecipheriv('des-ede3', Buffer.from(this.keys.encryptionKey, 'utf8'), null);
    const plain = Buffer.concat([d.update(Buffer.from(client, 'base64')), d.final()]).toString('utf8');
    return JSON.parse(plain) as Record<string, unknown>;
  }

  private wire(tx: FlwTx) {
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

  private async handle(req: IncomingMessage, res: ServerResponse) {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const raw = Buffer.concat(chunks).toString();
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

  private route(
    method: string,
    url: URL,
    body: Record<string, unknown>,
    entry: { payload?: Record<string, unknown> },
  ): Record<string, unknown> {
    const seg = url.pathname.split('/').filter(Boolean); // ['v3', resource, id?, action?]
    const [v, resource, id, action] = seg;
    if (v !== 'v3') throw new ApiError(404, `Cannot ${method} ${url.pathname}`);
    if (resource === 'charges' && !id && method === 'POST') {
      const type = url.searchParams.get('type') ?? '';
      if (type === 'card') {
        if (typeof body.client !== 'string') throw new ApiError(400, 'client is required');
        let p: Record<string, unknown>;
        try {
          p = this.decrypt(body.client);
        } catch {
          throw new ApiError(400, 'Unable to decrypt the client payload: check your encryption key');
        }
        entry.payload = p;
        return this.cardCharge(p);
      }
      if (MOBILE[type]) return this.mobileCharge(type, body);
      throw new ApiError(400, `Invalid charge type: ${type}`);
    }
    if (resource === 'charges' && id && method === 'POST') {
      const tx = [...this.txs.values()].find((t) => t.flw_ref === id);
      if (!tx) throw new ApiError(404, 'No transaction found');
      if (action === 'capture') {
        if (tx.status !== 'pending-capture')
          throw new ApiError(400, `Cannot capture a transaction with status ${tx.status}`);
        const amount = body.amount === undefined ? tx.held : Number(body.amount);
        if (!(amount > 0) || amount > tx.held)
          throw new ApiError(400, 'Capture amount cannot be greater than the authorised amount');
        Object.assign(tx, { status: 'successful', amount, charged_amount: amount, held: 0 });
        return { message: 'Charge captured', data: this.wire(tx) };
      }
      if (action === 'void') {
        if (tx.status !== 'pending-capture')
          throw new ApiError(400, `Cannot void a transaction with status ${tx.status}`);
        Object.assign(tx, { status: 'voided', held: 0 });
        return { message: 'Charge voided', data: this.wire(tx) };
      }
      if (action === 'refund') {
        if (tx.charge_type !== 'preauth') throw new ApiError(400, 'Only preauthorised charges can be refunded here');
        return this.refund(tx, body.amount);
      }
    }
    if (resource === 'validate-charge' && method === 'POST') {
      const tx = [...this.txs.values()].find((t) => t.flw_ref === body.flw_ref);
      if (!tx) throw new ApiError(400, 'No transaction found for this flw_ref');
      if (tx.status !== 'pending' || tx.awaiting !== 'otp')
        throw new ApiError(400, 'Transaction has already been validated');
      if (String(body.otp) !== TEST_OTP) throw new ApiError(400, 'Invalid OTP');
      const n = String(tx.meta?.__card ?? '');
      const card = TEST_CARDS[n] ?? this.extraCards[n];
      tx.awaiting = 'none';
      if (card && card.outcome !== 'ok')
        Object.assign(tx, { status: 'failed', processor_response: PROCESSOR[card.outcome] });
      else
        Object.assign(tx, {
          status: tx.charge_type === 'preauth' ? 'pending-capture' : 'successful',
          processor_response: 'Approved',
        });
      return { message: 'Charge validated', data: this.wire(tx) };
    }
    if (resource === 'transactions' && !id && method === 'GET')
      return listTransactions(
        [...this.txs.values()].map((t) => this.wire(t)),
        url.searchParams,
      );
    if (resource === 'refunds' && !id && method === 'GET') return listRefunds(this.refunds, url.searchParams);
    if (resource === 'transactions' && method === 'GET') {
      const tx =
        id === 'verify_by_reference'
          ? this.byTxRef(url.searchParams.get('tx_ref') ?? '')
          : action === 'verify'
            ? this.txs.get(Number(id))
            : undefined;
      if (!tx) throw new ApiError(400, 'No transaction was found for this id');
      const data = this.wire(tx);
      if (this.verifyAmountOverride !== null) {
        data.amount = this.verifyAmountOverride;
        this.verifyAmountOverride = null;
      }
      return { message: 'Transaction fetched successfully', data };
    }
    if (resource === 'transactions' && action === 'refund' && method === 'POST') {
      const tx = this.txs.get(Number(id));
      if (!tx) throw new ApiError(400, 'No transaction was found for this id');
      return this.refund(tx, body.amount);
    }
    if (resource === 'transfers' && !id && method === 'POST') return this.transfer(body);
    if (resource === 'tokenized-charges' && !id && method === 'POST') return this.tokenizedCharge(body);
    throw new ApiError(404, `Cannot ${method} ${url.pathname}`);
  }

  private newTx(p: Record<string, unknown>, payment_type: string, preauth: boolean): FlwTx {
    const txRef = String(p.tx_ref ?? '');
    if (!txRef) throw new ApiError(400, 'tx_ref is required');
    if (this.byTxRef(txRef)) throw new ApiError(400, 'Duplicate transaction reference: tx_ref has already been used');
    const amount = Number(p.amount);
    if (!(amount > 0)) throw new ApiError(400, 'amount must be greater than 0');
    const currency = String(p.currency ?? '');
    if (!/^[A-Z]{3}$/.test(currency)) throw new ApiError(400, 'currency is invalid');
    const decimals =
      new Intl.NumberFormat(undefined, { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ?? 2;
    if (Number(amount.toFixed(decimals)) !== amount)
      throw new ApiError(400, `amount has more than ${decimals} decimal places for ${currency}`);
    if (!p.email) throw new ApiError(400, 'email is required');
    const id = ++this.seq;
    const tx: FlwTx = {
      id,
      tx_ref: txRef,
      flw_ref: `FLW-MOCK-${preauth ? 'PREAUTH-' : ''}${id.toString(16)}${Math.random().toString(16).slice(2, 10)}`,
      amount,
      charged_amount: amount,
      currency,
      status: 'pending',
      payment_type,
      charge_type: preauth ? 'preauth' : 'normal',
      processor_response: 'Pending',
      auth_model: 'NOAUTH',
      meta: (p.meta as Record<string, unknown>) ?? null,
      customer: { email: String(p.email), phone_number: (p.phone_number as string) ?? null },
      created_at: this.now().toISOString(),
      held: 0,
      refunded: 0,
      awaiting: 'none',
    };
    this.txs.set(id, tx);
    return tx;
  }

  private cardCharge(p: Record<string, unknown>): Record<string, unknown> {
    const number = String(p.card_number ?? '');
    const card = TEST_CARDS[number] ?? this.extraCards[number];
    if (!card) throw new ApiError(400, 'Card number is invalid');
    if (String(p.cvv) !== card.cvv) throw new ApiError(400, 'Invalid CVV');
    if (!/^\d{2}$/.test(String(p.expiry_month)) || !/^\d{2}$/.test(String(p.expiry_year)))
      throw new ApiError(400, 'Invalid card expiry');
    const authz = p.authorization as { mode?: string; pin?: string; city?: string } | undefined;
    // PIN and AVS cards: the first call only says which fields are needed (no transaction yet).
    if (card.auth === 'pin' && authz?.mode !== 'pin')
      return {
        message: 'Charge authorization data required',
        meta: { authorization: { mode: 'pin', fields: ['pin'] } },
      };
    if (card.auth === 'avs_noauth' && authz?.mode !== 'avs_noauth') {
      return {
        message: 'Charge authorization data required',
        meta: { authorization: { mode: 'avs_noauth', fields: ['city', 'address', 'state', 'country', 'zipcode'] } },
      };
    }
    if (card.auth === 'pin' && authz?.pin !== TEST_PIN) throw new ApiError(400, 'Incorrect PIN');
    const tx = this.newTx(p, 'card', p.preauthorize === true);
    tx.meta = { ...(tx.meta ?? {}), __card: number };
    tx.card = cardOf(number, card, String(p.expiry_month), String(p.expiry_year));
    if (tx.charge_type === 'preauth') tx.held = tx.amount;
    if (card.auth === 'pin' || card.auth === 'avs_noauth' || card.auth === 'otp') {
      Object.assign(tx, {
        auth_model: card.auth === 'pin' ? 'PIN' : 'AVS_NOAUTH',
        awaiting: 'otp',
        processor_response: 'Kindly enter the OTP sent to your phone',
      });
      return {
        message: 'Charge initiated',
        data: this.wire(tx),
        meta: { authorization: { mode: 'otp', endpoint: '/v3/validate-charge' } },
      };
    }
    if (card.auth === 'redirect') {
      Object.assign(tx, {
        auth_model: 'VBVSECURECODE',
        awaiting: 'redirect',
        processor_response: 'Pending redirect to issuer',
      });
      return {
        message: 'Charge initiated',
        data: this.wire(tx),
        meta: { authorization: { mode: 'redirect', redirect: `${this.base}/mockvbvpage?ref=${tx.flw_ref}` } },
      };
    }
    if (card.outcome !== 'ok') {
      Object.assign(tx, { status: 'failed', processor_response: PROCESSOR[card.outcome], held: 0 });
      return { message: 'Charge initiated', data: this.wire(tx) };
    }
    Object.assign(tx, {
      status: tx.charge_type === 'preauth' ? 'pending-capture' : 'successful',
      processor_response: 'Approved',
    });
    return { message: 'Charge initiated', data: this.wire(tx) };
  }

  private tokenizedCharge(p: Record<string, unknown>): Record<string, unknown> {
    for (const f of ['token', 'email', 'currency', 'amount', 'tx_ref'])
      if (p[f] === undefined || p[f] === '') throw new ApiError(400, `${f} is required`);
    const saved = this.tokens.get(String(p.token));
    if (!saved) throw new ApiError(400, 'Token not found');
    if (String(p.email).toLowerCase() !== saved.email.toLowerCase())
      throw new ApiError(400, 'Email does not match the email used to create this token');
    const tx = this.newTx(p, 'card', p.preauthorize === true);
    const card = TEST_CARDS[saved.number] ?? this.extraCards[saved.number];
    const first = [...this.txs.values()].find((t) => t.cardToken === p.token);
    tx.meta = { ...(tx.meta ?? {}), __card: saved.number };
    tx.card = first?.card ?? cardOf(saved.number, card, '01', '30');
    tx.cardToken = String(p.token);
    if (saved.outcome !== 'ok') {
      Object.assign(tx, { status: 'failed', processor_response: PROCESSOR[saved.outcome] });
      return { message: 'Charge failed', data: this.wire(tx) };
    }
    if (tx.charge_type === 'preauth') tx.held = tx.amount;
    Object.assign(tx, {
      status: tx.charge_type === 'preauth' ? 'pending-capture' : 'successful',
      processor_response: 'Approved',
      auth_model: 'noauth',
    });
    return { message: 'Charge successful', data: this.wire(tx) };
  }

  private mobileCharge(type: string, p: Record<string, unknown>): Record<string, unknown> {
    const m = MOBILE[type]!;
    if (!m.currency.includes(String(p.currency)))
      throw new ApiError(400, `Invalid currency ${String(p.currency)} for ${type}`);
    if (!/^\d{9,15}$/.test(String(p.phone_number ?? ''))) throw new ApiError(400, 'phone_number is required');
    for (const f of m.needs ?? []) if (!p[f]) throw new ApiError(400, `${f} is required`);
    const tx = this.newTx(p, type === 'mpesa' ? 'mpesa' : 'mobilemoney', false);
    Object.assign(tx, { awaiting: 'phone', auth_model: type === 'mpesa' ? 'LIPA_MPESA' : 'MOBILEMONEY' });
    if (m.redirect)
      return {
        message: 'Charge initiated',
        meta: { authorization: { redirect: `${this.base}/captcha/verify/${tx.id}`, mode: 'redirect' } },
      };
    return { message: 'Charge initiated', data: this.wire(tx) };
  }

  private refund(tx: FlwTx, raw: unknown): Record<string, unknown> {
    if (tx.status !== 'successful') throw new ApiError(400, `Cannot refund a transaction with status ${tx.status}`);
    const left = Number((tx.amount - tx.refunded).toFixed(2));
    const amount = raw === undefined ? left : Number(raw);
    if (!(amount > 0)) throw new ApiError(400, 'amount must be greater than 0');
    if (amount > left)
      throw new ApiError(400, 'Refund amount cannot be greater than the transaction amount left to refund');
    tx.refunded = Number((tx.refunded + amount).toFixed(2));
    const r = {
      id: ++this.seq,
      tx_id: tx.id,
      amount_refunded: amount,
      status: 'completed',
      created_at: this.now().toISOString(),
    };
    this.refunds.push(r);
    return {
      message: 'Transaction refund initiated',
      data: {
        ...r,
        account_id: 1,
        flw_ref: tx.flw_ref,
        wallet_id: 1,
        status: 'completed',
        destination: 'payment_source',
        meta: { source: 'availablebalance' },
      },
    };
  }

  private transfer(p: Record<string, unknown>): Record<string, unknown> {
    for (const f of ['account_bank', 'account_number', 'amount', 'currency', 'reference'])
      if (p[f] === undefined || p[f] === '') throw new ApiError(400, `${f} is required`);
    const reference = String(p.reference);
    if ([...this.transfers.values()].some((t) => t.reference === reference))
      throw new ApiError(400, 'Duplicate reference: a transfer with this reference already exists');
    const t: FlwTransfer = {
      id: ++this.seq,
      reference,
      account_number: String(p.account_number),
      bank_code: String(p.account_bank),
      amount: Number(p.amount),
      currency: String(p.currency),
      status: 'NEW',
      narration: String(p.narration ?? ''),
      complete_message: '',
      created_at: new Date().toISOString(),
    };
    this.transfers.set(t.id, t);
    return {
      message: 'Transfer Queued Successfully',
      data: {
        ...t,
        full_name: 'N/A',
        debit_currency: t.currency,
        fee: 10.75,
        meta: null,
        requires_approval: 0,
        is_approved: 1,
        bank_name: t.bank_code === 'MPS' ? 'MPESA' : 'BANK',
      },
    };
  }
}

function cardOf(number: string, card: TestCard | undefined, month: string, year: string) {
  return {
    first_6digits: number.slice(0, 6),
    last_4digits: number.slice(-4),
    issuer: `${card?.brand ?? 'CARD'} CREDIT`,
    country: 'NIGERIA NG',
    type: card?.brand ?? 'CARD',
    expiry: `${month}/${year}`,
  };
}
