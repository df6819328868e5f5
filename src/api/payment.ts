// Payment-method calls.
import { api } from './client.ts';
import type {
  MoneyStep,
  PayerBody,
  PayerResult,
  PaymentMethod,
  PayOrderBody,
  PayOrderResult,
} from '../contract/payments.ts';
import { platformOf } from '../pay/external.ts';

export type { MoneyStep, PaymentMethod };

/** GET cdb/payment/method/list?qrcode — the methods for the cabinet's currency (or ?currency for a wallet). */
export function listPaymentMethods(qrcode: string, currency?: string): Promise<PaymentMethod[]> {
  const platform = platformOf(typeof navigator === 'undefined' ? '' : navigator.userAgent);
  return api.get<PaymentMethod[]>('cdb/payment/method/list', {
    query: qrcode ? { qrcode, platform } : { currency: currency ?? '', platform },
  });
}

/** POST cdb/payment/method/payer — a method beyond the card: the payer's details as a single-use token for the paying call. */
export function payerToken(body: PayerBody): Promise<PayerResult> {
  return api.post<PayerResult>('cdb/payment/method/payer', { body });
}

/** POST cdb/payment/stripe/multicurrency/payOrder (payType FK): pay what a failed deduction left on an order. */
export function payOrder(body: PayOrderBody, idempotencyKey: string): Promise<PayOrderResult> {
  return api.post<PayOrderResult>('cdb/payment/stripe/multicurrency/payOrder', { body, idempotencyKey });
}

/** GET cdb/order/money?orderId — the order's money timeline (held, captured, released, refunded, charged). */
export function moneyTimeline(orderId: string): Promise<MoneyStep[]> {
  return api.get<MoneyStep[]>('cdb/order/money', { query: { orderId } });
}
