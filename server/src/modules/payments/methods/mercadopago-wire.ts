// Mercado Pago's wire: amounts, its payment, customer and card objects, the card fields a screen posts, failure
// codes and states, the webhook signature's manifest (mercadopago.ts is the adapter).
import { currencyScale } from '#core/money.ts';
import { EMAIL } from '#core/email.ts';
import type { ExternalState, NotificationRequest } from './adapter.ts';

export const SDK_URL = 'https://sdk.mercadopago.com/js/v2';

/** A Mercado Pago payment as the API answers it (the fields this adapter reads). */
export interface MpPayment {
  id: number | string;
  status: string;
  status_detail?: string;
  transaction_amount: number;
  transaction_amount_refunded?: number;
  currency_id: string;
  captured?: boolean;
  external_reference?: string | null;
  three_ds_info?: { external_resource_url?: string; creq?: string } | null;
}

export interface MpCustomer {
  id: string;
  email: string;
}

export interface MpCard {
  id: string;
  customer_id: string;
  last_four_digits?: string;
  first_six_digits?: string;
  payment_method?: { id?: string; name?: string };
}

/** Integer minor units → the major-unit number Mercado Pago's transaction_amount takes (1250 BRL → 12.5; 1250 CLP → 1250). */
export function toMajor(amount: number, currency: string): number {
  const e = currencyScale(currency);
  return Number((amount / 10 ** e).toFixed(e));
}

export function toMinor(amount: number, currency: string): number {
  return Math.round(amount * 10 ** currencyScale(currency));
}

/** Mercado Pago's rejection details → the decline codes the app shows (others pass through as they are). */
export const FAILURES: Record<string, string> = {
  cc_rejected_insufficient_amount: 'insufficient_funds',
  cc_rejected_bad_filled_security_code: 'incorrect_cvc',
  cc_rejected_bad_filled_date: 'expired_card',
  cc_rejected_other_reason: 'card_declined',
  cc_rejected_call_for_authorize: 'card_declined',
  cc_rejected_card_disabled: 'card_declined',
  cc_rejected_high_risk: 'card_declined',
  cc_rejected_blacklist: 'card_declined',
  cc_rejected_max_attempts: 'card_declined',
  cc_rejected_duplicated_payment: 'card_declined',
  cc_rejected_bad_filled_other: 'token_invalid',
  cc_rejected_bad_filled_card_number: 'token_invalid',
  cc_rejected_card_error: 'processing_error',
};

/** A card token and what goes with it, as the payment takes them. */
export interface PayCard {
  token: string;
  email: string;
  paymentMethodId?: string;
  issuerId?: string;
  installments?: number;
  identificationType?: string;
  identificationNumber?: string;
}

/**
 * What the /MercadoPago screen posted to the return URL, checked field by field (anyone can post there): undefined
 * when the token or the e-mail (Mercado Pago requires the payer's) is missing or malformed.
 */
export function screenCard(p: Record<string, string>, opts: { savedCard?: boolean } = {}): PayCard | undefined {
  const token = p.token ?? '';
  const email = (p.email ?? '').trim();
  if (!/^[A-Za-z0-9]{8,64}$/.test(token) || email.length > 254) return undefined;
  // A saved card's payment names the customer (whose e-mail Mercado Pago has): the screen asks no e-mail then.
  if (!(opts.savedCard && !email) && !EMAIL.test(email)) return undefined;
  const installments = Number(p.installments || 1);
  if (!Number.isInteger(installments) || installments < 1 || installments > 48) return undefined;
  const card: PayCard = { token, email, installments };
  if (p.paymentMethodId && /^[a-z0-9_]{1,40}$/.test(p.paymentMethodId)) card.paymentMethodId = p.paymentMethodId;
  if (p.issuerId && /^\d{1,20}$/.test(p.issuerId)) card.issuerId = p.issuerId;
  if (
    p.identificationType &&
    /^[A-Za-z0-9_.-]{1,20}$/.test(p.identificationType) &&
    p.identificationNumber &&
    /^[A-Za-z0-9.-]{1,30}$/.test(p.identificationNumber)
  ) {
    card.identificationType = p.identificationType;
    card.identificationNumber = p.identificationNumber.replace(/[.-]/g, '');
  }
  return card;
}

export function failureCode(statusDetail: string | undefined): string {
  if (!statusDetail) return 'card_declined';
  return FAILURES[statusDetail] ?? statusDetail;
}

export function stateOf(p: MpPayment): ExternalState {
  switch (p.status) {
    case 'approved':
      return p.captured === false ? 'authorized' : 'paid';
    case 'authorized':
      return 'authorized';
    case 'in_process':
    case 'pending':
    case 'in_mediation':
      return 'pending';
    case 'rejected':
      return 'failed';
    case 'cancelled':
      return 'cancelled';
    // Money was taken (and given back in part or whole, or disputed): the payment itself was paid.
    case 'refunded':
    case 'charged_back':
      return 'paid';
    default:
      return 'pending';
  }
}

export function header(h: NotificationRequest['headers'], name: string): string | undefined {
  const v =
    h[name] ?? h[name.toLowerCase()] ?? Object.entries(h).find(([k]) => k.toLowerCase() === name.toLowerCase())?.[1];
  return Array.isArray(v) ? v[0] : v;
}

/** The manifest Mercado Pago signs: each part present only when its value is. */
export function signatureManifest(
  dataId: string | undefined,
  requestId: string | undefined,
  ts: string | undefined,
): string {
  const id = dataId && /^[a-z0-9]+$/i.test(dataId) ? dataId.toLowerCase() : dataId;
  return `${id ? `id:${id};` : ''}${requestId ? `request-id:${requestId};` : ''}${ts ? `ts:${ts};` : ''}`;
}
