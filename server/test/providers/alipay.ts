// An Alipay Open Platform gateway test server (test tree only, never shipped): the part of OpenAPI 2.0
// (gateway.do) the alipay adapter uses, modelled from Alipay's documentation —
//   requests   one form POST per call: app_id, method, format=JSON, charset, sign_type=RSA2, timestamp
//              ("yyyy-MM-dd HH:mm:ss", China time, refused when more than 15 minutes off), version=1.0, notify_url,
//              biz_content; `sign` = RSA-SHA256 (the app's key) over the sorted non-empty parameters except sign.
//   answers    {"<method>_response": {code, msg, sub_code?, sub_msg?, ...}, "sign": "..."} — signed with the Alipay
//              key over the response object's text exactly as written (this server escapes `/` as `\/`, as the
//              gateway does, so a verifier that re-serialises fails); an unknown app_id gets an unsigned
//              {"error_response": {code 40002, sub_code isv.invalid-app-id}}; a bad signature → 40002
//              isv.invalid-signature; a missing parameter → 40001; business failures → 40004 with ACQ.* codes.
//   trades     alipay.trade.create (JSAPI_PAY: buyer_id / buyer_open_id; the same out_trade_no with the same
//              content answers the same trade, else ACQ.CONTEXT_INCONSISTENT; paid → ACQ.TRADE_HAS_SUCCESS; closed →
//              ACQ.TRADE_HAS_CLOSE) → WAIT_BUYER_PAY → TRADE_SUCCESS (customer pays) | TRADE_CLOSED (timeout, or a
//              full refund); alipay.trade.query (ACQ.TRADE_NOT_EXIST); alipay.trade.refund (out_request_no: the same
//              number answers the first result with fund_change N; more than is left → ACQ.REFUND_AMT_NOT_EQUAL_TOTAL;
//              an unpaid trade → ACQ.TRADE_STATUS_ERROR); alipay.trade.close (an unpaid trade → TRADE_CLOSED; a paid
//              one → ACQ.TRADE_STATUS_ERROR).
//   WAP        alipay.trade.wap.pay is a page: the phone's browser opens the gateway with the signed parameters
//              (QUICK_WAP_WAY, return_url); openWap() is that visit (signature checked) and makes the trade, which
//              the buyer then pays as any other.
//   holds      the client's alipay.fund.auth.order.app.freeze order string (signature checked as the gateway
//              does) → an authorisation order (INIT → AUTHORIZED, operation SUCCESS; insufficient balance leaves
//              nothing frozen); alipay.fund.auth.operation.detail.query; alipay.trade.pay with auth_no
//              (PRE_AUTH_ONLINE, ≤ rest; auth_confirm_mode COMPLETE unfreezes the rest → FINISH);
//              alipay.fund.auth.order.unfreeze (≤ rest); alipay.fund.auth.operation.cancel (before a freeze).
//   transfers  alipay.fund.trans.uni.transfer (TRANS_ACCOUNT_NO_PWD / DIRECT_TRANSFER; certificate mode: app_cert_sn
//              and alipay_root_cert_sn required; payee by ALIPAY_LOGON_ID + name or ALIPAY_USER_ID; PAYEE_NOT_EXIST,
//              PAYEE_USER_INFO_ERROR, PAYER_BALANCE_NOT_ENOUGH; the same out_biz_no answers the same order).
//   notify     asynchronous notifications (form-encoded, RSA2 over the sorted parameters except sign and
//              sign_type, with the Alipay key), kept in `notifications`; redelivered with the same notify_id.
// The customer's side (the Alipay app) is simulated by pay(), freeze(), expire().
import { AlipayFunds } from './alipay/fund.ts';
import { randomBytes } from 'node:crypto';
import { chinaTime, content, fen, sign, verify, yuan, type AuthOrder, type Trade } from './alipay/model.ts';

export { makeKeys, type Buyer } from './alipay/model.ts';

export class FakeAlipay extends AlipayFunds {
  // ---- the customer's side ----

  /**
   * The customer pays the trade in the Alipay app (my.tradePay({tradeNO})). Answers the client's resultCode:
   * 9000 paid, 6001 the customer cancelled, 4000 failed (e.g. the balance is too low: the trade stays unpaid).
   */
  pay(tradeNo: string, opts: { cancel?: boolean } = {}): '9000' | '6001' | '4000' {
    const t = this.trades.get(tradeNo);
    if (!t || t.status !== 'WAIT_BUYER_PAY') return '4000';
    if (opts.cancel) return '6001';
    const buyer = this.buyers.get(t.buyerId ?? '');
    if (!buyer || buyer.balance < t.total) return '4000';
    buyer.balance -= t.total;
    t.status = 'TRADE_SUCCESS';
    t.paidAt = this.now();
    this.tradeNotify(t);
    return '9000';
  }

  /**
   * The phone's browser opens a WAP payment page (GET gateway?<signed alipay.trade.wap.pay parameters>) and the
   * buyer signs in: the trade is made (WAIT_BUYER_PAY). Answers its trade_no, or null when the gateway refuses the
   * page (bad signature, not QUICK_WAP_WAY, no return_url).
   */
  openWap(url: string, buyerUserId = '2088102146225135'): string | null {
    const p: Record<string, string> = {};
    for (const [k, v] of new URL(url).searchParams) p[k] = v;
    const app = this.apps.get(p.app_id ?? '');
    if (
      !app ||
      p.method !== 'alipay.trade.wap.pay' ||
      !p.sign ||
      !p.return_url ||
      !verify(content(p, ['sign']), p.sign, app.publicKey)
    )
      return null;
    const b = JSON.parse(p.biz_content ?? '{}') as Record<string, string>;
    const total = fen(b.total_amount ?? '');
    const buyer = this.buyers.get(buyerUserId);
    if (b.product_code !== 'QUICK_WAP_WAY' || !b.out_trade_no || !b.subject || total === null || total < 1 || !buyer)
      return null;
    const prior = [...this.trades.values()].find((t) => t.outTradeNo === b.out_trade_no);
    if (prior) return prior.tradeNo;
    const trade: Trade = {
      tradeNo: this.id(`${chinaTime(this.now()).slice(0, 10).replaceAll('-', '')}22`, 28),
      outTradeNo: b.out_trade_no,
      status: 'WAIT_BUYER_PAY',
      total,
      refunded: 0,
      subject: b.subject,
      buyerId: buyer.userId,
      buyerOpenId: buyer.openId,
      notifyUrl: p.notify_url,
      created: this.now(),
      refunds: new Map(),
      bizHash: `${total}|${b.subject}|${buyer.userId}`,
    };
    this.trades.set(trade.tradeNo, trade);
    return trade.tradeNo;
  }

  /** Closes the unpaid trades older than timeoutMs (Alipay's timeout_express) and notifies TRADE_CLOSED. */
  expire() {
    for (const t of this.trades.values()) {
      if (t.status === 'WAIT_BUYER_PAY' && this.now() - t.created >= this.timeoutMs) {
        t.status = 'TRADE_CLOSED';
        this.tradeNotify(t);
      }
    }
  }

  /**
   * The customer confirms a fund authorisation order string in the Alipay app (my.tradePay({orderStr})): the
   * gateway checks its signature, then freezes the amount from the buyer's balance. resultCode as pay().
   */
  freeze(orderStr: string, buyerUserId = '2088102146225135'): '9000' | '4000' | '6001' {
    const p: Record<string, string> = {};
    for (const [k, v] of new URLSearchParams(orderStr)) p[k] = v;
    const app = this.apps.get(p.app_id ?? '');
    if (
      !app ||
      p.method !== 'alipay.fund.auth.order.app.freeze' ||
      !p.sign ||
      !verify(content(p, ['sign']), p.sign, app.publicKey)
    )
      return '4000';
    const b = JSON.parse(p.biz_content ?? '{}') as Record<string, string>;
    if (b.product_code !== 'PRE_AUTH_ONLINE' || !b.out_order_no || !b.out_request_no || !b.order_title) return '4000';
    if (this.cancelled.has(b.out_order_no)) return '4000';
    const amount = fen(b.amount);
    const buyer = this.buyers.get(buyerUserId);
    if (!buyer || amount === null || amount < 1) return '4000';
    const existing = this.auths.get(b.out_order_no);
    if (existing && existing.status === 'SUCCESS') return '9000';
    const a: AuthOrder = existing ?? {
      authNo: this.id(`${chinaTime(this.now()).slice(0, 10).replaceAll('-', '')}10002001`, 28),
      outOrderNo: b.out_order_no,
      outRequestNo: b.out_request_no,
      operationId: this.id('2018', 20),
      title: b.order_title,
      orderStatus: 'INIT',
      status: 'INIT',
      frozen: 0,
      rest: 0,
      paid: 0,
      unfrozen: 0,
      payer: buyer,
      notifyUrl: p.notify_url,
      unfreezes: new Map(),
    };
    this.auths.set(a.outOrderNo, a);
    if (buyer.balance < amount) return '4000';
    buyer.balance -= amount;
    Object.assign(a, { status: 'SUCCESS', orderStatus: 'AUTHORIZED', frozen: amount, rest: amount });
    this.notify(a.notifyUrl, {
      notify_type: 'fund_auth_freeze',
      auth_no: a.authNo,
      out_order_no: a.outOrderNo,
      operation_id: a.operationId,
      out_request_no: a.outRequestNo,
      operation_type: 'FREEZE',
      amount: yuan(amount),
      status: 'SUCCESS',
      gmt_create: chinaTime(this.now()),
      gmt_trans: chinaTime(this.now()),
      payer_logon_id: buyer.logonId,
      payer_user_id: buyer.userId,
      total_freeze_amount: yuan(a.frozen),
      total_unfreeze_amount: yuan(a.unfrozen),
      total_pay_amount: yuan(a.paid),
      rest_amount: yuan(a.rest),
    });
    return '9000';
  }

  // ---- notifications ----

  protected tradeNotify(t: Trade) {
    this.notify(t.notifyUrl, {
      notify_type: 'trade_status_sync',
      trade_no: t.tradeNo,
      out_trade_no: t.outTradeNo,
      buyer_id: t.buyerId ?? '',
      trade_status: t.status,
      total_amount: yuan(t.total),
      receipt_amount: t.paidAt ? yuan(t.total) : '',
      subject: t.subject,
      gmt_create: chinaTime(t.created),
      gmt_payment: t.paidAt ? chinaTime(t.paidAt) : '',
    });
  }

  /** A notification as Alipay sends it: common fields, then the form body signed with the Alipay key. */
  signNotification(
    fields: Record<string, string>,
    appId = [...this.apps.keys()][0] ?? '',
    opts: { keepSignType?: boolean } = {},
  ): { body: string; notifyId: string } {
    const notifyId = fields.notify_id ?? randomBytes(16).toString('hex');
    const p: Record<string, string> = {
      notify_time: chinaTime(this.now()),
      notify_id: notifyId,
      app_id: appId,
      charset: 'utf-8',
      version: '1.0',
      ...fields,
    };
    for (const k of Object.keys(p)) if (p[k] === '') delete p[k];
    p.sign_type = 'RSA2';
    // keepSignType: signed with sign_type in the string (Alipay's SDKs accept both forms: rsaCheckV1 / rsaCheckV2).
    p.sign = sign(content(p, opts.keepSignType ? ['sign'] : ['sign', 'sign_type']), this.alipayKeys.privateKey);
    return { body: new URLSearchParams(p).toString(), notifyId };
  }

  private notify(url: string | undefined, fields: Record<string, string>) {
    const n = this.signNotification(fields);
    this.notifications.push({ url, ...n });
  }

  /** The last notification (the test delivers it to the adapter, and may deliver it again). */
  lastNotification() {
    const n = this.notifications.at(-1);
    if (!n) throw new Error('no notification sent');
    return n;
  }
}
