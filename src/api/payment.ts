// Payment-method calls.
import { api } from './client.ts';
import type { PaymentMethod } from '../contract/payments.ts';

export type { PaymentMethod };

/** GET cdb/payment/method/list?qrcode — the methods for the cabinet's currency. */
export function listPaymentMethods(qrcode: string): Promise<PaymentMethod[]> {
  return api.get<PaymentMethod[]>('cdb/payment/method/list', { query: { qrcode } });
}
