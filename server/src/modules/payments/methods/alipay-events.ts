// Alipay's asynchronous notifications read into ours: the form's RSA2 signature verified with the Alipay public key,
// then a fund authorisation's or a trade's state.
import type { ExternalState, Notification, NotificationRequest } from './adapter.ts';
import type { AlipayConfig } from './alipay.ts';
import { HOLD, TRADE_STATE, fromYuan, rsa2Verify, signContent } from './alipay-wire.ts';

/** A notification's form: its signature (either documented content), then what it says about which payment. */
export function readEvent(req: NotificationRequest, config: AlipayConfig): Notification | null {
  const p: Record<string, string> = {};
  for (const [k, v] of new URLSearchParams(req.rawBody)) p[k] = v;
  const sign = p.sign;
  if (!sign || !p.notify_id) return null;
  if (p.sign_type && p.sign_type !== 'RSA2') return null;
  // Documented: the parameters except sign and sign_type. Some notification types (e.g. the fund authorisation
  // ones, per Alipay's own SDKs, which try both) are signed with sign_type kept: the same key verifies either.
  const key = config.alipayPublicKey;
  if (!rsa2Verify(signContent(p, ['sign', 'sign_type']), sign, key) && !rsa2Verify(signContent(p, ['sign']), sign, key))
    return null;
  if (p.app_id && p.app_id !== config.appId) return null;
  const ack = { status: 200, contentType: 'text/plain', body: 'success' };
  if (p.auth_no || p.notify_type?.startsWith('fund_auth')) {
    const outTradeNo = p.out_order_no;
    // Freeze results (operation_type FREEZE) move the hold; an unfreeze or a capture is read back by status().
    const state: ExternalState | undefined =
      p.operation_type === 'FREEZE' || p.notify_type === 'fund_auth_freeze'
        ? p.status === 'SUCCESS'
          ? 'authorized'
          : p.status === 'CLOSED'
            ? 'cancelled'
            : 'pending'
        : undefined;
    return {
      eventId: p.notify_id,
      outTradeNo,
      ref: outTradeNo ? HOLD + outTradeNo : undefined,
      state,
      amount: fromYuan(p.amount, 'CNY'),
      currency: 'CNY',
      ack,
    };
  }
  const state = p.trade_status ? (TRADE_STATE[p.trade_status] ?? 'pending') : undefined;
  return {
    eventId: p.notify_id,
    outTradeNo: p.out_trade_no,
    ref: p.trade_no,
    state: p.trade_status === 'TRADE_CLOSED' && p.gmt_payment ? 'paid' : state,
    amount: fromYuan(p.total_amount, 'CNY'),
    currency: 'CNY',
    ack,
  };
}
