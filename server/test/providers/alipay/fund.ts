// The Alipay test server's funds (alipay.fund.*: pre-authorisation query, unfreeze, cancel; transfers); see
// ../alipay.ts.
import { AlipayTrades } from './trade.ts';
import { business, chinaTime, fen, invalid, missing, yuan, type Call } from './model.ts';

export abstract class AlipayFunds extends AlipayTrades {
  protected fundCall(method: string, { p, b, str, need, app }: Call): Record<string, unknown> | undefined {
    switch (method) {
      case 'alipay.fund.auth.operation.detail.query': {
        const a = this.findAuth(str('auth_no'), str('out_order_no'));
        const op = str('out_request_no') ?? str('operation_id');
        if (op && op !== a.outRequestNo && op !== a.operationId)
          throw business('AUTH_OPERATION_NOT_EXIST', '支付宝资金操作流水不存在');
        return {
          auth_no: a.authNo,
          out_order_no: a.outOrderNo,
          order_status: a.orderStatus,
          total_freeze_amount: yuan(a.frozen),
          rest_amount: yuan(a.rest),
          total_pay_amount: yuan(a.paid),
          order_title: a.title,
          payer_logon_id: a.payer.logonId,
          payer_user_id: a.payer.userId,
          operation_id: a.operationId,
          out_request_no: a.outRequestNo,
          amount: yuan(a.frozen),
          operation_type: 'FREEZE',
          status: a.status,
          gmt_create: chinaTime(this.now()),
          gmt_trans: chinaTime(this.now()),
        };
      }
      case 'alipay.fund.auth.order.unfreeze': {
        const authNo = need('auth_no');
        const reqNo = need('out_request_no');
        const amount = fen(need('amount'));
        need('remark');
        const a = [...this.auths.values()].find((x) => x.authNo === authNo);
        if (!a) throw business('AUTH_ORDER_NOT_EXIST', '授权单不存在');
        const answer = () => ({
          auth_no: a.authNo,
          out_order_no: a.outOrderNo,
          operation_id: this.id('2018', 20),
          out_request_no: reqNo,
          amount: yuan(a.unfreezes.get(reqNo) ?? 0),
          status: 'SUCCESS',
          gmt_trans: chinaTime(this.now()),
        });
        if (a.unfreezes.has(reqNo)) return answer();
        if (a.orderStatus === 'FINISH') throw business('ORDER_ALREADY_FINISH', '授权订单已经完结，无法再进行资金操作');
        if (a.orderStatus === 'CLOSED') throw business('ORDER_ALREADY_CLOSED', '授权订单已经关闭，无法再进行资金操作');
        if (amount === null || amount < 1 || amount > a.rest)
          throw business('REQUEST_AMOUNT_EXCEED', '请求解冻金额超限');
        a.rest -= amount;
        a.unfrozen += amount;
        a.unfreezes.set(reqNo, amount);
        if (a.rest === 0) a.orderStatus = a.paid > 0 ? 'FINISH' : 'CLOSED';
        return answer();
      }
      case 'alipay.fund.auth.operation.cancel': {
        const outOrderNo = str('out_order_no');
        need('remark');
        const a = outOrderNo ? this.auths.get(outOrderNo) : undefined;
        if (a && a.status === 'SUCCESS') {
          // A cancel after a freeze unfreezes it (Alipay allows this within its window).
          a.unfrozen += a.rest;
          a.rest = 0;
          a.orderStatus = 'CLOSED';
          a.status = 'CLOSED';
        } else if (outOrderNo) {
          this.cancelled.add(outOrderNo);
        }
        return { out_order_no: outOrderNo, out_request_no: str('out_request_no'), action: a ? 'unfreeze' : 'close' };
      }
      case 'alipay.fund.trans.uni.transfer': {
        if (!app.appCertSn || p.app_cert_sn !== app.appCertSn || p.alipay_root_cert_sn !== app.alipayRootCertSn) {
          throw invalid('isv.invalid-app-cert-sn', '该接口仅支持公钥证书方式调用，应用公钥证书序列号无效');
        }
        const outBizNo = need('out_biz_no');
        const amount = fen(need('trans_amount'));
        if (str('product_code') !== 'TRANS_ACCOUNT_NO_PWD' || str('biz_scene') !== 'DIRECT_TRANSFER')
          throw business('INVALID_PARAMETER', '参数有误 product_code/biz_scene');
        need('order_title');
        const payee = b.payee_info as { identity?: string; identity_type?: string; name?: string } | undefined;
        if (!payee?.identity || !payee.identity_type) throw missing('payee_info');
        const prior = this.transfers.get(outBizNo);
        if (prior) return prior.answer;
        if (amount === null || amount < 10) throw business('EXCEED_LIMIT_SM_MIN_AMOUNT', '单笔最低转账金额0.1元');
        const who =
          payee.identity_type === 'ALIPAY_USER_ID'
            ? [...this.payees.values()].find((x) => x.userId === payee.identity)
            : this.payees.get(payee.identity);
        if (!who) throw business('PAYEE_NOT_EXIST', '收款账号不存在或姓名有误');
        if (payee.identity_type === 'ALIPAY_LOGON_ID' && payee.name !== who.name)
          throw business('PAYEE_USER_INFO_ERROR', '支付宝账号和姓名不匹配');
        if (amount > this.merchantBalance) throw business('PAYER_BALANCE_NOT_ENOUGH', '付款方余额不足');
        this.merchantBalance -= amount;
        const answer = {
          out_biz_no: outBizNo,
          order_id: this.id('2019', 32),
          pay_fund_order_id: this.id('2019', 32),
          status: 'SUCCESS',
          trans_date: chinaTime(this.now()),
        };
        this.transfers.set(outBizNo, { orderId: answer.order_id, amount, payee: who.userId, answer });
        return answer;
      }
      default:
        return undefined;
    }
  }
}
