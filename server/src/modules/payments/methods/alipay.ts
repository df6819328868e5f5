// Alipay (支付宝) through the Alipay Open Platform gateway (OpenAPI 2.0, alipay.trade.* and alipay.fund.auth.*), for
// a payment inside the Alipay app's browser / mini program (ALIPAY), or from a phone's other browsers (ALIPAY_WAP). Every call is one form POST to the gateway
// (https://openapi.alipay.com/gateway.do) with the common parameters app_id, method, format=JSON, charset=utf-8,
// sign_type=RSA2, timestamp (yyyy-MM-dd HH:mm:ss, China time), version=1.0, notify_url and biz_content (the call's
// JSON); `sign` is RSA-SHA256 with the app private key over the non-empty parameters except sign, sorted by name,
// joined as `k=v&…` (raw values). The answer is {"<method with _>_response": {...}, "sign": "..."}: the signature
// covers the text of the response object exactly as received and is verified with the Alipay public key.
// Business results: code 10000 = success; 40004 (Business Failed) with sub_code ACQ.* / fund-auth codes; 40002
// Invalid Arguments (isv.invalid-signature, isv.invalid-app-id); 20000 Service Currently Unavailable.
//
//   automatic  alipay.trade.create (product_code JSAPI_PAY, buyer_id / buyer_open_id) → trade_no; the client calls
//              AlipayJSBridge / my.tradePay({tradeNO}) (resultCode 9000 = paid). status: alipay.trade.query;
//              refund: alipay.trade.refund (out_request_no = our idempotency key: a retry is the same refund).
//   WAP        alipay.trade.wap.pay (product_code QUICK_WAP_WAY, quit_url; return_url a common parameter): a page
//              method, so no server call: the phone's browser is sent to the gateway with the signed parameters
//              (GET) and Alipay opens to pay, then comes back to return_url. Charged at once (no hold). Our ref is
//              `wap:<outTradeNo>`: the trade is found by out_trade_no (Alipay numbers it only once the buyer opens it);
//              void closes it (alipay.trade.close), refund by out_trade_no.
//   manual     fund authorisation (资金预授权): the signed order string of alipay.fund.auth.order.app.freeze
//              (product_code PRE_AUTH_ONLINE) goes to the client (my.tradePay({orderStr})); status:
//              alipay.fund.auth.operation.detail.query; capture: alipay.trade.pay (auth_no, auth_confirm_mode
//              COMPLETE: the rest is unfrozen); void: alipay.fund.auth.order.unfreeze (or
//              alipay.fund.auth.operation.cancel before the customer froze anything). Our ref is `auth:<outTradeNo>`
//              (out_order_no = out_request_no = the capture's out_trade_no), so it never changes.
//   payout     alipay.fund.trans.uni.transfer (TRANS_ACCOUNT_NO_PWD, DIRECT_TRANSFER) to an Alipay login id or user
//              id; out_biz_no = our idempotency key. Alipay accepts transfers only from apps signed in public-key
//              certificate mode: the operator then sets appCertSn and alipayRootCertSn.
//   notify     the asynchronous notification: a form POST; RSA2 over the sorted parameters except sign and
//              sign_type, verified with the Alipay public key; answered 200 text/plain `success` (anything else and
//              Alipay redelivers, same notify_id).
import type {
  AdapterDefinition,
  AdapterDeps,
  Notification,
  NotificationRequest,
  StartInput,
  StartResult,
  StatusResult,
} from './adapter.ts';
import { MethodProvider } from './external.ts';
import { alipayBills } from '../settlements/alipay.ts';
import { ProviderError } from './adapter.ts';
import type { PayoutInput, Settlements } from '../provider.ts';
import { HOLD, WAP, toYuan, fromYuan, requestNo, TRADE_STATE, type Answer } from './alipay-wire.ts';
import { alipayGateway } from './alipay-api.ts';
import { readEvent } from './alipay-events.ts';
export {
  ALIPAY_GATEWAY,
  toYuan,
  fromYuan,
  chinaTime,
  signContent,
  rsa2Sign,
  rsa2Verify,
  rawJsonValue,
  requestNo,
} from './alipay-wire.ts';

export type AlipayConfig = {
  /** The Open Platform application's APPID. */
  appId: string;
  /** The application private key (PEM, PKCS#8 or PKCS#1) whose public key is uploaded to the Open Platform. */
  privateKey: string;
  /** The Alipay public key of the application (PEM): verifies answers and notifications. */
  alipayPublicKey: string;
  /** The gateway (default https://openapi.alipay.com/gateway.do; sandbox: https://openapi-sandbox.dl.alipaydev.com/gateway.do). */
  apiBase?: string;
  /** The mini program's appid when it differs from appId (op_app_id of alipay.trade.create, JSAPI_PAY). */
  opAppId?: string;
  /** Public-key certificate mode (needed by alipay.fund.trans.uni.transfer): the app certificate's SN… */
  appCertSn?: string;
  /** …and the Alipay root certificate's SN. */
  alipayRootCertSn?: string;
};

export class Alipay extends MethodProvider {
  private readonly api: ReturnType<typeof alipayGateway>;

  constructor(
    private readonly config: AlipayConfig,
    deps: AdapterDeps,
  ) {
    super(alipayDefinition, deps);
    this.api = alipayGateway(config, deps);
  }

  /** The daily trade bills of [from, to) as settlement lines (settlements/alipay.ts). */
  override settlements(from: Date, to: Date): Promise<Settlements> {
    return Promise.resolve({
      cumulative: false,
      pages: alipayBills({ call: (method, biz) => this.api.call(method, biz), fetch: this.deps.fetch }, from, to),
    });
  }

  private checkCurrency(currency: string) {
    if (currency !== 'CNY')
      throw new ProviderError('unsupported_currency', `alipay: ${currency} is not accepted (CNY only)`, 400);
  }

  async start(input: StartInput): Promise<StartResult> {
    this.checkCurrency(input.currency);
    const amount = toYuan(input.amount, input.currency);
    // Alipay's subject may not contain / = & (documented); ≤ 256 characters.
    const subject = input.description.replace(/[/=&]/g, ' ').trim().slice(0, 256) || input.outTradeNo;
    if (input.payType === 'ALIPAY_WAP') {
      if (input.capture === 'manual')
        throw new ProviderError('not_supported', 'alipay: a WAP payment charges at once (no hold)', 400);
      const params = this.api.signed(
        'alipay.trade.wap.pay',
        {
          out_trade_no: input.outTradeNo,
          total_amount: amount,
          subject,
          product_code: 'QUICK_WAP_WAY',
          quit_url: input.cancelUrl,
        },
        input.notifyUrl,
        input.returnUrl,
      );
      return {
        ref: WAP + input.outTradeNo,
        state: 'pending',
        action: { kind: 'redirect', url: `${this.api.gateway}?${new URLSearchParams(params).toString()}` },
      };
    }
    if (input.capture === 'manual') {
      // The freeze is made by the client from this signed order string; Alipay creates the authorisation order
      // when the customer confirms it (no server call until then).
      const params = this.api.signed(
        'alipay.fund.auth.order.app.freeze',
        {
          out_order_no: input.outTradeNo,
          out_request_no: input.outTradeNo,
          order_title: subject,
          amount,
          product_code: 'PRE_AUTH_ONLINE',
        },
        input.notifyUrl,
      );
      const orderStr = Object.entries(params)
        .map(([k, v]) => `${k}=${encodeURIComponent(v)}`)
        .join('&');
      return {
        ref: HOLD + input.outTradeNo,
        state: 'pending',
        action: { kind: 'jsapi', bridge: 'alipay', params: { orderStr } },
      };
    }
    const buyer = input.payer.openId;
    if (!buyer)
      throw new ProviderError(
        'missing_buyer',
        "alipay: JSAPI_PAY needs the payer's Alipay user id (payer.openId)",
        400,
      );
    const answer = await this.api.call(
      'alipay.trade.create',
      {
        out_trade_no: input.outTradeNo,
        total_amount: amount,
        subject,
        product_code: 'JSAPI_PAY',
        ...(/^2088\d{12}$/.test(buyer) ? { buyer_id: buyer } : { buyer_open_id: buyer }),
        ...(this.config.opAppId ? { op_app_id: this.config.opAppId } : {}),
      },
      input.notifyUrl,
    );
    const tradeNo = answer.trade_no;
    if (!tradeNo) throw new ProviderError('bad_response', 'alipay alipay.trade.create: no trade_no');
    return {
      ref: tradeNo,
      state: 'pending',
      action: { kind: 'jsapi', bridge: 'alipay', params: { tradeNO: tradeNo } },
    };
  }

  async status(ref: string, outTradeNo: string): Promise<StatusResult> {
    if (ref.startsWith(HOLD)) return this.holdStatus(ref);
    let answer: Answer;
    try {
      answer = await this.api.call(
        'alipay.trade.query',
        ref.startsWith(WAP) ? { out_trade_no: ref.slice(WAP.length) } : { trade_no: ref, out_trade_no: outTradeNo },
      );
    } catch (err) {
      // The trade exists at Alipay only once created (and, for some scenes, once the buyer opened it).
      if (err instanceof ProviderError && err.code === 'ACQ.TRADE_NOT_EXIST')
        return { ref, state: 'pending', failureCode: err.code };
      throw err;
    }
    let state = TRADE_STATE[answer.trade_status ?? ''] ?? 'pending';
    // TRADE_CLOSED is also a paid trade refunded in full: it has a payment date.
    if (answer.trade_status === 'TRADE_CLOSED' && answer.send_pay_date) state = 'paid';
    return {
      ref,
      state,
      amount: fromYuan(answer.total_amount, 'CNY'),
      currency: 'CNY',
      ...(state === 'cancelled' ? { failureCode: 'TRADE_CLOSED' } : {}),
    };
  }

  /** The freeze operation and its authorisation order, or undefined while Alipay has none. */
  private async authDetail(outOrderNo: string): Promise<Answer | undefined> {
    try {
      return await this.api.call('alipay.fund.auth.operation.detail.query', {
        out_order_no: outOrderNo,
        out_request_no: outOrderNo,
      });
    } catch (err) {
      if (err instanceof ProviderError && /NOT_EXIST/.test(err.code)) return undefined;
      throw err;
    }
  }

  private async holdStatus(ref: string): Promise<StatusResult> {
    const detail = await this.authDetail(ref.slice(HOLD.length));
    if (!detail || detail.status === 'INIT') return { ref, state: 'pending' };
    const paid = fromYuan(detail.total_pay_amount, 'CNY') ?? 0;
    if (paid > 0) return { ref, state: 'paid', amount: paid, currency: 'CNY' };
    if (detail.status === 'CLOSED' || detail.order_status === 'CLOSED' || detail.order_status === 'FINISH') {
      return { ref, state: 'cancelled', failureCode: detail.order_status === 'FINISH' ? 'UNFROZEN' : 'CLOSED' };
    }
    if (detail.status === 'SUCCESS')
      return { ref, state: 'authorized', amount: fromYuan(detail.rest_amount, 'CNY'), currency: 'CNY' };
    return { ref, state: 'pending' };
  }

  override async capturePayment(ref: string, amount: number): Promise<void> {
    if (!ref.startsWith(HOLD))
      throw new ProviderError('not_a_hold', 'alipay: only a fund authorisation can be captured', 400);
    if (amount === 0) return this.voidPayment(ref);
    const outOrderNo = ref.slice(HOLD.length);
    const detail = await this.authDetail(outOrderNo);
    if (!detail || detail.status !== 'SUCCESS' || !detail.auth_no)
      throw new ProviderError('AUTH_NOT_FROZEN', 'alipay: nothing is frozen for this order', 409);
    const buyer = detail.payer_user_id
      ? { buyer_id: detail.payer_user_id }
      : detail.payer_open_id
        ? { buyer_open_id: detail.payer_open_id }
        : {};
    try {
      await this.api.call('alipay.trade.pay', {
        out_trade_no: outOrderNo,
        total_amount: toYuan(amount, 'CNY'),
        subject: detail.order_title || outOrderNo,
        product_code: 'PRE_AUTH_ONLINE',
        auth_no: detail.auth_no,
        auth_confirm_mode: 'COMPLETE',
        ...buyer,
      });
    } catch (err) {
      // A retried capture: the trade of this out_trade_no is already paid.
      if (err instanceof ProviderError && err.code === 'ACQ.TRADE_HAS_SUCCESS') return;
      throw err;
    }
  }

  override async voidPayment(ref: string, call?: { idempotencyKey: string }): Promise<void> {
    if (ref.startsWith(WAP)) {
      // An unpaid WAP trade: closed so that it can no longer be paid (none yet if the buyer never opened it).
      try {
        await this.api.call('alipay.trade.close', { out_trade_no: ref.slice(WAP.length) });
      } catch (err) {
        if (!(err instanceof ProviderError && err.code === 'ACQ.TRADE_NOT_EXIST')) throw err;
      }
      return;
    }
    if (!ref.startsWith(HOLD))
      throw new ProviderError('not_a_hold', 'alipay: only a fund authorisation can be voided', 400);
    const outOrderNo = ref.slice(HOLD.length);
    const detail = await this.authDetail(outOrderNo);
    if (!detail || detail.status === 'INIT') {
      // Nothing frozen yet: close the operation so that the order string can no longer be used.
      await this.api.call('alipay.fund.auth.operation.cancel', {
        out_order_no: outOrderNo,
        out_request_no: outOrderNo,
        remark: 'cancelled',
      });
      return;
    }
    const rest = detail.rest_amount ?? '0.00';
    if (detail.status !== 'SUCCESS' || fromYuan(rest, 'CNY') === 0 || !detail.auth_no) return;
    await this.api.call('alipay.fund.auth.order.unfreeze', {
      auth_no: detail.auth_no,
      out_request_no: requestNo(call?.idempotencyKey ?? `unfreeze_${outOrderNo}`),
      amount: rest,
      remark: 'released',
    });
  }

  async refundPayment(ref: string, amount: number, call: { idempotencyKey: string }): Promise<void> {
    const which = ref.startsWith(HOLD)
      ? { out_trade_no: ref.slice(HOLD.length) }
      : ref.startsWith(WAP)
        ? { out_trade_no: ref.slice(WAP.length) }
        : { trade_no: ref };
    await this.api.call('alipay.trade.refund', {
      ...which,
      refund_amount: toYuan(amount, 'CNY'),
      out_request_no: requestNo(call.idempotencyKey),
    });
  }

  override async payout(input: PayoutInput): Promise<{ ref: string }> {
    this.checkCurrency(input.currency);
    if (input.destination.kind !== 'channel' || input.destination.channel !== 'alipay') {
      throw new ProviderError(
        'unsupported_destination',
        'alipay: payouts go to an Alipay account (channel "alipay")',
        400,
      );
    }
    const acct = input.destination.account;
    const identity = acct.userId ?? acct.loginId;
    // A login id (phone / e-mail) must come with the account holder's real name, which Alipay checks.
    if (!identity || (!acct.userId && !acct.name))
      throw new ProviderError('missing_payee', 'alipay: the payee needs loginId with name, or userId', 400);
    const answer = await this.api.call('alipay.fund.trans.uni.transfer', {
      out_biz_no: requestNo(input.idempotencyKey),
      trans_amount: toYuan(input.amount, input.currency),
      product_code: 'TRANS_ACCOUNT_NO_PWD',
      biz_scene: 'DIRECT_TRANSFER',
      order_title: acct.title ?? 'Powerly withdrawal',
      payee_info: acct.userId
        ? { identity, identity_type: 'ALIPAY_USER_ID' }
        : { identity, identity_type: 'ALIPAY_LOGON_ID', ...(acct.name ? { name: acct.name } : {}) },
    });
    if (answer.status === 'FAIL' || answer.status === 'CLOSED')
      throw new ProviderError(answer.status, 'alipay: the transfer failed', 402);
    const ref = answer.order_id ?? answer.pay_fund_order_id;
    if (!ref) throw new ProviderError('bad_response', 'alipay alipay.fund.trans.uni.transfer: no order_id');
    return { ref };
  }

  readNotification(req: NotificationRequest): Promise<Notification | null> {
    return Promise.resolve(readEvent(req, this.config));
  }

  override clientConfig(): Record<string, string> {
    return { appId: this.config.opAppId || this.config.appId };
  }
}

export const alipayDefinition: AdapterDefinition<AlipayConfig, Alipay> = {
  payoutChannel: { label: 'Alipay', fields: ['loginId', 'name'] },
  id: 'alipay',
  payTypes: [
    { type: 'ALIPAY', kind: 'jsapi', label: 'Alipay', platforms: ['alipay'] },
    { type: 'ALIPAY_WAP', kind: 'redirect', label: 'Alipay', platforms: ['mobile'], hold: false },
  ],
  capabilities: { hold: true, partialCapture: true, offSession: false, refund: true, payout: true, webhook: true },
  currencies: ['CNY'],
  required: ['appId', 'privateKey', 'alipayPublicKey'],
  optional: ['apiBase', 'opAppId', 'appCertSn', 'alipayRootCertSn'],
  // Alipay's sandbox (openapi-sandbox.dl.alipaydev.com) gives each developer generated buyer/seller accounts
  // (buyer pays with the sandbox app, payment password 111111); it documents no magic values for declines.
  testValues: [
    {
      value: 'sandbox buyer account (payment password 111111)',
      outcome: 'succeeds',
      note: 'Alipay sandbox: the buyer account shown under 沙箱账号, paying in the sandbox Alipay app',
    },
  ],
  create: (config, deps) => new Alipay(config, deps),
};
