// What a payment is for. Every payment records, when it is made, its purpose, its owner and the amount and
// currency the server computed (payments; payment_starts for one waiting for its customer). A payment serves the
// one purpose it was started for, once: a resume (the customer back from 3-D Secure, a provider's page, a phone
// prompt) is checked against those records in every state before any flow acts on it (PaymentsService.resume).
import { conflict, refused } from '../../lib/errors.ts';
import type { AuthorizeResult } from './provider.ts';

export const PAYMENT_PURPOSES = [
  /** A rental's deposit held on the card (pre-authorisation); a renewed hold keeps this purpose. */
  'deposit_preauth',
  /** A rental's deposit paid into the wallet by a method that cannot hold. */
  'deposit_topup',
  /** What a failed deduction left on an order (payType FK). */
  'debt',
  /** A wallet top-up (payType CZ). */
  'wallet_topup',
  /** Rent above the hold, charged off-session on the saved card. */
  'rent_extra',
  /** A Wi-Fi package order (payType mifi), renewals included. */
  'mifi',
  /** A Wi-Fi box deposit held by the method. */
  'mifi_deposit_hold',
  /** A Wi-Fi box deposit paid into the wallet by a method that cannot hold. */
  'mifi_deposit',
] as const;
export type PaymentPurpose = (typeof PAYMENT_PURPOSES)[number];

/** What a flow resuming a payment expects it to be: its owner, its purpose, and the amount and currency it computed. */
export interface Claim {
  userId: number;
  purpose: PaymentPurpose;
  /** Minor units. */
  amount: number;
  currency: string;
  /** The order it pays, when the flow names one before the payment (a debt, a Wi-Fi order): checked where recorded. */
  orderId?: string;
}

/** The refusal of a payment started for something else (another purpose, amount or currency): never taken. */
export const otherPurpose = () => conflict('error.payment.otherPurpose');
/** The refusal of a payment that is not the user's, or that no flow of ours started (said the same: nothing is revealed). */
export const notTheirs = () => refused('error.payment.token_invalid');

/**
 * The resume check over what was recorded of a provider payment: there must be a record, every record must be
 * the user's, and each must name the purpose, amount and currency the flow expects.
 */
export function checkClaims(
  records: {
    user_id: number | string;
    purpose: string;
    amount: number | string;
    currency: string;
    order_id?: string | null;
  }[],
  want: Claim,
) {
  if (!records.length || records.some((r) => Number(r.user_id) !== want.userId)) throw notTheirs();
  const other = (r: (typeof records)[number]) =>
    r.purpose !== want.purpose ||
    Number(r.amount) !== want.amount ||
    r.currency.trim().toUpperCase() !== want.currency ||
    (want.orderId !== undefined && r.order_id != null && r.order_id !== want.orderId);
  if (records.some(other)) throw otherPurpose();
}

/** The provider's own word on a resumed payment, once it holds or took money: the amount and currency asked. */
export function checkOutcome(r: AuthorizeResult, want: Claim) {
  if (!r.ok || r.status === 'requires_action') return;
  if (
    (r.amount !== undefined && r.amount !== want.amount) ||
    (r.currency !== undefined && r.currency.toUpperCase() !== want.currency)
  )
    throw otherPurpose();
}
