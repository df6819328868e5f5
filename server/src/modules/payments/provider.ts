// Payment providers (medusa-style): an abstract class with an id, capability flags, and a registry the app
// resolves providers from (provider-registry.ts, re-exported here). Only providers that really work are registered:
// the sandbox card provider (test mode) and Stripe (payments/stripe.ts, one instance per Stripe account: the
// platform's and each agent's own).
import { AppError } from '../../lib/errors.ts';

export { ProviderRegistry } from './provider-registry.ts';

export interface CardSummary {
  brand: string;
  last4: string;
}

export interface AuthorizeInput {
  /** Single-use card token made by the provider's client-side tokenisation. */
  token: string;
  amount: number;
  currency: string;
  /** manual: hold the amount (pre-authorisation) to be captured or voided later; automatic: charge now. */
  capture: 'manual' | 'automatic';
  /** Sent to the provider so that a retried call does not charge twice. */
  idempotencyKey: string;
  /** Our user: the provider's customer record the card is saved on (needed for `saveCard` and `offSession`). */
  userId?: number;
  /** Keep the card for later off-session charges (overtime buy-out, rent above the hold, a failed deduction). */
  saveCard?: boolean;
  /** A merchant-initiated charge of a saved card with the user absent (no 3-D Secure possible). */
  offSession?: boolean;
  /** What this payment is for (metadata at the provider; checked when a client resumes it). */
  purpose?: string;
  /** Where a redirect method (iDEAL, 3-D Secure outside a frame) comes back to. */
  returnUrl?: string;
  /** The payment type of the chosen method (STRIPE_CARD, STRIPE_IDEAL, STRIPE_WECHAT, …). */
  methodType?: string;
}

export type AuthorizeResult =
  | {
      ok: true;
      ref: string;
      status: 'authorized' | 'captured';
      card: CardSummary;
      /** The saved card (reusable payment method) and the customer it is attached to, when the card was saved. */
      saved?: { paymentMethod: string; customer: string } | null;
      /** A hold must be captured before this time or it lapses (card networks: 7 days for most cards). */
      captureBefore?: Date | null;
      /** What the provider holds or charged (checked when a client resumes a payment). */
      amount?: number;
      currency?: string;
    }
  /** The customer must act (3-D Secure, a redirect, a QR code): the client finishes with `clientSecret`, then resumes. */
  | { ok: true; ref: string; status: 'requires_action'; clientSecret: string; card: CardSummary | null }
  | { ok: false; ref: string | null; declineCode: string; card: CardSummary | null };

/**
 * What a provider can do: the one declaration every provider makes (card providers here, method adapters in their
 * AdapterDefinition). A provider lacking one is not offered for it, and a call that needs it is refused by the
 * registry (lacks()) with a 422 naming what is not possible, before the provider is asked.
 */
export interface Capabilities {
  /** Pre-authorisation (capture later). */
  hold: boolean;
  /** Capturing less than the hold releases the rest. */
  partialCapture: boolean;
  /** Charging a saved card with the user absent. */
  offSession: boolean;
  refund: boolean;
  payout: boolean;
  /** Sends signed notifications to the webhook entry (POST /payments/webhooks/{provider}). */
  webhook: boolean;
}

export interface PayoutInput {
  amount: number;
  currency: string;
  /** Where the money goes: a payout channel with the payee's account fields, or back to a card payment. */
  destination:
    { kind: 'channel'; channel: string; account: Record<string, string> } | { kind: 'card_refund'; paymentRef: string };
  /** Sent to the provider so that a retried call does not pay out twice. */
  idempotencyKey: string;
}

/** A provider webhook event after its signature was verified. */
export interface ProviderEvent {
  id: string;
  type: 'payout.paid' | 'payout.failed' | string;
  data: {
    ref: string;
    failureCode?: string;
    /** Payment events: the provider object's state at the time of the event (events may arrive out of order). */
    status?: string;
    amountCaptured?: number;
    amountRefunded?: number;
    /** The payment intent a charge or refund event belongs to. */
    paymentRef?: string;
  };
}

/** A webhook delivery as received (POST /payments/webhooks/{provider}): signatures are over `rawBody`'s bytes. */
export interface WebhookRequest {
  headers: Record<string, string | string[] | undefined>;
  rawBody: string;
  query: Record<string, string>;
}

/** What a verified delivery asks of us: the webhook entry (webhooks.ts) handles each the same for every provider. */
export type WebhookAction =
  'payment.succeeded' | 'payment.failed' | 'payment.refunded' | 'payout.paid' | 'payout.failed' | 'ignored';

export interface WebhookAnswer {
  status: number;
  contentType: string;
  body: string;
}

/** A verified delivery read as one of the webhook actions (PaymentProvider.notification). */
export interface WebhookDelivery {
  action: WebhookAction;
  /** Stored once per id (payment_provider_events): a redelivery is answered without being applied again. */
  event: ProviderEvent;
  /**
   * The provider itself brought our payment up to its own state (a method asks its provider again rather than trust
   * the notification's word): the entry only records the event.
   */
  applied?: boolean;
  /** The answer the provider expects (WeChat: JSON {code:'SUCCESS'}; Alipay: 'success'); default a JSON receipt. */
  ack?: WebhookAnswer;
}

/** A card provider's verified event as one of the actions. */
export function cardAction(e: ProviderEvent): WebhookAction {
  if (e.type === 'payout.paid' || e.type === 'payout.failed') return e.type;
  if (e.type === 'charge.refunded') return 'payment.refunded';
  if (e.type === 'payment_intent.payment_failed' || e.type === 'payment_intent.canceled') return 'payment.failed';
  if (/^(payment_intent|charge)\./.test(e.type)) return 'payment.succeeded';
  return 'ignored';
}

/** One header of a delivery (the first, when repeated). */
export function headerOf(req: WebhookRequest, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

/**
 * One movement in a provider's settlement records (Stripe: a balance transaction): money captured (positive) or
 * given back (negative), with the fee the provider kept, for the payment `ref` (our payments.provider_ref).
 */
export interface SettlementLine {
  ref: string | null;
  /** The provider's own id of the movement's source (a charge, a refund). */
  source: string;
  type: 'charge' | 'refund';
  /** Minor units: positive for a charge, negative for a refund. */
  amount: number;
  fee: number;
  currency: string;
}

/**
 * A provider's settlement records of a day: each movement of the day, or (`cumulative`) each payment's totals so far,
 * page by page as the provider's API gives them (the reconciliation stores each page before it asks for the next: a
 * day of any size in constant memory). A page that cannot be read throws (the day is then not reconciled).
 */
export interface Settlements {
  cumulative: boolean;
  pages: AsyncIterable<SettlementLine[]>;
}

/** The provider's records of the day are not complete yet (PayPal's reporting lags): the day is reconciled later. */
export class SettlementsNotReady extends Error {
  constructor(
    readonly provider: string,
    message: string,
  ) {
    super(`${provider}: ${message}`);
    this.name = 'SettlementsNotReady';
  }
}

export interface ProviderCallOptions {
  idempotencyKey?: string;
}

/** What a provider may lack (the user reads `error.notSupported.<capability>`). */
export type Capability =
  | 'customerActions'
  | 'cardSaving'
  | 'holds'
  | 'capture'
  | 'partialCapture'
  | 'offSession'
  | 'void'
  | 'refunds'
  | 'payouts'
  | 'webhooks';

/** A provider asked for something it cannot do: a clear 422 naming what is not possible, never a 500. */
export class NotSupported extends AppError {
  constructor(
    readonly providerId: string,
    readonly capability: Capability,
  ) {
    super(422, `error.notSupported.${capability}`);
    this.name = 'NotSupported';
    this.message = `${providerId}: ${capability}`;
  }
}

/**
 * How long a payment waiting for the customer (3-D Secure, a provider's page, a prompt on their phone) may stay
 * open before the flow that started it releases it.
 */
export const ACTION_TIMEOUT_MS = 30 * 60_000;
/** How often a flow's guard asks the provider about a payment waiting for the customer (until ACTION_TIMEOUT_MS). */
export const ACTION_CHECK_MS = 60_000;

/**
 * The payment type that takes only debit cards (`debitcard`), through the agent's card provider: the card's
 * funding type (Stripe: PaymentMethod `card.funding`) must be `debit`; credit, prepaid and unknown are declined with
 * DEBIT_ONLY before any money is asked for.
 */
export const DEBIT_CARD_TYPE = 'debitcard';
export const DEBIT_ONLY = 'debit_only';

/** The decline codes a user reads in their language (`error.payment.<code>`); any other reads as card_declined. */
const SHOWN_DECLINES = new Set([
  'card_declined',
  'insufficient_funds',
  'token_invalid',
  'authentication_required',
  'expired_card',
  'incorrect_cvc',
  'processing_error',
  DEBIT_ONLY,
  // Cancelled on a method's own page (PayPal, a checkout): not a decline of the card.
  'cancelled',
]);

/** The message key of a declined payment (one list for every flow: rentals, wallet, Wi-Fi packages). */
export function declineMessageKey(code: string | null | undefined): string {
  return `error.payment.${code && SHOWN_DECLINES.has(code) ? code : 'card_declined'}`;
}

export abstract class PaymentProvider {
  static readonly id: string;
  get id(): string {
    return (this.constructor as typeof PaymentProvider).id;
  }
  /** The key the client uses to tokenise cards (STRIPE_CARD's publicKey on the wire). */
  abstract publicKey(): string;
  abstract readonly capabilities: Capabilities;
  abstract authorize(input: AuthorizeInput): Promise<AuthorizeResult>;
  /**
   * Captures up to the authorised amount; the rest of the authorisation is released. `opts.idempotencyKey` (stable
   * per job) makes a repeated call (a job run again after its lease was taken over) capture once.
   */
  abstract capture(ref: string, amount: number, opts?: ProviderCallOptions): Promise<void>;
  /** Releases an uncaptured authorisation. */
  abstract void(ref: string, opts?: ProviderCallOptions): Promise<void>;
  abstract refund(ref: string, amount: number, opts?: ProviderCallOptions): Promise<void>;

  /** The current outcome of a payment the customer had to act on (after 3-D Secure / a redirect). */
  resume(_ref: string, _userId: number): Promise<AuthorizeResult> {
    throw new NotSupported(this.id, 'customerActions');
  }

  // Optional capabilities (a provider that lacks one is not offered for it).
  /** Starts saving a card (SetupIntent-like): the client confirms it with a card token. */
  createSetup(_userId?: number): Promise<{ id: string; clientSecret: string }> {
    throw new NotSupported(this.id, 'cardSaving');
  }
  /** Confirms a setup with a single-use card token; returns a reusable payment method for authorize(). */
  confirmSetup(
    _setupId: string,
    _clientSecret: string,
    _token: string,
  ): Promise<{ paymentMethod: string; card: CardSummary }> {
    throw new NotSupported(this.id, 'cardSaving');
  }
  detachPaymentMethod(_ref: string): Promise<void> {
    throw new NotSupported(this.id, 'cardSaving');
  }
  /** Starts a payout; its outcome arrives later as a signed webhook event (payout.paid / payout.failed). */
  payout(_input: PayoutInput): Promise<{ ref: string }> {
    throw new NotSupported(this.id, 'payouts');
  }
  /** The provider's settlement records of [from, to) from its own API; null: its API offers none (reconciliation.ts). */
  settlements(_from: Date, _to: Date): Promise<Settlements | null> {
    return Promise.resolve(null);
  }
  /** Verifies a signed event (a card provider's signature over `raw`); null when it does not verify. */
  verifyEvent(_raw: string, _signature: string | undefined): ProviderEvent | null {
    return null;
  }
  /**
   * A webhook delivery read as one of the actions (only with capabilities.webhook); null when it does not verify. A
   * card provider checks its signature (verifyEvent); a method reads its notification and asks its provider again.
   */
  abstract notification(req: WebhookRequest): Promise<WebhookDelivery | null>;
}

/**
 * The capability a call needs that the provider lacks (undefined: none lacking). One place for every provider: the
 * registry asks it before each money call, the webhook entry before reading a delivery.
 */
export function lacks(caps: Capabilities, call: PropertyKey, args: readonly unknown[] = []): Capability | undefined {
  switch (call) {
    case 'authorize': {
      const input = args[0] as AuthorizeInput | undefined;
      if (input?.capture === 'manual' && !caps.hold) return 'holds';
      return input?.offSession && !caps.offSession ? 'offSession' : undefined;
    }
    case 'capture':
      return caps.hold ? undefined : 'capture';
    case 'refund':
      return caps.refund ? undefined : 'refunds';
    case 'payout':
      return caps.payout ? undefined : 'payouts';
    case 'verifyEvent':
    case 'notification':
      return caps.webhook ? undefined : 'webhooks';
    default:
      return undefined;
  }
}
