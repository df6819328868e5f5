// WeChat Pay API v3 for direct merchants (普通商户), paid inside the WeChat browser (WeChat_MP) or, from a phone's
// other browsers, through WeChat Pay H5 (WeChat_H5).
//
//   capture automatic  JSAPI order: POST /v3/pay/transactions/jsapi → prepay_id; the page calls
//                      WeixinJSBridge getBrandWCPayRequest with {appId, timeStamp, nonceStr, package, signType: RSA,
//                      paySign} (paySign: SHA256-RSA over "appId\ntimeStamp\nnonceStr\npackage\n").
//                      status GET /v3/pay/transactions/out-trade-no/{n}?mchid=; close POST …/{n}/close (void).
//   H5 (WeChat_H5)     POST /v3/pay/transactions/h5 (scene_info: payer_client_ip, h5_info.type Wap) → h5_url; the
//                      phone's browser goes there (with redirect_url: back to us, which checks the order: WeChat
//                      says nothing on the way back) and WeChat opens to pay. Charged at once (no hold); status and
//                      close as JSAPI (the same out-trade-no order).
//   capture manual     WeChat Pay score (微信支付分) deposit-free rental: POST /v3/payscore/serviceorder with a DEPOSIT
//                      risk fund and need_user_confirm → package; the page calls wx.openBusinessView
//                      (businessType wxpayScoreUse) whose queryString is signed with HMAC-SHA256 and the APIv2 key
//                      (the v2 signing rule: sorted k=v&…&key=KEY). Capture = complete the order (total ≤ the risk
//                      fund, checked here: WeChat itself allows more); WeChat then deducts it; void = cancel.
//   refund             POST /v3/refund/domestic/refunds (out_refund_no from our idempotency key: a retry refunds once).
//   notification       Wechatpay-Signature over "timestamp\nnonce\nbody\n" with the platform public key; `resource`
//                      decrypted with AEAD_AES_256_GCM and the APIv3 key; ack 200 {"code":"SUCCESS","message":"成功"}.
//
// Every request carries `Authorization: WECHATPAY2-SHA256-RSA2048 mchid=…,nonce_str=…,signature=…,timestamp=…,
// serial_no=…` (SHA256-RSA with the merchant key over "METHOD\nurl\ntimestamp\nnonce\nbody\n") and every successful
// answer is verified with the platform public key before it is believed.
//
// Refs: a JSAPI payment is addressed by our out_trade_no (WeChat's transaction_id exists only once paid); a pay-score
// order by `score:` + out_order_no.
import {
  ProviderError,
  type AdapterDefinition,
  type AdapterDeps,
  type Notification,
  type NotificationRequest,
  type ProviderCall,
  type StartInput,
  type StartResult,
  type StatusResult,
} from './adapter.ts';
import { MethodProvider } from './external.ts';
import { wechatpayBills } from '../settlements/wechatpay.ts';
import type { Settlements } from '../provider.ts';
import {
  SCORE,
  type Transaction,
  type ServiceOrder,
  type Refund,
  toFen,
  refundNo,
  nonce,
  cst,
  tradeState,
  scoreState,
  header,
} from './wechatpay-wire.ts';
import { v2Sign, wechatpayApi } from './wechatpay-api.ts';
import { readEvent } from './wechatpay-events.ts';
export { v2Sign } from './wechatpay-api.ts';
export { refundNo } from './wechatpay-wire.ts';

export type WechatPayConfig = {
  /** The official account (公众号) AppID the merchant id is bound to. */
  appId: string;
  mchId: string;
  /** Serial number of the merchant API certificate (商户API证书序列号). */
  serialNo: string;
  /** The merchant API private key (apiclient_key.pem). */
  privateKey: string;
  /** The 32-character APIv3 key (decrypts notifications). */
  apiV3Key: string;
  /** WeChat Pay platform public key (微信支付公钥) or the platform certificate's public key, PEM. */
  platformPublicKey: string;
  /** Its id as sent in Wechatpay-Serial (PUB_KEY_ID_… or the platform certificate serial). */
  platformSerial: string;
  /** Pay-score service id (服务ID): switches on manual capture (deposit-free rental). */
  serviceId?: string;
  /** The APIv2 key: signs the wxpayScoreUse queryString (pay score only). */
  apiV2Key?: string;
  /** API root; default https://api.mch.weixin.qq.com. */
  apiBase?: string;
};

export const wechatpayDefinition: AdapterDefinition<WechatPayConfig, WechatPay> = {
  id: 'wechatpay',
  payTypes: [
    { type: 'WeChat_MP', kind: 'jsapi', label: 'WeChat Pay', platforms: ['wechat'] },
    { type: 'WeChat_H5', kind: 'redirect', label: 'WeChat Pay', platforms: ['mobile'], hold: false },
  ],
  capabilities: { hold: true, partialCapture: true, offSession: false, refund: true, payout: false, webhook: true },
  currencies: ['CNY'],
  required: ['appId', 'mchId', 'serialNo', 'privateKey', 'apiV3Key', 'platformPublicKey', 'platformSerial'],
  optional: ['serviceId', 'apiV2Key', 'apiBase'],
  // WeChat Pay API v3 has no test cards or test accounts (the v2 sandbox "仿真测试" is not available for v3):
  // integration is tested with real small amounts. Nothing to list.
  testValues: [],
  create(config, deps) {
    return new WechatPay(config, deps);
  },
};

export class WechatPay extends MethodProvider {
  private readonly w: ReturnType<typeof wechatpayApi>;

  constructor(
    private readonly c: WechatPayConfig,
    deps: AdapterDeps,
  ) {
    super(wechatpayDefinition, deps);
    this.w = wechatpayApi(c, deps);
    if (Buffer.byteLength(c.apiV3Key) !== 32) throw new Error('wechatpay: apiV3Key must be 32 bytes');
  }

  override clientConfig() {
    return { appId: this.c.appId };
  }

  /** The daily trade bills of [from, to) as settlement lines (settlements/wechatpay.ts). */
  override settlements(from: Date, to: Date): Promise<Settlements> {
    return Promise.resolve({
      cumulative: false,
      pages: wechatpayBills(
        {
          get: (u) => this.w.call('GET', u),
          authorization: (u) => this.w.authorization('GET', u, ''),
          base: this.w.base,
          fetch: this.deps.fetch,
        },
        from,
        to,
      ),
    });
  }

  async start(input: StartInput): Promise<StartResult> {
    const fen = toFen(input.amount, input.currency);
    if (input.payType === 'WeChat_H5') return this.startH5(input, fen);
    if (input.capture === 'manual') return this.startScore(input, fen);
    if (!input.payer.openId) throw new ProviderError('missing_openid', 'WeChat JSAPI needs the payer openid', 400);
    const { prepay_id } = await this.w.call<{ prepay_id: string }>('POST', '/v3/pay/transactions/jsapi', {
      appid: this.c.appId,
      mchid: this.c.mchId,
      description: input.description.slice(0, 127),
      out_trade_no: input.outTradeNo,
      notify_url: input.notifyUrl,
      amount: { total: fen, currency: 'CNY' },
      payer: { openid: input.payer.openId },
      ...(input.payer.ip ? { scene_info: { payer_client_ip: input.payer.ip } } : {}),
    });
    if (!prepay_id) throw new ProviderError('bad_response', 'WeChat Pay answered without prepay_id');
    const timeStamp = Math.floor(this.deps.now().getTime() / 1000).toString();
    const nonceStr = nonce();
    const pkg = `prepay_id=${prepay_id}`;
    const paySign = this.w.sign(`${this.c.appId}\n${timeStamp}\n${nonceStr}\n${pkg}\n`);
    return {
      ref: input.outTradeNo,
      state: 'pending',
      action: {
        kind: 'jsapi',
        bridge: 'wechat',
        params: { appId: this.c.appId, timeStamp, nonceStr, package: pkg, signType: 'RSA', paySign },
      },
    };
  }

  /** WeChat Pay H5: the order, and the page the phone's browser opens (h5_url, coming back to returnUrl). */
  private async startH5(input: StartInput, fen: number): Promise<StartResult> {
    if (input.capture === 'manual')
      throw new ProviderError('not_supported', 'WeChat Pay H5 charges at once: no hold', 400);
    if (!input.payer.ip)
      throw new ProviderError('missing_ip', "WeChat Pay H5 needs the payer's IP address (payer_client_ip)", 400);
    const { h5_url } = await this.w.call<{ h5_url: string }>('POST', '/v3/pay/transactions/h5', {
      appid: this.c.appId,
      mchid: this.c.mchId,
      description: input.description.slice(0, 127),
      out_trade_no: input.outTradeNo,
      notify_url: input.notifyUrl,
      amount: { total: fen, currency: 'CNY' },
      scene_info: { payer_client_ip: input.payer.ip, h5_info: { type: 'Wap' } },
    });
    if (!h5_url) throw new ProviderError('bad_response', 'WeChat Pay answered without h5_url');
    const url = `${h5_url}${h5_url.includes('?') ? '&' : '?'}redirect_url=${encodeURIComponent(input.returnUrl)}`;
    return { ref: input.outTradeNo, state: 'pending', action: { kind: 'redirect', url } };
  }

  private scoreConfig(): { serviceId: string; apiV2Key: string } {
    if (!this.c.serviceId || !this.c.apiV2Key)
      throw new ProviderError('not_configured', 'WeChat Pay score needs serviceId and apiV2Key', 400);
    return { serviceId: this.c.serviceId, apiV2Key: this.c.apiV2Key };
  }

  private async startScore(input: StartInput, fen: number): Promise<StartResult> {
    const { serviceId, apiV2Key } = this.scoreConfig();
    const risk = input.deposit === undefined ? fen : toFen(input.deposit, input.currency);
    const order = await this.w.call<ServiceOrder & { package: string }>('POST', '/v3/payscore/serviceorder', {
      out_order_no: input.outTradeNo,
      appid: this.c.appId,
      service_id: serviceId,
      service_introduction: input.description.slice(0, 20),
      time_range: { start_time: 'OnAccept' },
      risk_fund: { name: 'DEPOSIT', amount: risk, description: input.description.slice(0, 30) },
      notify_url: input.notifyUrl,
      need_user_confirm: true,
      ...(input.payer.openId ? { openid: input.payer.openId } : {}),
    });
    if (!order.package) throw new ProviderError('bad_response', 'WeChat Pay score answered without package');
    const fields: Record<string, string> = {
      mch_id: this.c.mchId,
      package: order.package,
      timestamp: Math.floor(this.deps.now().getTime() / 1000).toString(),
      nonce_str: nonce(),
      sign_type: 'HMAC-SHA256',
    };
    fields.sign = v2Sign(fields, apiV2Key);
    const queryString = ['mch_id', 'package', 'timestamp', 'nonce_str', 'sign_type', 'sign']
      .map((k) => `${k}=${encodeURIComponent(fields[k]!)}`)
      .join('&');
    return {
      ref: SCORE + input.outTradeNo,
      state: 'pending',
      action: { kind: 'jsapi', bridge: 'wechat', params: { businessType: 'wxpayScoreUse', queryString } },
    };
  }

  private transaction(outTradeNo: string) {
    return this.w.call<Transaction>(
      'GET',
      `/v3/pay/transactions/out-trade-no/${encodeURIComponent(outTradeNo)}?mchid=${encodeURIComponent(this.c.mchId)}`,
    );
  }

  private serviceOrder(outOrderNo: string) {
    const { serviceId } = this.scoreConfig();
    const q = new URLSearchParams({ service_id: serviceId, out_order_no: outOrderNo, appid: this.c.appId });
    return this.w.call<ServiceOrder>('GET', `/v3/payscore/serviceorder?${q.toString()}`);
  }

  async status(ref: string, outTradeNo: string): Promise<StatusResult> {
    if (ref.startsWith(SCORE)) {
      const o = await this.serviceOrder(ref.slice(SCORE.length));
      const state = scoreState(o);
      const amount = state === 'paid' ? (o.collection?.paid_amount ?? o.total_amount) : o.risk_fund?.amount;
      return { ref, state, ...(amount === undefined ? {} : { amount, currency: 'CNY' }) };
    }
    const t = await this.transaction(ref || outTradeNo);
    const { state, failureCode } = tradeState(t);
    return {
      ref,
      state,
      ...(t.amount?.total === undefined ? {} : { amount: t.amount.total, currency: t.amount.currency ?? 'CNY' }),
      ...(failureCode ? { failureCode } : {}),
    };
  }

  /** Pay score: completes the order for `amount` (≤ the risk fund); WeChat deducts it, retrying until it succeeds. */
  override async capturePayment(ref: string, amount: number, _call: ProviderCall): Promise<void> {
    if (!ref.startsWith(SCORE))
      throw new ProviderError('not_supported', 'a WeChat JSAPI payment is captured at once', 400);
    const { serviceId } = this.scoreConfig();
    const outOrderNo = ref.slice(SCORE.length);
    const fen = toFen(amount, 'CNY');
    // WeChat lets a completion exceed the risk fund (it is a credit line, not a hold); our capture never takes more
    // than was authorised.
    const o = await this.serviceOrder(outOrderNo);
    const held = o.risk_fund?.amount ?? 0;
    if (fen > held)
      throw new ProviderError('amount_too_large', `capture ${fen} exceeds the pay-score risk fund ${held}`, 400);
    await this.w.call('POST', `/v3/payscore/serviceorder/${encodeURIComponent(outOrderNo)}/complete`, {
      appid: this.c.appId,
      service_id: serviceId,
      post_payments: [{ name: '租借费用', amount: fen, description: 'Power bank rental', count: 1 }],
      total_amount: fen,
      time_range: { end_time: cst(this.deps.now()) },
    });
  }

  /** Pay score: cancels the order (no charge); JSAPI: closes the unpaid order so it can no longer be paid. */
  override async voidPayment(ref: string, _call: ProviderCall): Promise<void> {
    if (ref.startsWith(SCORE)) {
      const { serviceId } = this.scoreConfig();
      await this.w.call('POST', `/v3/payscore/serviceorder/${encodeURIComponent(ref.slice(SCORE.length))}/cancel`, {
        appid: this.c.appId,
        service_id: serviceId,
        reason: 'Rental cancelled',
      });
      return;
    }
    await this.w.call('POST', `/v3/pay/transactions/out-trade-no/${encodeURIComponent(ref)}/close`, {
      mchid: this.c.mchId,
    });
  }

  async refundPayment(ref: string, amount: number, call: ProviderCall): Promise<void> {
    let left = toFen(amount, 'CNY');
    if (!ref.startsWith(SCORE)) {
      const t = await this.transaction(ref);
      if (t.amount?.total === undefined) throw new ProviderError('bad_response', 'WeChat Pay order without amount');
      await this.refundOne({ out_trade_no: ref }, left, t.amount.total, refundNo(call.idempotencyKey));
      return;
    }
    // A pay-score order is paid by one deduction (or more, when a first one was partial): each is a transaction.
    const o = await this.serviceOrder(ref.slice(SCORE.length));
    const paid = (o.collection?.details ?? []).filter((d) => d.transaction_id && d.amount > 0);
    const total = paid.reduce((s, d) => s + d.amount, 0);
    if (o.state !== 'DONE' || total === 0)
      throw new ProviderError(
        'not_paid',
        `WeChat Pay score order ${o.out_order_no} has nothing collected to refund`,
        400,
      );
    if (left > total) throw new ProviderError('INVALID_REQUEST', `refund ${left} exceeds the collected ${total}`, 400);
    for (const [i, d] of paid.entries()) {
      if (left <= 0) break;
      const part = Math.min(left, d.amount);
      await this.refundOne(
        { transaction_id: d.transaction_id! },
        part,
        d.amount,
        refundNo(call.idempotencyKey, paid.length > 1 ? i + 1 : 0),
      );
      left -= part;
    }
  }

  private async refundOne(
    target: { out_trade_no: string } | { transaction_id: string },
    refund: number,
    total: number,
    outRefundNo: string,
  ) {
    const r = await this.w.call<Refund>('POST', '/v3/refund/domestic/refunds', {
      ...target,
      out_refund_no: outRefundNo,
      amount: { refund, total, currency: 'CNY' },
    });
    if (r.status === 'CLOSED' || r.status === 'ABNORMAL')
      throw new ProviderError(`REFUND_${r.status}`, `WeChat Pay refund ${r.refund_id} is ${r.status}`);
  }

  async readNotification(req: NotificationRequest): Promise<Notification | null> {
    if (!this.w.verified((h) => header(req.headers, h), req.rawBody)) return null;
    return readEvent(req.rawBody, this.c.apiV3Key);
  }
}
