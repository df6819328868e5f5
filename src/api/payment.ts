// Payment-method calls.
import { api } from './client.ts';
import type { MoneyStep, PaymentMethod, PayOrderBody, PayOrderResult } from '../contract/payments.ts';

export type { MoneyStep, PaymentMethod };

/** GET cdb/payment/method/list?qrcode — the methods for the cabinet's currency (or ?currency for a wallet). */
export function listPaymentMethods(qrcode: string, currency?: string): Promise<PaymentMethod[]> {
  return api.get<PaymentMethod[]>('cdb/payment/method/list', { query: qrcode ? { qrcode } : { currency: currency ?? '' } });
}

/** POST cdb/payment/stripe/multicurrency/payOrder (payType FK): pay what a failed deduction left on an order. */
export function payOrder(body: PayOrderBody, idempotencyKey: string): Promise<PayOrderResult> {
  return api.post<PayOrderResult>('cdb/payment/stripe/multicurrency/payOrder', { body, idempotencyKey });
}

/** GET cdb/order/money?orderId — the order's money timeline (held, captured, released, refunded, charged). */
export function moneyTimeline(orderId: string): Promise<MoneyStep[]> {
  return api.get<MoneyStep[]>('cdb/order/money', { query: { orderId } });
}
