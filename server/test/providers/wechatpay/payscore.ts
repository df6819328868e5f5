// The WeChat Pay test server's pay score (服务订单: create, query, complete, cancel); see ../wechatpay.ts.
import { randomBytes } from 'node:crypto';
import { WechatPayTransactions } from './transactions.ts';
import { ApiError, type Merchant, type ServiceOrder } from './model.ts';

export abstract class WechatPayScore extends WechatPayTransactions {
  // ---- pay score --------------------------------------------------------------------------------------------------

  protected createScore(m: Merchant, b: Record<string, unknown>, raw: string) {
    if (b.appid !== m.appId) throw new ApiError(400, 'APPID_MCHID_NOT_MATCH', 'appid和mch_id不匹配');
    if (b.service_id !== m.serviceId) throw new ApiError(403, 'NO_AUTH', '服务ID不存在或与商户号不匹配');
    const no = String(b.out_order_no ?? '');
    if (!/^[0-9A-Za-z_\-|*@]{1,32}$/.test(no)) throw new ApiError(400, 'PARAM_ERROR', 'out_order_no 格式错误');
    if (typeof b.service_introduction !== 'string' || !b.service_introduction || b.service_introduction.length > 20)
      throw new ApiError(400, 'PARAM_ERROR', 'service_introduction 长度 1-20');
    const risk = b.risk_fund as { name?: unknown; amount?: unknown; description?: unknown } | undefined;
    if (
      !risk ||
      !['DEPOSIT', 'ADVANCE', 'CASH_DEPOSIT', 'ESTIMATE_ORDER_COST'].includes(String(risk.name)) ||
      !Number.isInteger(risk.amount) ||
      (risk.amount as number) < 1
    ) {
      throw new ApiError(400, 'PARAM_ERROR', 'risk_fund 错误');
    }
    const range = b.time_range as { start_time?: unknown } | undefined;
    if (
      !range ||
      typeof range.start_time !== 'string' ||
      !(range.start_time === 'OnAccept' || /^\d{14}$/.test(range.start_time))
    )
      throw new ApiError(400, 'PARAM_ERROR', 'time_range.start_time 格式错误');
    if (b.need_user_confirm !== true && typeof b.openid !== 'string')
      throw new ApiError(400, 'PARAM_ERROR', '免确认模式需传入 openid');
    if (typeof b.notify_url !== 'string' || !/^https:\/\//.test(b.notify_url))
      throw new ApiError(400, 'PARAM_ERROR', 'notify_url 必须为 https 地址');
    const key = `${m.mchId}|${no}`;
    const prior = this.orders.get(key);
    if (prior) {
      if (prior.request !== raw) throw new ApiError(400, 'INVALID_REQUEST', '商户订单号重复');
      return this.scoreView(prior, true);
    }
    const o: ServiceOrder = {
      appid: m.appId,
      mchid: m.mchId,
      service_id: m.serviceId,
      out_order_no: no,
      service_introduction: b.service_introduction,
      state: 'CREATED',
      risk_fund: {
        name: String(risk.name),
        amount: risk.amount as number,
        ...(typeof risk.description === 'string' ? { description: risk.description } : {}),
      },
      time_range: { start_time: range.start_time },
      notify_url: b.notify_url,
      order_id: `1000000000${this.id(22)}`,
      package: randomBytes(24).toString('base64'),
      request: raw,
      ...(typeof b.openid === 'string' ? { openid: b.openid } : {}),
    };
    this.orders.set(key, o);
    return this.scoreView(o, true);
  }

  protected order(m: Merchant, no: string) {
    const o = this.orders.get(`${m.mchId}|${no}`);
    if (!o) throw new ApiError(404, 'ORDER_NOT_EXIST', '订单不存在');
    return o;
  }

  protected scoreView(o: ServiceOrder, withPackage = false) {
    return {
      appid: o.appid,
      mchid: o.mchid,
      service_id: o.service_id,
      out_order_no: o.out_order_no,
      service_introduction: o.service_introduction,
      state: o.state,
      ...(o.state_description ? { state_description: o.state_description } : {}),
      risk_fund: o.risk_fund,
      time_range: o.time_range,
      notify_url: o.notify_url,
      order_id: o.order_id,
      ...(o.openid ? { openid: o.openid } : {}),
      ...(o.total_amount === undefined
        ? {}
        : { total_amount: o.total_amount, need_collection: true, post_payments: o.post_payments }),
      ...(o.collection ? { collection: o.collection } : {}),
      ...(withPackage ? { package: o.package } : {}),
    };
  }

  protected completeScore(o: ServiceOrder, b: Record<string, unknown>) {
    if (o.state !== 'DOING' || o.state_description === 'MCH_COMPLETE')
      throw new ApiError(400, 'INVALID_REQUEST', `订单状态 ${o.state} 不允许完结`);
    const posts = b.post_payments as
      { name?: unknown; amount?: unknown; description?: unknown; count?: unknown }[] | undefined;
    if (
      !Array.isArray(posts) ||
      posts.length === 0 ||
      posts.some((x) => typeof x.name !== 'string' || !Number.isInteger(x.amount) || (x.amount as number) < 0)
    ) {
      throw new ApiError(400, 'PARAM_ERROR', 'post_payments 错误');
    }
    const sum = posts.reduce(
      (s, x) => s + (x.amount as number) * (Number.isInteger(x.count) ? (x.count as number) : 1),
      0,
    );
    if (b.total_amount !== sum) throw new ApiError(400, 'PARAM_ERROR', 'total_amount 与 post_payments 金额之和不一致');
    // The completion may be more or less than the risk fund (WeChat: 完结金额可大于、小于或等于风险金额).
    const end = (b.time_range as { end_time?: unknown } | undefined)?.end_time;
    if (end !== undefined && !/^\d{14}$/.test(String(end)))
      throw new ApiError(400, 'PARAM_ERROR', 'time_range.end_time 格式错误');
    Object.assign(o, {
      state_description: 'MCH_COMPLETE',
      total_amount: sum,
      post_payments: posts,
      time_range: { ...o.time_range, ...(end ? { end_time: end } : {}) },
      collection: { state: 'USER_PAYING', total_amount: sum, paying_amount: sum, paid_amount: 0, details: [] },
    });
    const view = this.scoreView(o);
    if (this.autoDeduct) this.deduct(o.mchid, o.out_order_no);
    return view;
  }

  /** WeChat deducts a completed pay-score order at once (set false to leave it collecting). */
  autoDeduct = true;

  protected cancelScore(o: ServiceOrder, b: Record<string, unknown>) {
    if (typeof b.reason !== 'string' || !b.reason || b.reason.length > 50)
      throw new ApiError(400, 'PARAM_ERROR', 'reason 长度 1-50');
    if (!(o.state === 'CREATED' || (o.state === 'DOING' && o.state_description !== 'MCH_COMPLETE')))
      throw new ApiError(400, 'INVALID_REQUEST', `订单状态 ${o.state} 不允许取消`);
    o.state = 'REVOKED';
    delete o.state_description;
    return {
      appid: o.appid,
      mchid: o.mchid,
      out_order_no: o.out_order_no,
      service_id: o.service_id,
      order_id: o.order_id,
    };
  }

  /** WeChat's deduction of a completed order (the customer's side: ../wechatpay.ts). */
  abstract deduct(mchId: string, outOrderNo: string): unknown;
}
