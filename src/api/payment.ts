// Payment-method calls.
import { api } from './client.ts';

export interface PaymentMethod {
  pId: string | number;
  pPaymentType: string;
  label?: string;
  currencySymbol?: string;
  pCurrencyType?: string;
  publicKey?: string;
  configDetails?: { accountCountry?: string; currency?: string };
}

/** GET cdb/payment/method/list?qrcode — the methods for the cabinet's currency. */
export function listPaymentMethods(qrcode: string): Promise<PaymentMethod[]> {
  return api.get<PaymentMethod[]>('cdb/payment/method/list', { query: { qrcode } });
}
