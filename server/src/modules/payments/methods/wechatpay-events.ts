// WeChat Pay's notifications read into ours (wechatpay.ts checks the platform's signature first): the resource
// decrypted with the APIv3 key, a pay-score order's or a transaction's state.
import { createDecipheriv } from 'node:crypto';
import type { Notification } from './adapter.ts';
import { ACK, SCORE, scoreState, tradeState, type ServiceOrder, type Transaction } from './wechatpay-wire.ts';

/** A verified notification's body (null: not one we can read). */
export function readEvent(rawBody: string, apiV3Key: string): Notification | null {
  let body: {
    id?: string;
    event_type?: string;
    resource?: {
      algorithm?: string;
      ciphertext: string;
      associated_data?: string;
      nonce: string;
      original_type?: string;
    };
  };
  try {
    body = JSON.parse(rawBody) as typeof body;
  } catch {
    return null;
  }
  if (!body.id || !body.resource || body.resource.algorithm !== 'AEAD_AES_256_GCM') return null;
  let data: Record<string, unknown>;
  try {
    data = JSON.parse(
      decrypt(apiV3Key, body.resource.nonce, body.resource.associated_data ?? '', body.resource.ciphertext),
    ) as Record<string, unknown>;
  } catch {
    return null;
  }
  const type = body.event_type ?? '';
  if (type.startsWith('PAYSCORE.')) {
    const o = data as unknown as ServiceOrder;
    const state = scoreState(o);
    const amount = state === 'paid' ? (o.collection?.paid_amount ?? o.total_amount) : o.risk_fund?.amount;
    return {
      eventId: body.id,
      outTradeNo: o.out_order_no,
      ref: SCORE + o.out_order_no,
      state,
      ...(amount === undefined ? {} : { amount, currency: 'CNY' }),
      ack: ACK,
    };
  }
  if (type.startsWith('TRANSACTION.')) {
    const t = data as unknown as Transaction;
    const { state } = tradeState(t);
    return {
      eventId: body.id,
      outTradeNo: t.out_trade_no,
      ref: t.out_trade_no,
      state,
      ...(t.amount?.total === undefined ? {} : { amount: t.amount.total, currency: t.amount.currency ?? 'CNY' }),
      ack: ACK,
    };
  }
  // REFUND.SUCCESS / REFUND.ABNORMAL / REFUND.CLOSED and anything new: acknowledged, the payment's state unchanged.
  const outTradeNo = typeof data.out_trade_no === 'string' ? data.out_trade_no : undefined;
  return { eventId: body.id, ...(outTradeNo ? { outTradeNo, ref: outTradeNo } : {}), ack: ACK };
}

/** AEAD_AES_256_GCM as WeChat Pay uses it: base64(ciphertext ‖ 16-byte tag), nonce and associated data as UTF-8. */
function decrypt(apiV3Key: string, iv: string, aad: string, ciphertext: string): string {
  const buf = Buffer.from(ciphertext, 'base64');
  const d = createDecipheriv('aes-256-gcm', Buffer.from(apiV3Key), Buffer.from(iv));
  d.setAuthTag(buf.subarray(buf.length - 16));
  d.setAAD(Buffer.from(aad));
  return Buffer.concat([d.update(buf.subarray(0, buf.length - 16)), d.final()]).toString('utf8');
}
