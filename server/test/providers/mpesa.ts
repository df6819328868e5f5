// A Daraja-compatible test server (test tree only, never shipped): the part of Safaricom's M-Pesa Daraja API the
// mpesa adapter uses, modelled from Daraja's documentation and its published error codes:
//   GET  /oauth/v1/generate?grant_type=client_credentials   Basic consumerKey:consumerSecret → {access_token, expires_in}
//   POST /mpesa/stkpush/v1/processrequest   M-Pesa Express; Password = base64(shortcode + passkey + Timestamp)
//   POST /mpesa/stkpushquery/v1/query       ResultCode, or 500.001.1001 "The transaction is being processed"
//   POST /mpesa/reversal/v1/request          whole-transaction reversal by receipt number; result to ResultURL
//   POST /mpesa/b2c/v3/paymentrequest        B2C BusinessPayment; result to ResultURL
// Errors use Daraja's envelope {requestId, errorCode, errorMessage}: 400.002.02 "Bad Request - Invalid <Field>",
// 404.001.03 "Invalid Access Token", 500.001.1001 "[MerchantValidate] - Wrong credentials" and "Unable to lock
// subscriber, a transaction is already in process for the current subscriber" (one push per phone at a time).
// SecurityCredential is checked by decrypting it (RSA PKCS#1 v1.5) with the private key of the test "certificate";
// a wrong initiator is refused the way Daraja does it: the request is accepted, its result has ResultCode 2001.
// Test phones: 254708374149 (Safaricom's sandbox MSISDN) pays; ours: …141 insufficient funds (ResultCode 1),
// …142 wrong PIN (2001), …143 never answers (1037 once timed out). Daraja signs nothing: a callback is the JSON
// body posted to the CallBackURL / ResultURL as given (callback(), result() build them).
import { constants, privateDecrypt } from 'node:crypto';
import { DarajaCore } from './mpesa/core.ts';
import { ApiError, bad, delivery, OUTCOME, TEST_MSISDN, type Stk } from './mpesa/model.ts';

export {
  PHONE_INSUFFICIENT,
  PHONE_NO_ANSWER,
  PHONE_WRONG_PIN,
  TEST_MSISDN,
  type FakeDarajaOptions,
} from './mpesa/model.ts';

export class FakeDaraja extends DarajaCore {
  protected route(method: string, url: URL, body: Record<string, unknown>, auth: string): [number, unknown] {
    if (method === 'GET' && url.pathname === '/oauth/v1/generate') return [200, this.oauth(url, auth)];
    const token = /^Bearer (.+)$/.exec(auth)?.[1] ?? '';
    const until = this.tokens.get(token);
    if (until === undefined || until < this.now().getTime())
      throw new ApiError(404, '404.001.03', 'Invalid Access Token');
    if (method !== 'POST') throw new ApiError(404, '404.001.01', 'Resource not found');
    switch (url.pathname) {
      case '/mpesa/stkpush/v1/processrequest':
        return [200, this.push(body)];
      case '/mpesa/stkpushquery/v1/query':
        return [200, this.query(body)];
      case '/mpesa/reversal/v1/request':
        return [200, this.reversal(body)];
      case '/mpesa/b2c/v3/paymentrequest':
      case '/mpesa/b2c/v1/paymentrequest':
        return [200, this.payment(body)];
      default:
        throw new ApiError(404, '404.001.01', 'Resource not found');
    }
  }

  /** BusinessShortCode, Timestamp (Nairobi time, within 10 minutes of ours) and Password = base64(code+passkey+ts). */
  private merchant(body: Record<string, unknown>) {
    if (String(body.BusinessShortCode) !== this.opts.shortCode) throw bad('BusinessShortCode');
    const ts = String(body.Timestamp ?? '');
    if (!/^\d{14}$/.test(ts)) throw bad('Timestamp');
    const stamp = Date.UTC(
      +ts.slice(0, 4),
      +ts.slice(4, 6) - 1,
      +ts.slice(6, 8),
      +ts.slice(8, 10) - 3,
      +ts.slice(10, 12),
      +ts.slice(12, 14),
    );
    if (Math.abs(stamp - this.now().getTime()) > 10 * 60_000) throw bad('Timestamp');
    const expected = Buffer.from(`${this.opts.shortCode}${this.opts.passkey}${ts}`).toString('base64');
    if (body.Password !== expected) throw new ApiError(500, '500.001.1001', '[MerchantValidate] - Wrong credentials');
  }

  private push(body: Record<string, unknown>) {
    this.merchant(body);
    if (!['CustomerPayBillOnline', 'CustomerBuyGoodsOnline'].includes(String(body.TransactionType)))
      throw bad('TransactionType');
    const amount = Number(body.Amount);
    if (!/^\d+$/.test(String(body.Amount)) || amount < 1) throw bad('Amount');
    const phone = String(body.PhoneNumber ?? '');
    if (!/^254[17]\d{8}$/.test(phone)) throw bad('PhoneNumber');
    if (String(body.PartyA) !== phone) throw bad('PartyA');
    if (body.TransactionType === 'CustomerPayBillOnline' && String(body.PartyB) !== this.opts.shortCode)
      throw bad('PartyB');
    let cb: URL;
    try {
      cb = new URL(String(body.CallBackURL ?? ''));
    } catch {
      throw bad('CallBackURL');
    }
    if (!/^https?:$/.test(cb.protocol)) throw bad('CallBackURL');
    const ref = String(body.AccountReference ?? '');
    if (!ref || ref.length > 12) throw bad('AccountReference');
    if (String(body.TransactionDesc ?? '').length > 182)
      throw new ApiError(400, '400.002.02', 'Bad Request - Invalid TransactionDesc');
    for (const s of this.stk.values()) {
      this.lapse(s);
      if (s.phone === phone && s.state === 'processing') {
        throw new ApiError(
          500,
          '500.001.1001',
          'Unable to lock subscriber, a transaction is already in process for the current subscriber',
        );
      }
    }
    const n = this.id();
    const s: Stk = {
      merchantRequestId: `29115-${34620561 + Number(n)}-1`,
      checkoutId: `ws_CO_${this.nairobi()}${n}`,
      phone,
      amount,
      callbackUrl: cb.toString(),
      accountReference: ref,
      state: 'processing',
      at: this.now(),
    };
    this.stk.set(s.checkoutId, s);
    if (this.autoAnswerMs > 0)
      setTimeout(() => s.state === 'processing' && this.approve(s.checkoutId), this.autoAnswerMs).unref();
    return {
      MerchantRequestID: s.merchantRequestId,
      CheckoutRequestID: s.checkoutId,
      ResponseCode: '0',
      ResponseDescription: 'Success. Request accepted for processing',
      CustomerMessage: 'Success. Request accepted for processing',
    };
  }

  private query(body: Record<string, unknown>) {
    this.merchant(body);
    const s = this.stk.get(String(body.CheckoutRequestID ?? ''));
    if (!s) throw bad('CheckoutRequestID');
    this.lapse(s);
    if (s.state === 'processing') throw new ApiError(500, '500.001.1001', 'The transaction is being processed');
    return {
      ResponseCode: '0',
      ResponseDescription: 'The service request has been accepted successsfully',
      MerchantRequestID: s.merchantRequestId,
      CheckoutRequestID: s.checkoutId,
      ResultCode: String(s.resultCode),
      ResultDesc: s.resultDesc,
    };
  }

  /** Decrypts a SecurityCredential (RSA PKCS#1 v1.5 type 2, unpadded by hand: Node refuses PKCS#1 private decryption). */
  private credential(b64: unknown): string | null {
    try {
      const raw = privateDecrypt(
        { key: this.privateKey, padding: constants.RSA_NO_PADDING },
        Buffer.from(String(b64), 'base64'),
      );
      if (raw[0] !== 0 || raw[1] !== 2) return null;
      const sep = raw.indexOf(0, 2);
      return sep < 10 ? null : raw.subarray(sep + 1).toString();
    } catch {
      return null;
    }
  }

  private initiatorOk(name: unknown, credential: unknown) {
    return (
      !!this.opts.initiatorName &&
      name === this.opts.initiatorName &&
      this.credential(credential) === this.opts.initiatorPassword
    );
  }

  private urls(body: Record<string, unknown>) {
    for (const k of ['ResultURL', 'QueueTimeOutURL']) {
      try {
        new URL(String(body[k] ?? ''));
      } catch {
        throw bad(k);
      }
    }
  }

  private accepted(originator: string) {
    return {
      OriginatorConversationID: originator,
      ConversationID: `AG_${this.nairobi().slice(0, 8)}_${this.id()}${Math.random().toString(16).slice(2, 14)}`,
      ResponseCode: '0',
      ResponseDescription: 'Accept the service request successfully.',
    };
  }

  private result(
    url: string,
    r: {
      originator: string;
      conversation: string;
      code: number | string;
      desc: string;
      transactionId?: string;
      params?: { Key: string; Value: unknown }[];
    },
  ) {
    const body = {
      Result: {
        ResultType: 0,
        ResultCode: r.code,
        ResultDesc: r.desc,
        OriginatorConversationID: r.originator,
        ConversationID: r.conversation,
        TransactionID: r.transactionId ?? `NLJ${this.id()}REV`,
        ...(r.params ? { ResultParameters: { ResultParameter: r.params } } : {}),
        ReferenceData: {
          ReferenceItem: {
            Key: 'QueueTimeoutURL',
            Value: 'https://internalsandbox.safaricom.co.ke/mpesa/b2cresults/v1/submit',
          },
        },
      },
    };
    this.results.set(r.originator, { url, body });
  }

  private reversal(body: Record<string, unknown>) {
    if (body.CommandID !== 'TransactionReversal') throw bad('CommandID');
    if (String(body.ReceiverParty) !== this.opts.shortCode) throw bad('ReceiverParty');
    if (String(body.RecieverIdentifierType) !== '11') throw bad('RecieverIdentifierType');
    this.urls(body);
    const s = [...this.stk.values()].find((x) => x.receipt && x.receipt === body.TransactionID);
    if (s && String(body.Amount) !== String(s.amount)) throw bad('Amount');
    const ack = this.accepted(`${this.id()}-${Math.floor(Math.random() * 1e8)}-1`);
    const out = { originator: ack.OriginatorConversationID, conversation: ack.ConversationID };
    const url = String(body.ResultURL);
    if (!this.initiatorOk(body.Initiator, body.SecurityCredential))
      this.result(url, { ...out, code: 2001, desc: 'The initiator information is invalid.' });
    else if (!s) this.result(url, { ...out, code: 'R000002', desc: 'The OriginalTransID is invalid.' });
    else if (s.reversed)
      this.result(url, { ...out, code: 'R000001', desc: 'The transaction has already been reversed.' });
    else {
      s.reversed = true;
      this.result(url, {
        ...out,
        code: 0,
        desc: 'The service request is processed successfully.',
        params: [
          { Key: 'Amount', Value: s.amount },
          { Key: 'OriginalTransactionID', Value: s.receipt },
          { Key: 'CreditPartyPublicName', Value: `${s.phone} - Test Customer` },
        ],
      });
    }
    return ack;
  }

  private payment(body: Record<string, unknown>) {
    const originator = String(body.OriginatorConversationID ?? '');
    if (!originator) throw bad('OriginatorConversationID');
    // The same OriginatorConversationID again: the first answer, nothing paid twice (our model; see the report).
    const prior = this.b2c.get(originator);
    if (prior) return prior.response;
    if (!['BusinessPayment', 'SalaryPayment', 'PromotionPayment'].includes(String(body.CommandID)))
      throw bad('CommandID');
    if (String(body.PartyA) !== (this.opts.b2cShortCode ?? this.opts.shortCode)) throw bad('PartyA');
    const phone = String(body.PartyB ?? '');
    if (!/^254[17]\d{8}$/.test(phone)) throw bad('PartyB');
    const amount = Number(body.Amount);
    if (!/^\d+$/.test(String(body.Amount)) || amount < 1) throw bad('Amount');
    this.urls(body);
    const response = this.accepted(originator);
    const out = { originator, conversation: response.ConversationID };
    const url = String(body.ResultURL);
    let paid = false;
    if (!this.initiatorOk(body.InitiatorName, body.SecurityCredential))
      this.result(url, { ...out, code: 2001, desc: 'The initiator information is invalid.' });
    else if (amount > this.b2cBalance)
      this.result(url, { ...out, code: 1, desc: 'The balance is insufficient for the transaction.' });
    else {
      this.b2cBalance -= amount;
      paid = true;
      const receipt = `NLJ${this.id()}B2C`;
      this.result(url, {
        ...out,
        code: 0,
        desc: 'The service request is processed successfully.',
        transactionId: receipt,
        params: [
          { Key: 'TransactionAmount', Value: amount },
          { Key: 'TransactionReceipt', Value: receipt },
          { Key: 'ReceiverPartyPublicName', Value: `${phone} - Test Customer` },
          { Key: 'B2CUtilityAccountAvailableFunds', Value: this.b2cBalance },
        ],
      });
    }
    this.b2c.set(originator, { response, phone, amount, paid });
    return response;
  }

  // ---- what happens outside our calls (the customer's phone, Daraja's callbacks) ---------------------------------

  /** The customer enters their PIN: the outcome follows the test phone (a phone that never answers stays processing). */
  approve(checkoutId: string) {
    const s = this.stk.get(checkoutId);
    if (!s || s.state !== 'processing') throw new Error(`not awaiting the customer: ${checkoutId}`);
    const outcome = s.phone in OUTCOME ? OUTCOME[s.phone] : OUTCOME[TEST_MSISDN]!;
    if (!outcome) return s;
    return this.finish(s, outcome.code, outcome.desc);
  }

  /** The customer dismisses the prompt. */
  cancel(checkoutId: string) {
    return this.finish(this.stk.get(checkoutId)!, 1032, 'Request cancelled by user');
  }

  /** Nobody answered the prompt in time. */
  timeout(checkoutId: string) {
    return this.finish(this.stk.get(checkoutId)!, 1037, 'DS timeout user cannot be reached');
  }

  /** A prompt nobody answered in time: Daraja ends it as 1037. */
  private lapse(s: Stk) {
    if (s.state === 'processing' && this.now().getTime() - s.at.getTime() > this.promptMs) this.timeout(s.checkoutId);
  }

  private finish(s: Stk, code: number, desc: string) {
    Object.assign(s, { state: 'done', resultCode: code, resultDesc: desc });
    if (code === 0) s.receipt = `NLJ7RT${this.id()}`;
    return s;
  }

  /** The STK callback Daraja posts to the CallBackURL for a finished push: the request as our webhook receives it. */
  callback(checkoutId: string) {
    const s = this.stk.get(checkoutId);
    if (!s || s.state !== 'done') throw new Error(`no result yet: ${checkoutId}`);
    const stkCallback: Record<string, unknown> = {
      MerchantRequestID: s.merchantRequestId,
      CheckoutRequestID: s.checkoutId,
      ResultCode: s.resultCode,
      ResultDesc: s.resultDesc,
    };
    if (s.resultCode === 0) {
      stkCallback.CallbackMetadata = {
        Item: [
          { Name: 'Amount', Value: s.amount },
          { Name: 'MpesaReceiptNumber', Value: s.receipt },
          { Name: 'Balance' },
          { Name: 'TransactionDate', Value: Number(this.nairobi(s.at)) },
          { Name: 'PhoneNumber', Value: Number(s.phone) },
        ],
      };
    }
    return delivery(s.callbackUrl, { Body: { stkCallback } });
  }

  /** The result Daraja posts to the ResultURL of a reversal or B2C request (by its OriginatorConversationID). */
  resultFor(originator: string) {
    const d = this.results.get(originator);
    if (!d) throw new Error(`no result for ${originator}`);
    return delivery(d.url, d.body);
  }

  /** The latest result posted (reversal originator ids are Daraja's own). */
  lastResult() {
    const d = [...this.results.values()].at(-1);
    if (!d) throw new Error('no result yet');
    return delivery(d.url, d.body);
  }
}
