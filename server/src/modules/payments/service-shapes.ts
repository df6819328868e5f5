// The shapes and rules of our payment rows that the payments service and the flows share: the states and their
// transitions, the method list entries, the refusal of a charge that is not the flow's, the service's options.
import { AppError, badRequest, conflict, refused } from '../../lib/errors.ts';
import { uuid } from '../../lib/ids.ts';
import { type PaymentRow } from './repository.ts';
import type { Platform } from './methods/adapter.ts';
import { type ReturnOrigins } from './return-url.ts';

export type PaymentStatus = 'authorized' | 'captured' | 'partially_captured' | 'voided' | 'refunded' | 'declined';

export const PAYMENT_TRANSITIONS: Record<PaymentStatus, PaymentStatus[]> = {
  authorized: ['captured', 'partially_captured', 'voided'],
  captured: ['refunded'],
  partially_captured: ['refunded'],
  voided: [],
  refunded: [],
  declined: [],
};

export interface PaymentMethod {
  pId: string;
  pPaymentType: string;
  label: string;
  currencySymbol: string;
  pCurrencyType: string;
  publicKey: string;
  configDetails: { accountCountry: string; currency: string };
  kind?: 'redirect' | 'form' | 'jsapi' | 'push' | 'card';
  hold?: boolean;
  sandbox?: boolean;
  testValues?: { value: string; outcome: string }[];
  directCard?: boolean;
  savesCards?: boolean;
}

export const COUNTRY: Record<string, string> = { CNY: 'CN', EUR: 'LT', USD: 'US' };
export const CARD_METHOD_ID = 'card-sandbox';

/**
 * A provider payment a flow wanted to take, found recorded already: released (voided, refunded, or recorded
 * `abandoned` by a guard while the customer had not finished it: the customer pays again) or taken by another flow.
 * Either way it is not the refused request's to give back (isChargeNotOurs): its owner keeps or releases it.
 */
export const chargeNotOurs = (row: Pick<PaymentRow, 'status' | 'failure_code'>) =>
  row.status === 'refunded' || row.status === 'voided' || row.failure_code === 'abandoned'
    ? refused('error.payment.released')
    : conflict('error.payment.alreadyUsed');
export const CHARGE_NOT_OURS = new Set(['error.payment.alreadyUsed', 'error.payment.released']);
/** Whether `err` is a chargeNotOurs refusal (nothing of the request's own to compensate). */
export const isChargeNotOurs = (err: unknown) => err instanceof AppError && CHARGE_NOT_OURS.has(err.key);

/** A payment row's id: made before its insert, so that a unit of work can send the rows naming it at the same time. */
export const newPaymentId = () => `pay_${uuid()}`;

/**
 * The Stripe payment types and when each is offered: cards everywhere; the wallets (Express Checkout
 * Element: Apple Pay / Google Pay, the client shows them only where the device supports them) everywhere;
 * iDEAL only in EUR, WeChat Pay only in CNY/EUR/USD… (Stripe's supported currencies for them). The wallets are
 * listed as APPLE_PAY / GOOGLE_PAY, Stripe being the provider behind them; the older names STRIPE_APPLE /
 * STRIPE_GOOGLE stay accepted in a method id (STRIPE_TYPE_ALIASES).
 */
export const STRIPE_TYPES: { type: string; label: string; currencies?: string[] }[] = [
  { type: 'STRIPE_CARD', label: 'Card' },
  { type: 'APPLE_PAY', label: 'Apple Pay' },
  { type: 'GOOGLE_PAY', label: 'Google Pay' },
  { type: 'STRIPE_IDEAL', label: 'iDEAL', currencies: ['EUR'] },
  {
    type: 'STRIPE_WECHAT',
    label: 'WeChat Pay',
    currencies: ['CNY', 'EUR', 'USD', 'GBP', 'HKD', 'JPY', 'SGD', 'AUD', 'CAD'],
  },
];
/** The former names of the Stripe wallet types, still accepted from clients that send them. */
export const STRIPE_TYPE_ALIASES: Record<string, string> = { STRIPE_APPLE: 'APPLE_PAY', STRIPE_GOOGLE: 'GOOGLE_PAY' };
/** The Stripe types that can hold (pre-authorise): the card and the card wallets; iDEAL and WeChat Pay charge at once. */
export const STRIPE_HOLD_TYPES = new Set([
  'STRIPE_CARD',
  'APPLE_PAY',
  'GOOGLE_PAY',
  'STRIPE_APPLE',
  'STRIPE_GOOGLE',
  'debitcard',
]);

/** What the methods of a cabinet or wallet are offered for. */
export interface Purpose {
  /** A hold (pre-authorisation deposit): only card methods can hold (iDEAL and WeChat Pay charge at once). */
  hold?: boolean;
  /** Where the app runs (the list is filtered by platform). */
  platform?: Platform;
}

/** Also where a payment may send its customer back (ReturnOrigins). */
export interface PaymentsOptions extends ReturnOrigins {
  /** Whether an agent id is known (the agents table, or the platform's own agent). */
  agentExists?: (id: string) => Promise<boolean>;
}

/** The customer must finish the payment (3-D Secure, a redirect or a QR code), then call again with `ref`. */
export interface ActionRequired {
  action: { clientSecret: string; paymentIntent: string };
}

/** The wire form of a paying call's outcome: the order number, or what the customer must finish first. */
export const paid = (r: string | ActionRequired) =>
  typeof r === 'string' ? { outTradeNo: r } : { outTradeNo: '', action: r.action };

/** A saved card of a user and agent, usable with the method `paymentId`: its provider ref (the wallet keeps cards). */
export type SavedCardRef = (userId: number, cardId: string, agent: string, paymentId: string) => Promise<string>;

/**
 * The card a paying call pays with: a saved card (`cardId`, its provider ref, as a new card's token is used) or the
 * new card's token. Both at once is a 400: which one to charge would be a guess.
 */
export async function cardToken(
  savedCard: SavedCardRef,
  userId: number,
  b: { cardId?: string; stripeToken?: string; paymentId: string },
  agent: string | undefined,
): Promise<string | undefined> {
  if (!b.cardId) return b.stripeToken;
  if (b.stripeToken) throw badRequest('error.validation.field', { field: 'cardId' });
  return savedCard(userId, b.cardId, agent ?? '', b.paymentId);
}
