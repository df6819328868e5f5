// A WeChat Pay API v3 test server (test tree only, never shipped): the direct-merchant endpoints the wechatpay adapter
// calls, modelled from WeChat Pay's API v3 documentation.
//   auth        Authorization: WECHATPAY2-SHA256-RSA2048 mchid,nonce_str,signature,timestamp,serial_no; the signature
//               (SHA256-RSA over "METHOD\nurl\ntimestamp\nnonce\nbody\n") checked with the merchant's public key,
//               the serial with the merchant certificate's, the timestamp within 5 minutes → else 401 SIGN_ERROR.
//   answers     signed with the platform key: Wechatpay-Timestamp/Nonce/Serial/Signature over "ts\nnonce\nbody\n";
//               errors are {code, message} with WeChat's HTTP statuses (400 PARAM_ERROR / INVALID_REQUEST /
//               ORDER_CLOSED, 401 SIGN_ERROR, 403 OUT_TRADE_NO_USED / NOT_ENOUGH, 404 ORDER_NOT_EXIST /
//               RESOURCE_NOT_EXISTS, 500 SYSTEM_ERROR).
//   JSAPI       POST /v3/pay/transactions/jsapi (same out_trade_no + same request → the same prepay_id; a different
//               request → OUT_TRADE_NO_USED), GET …/out-trade-no/{n}?mchid=, POST …/{n}/close (204).
//               trade_state NOTPAY → SUCCESS (pay) | PAYERROR (declined, 余额不足) | CLOSED; REFUND once refunded.
//   H5          POST /v3/pay/transactions/h5: as JSAPI without payer, with scene_info.payer_client_ip and
//               scene_info.h5_info.type required (PARAM_ERROR) → h5_url (trade_type MWEB); then as JSAPI.
//   refunds     POST /v3/refund/domestic/refunds: amount.total must be the order's, refunds ≤ what is left
//               (INVALID_REQUEST), out_refund_no replays the first refund, status PROCESSING → SUCCESS.
//   pay score   POST /v3/payscore/serviceorder (CREATED + package), GET ?service_id&out_order_no&appid,
//               POST …/{n}/complete (DOING → DONE once deducted; any total, as WeChat allows more than the risk
//               fund), POST …/{n}/cancel (REVOKED).
// The customer's side (paying in WeChat, confirming the pay-score order, WeChat's deduction) are methods here, and
// notification() makes a delivery exactly as WeChat Pay sends one (AEAD_AES_256_GCM resource, platform signature).
import { createCipheriv, createHmac, randomBytes, type KeyObject } from 'node:crypto';
import { BillError } from './wechatpay-bills.ts';
import { WechatPayScore } from './wechatpay/payscore.ts';
import { ApiError, cstNow, iso, type Merchant, type Txn } from './wechatpay/model.ts';

export { merchantKeys, type Merchant } from './wechatpay/model.ts';

export class FakeWechatPay extends WechatPayScore {
  protected route(m: Merchant, method: string, url: URL, b: Record<string, unknown>, raw: string): unknown {
    const p = url.pathname;
    let r: RegExpExecArray | null;
    if (method === 'POST' && p === '/v3/pay/transactions/jsapi') return this.jsapi(m, b, raw);
    if (method === 'POST' && p === '/v3/pay/transactions/h5') {
      const scene = b.scene_info as { payer_client_ip?: unknown; h5_info?: { type?: unknown } } | undefined;
      if (typeof scene?.payer_client_ip !== 'string' || !scene.payer_client_ip)
        throw new ApiError(400, 'PARAM_ERROR', '缺少参数 scene_info.payer_client_ip');
      if (typeof scene.h5_info?.type !== 'string' || !scene.h5_info.type)
        throw new ApiError(400, 'PARAM_ERROR', '缺少参数 scene_info.h5_info.type');
      const { prepay_id } = this.jsapi(m, b, raw, 'MWEB');
      return {
        h5_url: `https://wx.tenpay.com/cgi-bin/mmpayweb-bin/checkmweb?prepay_id=${prepay_id}&package=${this.id(10)}`,
      };
    }
    if (method === 'GET' && (r = /^\/v3\/pay\/transactions\/out-trade-no\/([^/]+)$/.exec(p))) {
      if (url.searchParams.get('mchid') !== m.mchId) throw new ApiError(400, 'PARAM_ERROR', 'mchid 与请求商户号不一致');
      return this.view(this.txn(m, decodeURIComponent(r[1]!)));
    }
    if (method === 'POST' && (r = /^\/v3\/pay\/transactions\/out-trade-no\/([^/]+)\/close$/.exec(p))) {
      if (b.mchid !== m.mchId) throw new ApiError(400, 'PARAM_ERROR', 'mchid 与请求商户号不一致');
      const t = this.txn(m, decodeURIComponent(r[1]!));
      if (t.trade_state === 'SUCCESS' || t.trade_state === 'REFUND')
        throw new ApiError(400, 'ORDER_PAID', '订单已支付');
      t.trade_state = 'CLOSED';
      t.trade_state_desc = '订单已关闭';
      return null;
    }
    if (method === 'POST' && p === '/v3/refund/domestic/refunds') return this.refund(m, b, raw);
    try {
      if (method === 'GET' && p === '/v3/bill/tradebill') return this.bills.tradebill(m.mchId, url.searchParams);
      if (method === 'GET' && p === '/v3/billdownload/file') return this.bills.download(m.mchId, url.searchParams);
    } catch (e) {
      throw e instanceof BillError ? new ApiError(e.status, e.code, e.message) : e;
    }
    if (method === 'POST' && p === '/v3/payscore/serviceorder') return this.createScore(m, b, raw);
    if (method === 'GET' && p === '/v3/payscore/serviceorder') {
      const q = url.searchParams;
      if (q.get('service_id') !== m.serviceId || q.get('appid') !== m.appId)
        throw new ApiError(400, 'PARAM_ERROR', 'service_id 或 appid 错误');
      return this.scoreView(this.order(m, q.get('out_order_no') ?? ''));
    }
    if (method === 'POST' && (r = /^\/v3\/payscore\/serviceorder\/([^/]+)\/(complete|cancel)$/.exec(p))) {
      if (b.service_id !== m.serviceId || b.appid !== m.appId)
        throw new ApiError(400, 'PARAM_ERROR', 'service_id 或 appid 错误');
      const o = this.order(m, decodeURIComponent(r[1]!));
      return r[2] === 'complete' ? this.completeScore(o, b) : this.cancelScore(o, b);
    }
    throw new ApiError(404, 'RESOURCE_NOT_EXISTS', `无此接口: ${method} ${p}`);
  }

  // ---- the customer and WeChat ------------------------------------------------------------------------------------

  /** The customer pays the JSAPI order in WeChat (or it fails: declined by the bank, 余额不足). */
  pay(mchId: string, outTradeNo: string, outcome: 'succeeds' | 'declined' | 'insufficient_funds' = 'succeeds') {
    const t = this.txns.get(`${mchId}|${outTradeNo}`);
    if (!t) throw new Error(`no order ${outTradeNo}`);
    if (t.trade_state !== 'NOTPAY' && t.trade_state !== 'PAYERROR')
      throw new Error(`order ${outTradeNo} is ${t.trade_state}`);
    if (outcome === 'succeeds') {
      t.trade_state = 'SUCCESS';
      t.trade_state_desc = '支付成功';
      t.transaction_id = `42${this.id(26)}`;
      t.success_time = iso(this.now());
      this.byTransactionId.set(t.transaction_id, t);
    } else {
      t.trade_state = 'PAYERROR';
      t.trade_state_desc = outcome === 'insufficient_funds' ? '支付失败，余额不足' : '支付失败，银行卡已被冻结';
    }
    return this.view(t);
  }

  /** The customer confirms the pay-score order in WeChat (the deposit is waived): CREATED → DOING. */
  confirmScore(mchId: string, outOrderNo: string, openid = 'oUpF8uMuAJO_M2pxb1Q9zNjWeS6o') {
    const o = this.orders.get(`${mchId}|${outOrderNo}`);
    if (!o || o.state !== 'CREATED') throw new Error(`no CREATED order ${outOrderNo}`);
    Object.assign(o, { state: 'DOING', state_description: 'USER_CONFIRM', openid });
    return this.scoreView(o);
  }

  /** WeChat collects a completed pay-score order from the user: DOING/MCH_COMPLETE → DONE, a paid transaction. */
  deduct(mchId: string, outOrderNo: string) {
    const o = this.orders.get(`${mchId}|${outOrderNo}`);
    if (!o?.collection || o.state_description !== 'MCH_COMPLETE')
      throw new Error(`order ${outOrderNo} is not completed`);
    const amount = o.collection.paying_amount;
    if (amount > 0) {
      const t: Txn = {
        appid: o.appid,
        mchid: o.mchid,
        out_trade_no: `PS${this.id(20)}`,
        trade_type: 'PAYSCORE',
        trade_state: 'SUCCESS',
        trade_state_desc: '支付成功',
        description: o.service_introduction,
        notify_url: o.notify_url,
        amount: { total: amount, currency: 'CNY' },
        payer: { openid: o.openid ?? '' },
        prepay_id: '',
        transaction_id: `42${this.id(26)}`,
        success_time: iso(this.now()),
        request: '',
        refunded: 0,
      };
      this.byTransactionId.set(t.transaction_id!, t);
      o.collection.details.push({
        seq: o.collection.details.length + 1,
        amount,
        paid_type: 'NEWTON',
        paid_time: cstNow(this.now()),
        transaction_id: t.transaction_id!,
      });
    }
    Object.assign(o.collection, {
      state: 'USER_PAID',
      paying_amount: 0,
      paid_amount: o.collection.paid_amount + amount,
    });
    Object.assign(o, { state: 'DONE', state_description: 'USER_PAID' });
    return this.scoreView(o);
  }

  /** The customer never confirms: the order expires. */
  expireScore(mchId: string, outOrderNo: string) {
    const o = this.orders.get(`${mchId}|${outOrderNo}`);
    if (!o || o.state !== 'CREATED') throw new Error(`no CREATED order ${outOrderNo}`);
    o.state = 'EXPIRED';
    return this.scoreView(o);
  }

  /** The refunds a pay-score order's deductions had. */
  scoreRefunds(mchId: string, outOrderNo: string) {
    const o = this.orders.get(`${mchId}|${outOrderNo}`);
    const ids = new Set(o?.collection?.details.map((d) => d.transaction_id));
    return [...this.refunds.values()].filter((r) => ids.has(r.transaction_id));
  }

  // ---- notifications ----------------------------------------------------------------------------------------------

  /**
   * A notification delivery as WeChat Pay POSTs it: {id, create_time, resource_type, event_type, summary, resource:
   * {original_type, algorithm: AEAD_AES_256_GCM, ciphertext, associated_data, nonce}} with Wechatpay-* signature
   * headers. `signWith` signs with another key (a forger); `timestamp` backdates it.
   */
  notification(
    mchId: string,
    event:
      | { kind: 'transaction'; outTradeNo: string }
      | { kind: 'payscore'; outOrderNo: string; eventType: 'PAYSCORE.USER_CONFIRM' | 'PAYSCORE.USER_PAID' }
      | { kind: 'refund'; outRefundNo: string },
    opts: { id?: string; signWith?: KeyObject; timestamp?: number; apiV3Key?: string } = {},
  ) {
    const m = this.merchants.get(mchId)!;
    let eventType: string;
    let resource: unknown;
    let originalType: string;
    let summary: string;
    if (event.kind === 'transaction') {
      const t = this.txns.get(`${mchId}|${event.outTradeNo}`)!;
      eventType = t.trade_state === 'SUCCESS' ? 'TRANSACTION.SUCCESS' : 'TRANSACTION.' + t.trade_state;
      resource = { ...this.view(t), attach: '' };
      originalType = 'transaction';
      summary = '支付成功';
    } else if (event.kind === 'payscore') {
      const o = this.orders.get(`${mchId}|${event.outOrderNo}`)!;
      eventType = event.eventType;
      resource = this.scoreView(o);
      originalType = 'payscore';
      summary =
        event.eventType === 'PAYSCORE.USER_PAID' ? '微信支付分服务订单支付成功' : '微信支付分服务订单用户已确认';
    } else {
      const r = this.refunds.get(`${mchId}|${event.outRefundNo}`)!;
      eventType = `REFUND.${r.status === 'PROCESSING' ? 'SUCCESS' : r.status}`;
      resource = {
        mchid: mchId,
        out_trade_no: r.out_trade_no,
        transaction_id: r.transaction_id,
        out_refund_no: r.out_refund_no,
        refund_id: r.refund_id,
        refund_status: 'SUCCESS',
        amount: r.amount,
      };
      originalType = 'refund';
      summary = '退款成功';
    }
    const nonce = randomBytes(6).toString('hex'); // 12 characters, as WeChat's
    const aad = originalType;
    const cipher = createCipheriv('aes-256-gcm', Buffer.from(opts.apiV3Key ?? m.apiV3Key), Buffer.from(nonce));
    cipher.setAAD(Buffer.from(aad));
    const ct = Buffer.concat([
      cipher.update(JSON.stringify(resource), 'utf8'),
      cipher.final(),
      cipher.getAuthTag(),
    ]).toString('base64');
    const rawBody = JSON.stringify({
      id: opts.id ?? crypto.randomUUID(),
      create_time: iso(this.now()),
      resource_type: 'encrypt-resource',
      event_type: eventType,
      summary,
      resource: {
        original_type: originalType,
        algorithm: 'AEAD_AES_256_GCM',
        ciphertext: ct,
        associated_data: aad,
        nonce,
      },
    });
    return this.deliver(rawBody, opts);
  }

  /** The same notification delivered again (WeChat retries until acknowledged): same body, fresh signature. */
  redeliver(rawBody: string) {
    return this.deliver(rawBody, {});
  }

  private deliver(rawBody: string, opts: { signWith?: KeyObject; timestamp?: number }) {
    const headers = this.signatureHeaders(rawBody, opts.signWith, opts.timestamp);
    const lower: Record<string, string> = { 'content-type': 'application/json' };
    for (const [k, v] of Object.entries(headers)) lower[k.toLowerCase()] = v;
    return { headers: lower, rawBody, query: {} as Record<string, string> };
  }
}

/** The v2 HMAC-SHA256 signature check of a wxpayScoreUse queryString (what the WeChat client does). */
export function checkScoreQuery(queryString: string, apiV2Key: string): boolean {
  const q = new URLSearchParams(queryString);
  const fields = [...q.entries()].filter(([k, v]) => k !== 'sign' && v !== '').sort(([a], [b]) => (a < b ? -1 : 1));
  const s = fields.map(([k, v]) => `${k}=${v}`).join('&') + `&key=${apiV2Key}`;
  return createHmac('sha256', apiV2Key).update(s).digest('hex').toUpperCase() === q.get('sign');
}
