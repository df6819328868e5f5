// The Alipay test server's trades (alipay.trade.*: create, close, query, refund, the pre-authorised pay) and the
// bill download URL; see ../alipay.ts.
import { AlipayCore } from './core.ts';
import { business, chinaTime, fen, yuan, type Call, type Trade } from './model.ts';

export abstract class AlipayTrades extends AlipayCore {
  protected tradeCall(method: string, { p, b, str, need }: Call): Record<string, unknown> | undefined {
    switch (method) {
      case 'alipay.trade.create': {
        const outTradeNo = need('out_trade_no');
        const total = fen(need('total_amount'));
        if (total === null || total < 1) throw business('ACQ.INVALID_PARAMETER', '参数无效 total_amount');
        const subject = need('subject');
        const buyerId = str('buyer_id');
        const buyerOpenId = str('buyer_open_id');
        if (!buyerId && !buyerOpenId)
          throw business('ACQ.INVALID_PARAMETER', '参数无效 buyer_id 和 buyer_open_id 不能同时为空');
        const buyer = [...this.buyers.values()].find((x) => x.userId === buyerId || x.openId === buyerOpenId);
        if (!buyer) throw business('ACQ.INVALID_PARAMETER', '买家不存在');
        if (buyer.forbidden) throw business('ACQ.BUYER_ENABLE_STATUS_FORBID', '买家状态非法');
        const bizHash = `${total}|${subject}|${buyer.userId}`;
        const prior = [...this.trades.values()].find((t) => t.outTradeNo === outTradeNo);
        if (prior) {
          if (prior.status === 'TRADE_SUCCESS' || prior.status === 'TRADE_FINISHED')
            throw business('ACQ.TRADE_HAS_SUCCESS', '交易已被支付');
          if (prior.status === 'TRADE_CLOSED') throw business('ACQ.TRADE_HAS_CLOSE', '交易已经关闭');
          if (prior.bizHash !== bizHash) throw business('ACQ.CONTEXT_INCONSISTENT', '交易信息被篡改');
          return { out_trade_no: outTradeNo, trade_no: prior.tradeNo };
        }
        const trade: Trade = {
          tradeNo: this.id(`${chinaTime(this.now()).slice(0, 10).replaceAll('-', '')}22`, 28),
          outTradeNo,
          status: 'WAIT_BUYER_PAY',
          total,
          refunded: 0,
          subject,
          buyerId: buyer.userId,
          buyerOpenId: buyer.openId,
          notifyUrl: p.notify_url,
          created: this.now(),
          refunds: new Map(),
          bizHash,
        };
        this.trades.set(trade.tradeNo, trade);
        return { out_trade_no: outTradeNo, trade_no: trade.tradeNo };
      }
      case 'alipay.data.dataservice.bill.downloadurl.query': {
        const r = this.bills.query(b);
        if ('fail' in r) throw business(...r.fail);
        return { bill_download_url: r.url };
      }
      case 'alipay.trade.close': {
        const t = this.findTrade(str('trade_no'), str('out_trade_no'));
        if (t.status !== 'WAIT_BUYER_PAY') throw business('ACQ.TRADE_STATUS_ERROR', '交易状态不合法');
        t.status = 'TRADE_CLOSED';
        return { trade_no: t.tradeNo, out_trade_no: t.outTradeNo };
      }
      case 'alipay.trade.query': {
        const t = this.findTrade(str('trade_no'), str('out_trade_no'));
        return {
          trade_no: t.tradeNo,
          out_trade_no: t.outTradeNo,
          trade_status: t.status,
          total_amount: yuan(t.total),
          buyer_user_id: t.buyerId,
          buyer_open_id: t.buyerOpenId,
          ...(t.paidAt ? { send_pay_date: chinaTime(t.paidAt), receipt_amount: yuan(t.total) } : {}),
        };
      }
      case 'alipay.trade.refund': {
        const t = this.findTrade(str('trade_no'), str('out_trade_no'));
        const amount = fen(need('refund_amount'));
        if (amount === null || amount < 1) throw business('ACQ.INVALID_PARAMETER', '参数无效 refund_amount');
        const reqNo = str('out_request_no') ?? t.outTradeNo;
        const done = t.refunds.get(reqNo);
        if (done) return { ...done.answer, fund_change: 'N' };
        if (t.status !== 'TRADE_SUCCESS' && !(t.status === 'TRADE_CLOSED' && t.paidAt))
          throw business('ACQ.TRADE_STATUS_ERROR', '交易状态不合法');
        if (amount > t.total - t.refunded) {
          throw business('ACQ.REFUND_AMT_NOT_EQUAL_TOTAL', '退款金额超限', {
            out_trade_no: t.outTradeNo,
            refund_fee: yuan(t.refunded),
            send_back_fee: '0.00',
          });
        }
        t.refunded += amount;
        if (t.refunded === t.total) t.status = 'TRADE_CLOSED';
        const answer = {
          trade_no: t.tradeNo,
          out_trade_no: t.outTradeNo,
          buyer_logon_id: 'buy***@sandbox.com',
          fund_change: 'Y',
          refund_fee: yuan(t.refunded),
          send_back_fee: yuan(amount),
          gmt_refund_pay: chinaTime(this.now()),
        };
        t.refunds.set(reqNo, { amount, answer });
        return answer;
      }
      case 'alipay.trade.pay': {
        const outTradeNo = need('out_trade_no');
        const total = fen(need('total_amount'));
        need('subject');
        const authNo = str('auth_no');
        if (str('product_code') !== 'PRE_AUTH_ONLINE' || !authNo)
          throw business('ACQ.INVALID_PARAMETER', '参数无效 (this server models only the pre-authorisation payment)');
        if (total === null || total < 1) throw business('ACQ.INVALID_PARAMETER', '参数无效 total_amount');
        const prior = [...this.trades.values()].find((t) => t.outTradeNo === outTradeNo);
        if (prior)
          throw business(
            prior.status === 'TRADE_CLOSED' ? 'ACQ.TRADE_HAS_CLOSE' : 'ACQ.TRADE_HAS_SUCCESS',
            '交易已被支付',
          );
        const auth = [...this.auths.values()].find((a) => a.authNo === authNo);
        if (!auth || auth.status === 'INIT') throw business('ACQ.AUTH_NO_ERROR', '预授权号错误或状态不对');
        if (auth.orderStatus === 'FINISH') throw business('ACQ.AUTH_ORDER_HAS_FINISHED', '预授权订单已经完结');
        if (auth.orderStatus === 'CLOSED') throw business('ACQ.AUTH_ORDER_HAS_CLOSED', '预授权订单已关闭');
        const buyer = str('buyer_id') ?? str('buyer_open_id');
        if (buyer && buyer !== auth.payer.userId && buyer !== auth.payer.openId)
          throw business('ACQ.TRADE_BUYER_NOT_MATCH', '交易买家不匹配');
        if (total > auth.rest) throw business('ACQ.AUTH_AMOUNT_NOT_ENOUGH', '授权金额不足');
        auth.rest -= total;
        auth.paid += total;
        if (str('auth_confirm_mode') === 'COMPLETE') {
          auth.unfrozen += auth.rest;
          auth.rest = 0;
        }
        if (auth.rest === 0) auth.orderStatus = 'FINISH';
        const trade: Trade = {
          tradeNo: this.id(`${chinaTime(this.now()).slice(0, 10).replaceAll('-', '')}22`, 28),
          outTradeNo,
          status: 'TRADE_SUCCESS',
          total,
          refunded: 0,
          subject: need('subject'),
          buyerId: auth.payer.userId,
          buyerOpenId: auth.payer.openId,
          notifyUrl: p.notify_url,
          created: this.now(),
          paidAt: this.now(),
          authNo,
          refunds: new Map(),
          bizHash: '',
        };
        this.trades.set(trade.tradeNo, trade);
        this.tradeNotify(trade);
        return {
          trade_no: trade.tradeNo,
          out_trade_no: outTradeNo,
          total_amount: yuan(total),
          receipt_amount: yuan(total),
          gmt_payment: chinaTime(this.now()),
          buyer_user_id: auth.payer.userId,
        };
      }
      default:
        return undefined;
    }
  }
}
