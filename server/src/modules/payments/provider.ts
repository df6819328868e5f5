// Payment providers (medusa-style): an abstract class with a static id, and a registry the app resolves
// providers from. Only providers that really work are registered; today that is the sandbox card provider.
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
}

export type AuthorizeResult =
  | { ok: true; ref: string; status: 'authorized' | 'captured'; card: CardSummary }
  | { ok: false; ref: string | null; declineCode: string; card: CardSummary | null };

export interface PayoutInput {
  amount: number;
  currency: string;
  /** Where the money goes: a payout channel with the payee's account fields, or back to a card payment. */
  destination: { kind: 'channel'; channel: string; account: Record<string, string> } | { kind: 'card_refund'; paymentRef: string };
  /** Sent to the provider so that a retried call does not pay out twice. */
  idempotencyKey: string;
}

/** A provider webhook event after its signature was verified. */
export interface ProviderEvent {
  id: string;
  type: 'payout.paid' | 'payout.failed' | string;
  data: { ref: string; failureCode?: string };
}

/** Options of a provider call made by a job (compensation, capture). */
export interface ProviderCallOptions {
  idempotencyKey?: string;
}

export class NotSupported extends Error {}

export abstract class PaymentProvider {
  static readonly id: string;
  get id(): string {
    return (this.constructor as typeof PaymentProvider).id;
  }
  /** The key the client uses to tokenise cards (STRIPE_CARD's publicKey on the wire). */
  abstract publicKey(): string;
  abstract authorize(input: AuthorizeInput): Promise<AuthorizeResult>;
  /**
   * Captures up to the authorised amount; the rest of the authorisation is released. `opts.idempotencyKey` (stable
   * per job) makes a repeated call (a job run again after its lease was taken over) capture once.
   */
  abstract capture(ref: string, amount: number, opts?: ProviderCallOptions): Promise<void>;
  /** Releases an uncaptured authorisation. */
  abstract void(ref: string, opts?: ProviderCallOptions): Promise<void>;
  abstract refund(ref: string, amount: number, opts?: ProviderCallOptions): Promise<void>;

  // Optional capabilities (a provider that lacks one is not offered for it).
  /** Starts saving a card (SetupIntent-like): the client confirms it with a card token. */
  createSetup(): Promise<{ id: string; clientSecret: string }> {
    throw new NotSupported(`${this.id}: card saving`);
  }
  /** Confirms a setup with a single-use card token; returns a reusable payment method for authorize(). */
  confirmSetup(_setupId: string, _clientSecret: string, _token: string): Promise<{ paymentMethod: string; card: CardSummary }> {
    throw new NotSupported(`${this.id}: card saving`);
  }
  detachPaymentMethod(_ref: string): Promise<void> {
    throw new NotSupported(`${this.id}: card saving`);
  }
  /** Starts a payout; its outcome arrives later as a signed webhook event (payout.paid / payout.failed). */
  payout(_input: PayoutInput): Promise<{ ref: string }> {
    throw new NotSupported(`${this.id}: payouts`);
  }
  /** Verifies a webhook delivery's signature; null when it does not verify. */
  verifyEvent(_raw: string, _signature: string | undefined): ProviderEvent | null {
    return null;
  }
}

export class ProviderRegistry {
  private readonly providers = new Map<string, PaymentProvider>();
  register(p: PaymentProvider) {
    this.providers.set(p.id, p);
    return this;
  }
  get(id: string): PaymentProvider {
    const p = this.providers.get(id);
    if (!p) throw new Error(`payment provider not registered: ${id}`);
    return p;
  }
  has(id: string) {
    return this.providers.has(id);
  }
}

/*
 * Where Stripe plugs in (not implemented, not registered):
 *
 *   class StripeCardProvider extends PaymentProvider {
 *     static readonly id = 'stripe';
 *     constructor(opts: { secretKey: string; publishableKey: string; webhookSecret: string }) …
 *     publicKey()  → opts.publishableKey (pk_live_/pk_test_; the client then loads Stripe.js)
 *     authorize()  → paymentIntents.create({ amount, currency, payment_method: token, confirm: true,
 *                    capture_method: capture === 'manual' ? 'manual' : 'automatic' }, { idempotencyKey })
 *                    status requires_capture → authorized, succeeded → captured, card_error → declined
 *     capture()    → paymentIntents.capture(ref, { amount_to_capture: amount })
 *     void()       → paymentIntents.cancel(ref)
 *     refund()     → refunds.create({ payment_intent: ref, amount })
 *   }
 *
 * plus a webhook route (signature-verified with webhookSecret, deduplicated by event id) that drives the
 * same payments state machine for asynchronous outcomes (3-D Secure, disputes). Register it in main.ts with
 * `registry.register(new StripeCardProvider(...))` and point the STRIPE_CARD method at it.
 */
