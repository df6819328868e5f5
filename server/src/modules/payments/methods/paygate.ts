// PayGate PayWeb3 (DPO PayGate, South Africa; docs.paygate.co.za): a payment is initiated server-to-server and the
// customer's browser then posts a form to PayGate's hosted payment page.
//
//   start     POST /payweb3/initiate.trans (form) PAYGATE_ID, REFERENCE = outTradeNo, AMOUNT (cents), CURRENCY,
//             RETURN_URL, TRANSACTION_DATE (yyyy-MM-dd HH:mm:ss, South African time), LOCALE, COUNTRY, EMAIL,
//             NOTIFY_URL, CHECKSUM = MD5(the values in that order + encryption key)
//             → PAYGATE_ID, PAY_REQUEST_ID, REFERENCE, CHECKSUM = MD5(PAYGATE_ID + PAY_REQUEST_ID + REFERENCE + key),
//             verified here; or ERROR=<code> (DATA_CHK, PGID_NOT_EN, DATA_AMT_ZERO, …).
//             Action: form POST to /payweb3/process.trans with {PAY_REQUEST_ID, CHECKSUM}.
//   complete  the customer comes back to RETURN_URL with a form POST {PAY_REQUEST_ID, TRANSACTION_STATUS, CHECKSUM =
//             MD5(PAYGATE_ID + PAY_REQUEST_ID + TRANSACTION_STATUS + REFERENCE + key)}: verified, then queried.
//   status    POST /payweb3/query.trans PAYGATE_ID, PAY_REQUEST_ID, REFERENCE, CHECKSUM → the transaction's fields:
//             TRANSACTION_STATUS 0 not done, 1 approved, 2 declined, 3 cancelled, 4 user cancelled, 5 received by
//             PayGate, 7 settlement voided; RESULT_CODE (990017 auth done, 900003 insufficient funds, 900007
//             declined, 900004 invalid card, …).
//   notification  NOTIFY_URL receives a form POST with the transaction's fields in PayGate's order and CHECKSUM =
//             MD5(every other value in order + key); answered with 200 "OK". eventId = PAY_REQUEST_ID + status.
// PayWeb3 has neither an idempotency key nor a documented refusal of a reused REFERENCE: a retried initiate gives a
// second PAY_REQUEST_ID, and nothing is charged until the customer submits PayGate's form for one of them.
//   refund    PayWeb3 has none: PayGate's PayHost SOAP API (POST /payhost/process.trans, namespace
//             http://www.paygate.co.za/PayHOST) does it. SingleFollowUpRequest/QueryRequest {Account {PayGateId,
//             Password}, PayRequestId} finds the PayWeb transaction's TransactionId, then SingleFollowUpRequest/
//             RefundRequest {Account, TransactionId, Amount (cents)} refunds it, partly or in full; the answer's
//             Status {StatusName Completed | Error, ResultCode, ResultDescription}. PayHost credentials are their own
//             (payHostId, default the PayGate ID, and payHostPassword): without them refund() throws
//             ProviderError('refund_unsupported'). PayHost has no idempotency key: a refund retried after a lost
//             answer may refund twice (the service's refund job must not blindly replay).
import { currencyScale } from '#core/money.ts';
import { createHash, timingSafeEqual } from 'node:crypto';
import {
  ProviderError,
  type AdapterDefinition,
  type AdapterDeps,
  type ExternalState,
  type Notification,
  type NotificationRequest,
  type ProviderCall,
  type StartInput,
  type StartResult,
  type StatusResult,
} from './adapter.ts';
import { MethodProvider } from './external.ts';
import { httpClient, type HttpClient } from './http.ts';

export interface PayGateConfig extends Record<string, string> {
  /** The PayGate ID (e.g. 10011072130, PayGate's public test account). */
  paygateId: string;
  /** The PayWeb encryption key set in the Merchant Access Portal (test account: "secret"). */
  encryptionKey: string;
  /** Default https://secure.paygate.co.za (PayGate uses the same host for test and live accounts). */
  apiBase: string;
  /** EMAIL is mandatory in PayWeb3: sent when the payer has no email of their own. */
  email: string;
  /** LOCALE (default en-za) and COUNTRY (default ZAF) of the payment page. */
  locale: string;
  country: string;
  /** PayHost (refunds): its PayGate ID (default paygateId) and password, set up by PayGate for PayHost. */
  payHostId: string;
  payHostPassword: string;
}

/** The currencies PayGate documents for its test account; a live account may be set up for others. */
const CURRENCIES = ['ZAR', 'USD', 'EUR'];

const STATUS: Record<string, ExternalState> = {
  '0': 'pending',
  '1': 'paid',
  '2': 'failed',
  '3': 'cancelled',
  '4': 'cancelled',
  '5': 'pending',
  '7': 'cancelled',
};
const RESULT: Record<string, string> = {
  '900003': 'insufficient_funds',
  '900007': 'declined',
  '900004': 'invalid_card',
  '900005': 'declined', // lost card
  '900006': 'declined', // stolen card
  '900001': 'declined', // call for approval
  '990028': 'cancelled', // transaction cancelled by the customer
};

export function md5(s: string): string {
  return createHash('md5').update(s, 'utf8').digest('hex');
}
/** PayGate's checksum: MD5 of the values in order, then the encryption key. */
export function paygateChecksum(values: string[], key: string): string {
  return md5(values.join('') + key);
}
function xmlEscape(s: string): string {
  return s
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;');
}
/** The text of the first element `name` (any namespace prefix) of a PayHost answer. */
function xmlTag(xml: string, name: string): string | undefined {
  const m = new RegExp(`<(?:[\\w-]+:)?${name}(?:\\s[^>]*)?>([\\s\\S]*?)</(?:[\\w-]+:)?${name}>`).exec(xml);
  if (!m) return undefined;
  return m[1]!
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'")
    .replace(/&amp;/g, '&')
    .trim();
}
function sameHex(a: string, b: string): boolean {
  const x = Buffer.from(a.toLowerCase());
  const y = Buffer.from(b.toLowerCase());
  return x.length === y.length && timingSafeEqual(x, y);
}

/** yyyy-MM-dd HH:mm:ss in South African Standard Time (UTC+2, no daylight saving). */
function transactionDate(d: Date): string {
  const t = new Date(d.getTime() + 2 * 3600_000);
  const p = (n: number) => String(n).padStart(2, '0');
  return `${t.getUTCFullYear()}-${p(t.getUTCMonth() + 1)}-${p(t.getUTCDate())} ${p(t.getUTCHours())}:${p(t.getUTCMinutes())}:${p(t.getUTCSeconds())}`;
}

export const paygateDefinition: AdapterDefinition<PayGateConfig, PayGateAdapter> = {
  id: 'paygate',
  payTypes: [{ type: 'PayGate', kind: 'form', label: 'PayGate' }],
  capabilities: { hold: false, partialCapture: false, offSession: false, refund: true, payout: false, webhook: true },
  currencies: CURRENCIES,
  required: ['paygateId', 'encryptionKey'],
  optional: ['apiBase', 'email', 'locale', 'country', 'payHostId', 'payHostPassword'],
  // PayGate's test account 10011072130 / key "secret"; test cards with any future expiry and any CVV.
  testValues: [
    { value: '4000000000000002', outcome: 'succeeds', note: 'Visa, approved (990017)' },
    { value: '5200000000000015', outcome: 'succeeds', note: 'Mastercard, approved (990017)' },
    { value: '4000000000000036', outcome: 'declined', note: 'Visa, declined (900007)' },
    { value: '5200000000000049', outcome: 'declined', note: 'Mastercard, declined (900007)' },
    { value: '4000000000000028', outcome: 'insufficient_funds', note: 'Visa, insufficient funds (900003)' },
    { value: '5200000000000023', outcome: 'insufficient_funds', note: 'Mastercard, insufficient funds (900003)' },
    { value: '5200000000000064', outcome: 'no_answer', note: 'Mastercard, unprocessed (990022, status 0)' },
  ],
  create(config, deps) {
    return new PayGateAdapter(config, deps);
  },
};

export class PayGateAdapter extends MethodProvider {
  private readonly base: string;
  private readonly http: HttpClient;
  constructor(
    private readonly config: PayGateConfig,
    deps: AdapterDeps,
  ) {
    super(paygateDefinition, deps);
    this.base = (config.apiBase || 'https://secure.paygate.co.za').replace(/\/+$/, '');
    this.http = httpClient('PayGate', deps);
  }

  /** A form POST to PayWeb; the answer is form-encoded too (ERROR=… when PayGate refuses the request). */
  private async post(path: string, fields: [string, string][]): Promise<[string, string][]> {
    const res = await this.http.send({ method: 'POST', url: `${this.base}${path}`, form: new URLSearchParams(fields) });
    const text = res.text;
    if (!res.ok) throw new ProviderError(`http_${res.status}`, `PayGate answered ${res.status}`, res.status);
    const out = [...new URLSearchParams(text.trim())];
    const error = out.find(([k]) => k === 'ERROR');
    if (error) throw new ProviderError(error[1], `PayGate refused the request: ${error[1]}`, res.status);
    if (out.length === 0) throw new ProviderError('bad_response', 'PayGate answered with an empty body', res.status);
    return out;
  }

  /** Verifies a PayGate message whose CHECKSUM is MD5 of all its other values in order + key. */
  private verifyAll(fields: [string, string][]): boolean {
    const given = fields.find(([k]) => k === 'CHECKSUM')?.[1];
    if (!given) return false;
    const values = fields.filter(([k]) => k !== 'CHECKSUM').map(([, v]) => v);
    return sameHex(paygateChecksum(values, this.config.encryptionKey), given);
  }

  async start(input: StartInput): Promise<StartResult> {
    if (!Number.isInteger(input.amount) || input.amount <= 0) {
      throw new ProviderError('invalid_amount', 'PayGate: the amount must be a positive integer of minor units', 400);
    }
    if (!CURRENCIES.includes(input.currency) || currencyScale(input.currency) !== 2) {
      throw new ProviderError('unsupported_currency', `PayGate does not take ${input.currency}`, 400);
    }
    const email = input.payer.email || this.config.email;
    if (!email)
      throw new ProviderError(
        'email_required',
        'PayGate needs an EMAIL: the payer has none and no `email` is configured',
        400,
      );
    const fields: [string, string][] = [
      ['PAYGATE_ID', this.config.paygateId],
      ['REFERENCE', input.outTradeNo],
      ['AMOUNT', String(input.amount)],
      ['CURRENCY', input.currency],
      ['RETURN_URL', input.returnUrl],
      ['TRANSACTION_DATE', transactionDate(this.deps.now())],
      ['LOCALE', this.config.locale || 'en-za'],
      ['COUNTRY', this.config.country || 'ZAF'],
      ['EMAIL', email],
      ['NOTIFY_URL', input.notifyUrl],
    ];
    fields.push([
      'CHECKSUM',
      paygateChecksum(
        fields.map(([, v]) => v),
        this.config.encryptionKey,
      ),
    ]);
    const out = Object.fromEntries(await this.post('/payweb3/initiate.trans', fields));
    const { PAYGATE_ID = '', PAY_REQUEST_ID = '', REFERENCE = '', CHECKSUM = '' } = out;
    if (
      !PAY_REQUEST_ID ||
      !sameHex(paygateChecksum([PAYGATE_ID, PAY_REQUEST_ID, REFERENCE], this.config.encryptionKey), CHECKSUM)
    ) {
      throw new ProviderError('bad_checksum', 'PayGate initiate answer does not verify', 502);
    }
    if (PAYGATE_ID !== this.config.paygateId || REFERENCE !== input.outTradeNo) {
      throw new ProviderError('bad_response', 'PayGate initiate answer is for another account or reference', 502);
    }
    return {
      ref: PAY_REQUEST_ID,
      state: 'pending',
      action: { kind: 'form', url: `${this.base}/payweb3/process.trans`, fields: { PAY_REQUEST_ID, CHECKSUM } },
    };
  }

  private result(f: Record<string, string>): StatusResult {
    const status = f.TRANSACTION_STATUS ?? '';
    const state = STATUS[status];
    if (!state) throw new ProviderError('bad_response', `PayGate TRANSACTION_STATUS ${status} is unknown`);
    const amount = Number(f.AMOUNT);
    return {
      ref: f.PAY_REQUEST_ID ?? '',
      state,
      ...(f.AMOUNT && Number.isInteger(amount) ? { amount } : {}),
      ...(f.CURRENCY ? { currency: f.CURRENCY } : {}),
      ...(state === 'failed' || state === 'cancelled'
        ? { failureCode: RESULT[f.RESULT_CODE ?? ''] ?? (state === 'failed' ? 'declined' : 'cancelled') }
        : {}),
    };
  }

  async status(ref: string, outTradeNo: string): Promise<StatusResult> {
    const fields: [string, string][] = [
      ['PAYGATE_ID', this.config.paygateId],
      ['PAY_REQUEST_ID', ref],
      ['REFERENCE', outTradeNo],
    ];
    fields.push([
      'CHECKSUM',
      paygateChecksum(
        fields.map(([, v]) => v),
        this.config.encryptionKey,
      ),
    ]);
    const out = await this.post('/payweb3/query.trans', fields);
    if (out.some(([k]) => k === 'CHECKSUM') && !this.verifyAll(out)) {
      throw new ProviderError('bad_checksum', 'PayGate query answer does not verify', 502);
    }
    const f = Object.fromEntries(out);
    if (f.PAY_REQUEST_ID !== ref)
      throw new ProviderError('bad_response', 'PayGate answered for another PAY_REQUEST_ID', 502);
    return this.result(f);
  }

  override async complete(ref: string, outTradeNo: string, params: Record<string, string>): Promise<StatusResult> {
    const { PAY_REQUEST_ID = '', TRANSACTION_STATUS = '', CHECKSUM = '' } = params;
    const expected = paygateChecksum(
      [this.config.paygateId, PAY_REQUEST_ID, TRANSACTION_STATUS, outTradeNo],
      this.config.encryptionKey,
    );
    if (PAY_REQUEST_ID !== ref || !CHECKSUM || !sameHex(expected, CHECKSUM)) {
      throw new ProviderError('bad_checksum', 'PayGate return parameters do not verify', 400);
    }
    // The return only says what the browser carried; the query is PayGate's own answer.
    return this.status(ref, outTradeNo);
  }

  /** One PayHost SingleFollowUp call; answers the Status element of its response (SOAP faults → ProviderError). */
  private async payHost(kind: 'QueryRequest' | 'RefundRequest', inner: string): Promise<string> {
    const envelope =
      '<?xml version="1.0" encoding="UTF-8"?>' +
      '<SOAP-ENV:Envelope xmlns:SOAP-ENV="http://schemas.xmlsoap.org/soap/envelope/"><SOAP-ENV:Body>' +
      `<SingleFollowUpRequest xmlns="http://www.paygate.co.za/PayHOST"><${kind}>` +
      `<Account><PayGateId>${xmlEscape(this.config.payHostId || this.config.paygateId)}</PayGateId><Password>${xmlEscape(this.config.payHostPassword)}</Password></Account>` +
      `${inner}</${kind}></SingleFollowUpRequest></SOAP-ENV:Body></SOAP-ENV:Envelope>`;
    const res = await this.http.send({
      method: 'POST',
      url: `${this.base}/payhost/process.trans`,
      headers: { 'content-type': 'text/xml; charset=utf-8', soapaction: '' },
      body: envelope,
    });
    const xml = res.text;
    if (/<(?:[\w-]+:)?Fault[\s>]/.test(xml)) {
      const detail = xmlTag(xml, 'faultstring') ?? 'SOAP fault';
      throw new ProviderError('payhost_fault', `PayGate PayHost: ${detail}`, res.status);
    }
    const status = xmlTag(xml, 'Status');
    if (!res.ok || status === undefined)
      throw new ProviderError('bad_response', `PayGate PayHost answered ${res.status} without a Status`, res.status);
    return status;
  }

  async refundPayment(ref: string, amount: number, _call?: ProviderCall): Promise<void> {
    if (!this.config.payHostPassword) {
      throw new ProviderError(
        'refund_unsupported',
        'PayGate refunds go through PayHost: payHostPassword is not configured',
        422,
      );
    }
    if (!Number.isInteger(amount) || amount <= 0)
      throw new ProviderError('invalid_amount', 'PayGate: refund amount must be positive', 400);
    const q = await this.payHost('QueryRequest', `<PayRequestId>${xmlEscape(ref)}</PayRequestId>`);
    const transactionId = xmlTag(q, 'TransactionId');
    if (!transactionId || xmlTag(q, 'TransactionStatusCode') !== '1') {
      throw new ProviderError(
        'not_paid',
        `PayGate transaction ${ref} is not approved (${xmlTag(q, 'TransactionStatusDescription') ?? 'unknown'})`,
        409,
      );
    }
    const r = await this.payHost(
      'RefundRequest',
      `<TransactionId>${xmlEscape(transactionId)}</TransactionId><Amount>${amount}</Amount>`,
    );
    const statusName = xmlTag(r, 'StatusName');
    const txStatus = xmlTag(r, 'TransactionStatusCode');
    if (statusName !== 'Completed' || (txStatus !== undefined && txStatus !== '1')) {
      throw new ProviderError(
        xmlTag(r, 'ResultCode') || 'refund_failed',
        `PayGate refused the refund: ${xmlTag(r, 'ResultDescription') ?? statusName ?? 'no status'}`,
        400,
      );
    }
  }

  readNotification(req: NotificationRequest): Promise<Notification | null> {
    const fields = [...new URLSearchParams(req.rawBody)];
    if (!this.verifyAll(fields)) return Promise.resolve(null);
    const f = Object.fromEntries(fields);
    if (f.PAYGATE_ID !== this.config.paygateId || !f.PAY_REQUEST_ID || STATUS[f.TRANSACTION_STATUS ?? ''] === undefined)
      return Promise.resolve(null);
    const r = this.result(f);
    return Promise.resolve({
      eventId: `paygate:${f.PAY_REQUEST_ID}:${f.TRANSACTION_STATUS}`,
      ref: f.PAY_REQUEST_ID,
      outTradeNo: f.REFERENCE,
      state: r.state,
      amount: r.amount,
      currency: r.currency,
      ack: { status: 200, contentType: 'text/plain', body: 'OK' },
    });
  }
}
