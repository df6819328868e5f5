// A PayGate PayWeb3 test server (test tree only, never shipped), modelled from docs.paygate.co.za:
//   POST /payweb3/initiate.trans  form PAYGATE_ID, REFERENCE, AMOUNT, CURRENCY, RETURN_URL, TRANSACTION_DATE, LOCALE,
//                                 COUNTRY, EMAIL[, NOTIFY_URL …], CHECKSUM (MD5 of the posted values in order + key)
//                                 → PAYGATE_ID=…&PAY_REQUEST_ID=…&REFERENCE=…&CHECKSUM=… or ERROR=<code>
//   POST /payweb3/query.trans     PAYGATE_ID, PAY_REQUEST_ID, REFERENCE, CHECKSUM → the transaction's fields + CHECKSUM
// PayGate answers HTTP 200 with ERROR=… for a refused request: ND_INV_PGID (unknown PayGate ID), DATA_CHK (checksum),
// DATA_AMT_NUM / DATA_AMT_ZERO, DATA_CUR, DATA_CREF, DATA_DTTM, DATA_EMAIL, DATA_RTN_URL, DATA_PAY_REQ_ID.
// A reused REFERENCE is accepted (each initiate has its own PAY_REQUEST_ID): PayWeb3 documents no refusal.
// The customer's side (process.trans) is `pay(payRequestId, card)` with PayGate's test cards, or `cancel(id)`; it
// returns the form PayGate posts back to RETURN_URL. `notify(id)` is the NOTIFY_URL delivery (all fields + CHECKSUM).
//   POST /payhost/process.trans   PayHost SOAP (namespace http://www.paygate.co.za/PayHOST): SingleFollowUpRequest with
//                                 QueryRequest {Account, PayRequestId} or RefundRequest {Account, TransactionId, Amount}
//                                 → SingleFollowUpResponse/<Query|Refund>Response/Status {TransactionId, StatusName,
//                                 TransactionStatusCode, ResultCode, ResultDescription, …}; bad PayHost credentials are
//                                 a SOAP Fault (HTTP 500); a refund beyond what is left is Status Error (modelled codes).
import type { IncomingMessage, ServerResponse } from 'node:http';
import { LocalServer } from './local-server.ts';
import { createHash, randomUUID } from 'node:crypto';

const md5 = (s: string) => createHash('md5').update(s, 'utf8').digest('hex');
const sum = (values: string[], key: string) => md5(values.join('') + key);

const INITIATE_ORDER = [
  'PAYGATE_ID',
  'REFERENCE',
  'AMOUNT',
  'CURRENCY',
  'RETURN_URL',
  'TRANSACTION_DATE',
  'LOCALE',
  'COUNTRY',
  'EMAIL',
  'PAY_METHOD',
  'PAY_METHOD_DETAIL',
  'NOTIFY_URL',
  'USER1',
  'USER2',
  'USER3',
  'VAULT',
  'VAULT_ID',
];

/** PayGate's test cards: status, result code and description. */
const CARDS: Record<string, [status: string, code: string, desc: string, risk: string, method: string]> = {
  '4000000000000002': ['1', '990017', 'Auth Done', 'AX', 'Visa'],
  '5200000000000015': ['1', '990017', 'Auth Done', 'AX', 'MasterCard'],
  '378282246310005': ['1', '990017', 'Auth Done', 'NX', 'American Express'],
  '5200000000000023': ['2', '900003', 'Insufficient Funds', 'NX', 'MasterCard'],
  '4000000000000028': ['2', '900003', 'Insufficient Funds', 'NX', 'Visa'],
  '371449635398431': ['2', '900003', 'Insufficient Funds', 'NX', 'American Express'],
  '4000000000000036': ['2', '900007', 'Declined', 'AX', 'Visa'],
  '5200000000000049': ['2', '900007', 'Declined', 'AX', 'MasterCard'],
  '30569309025904': ['2', '900007', 'Declined', 'XX', 'Diners Club'],
  '5200000000000064': ['0', '990022', 'Bank Not Available', 'XX', 'MasterCard'],
};

interface Txn {
  paygateId: string;
  payRequestId: string;
  reference: string;
  amount: string;
  currency: string;
  returnUrl: string;
  notifyUrl?: string;
  status: string;
  resultCode: string;
  resultDesc: string;
  authCode: string;
  transactionId: string;
  risk: string;
  payMethod: string;
  payMethodDetail: string;
  refunded: number;
}

export class PayGateTestServer extends LocalServer {
  readonly txns = new Map<string, Txn>();
  readonly requests: { path: string; fields: [string, string][] }[] = [];
  private seq = 78705178;

  /** accounts: PayGate ID → PayWeb encryption key; payHost: PayGate ID → PayHost password; currencies taken. */
  constructor(
    readonly accounts: Record<string, string>,
    readonly payHost: Record<string, string> = {},
    readonly currencies = ['ZAR', 'USD', 'EUR'],
  ) {
    super();
  }

  get base() {
    return `http://127.0.0.1:${this.port}`;
  }

  private txn(id: string) {
    const t = this.txns.get(id);
    if (!t) throw new Error(`no PAY_REQUEST_ID ${id}`);
    return t;
  }

  /** The fields of a transaction in PayGate's notify/query order. */
  private fields(t: Txn): [string, string][] {
    return [
      ['PAYGATE_ID', t.paygateId],
      ['PAY_REQUEST_ID', t.payRequestId],
      ['REFERENCE', t.reference],
      ['TRANSACTION_STATUS', t.status],
      ['RESULT_CODE', t.resultCode],
      ['AUTH_CODE', t.authCode],
      ['CURRENCY', t.currency],
      ['AMOUNT', t.amount],
      ['RESULT_DESC', t.resultDesc],
      ['TRANSACTION_ID', t.transactionId],
      ['RISK_INDICATOR', t.risk],
      ['PAY_METHOD', t.payMethod],
      ['PAY_METHOD_DETAIL', t.payMethodDetail],
    ];
  }
  private signed(t: Txn): [string, string][] {
    const f = this.fields(t);
    return [
      ...f,
      [
        'CHECKSUM',
        sum(
          f.map(([, v]) => v),
          this.accounts[t.paygateId]!,
        ),
      ],
    ];
  }

  /** The customer pays on process.trans; returns the form PayGate posts to RETURN_URL. */
  pay(payRequestId: string, card: string): { url: string; fields: Record<string, string> } {
    const t = this.txn(payRequestId);
    if (t.status !== '0' || t.transactionId) throw new Error(`${payRequestId} already processed`);
    const [status, code, desc, risk, method] = CARDS[card] ?? ['2', '900004', 'Invalid Card Number', 'XX', 'Unknown'];
    Object.assign(t, {
      status,
      resultCode: code,
      resultDesc: desc,
      risk,
      payMethod: 'CC',
      payMethodDetail: method,
      authCode: status === '1' ? Math.random().toString(36).slice(2, 8).toUpperCase() : '',
      transactionId: String(++this.seq),
    });
    return this.returnForm(t);
  }

  /** The customer cancels on PayGate's page (TRANSACTION_STATUS 4). */
  cancel(payRequestId: string) {
    const t = this.txn(payRequestId);
    Object.assign(t, {
      status: '4',
      resultCode: '990028',
      resultDesc: 'Transaction cancelled',
      transactionId: String(++this.seq),
    });
    return this.returnForm(t);
  }

  private returnForm(t: Txn) {
    const key = this.accounts[t.paygateId]!;
    return {
      url: t.returnUrl,
      fields: {
        PAY_REQUEST_ID: t.payRequestId,
        TRANSACTION_STATUS: t.status,
        CHECKSUM: sum([t.paygateId, t.payRequestId, t.status, t.reference], key),
      },
    };
  }

  /** The NOTIFY_URL delivery: a form POST of the transaction's fields with CHECKSUM. */
  notify(payRequestId: string): { url: string | undefined; headers: Record<string, string>; rawBody: string } {
    const t = this.txn(payRequestId);
    return {
      url: t.notifyUrl,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      rawBody: new URLSearchParams(this.signed(t)).toString(),
    };
  }

  protected async handle(req: IncomingMessage, res: ServerResponse) {
    const raw = await this.readBody(req);
    if (req.url === '/payhost/process.trans') return this.payHostCall(raw, res);
    const fields = [...new URLSearchParams(raw)];
    const url = new URL(req.url ?? '/', 'http://x');
    this.requests.push({ path: url.pathname, fields });
    const answer = (out: [string, string][]) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=UTF-8' });
      res.end(new URLSearchParams(out).toString());
    };
    const error = (code: string) => answer([['ERROR', code]]);
    if (req.method !== 'POST') {
      res.writeHead(405);
      res.end();
      return;
    }
    const f = Object.fromEntries(fields);
    const key = this.accounts[f.PAYGATE_ID ?? ''];
    if (url.pathname === '/payweb3/initiate.trans') {
      if (key === undefined) return error('ND_INV_PGID');
      const ordered = INITIATE_ORDER.filter((k) => k in f).map((k) => f[k]!);
      if (!f.CHECKSUM || sum(ordered, key) !== f.CHECKSUM.toLowerCase()) return error('DATA_CHK');
      if (!f.REFERENCE) return error('DATA_CREF');
      if (!/^\d+$/.test(f.AMOUNT ?? '')) return error('DATA_AMT_NUM');
      if (Number(f.AMOUNT) === 0) return error('DATA_AMT_ZERO');
      if (!this.currencies.includes(f.CURRENCY ?? '')) return error('DATA_CUR');
      if (!f.RETURN_URL) return error('DATA_RTN_URL');
      if (!/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/.test(f.TRANSACTION_DATE ?? '')) return error('DATA_DTTM');
      if (!/^[^@\s]+@[^@\s]+$/.test(f.EMAIL ?? '')) return error('DATA_EMAIL');
      const t: Txn = {
        paygateId: f.PAYGATE_ID!,
        payRequestId: randomUUID().toUpperCase(),
        reference: f.REFERENCE,
        amount: f.AMOUNT!,
        currency: f.CURRENCY!,
        returnUrl: f.RETURN_URL,
        notifyUrl: f.NOTIFY_URL,
        status: '0',
        resultCode: '',
        resultDesc: '',
        authCode: '',
        transactionId: '',
        risk: '',
        payMethod: '',
        payMethodDetail: '',
        refunded: 0,
      };
      this.txns.set(t.payRequestId, t);
      return answer([
        ['PAYGATE_ID', t.paygateId],
        ['PAY_REQUEST_ID', t.payRequestId],
        ['REFERENCE', t.reference],
        ['CHECKSUM', sum([t.paygateId, t.payRequestId, t.reference], key)],
      ]);
    }
    if (url.pathname === '/payweb3/query.trans') {
      if (key === undefined) return error('ND_INV_PGID');
      if (
        !f.CHECKSUM ||
        sum([f.PAYGATE_ID!, f.PAY_REQUEST_ID ?? '', f.REFERENCE ?? ''], key) !== f.CHECKSUM.toLowerCase()
      )
        return error('DATA_CHK');
      const t = this.txns.get(f.PAY_REQUEST_ID ?? '');
      if (!t || t.paygateId !== f.PAYGATE_ID || t.reference !== f.REFERENCE) return error('DATA_PAY_REQ_ID');
      return answer(this.signed(t));
    }
    res.writeHead(404);
    res.end();
  }

  private payHostCall(xml: string, res: ServerResponse) {
    this.requests.push({ path: '/payhost/process.trans', fields: [['SOAP', xml]] });
    const envelope = (body: string) =>
      `<?xml version="1.0" encoding="UTF-8"?><SOAP-ENV:Envelope xmlns:SOAP-ENV="http://schemas.xmlsoap.org/soap/envelope/"><SOAP-ENV:Body>${body}</SOAP-ENV:Body></SOAP-ENV:Envelope>`;
    const reply = (status: number, body: string) => {
      res.writeHead(status, { 'content-type': 'text/xml; charset=utf-8' });
      res.end(envelope(body));
    };
    const fault = (text: string) =>
      reply(
        500,
        `<SOAP-ENV:Fault><faultcode>SOAP-ENV:Client</faultcode><faultstring>${text}</faultstring></SOAP-ENV:Fault>`,
      );
    const tag = (name: string) => new RegExp(`<(?:[\\w-]+:)?${name}>([^<]*)</(?:[\\w-]+:)?${name}>`).exec(xml)?.[1];
    const kind = /<(?:[\w-]+:)?(QueryRequest|RefundRequest)>/.exec(xml)?.[1];
    if (
      !/http:\/\/www\.paygate\.co\.za\/PayHOST/.test(xml) ||
      !/<(?:[\w-]+:)?SingleFollowUpRequest[\s>]/.test(xml) ||
      !kind
    )
      return fault('Validation error: unknown request');
    const id = tag('PayGateId') ?? '';
    if (this.payHost[id] === undefined || this.payHost[id] !== unescapeXml(tag('Password') ?? ''))
      return fault('Validation error: invalid PayGateId or Password');
    const status = (t: Txn | undefined, over: Record<string, string> = {}) => {
      const f: Record<string, string> = t
        ? {
            TransactionId: t.transactionId,
            Reference: t.reference,
            AcquirerCode: '00',
            StatusName: 'Completed',
            AuthCode: t.authCode,
            PayRequestId: t.payRequestId,
            TransactionStatusCode: t.status,
            TransactionStatusDescription:
              ({ '0': 'Not Done', '1': 'Approved', '2': 'Declined', '4': 'User Cancelled' } as Record<string, string>)[
                t.status
              ] ?? 'Unknown',
            ResultCode: t.resultCode,
            ResultDescription: t.resultDesc,
            Currency: t.currency,
            Amount: t.amount,
          }
        : {};
      Object.assign(f, over);
      return `<Status>${Object.entries(f)
        .map(([k, v]) => `<${k}>${v}</${k}>`)
        .join('')}</Status>`;
    };
    const response = (inner: string) =>
      reply(
        200,
        `<ns2:SingleFollowUpResponse xmlns:ns2="http://www.paygate.co.za/PayHOST"><ns2:${kind}Response>${inner.replace(/<(\/?)(\w+)>/g, '<$1ns2:$2>')}</ns2:${kind}Response></ns2:SingleFollowUpResponse>`,
      );
    if (kind === 'QueryRequest') {
      const t = this.txns.get(tag('PayRequestId') ?? '');
      if (!t || t.paygateId !== id)
        return response(
          status(undefined, { StatusName: 'Error', ResultCode: '900099', ResultDescription: 'Transaction not found' }),
        );
      return response(status(t));
    }
    const t = [...this.txns.values()].find((x) => x.transactionId === tag('TransactionId') && x.paygateId === id);
    if (!t || t.status !== '1')
      return response(
        status(undefined, {
          StatusName: 'Error',
          ResultCode: '900099',
          ResultDescription: 'Transaction not found or not approved',
        }),
      );
    const amount = Number(tag('Amount') ?? t.amount);
    const left = Number(t.amount) - t.refunded;
    if (!Number.isInteger(amount) || amount <= 0 || amount > left) {
      return response(
        status(undefined, {
          StatusName: 'Error',
          ResultCode: '900210',
          ResultDescription: `Refund amount exceeds the refundable amount (${left})`,
        }),
      );
    }
    t.refunded += amount;
    return response(
      status(undefined, {
        TransactionId: String(++this.seq),
        Reference: t.reference,
        StatusName: 'Completed',
        TransactionType: 'Refund',
        TransactionStatusCode: '1',
        TransactionStatusDescription: 'Approved',
        ResultCode: '990017',
        ResultDescription: 'Auth Done',
        Currency: t.currency,
        Amount: String(amount),
      }),
    );
  }
}

function unescapeXml(s: string): string {
  return s
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'")
    .replace(/&amp;/g, '&');
}
