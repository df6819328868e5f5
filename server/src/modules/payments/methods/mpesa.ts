// M-Pesa through Safaricom's Daraja API ("M-PESA": the customer confirms an STK push on their phone; the app
// polls; check by outTradeNo). Wire calls, as Daraja documents them:
//
//   OAuth     GET  /oauth/v1/generate?grant_type=client_credentials, Basic consumerKey:consumerSecret
//             → {access_token, expires_in} (seconds, as a string); cached until a minute before it lapses
//   start     POST /mpesa/stkpush/v1/processrequest (Lipa na M-Pesa Online / M-Pesa Express)
//             Password = base64(BusinessShortCode + passkey + Timestamp), Timestamp yyyyMMddHHmmss in Nairobi time
//             (EAT, UTC+3, no daylight saving) → {ResponseCode "0", CheckoutRequestID, MerchantRequestID}
//   status    POST /mpesa/stkpushquery/v1/query → ResultCode "0" paid, "1032" cancelled, "1037" no answer, "1"
//             insufficient funds, "2001" wrong PIN, …; while the customer has not answered Daraja answers the error
//             500.001.1001 "The transaction is being processed" (pending)
//   callback  POST CallBackURL {Body: {stkCallback: {MerchantRequestID, CheckoutRequestID, ResultCode, ResultDesc,
//             CallbackMetadata: {Item: [{Name, Value}]}}}}; answered {"ResultCode":0,"ResultDesc":"Accepted"}
//   refund    POST /mpesa/reversal/v1/request (Reversal API: the whole transaction, by its M-Pesa receipt number)
//   payout    POST /mpesa/b2c/v3/paymentrequest (B2C BusinessPayment to a phone); result at ResultURL
//
// Daraja signs nothing it sends: a callback is trusted only with our secret `callbackToken` in its URL (compared in
// constant time), and the external-payment service still confirms the state by status() before it fulfils.
// The STK query does not return the M-Pesa receipt number that a reversal needs: only the callback carries it. So a
// paid payment's ref becomes `<CheckoutRequestID>.<MpesaReceiptNumber>.<amount in minor units>` (the notification
// gives it, and status() gives it once this instance has seen the callback); every method accepts both forms.
// Errors are Daraja's envelope {requestId, errorCode, errorMessage} → ProviderError(errorCode, errorMessage, status).
import {
  ProviderError,
  type AdapterDefinition,
  type AdapterDeps,
  type Notification,
  type NotificationRequest,
  type StartInput,
  type StartResult,
  type StatusResult,
} from './adapter.ts';
import { MethodProvider } from './external.ts';
import { httpClient, type HttpClient, type HttpRequest } from './http.ts';
import type { PayoutInput } from '../provider.ts';
import {
  MPESA_LIVE,
  DESC_MAX,
  stkOutcome,
  toShillings,
  msisdn,
  nairobiTimestamp,
  accountReference,
  parseRef,
  paidRef,
  type DarajaError,
  safeEqual,
  header,
  remember,
  initiator,
} from './mpesa-wire.ts';
import { resultCallback, stkCallback } from './mpesa-events.ts';
export {
  MPESA_LIVE,
  MPESA_SANDBOX,
  toShillings,
  msisdn,
  nairobiTimestamp,
  accountReference,
  parseRef,
} from './mpesa-wire.ts';

export interface MpesaConfig extends Record<string, string> {
  /** The Daraja app's Consumer Key and Consumer Secret (OAuth client credentials). */
  consumerKey: string;
  consumerSecret: string;
  /** The paybill number, or the store (head office) number of a till for CustomerBuyGoodsOnline. */
  shortCode: string;
  /** The Lipa na M-Pesa Online passkey Safaricom issues for the shortcode. */
  passkey: string;
  /** Our secret in every CallBackURL / ResultURL (`?token=`): the only way to tell Safaricom's callbacks from forgeries. */
  callbackToken: string;
}

/** Optional keys (all strings; absent or '' means "not set"). */
export type MpesaOptional =
  /** CustomerPayBillOnline (default) or CustomerBuyGoodsOnline. */
  | 'transactionType'
  /** The till number (PartyB) for CustomerBuyGoodsOnline; default shortCode. */
  | 'partyB'
  /** Reversal (refund) and B2C (payout): the API operator ("initiator") made on the M-Pesa org portal, its password. */
  | 'initiatorName'
  | 'initiatorPassword'
  /** Safaricom's public key certificate (PEM) for this environment: the initiator password is RSA-encrypted with it. */
  | 'certificate'
  /** The B2C shortcode payouts are sent from (default shortCode). */
  | 'b2cShortCode'
  /** Our webhook for this adapter and agent, where Daraja posts reversal and B2C results (the token is appended). */
  | 'resultUrl'
  /** Daraja's root: https://api.safaricom.co.ke (live, default) or https://sandbox.safaricom.co.ke. */
  | 'apiBase';

export const mpesaDefinition: AdapterDefinition<MpesaConfig, Mpesa> = {
  payoutChannel: { label: 'M-Pesa', fields: ['phone'] },
  id: 'mpesa',
  payTypes: [{ type: 'M-PESA', kind: 'push', label: 'M-Pesa', platforms: ['web'] }],
  // Reversals undo a whole transaction only (no partial refunds); no holds; B2C pays out to a phone.
  capabilities: { hold: false, partialCapture: false, offSession: false, refund: true, payout: true, webhook: true },
  currencies: ['KES'],
  required: ['consumerKey', 'consumerSecret', 'shortCode', 'passkey', 'callbackToken'],
  optional: [
    'transactionType',
    'partyB',
    'initiatorName',
    'initiatorPassword',
    'certificate',
    'b2cShortCode',
    'resultUrl',
    'apiBase',
  ],
  testValues: [
    {
      value: '254708374149',
      outcome: 'succeeds',
      note: "Daraja sandbox's test MSISDN (with shortcode 174379 and its published passkey)",
    },
    {
      value: '254708374141',
      outcome: 'insufficient_funds',
      note: 'Powerly sandbox/test server only (ResultCode 1), not a Safaricom value',
    },
    {
      value: '254708374142',
      outcome: 'declined',
      note: 'Powerly sandbox/test server only (ResultCode 2001, wrong PIN), not a Safaricom value',
    },
    {
      value: '254708374143',
      outcome: 'no_answer',
      note: 'Powerly sandbox/test server only (ResultCode 1037), not a Safaricom value',
    },
  ],
  create: (config, deps) => new Mpesa(config, deps),
};

export class Mpesa extends MethodProvider {
  private readonly base: string;
  private readonly http: HttpClient;
  private token: { value: string; until: number } | null = null;
  /** CheckoutRequestID → the paid ref learnt from its callback (the STK query has no receipt number). */
  private readonly receipts = new Map<string, string>();
  /** Our idempotency key → the STK push it started: a retried start() does not push the phone twice. */
  private readonly started = new Map<string, StartResult>();

  constructor(
    private readonly c: MpesaConfig & Partial<Record<MpesaOptional, string>>,
    deps: AdapterDeps,
  ) {
    super(mpesaDefinition, deps);
    this.base = (c.apiBase || MPESA_LIVE).replace(/\/+$/, '');
    this.http = httpClient('M-Pesa', deps);
  }

  // ---- transport -------------------------------------------------------------------------------------------------

  private async send(
    path: string,
    req: Omit<HttpRequest, 'url'>,
  ): Promise<{ status: number; body: Record<string, unknown> }> {
    const { status, body } = await this.http.json({ ...req, url: `${this.base}${path}` });
    return { status, body };
  }

  private fail(status: number, body: DarajaError): never {
    const code =
      body.errorCode ??
      body.resultCode ??
      (body.ResponseCode !== undefined
        ? `mpesa_${String(body.ResponseCode)}`
        : status === 200
          ? 'bad_response'
          : `http_${status}`);
    throw new ProviderError(
      code,
      body.errorMessage ?? body.resultDesc ?? body.ResponseDescription ?? `M-Pesa answered ${status}`,
      status,
    );
  }

  private async accessToken(fresh = false): Promise<string> {
    const now = this.deps.now().getTime();
    if (!fresh && this.token && now < this.token.until) return this.token.value;
    const basic = Buffer.from(`${this.c.consumerKey}:${this.c.consumerSecret}`).toString('base64');
    const { status, body } = await this.send('/oauth/v1/generate?grant_type=client_credentials', {
      method: 'GET',
      headers: { authorization: `Basic ${basic}` },
    });
    if (status !== 200 || typeof body.access_token !== 'string' || !body.access_token)
      this.fail(status, body as DarajaError);
    const ttl = Number(body.expires_in) || 3599;
    this.token = { value: body.access_token, until: now + Math.max(ttl - 60, 30) * 1000 };
    return this.token.value;
  }

  /** A Daraja API call with the bearer token; an expired/revoked token (404.001.03) is renewed once. */
  private async call(
    path: string,
    payload: Record<string, unknown>,
  ): Promise<{ status: number; body: Record<string, unknown> }> {
    for (let attempt = 0; ; attempt++) {
      const token = await this.accessToken(attempt > 0);
      const r = await this.send(path, { method: 'POST', headers: { authorization: `Bearer ${token}` }, json: payload });
      if (attempt === 0 && (r.body as DarajaError).errorCode === '404.001.03') {
        this.token = null;
        continue;
      }
      return r;
    }
  }

  private password(timestamp: string) {
    return Buffer.from(`${this.c.shortCode}${this.c.passkey}${timestamp}`).toString('base64');
  }

  /** Our URL with the secret token (and our own fields) in its query: Daraja posts to it unchanged. */
  private withToken(url: string, extra: Record<string, string>) {
    let u: URL;
    try {
      u = new URL(url);
    } catch {
      throw new ProviderError('not_configured', `M-Pesa callback URL is not absolute: ${url}`, 400);
    }
    u.searchParams.set('token', this.c.callbackToken);
    for (const [k, v] of Object.entries(extra)) u.searchParams.set(k, v);
    return u.toString();
  }

  // ---- payments --------------------------------------------------------------------------------------------------

  async start(input: StartInput): Promise<StartResult> {
    const prior = this.started.get(input.idempotencyKey);
    if (prior) return prior;
    if (input.capture === 'manual') throw new ProviderError('hold_unsupported', 'M-Pesa cannot hold an amount', 400);
    const amount = toShillings(input.amount, input.currency);
    const phone = msisdn(input.payer.phone);
    const timestamp = nairobiTimestamp(this.deps.now());
    const buyGoods = this.c.transactionType === 'CustomerBuyGoodsOnline';
    const { status, body } = await this.call('/mpesa/stkpush/v1/processrequest', {
      BusinessShortCode: this.c.shortCode,
      Password: this.password(timestamp),
      Timestamp: timestamp,
      TransactionType: buyGoods ? 'CustomerBuyGoodsOnline' : 'CustomerPayBillOnline',
      Amount: amount,
      PartyA: phone,
      PartyB: buyGoods && this.c.partyB ? this.c.partyB : this.c.shortCode,
      PhoneNumber: phone,
      CallBackURL: this.withToken(input.notifyUrl, { otn: input.outTradeNo }),
      AccountReference: accountReference(input.outTradeNo),
      TransactionDesc: (input.description || 'Payment').slice(0, DESC_MAX),
    });
    if (status !== 200 || String(body.ResponseCode) !== '0' || typeof body.CheckoutRequestID !== 'string')
      this.fail(status, body as DarajaError);
    const result: StartResult = { ref: body.CheckoutRequestID, state: 'pending', action: { kind: 'push' } };
    remember(this.started, input.idempotencyKey, result);
    return result;
  }

  async status(ref: string, _outTradeNo: string): Promise<StatusResult> {
    const { checkoutId } = parseRef(ref);
    const timestamp = nairobiTimestamp(this.deps.now());
    const { status, body } = await this.call('/mpesa/stkpushquery/v1/query', {
      BusinessShortCode: this.c.shortCode,
      Password: this.password(timestamp),
      Timestamp: timestamp,
      CheckoutRequestID: checkoutId,
    });
    const err = body as DarajaError;
    // The customer has not answered yet: Daraja reports it as an error of the query.
    if (err.errorCode === '500.001.1001' && /being processed/i.test(err.errorMessage ?? ''))
      return { ref, state: 'pending' };
    if (status !== 200 || body.ResultCode === undefined || body.ResultCode === null) this.fail(status, err);
    const outcome = stkOutcome(String(body.ResultCode));
    if (outcome.state !== 'paid') return { ref: checkoutId, ...outcome };
    const known = parseRef(ref).receipt ? ref : this.receipts.get(checkoutId);
    const amount = known ? parseRef(known).amount : undefined;
    return { ref: known ?? checkoutId, state: 'paid', ...(amount !== undefined ? { amount, currency: 'KES' } : {}) };
  }

  /** Reversal: the whole transaction only. Asynchronous: its result is posted to resultUrl (a notification). */
  async refundPayment(ref: string, amount: number, _call: { idempotencyKey: string }): Promise<void> {
    const { checkoutId, receipt, amount: paid } = parseRef(this.receipts.get(parseRef(ref).checkoutId) ?? ref);
    if (!receipt || paid === undefined) {
      throw new ProviderError(
        'receipt_unknown',
        `M-Pesa reversal needs the receipt number of ${checkoutId} (from its callback)`,
        409,
      );
    }
    if (amount > paid)
      throw new ProviderError('amount_exceeds_payment', `refund ${amount} exceeds the payment's ${paid}`, 400);
    if (amount < paid)
      throw new ProviderError('partial_refund_unsupported', 'M-Pesa reverses a whole transaction only', 400);
    const ini = initiator(this.c, 'reversal');
    const url = (extra: Record<string, string>) =>
      this.withToken(ini.resultUrl, { kind: 'reversal', ref: paidRef(checkoutId, receipt, paid), ...extra });
    // A repeated reversal of the same receipt is refused by M-Pesa (already reversed): a retry cannot refund twice.
    const { status, body } = await this.call('/mpesa/reversal/v1/request', {
      Initiator: ini.name,
      SecurityCredential: ini.credential,
      CommandID: 'TransactionReversal',
      TransactionID: receipt,
      Amount: toShillings(paid, 'KES'),
      ReceiverParty: this.c.shortCode,
      RecieverIdentifierType: '11',
      ResultURL: url({}),
      QueueTimeOutURL: url({ timeout: '1' }),
      Remarks: 'Refund',
      Occasion: checkoutId.slice(0, 100),
    });
    if (status !== 200 || String(body.ResponseCode) !== '0') this.fail(status, body as DarajaError);
  }

  /** B2C BusinessPayment to the payee's phone; OriginatorConversationID is our idempotency key (and the ref). */
  override async payout(input: PayoutInput): Promise<{ ref: string }> {
    if (input.destination.kind !== 'channel')
      throw new ProviderError('unsupported_destination', 'M-Pesa pays out to a phone only', 400);
    const acct = input.destination.account;
    const phone = msisdn(acct.phone ?? acct.msisdn ?? acct.account);
    const amount = toShillings(input.amount, input.currency);
    const ini = initiator(this.c, 'payout');
    const id = input.idempotencyKey.slice(0, 64);
    const url = (extra: Record<string, string>) => this.withToken(ini.resultUrl, { kind: 'b2c', ...extra });
    const { status, body } = await this.call('/mpesa/b2c/v3/paymentrequest', {
      OriginatorConversationID: id,
      InitiatorName: ini.name,
      SecurityCredential: ini.credential,
      CommandID: 'BusinessPayment',
      Amount: amount,
      PartyA: this.c.b2cShortCode || this.c.shortCode,
      PartyB: phone,
      Remarks: 'Payout',
      QueueTimeOutURL: url({ timeout: '1' }),
      ResultURL: url({}),
      Occassion: 'Payout',
    });
    if (status !== 200 || String(body.ResponseCode) !== '0') this.fail(status, body as DarajaError);
    return {
      ref:
        typeof body.OriginatorConversationID === 'string' && body.OriginatorConversationID
          ? body.OriginatorConversationID
          : id,
    };
  }

  // ---- callbacks -------------------------------------------------------------------------------------------------

  async readNotification(req: NotificationRequest): Promise<Notification | null> {
    const token = req.query.token;
    if (!token || !safeEqual(token, this.c.callbackToken)) return null;
    const type = header(req.headers, 'content-type');
    if (type && !/json/i.test(type)) return null;
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(req.rawBody) as Record<string, unknown>;
    } catch {
      return null;
    }
    const ack = {
      status: 200,
      contentType: 'application/json',
      body: JSON.stringify({ ResultCode: 0, ResultDesc: 'Accepted' }),
    };
    const stk = (body.Body as { stkCallback?: Record<string, unknown> } | undefined)?.stkCallback;
    if (stk) return stkCallback(stk, req.query, ack, this.receipts);
    const result = body.Result as Record<string, unknown> | undefined;
    if (result && (req.query.kind === 'b2c' || req.query.kind === 'reversal'))
      return resultCallback(result, req.query, ack);
    return null;
  }
}
