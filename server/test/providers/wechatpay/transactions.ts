// The WeChat Pay test server's transactions (JSAPI, H5) and domestic refunds; see ../wechatpay.ts.

import { WechatPayCore } from './core.ts';
import { ApiError, iso, type Merchant, type RefundRec, type Txn } from './model.ts';

export abstract class WechatPayTransactions extends WechatPayCore {
  // ---- JSAPI ------------------------------------------------------------------------------------------------------

  protected jsapi(m: Merchant, b: Record<string, unknown>, raw: string, tradeType: 'JSAPI' | 'MWEB' = 'JSAPI') {
    if (b.appid !== m.appId || b.mchid !== m.mchId)
      throw new ApiError(400, 'APPID_MCHID_NOT_MATCH', 'appid和mch_id不匹配');
    const no = String(b.out_trade_no ?? '');
    if (!/^[0-9A-Za-z_\-|*]{6,32}$/.test(no))
      throw new ApiError(400, 'PARAM_ERROR', '输入源"/body/out_trade_no"映射到值字段"商户订单号"字符串规则校验失败');
    if (typeof b.description !== 'string' || !b.description)
      throw new ApiError(400, 'PARAM_ERROR', '缺少参数 description');
    if (typeof b.notify_url !== 'string' || !/^https:\/\//.test(b.notify_url))
      throw new ApiError(400, 'PARAM_ERROR', 'notify_url 必须为 https 地址');
    const amount = b.amount as { total?: unknown; currency?: unknown } | undefined;
    if (!amount || !Number.isInteger(amount.total) || (amount.total as number) < 1)
      throw new ApiError(400, 'PARAM_ERROR', 'amount.total 必须为正整数(分)');
    if ((amount.currency ?? 'CNY') !== 'CNY') throw new ApiError(400, 'PARAM_ERROR', '境内商户仅支持人民币');
    const openid = tradeType === 'MWEB' ? '' : (b.payer as { openid?: unknown } | undefined)?.openid;
    if (typeof openid !== 'string' || (tradeType === 'JSAPI' && !openid))
      throw new ApiError(400, 'PARAM_ERROR', '缺少参数 payer.openid');
    const key = `${m.mchId}|${no}`;
    const prior = this.txns.get(key);
    if (prior) {
      if (prior.trade_state === 'CLOSED') throw new ApiError(400, 'ORDER_CLOSED', '订单已关闭');
      if (prior.trade_state === 'SUCCESS' || prior.trade_state === 'REFUND')
        throw new ApiError(400, 'ORDER_PAID', '订单已支付');
      if (prior.request !== raw) throw new ApiError(403, 'OUT_TRADE_NO_USED', '商户订单号重复');
      return { prepay_id: prior.prepay_id };
    }
    const t: Txn = {
      appid: m.appId,
      mchid: m.mchId,
      out_trade_no: no,
      trade_type: tradeType,
      trade_state: 'NOTPAY',
      trade_state_desc: '订单未支付',
      description: b.description,
      notify_url: b.notify_url,
      amount: { total: amount.total as number, currency: 'CNY' },
      payer: { openid },
      prepay_id: `wx${this.id(32)}`,
      request: raw,
      refunded: 0,
    };
    this.txns.set(key, t);
    return { prepay_id: t.prepay_id };
  }

  protected txn(m: Merchant, no: string) {
    const t = this.txns.get(`${m.mchId}|${no}`);
    if (!t) throw new ApiError(404, 'ORDER_NOT_EXIST', '订单不存在');
    return t;
  }

  protected view(t: Txn) {
    const paid = t.trade_state === 'SUCCESS' || t.trade_state === 'REFUND';
    return {
      appid: t.appid,
      mchid: t.mchid,
      out_trade_no: t.out_trade_no,
      trade_type: t.trade_type,
      trade_state: t.trade_state,
      trade_state_desc: t.trade_state_desc,
      ...(t.transaction_id
        ? { transaction_id: t.transaction_id, bank_type: 'OTHERS', success_time: t.success_time }
        : {}),
      payer: { openid: t.payer.openid },
      amount: {
        total: t.amount.total,
        currency: 'CNY',
        ...(paid ? { payer_total: t.amount.total, payer_currency: 'CNY' } : {}),
      },
    };
  }

  // ---- refunds ----------------------------------------------------------------------------------------------------

  protected refund(m: Merchant, b: Record<string, unknown>, raw: string) {
    const outRefundNo = String(b.out_refund_no ?? '');
    if (!/^[0-9A-Za-z_\-|*@]{1,64}$/.test(outRefundNo))
      throw new ApiError(400, 'PARAM_ERROR', 'out_refund_no 格式错误');
    const prior = this.refunds.get(`${m.mchId}|${outRefundNo}`);
    if (prior) {
      // The same out_refund_no refunds once; asking it again with other amounts is refused.
      if (prior.request !== raw)
        throw new ApiError(400, 'INVALID_REQUEST', '订单金额或退款金额与之前请求不一致，请核实后再试');
      return this.refundView(prior);
    }
    let t: Txn | undefined;
    if (typeof b.transaction_id === 'string') t = this.byTransactionId.get(b.transaction_id);
    else if (typeof b.out_trade_no === 'string') t = this.txns.get(`${m.mchId}|${b.out_trade_no}`);
    else throw new ApiError(400, 'PARAM_ERROR', 'transaction_id 和 out_trade_no 必须二选一');
    if (!t || t.mchid !== m.mchId || !t.transaction_id) throw new ApiError(404, 'RESOURCE_NOT_EXISTS', '订单不存在');
    const a = b.amount as { refund?: unknown; total?: unknown; currency?: unknown } | undefined;
    if (!a || !Number.isInteger(a.refund) || (a.refund as number) < 1 || !Number.isInteger(a.total))
      throw new ApiError(400, 'PARAM_ERROR', 'amount.refund 与 amount.total 必须为正整数(分)');
    if (a.currency !== 'CNY') throw new ApiError(400, 'PARAM_ERROR', 'amount.currency 仅支持 CNY');
    if (a.total !== t.amount.total) throw new ApiError(400, 'INVALID_REQUEST', '订单金额与原订单金额不一致');
    const left = t.amount.total - t.refunded;
    if ((a.refund as number) > left) throw new ApiError(400, 'INVALID_REQUEST', '申请退款金额超过订单可退金额');
    t.refunded += a.refund as number;
    t.trade_state = 'REFUND';
    t.trade_state_desc = '转入退款';
    const r: RefundRec = {
      refund_id: `50${this.id(27)}`,
      out_refund_no: outRefundNo,
      transaction_id: t.transaction_id,
      out_trade_no: t.out_trade_no,
      status: 'PROCESSING',
      create_time: iso(this.now()),
      amount: { total: t.amount.total, refund: a.refund as number, currency: 'CNY' },
      request: raw,
    };
    this.refunds.set(`${m.mchId}|${outRefundNo}`, r);
    return this.refundView(r);
  }

  protected refundView(r: RefundRec) {
    return {
      refund_id: r.refund_id,
      out_refund_no: r.out_refund_no,
      transaction_id: r.transaction_id,
      out_trade_no: r.out_trade_no,
      channel: 'ORIGINAL',
      user_received_account: '支付用户零钱',
      create_time: r.create_time,
      status: r.status,
      funds_account: 'AVAILABLE',
      ...(r.success_time ? { success_time: r.success_time } : {}),
      amount: {
        total: r.amount.total,
        refund: r.amount.refund,
        payer_total: r.amount.total,
        payer_refund: r.amount.refund,
        settlement_refund: r.amount.refund,
        settlement_total: r.amount.total,
        discount_refund: 0,
        currency: 'CNY',
      },
    };
  }

  /** The bank returns the refund: PROCESSING → SUCCESS. */
  settleRefunds() {
    for (const r of this.refunds.values())
      if (r.status === 'PROCESSING') Object.assign(r, { status: 'SUCCESS', success_time: iso(this.now()) });
  }

  /** Refunds of a payment (by our out_trade_no, or a pay-score order's deduction). */
  refundsOf(outTradeNo: string) {
    return [...this.refunds.values()].filter((r) => r.out_trade_no === outTradeNo);
  }
}
