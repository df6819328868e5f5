// Stripe behind the provider interface, with the official SDK (`stripe`). One instance per Stripe account: the
// platform's (id "stripe") and each agent that brings its own keys (id "stripe.<agent>") or a connected account
// (the platform's keys, requests on behalf of `acct_…`). docs/payments.md explains holds, captures, expiry,
// off-session charges, refunds and webhooks.
//
// Every call carries an idempotency key derived from our own ids, so a retried job or request never charges,
// captures or refunds twice (Stripe replays the first response for the same key).
import Stripe from 'stripe';
import type { PaymentsRepository } from './repository.ts';
import {
  DEBIT_CARD_TYPE,
  DEBIT_ONLY,
  PaymentProvider,
  type AuthorizeInput,
  type AuthorizeResult,
  type Capabilities,
  type CardSummary,
  type ProviderEvent,
  type WebhookDelivery,
  type WebhookRequest,
  cardAction,
  headerOf,
  type ProviderCallOptions,
  type SettlementLine,
  type Settlements,
} from './provider.ts';

export interface StripeAccount {
  secretKey: string;
  publishableKey: string;
  webhookSecret: string;
  /** A connected account (Stripe Connect): requests go to it with the platform's keys. */
  connectedAccount?: string;
}

export interface StripeTransport {
  host?: string;
  port?: number;
  protocol?: 'http' | 'https';
}

/** Stripe's card error codes we show in the user's language; others read as card_declined. */
const KNOWN_DECLINES = new Set([
  'card_declined',
  'insufficient_funds',
  'expired_card',
  'incorrect_cvc',
  'authentication_required',
  'processing_error',
]);

type Intent = Stripe.PaymentIntent;

export class StripeCardProvider extends PaymentProvider {
  static override readonly id = 'stripe';
  readonly capabilities: Capabilities = {
    hold: true,
    partialCapture: true,
    offSession: true,
    refund: true,
    payout: false,
    webhook: true,
  };
  readonly stripe: Stripe;

  constructor(
    private readonly instanceId: string,
    private readonly account: StripeAccount,
    private readonly repo: PaymentsRepository,
    transport: StripeTransport = {},
  ) {
    super();
    this.stripe = new Stripe(account.secretKey, {
      ...transport,
      // Our own retries are jobs with the same idempotency key; the SDK's retries reuse its key too.
      maxNetworkRetries: 2,
      timeout: 20_000,
      telemetry: false,
      ...(account.connectedAccount ? { stripeAccount: account.connectedAccount } : {}),
    });
  }

  override get id() {
    return this.instanceId;
  }

  publicKey() {
    return this.account.publishableKey;
  }

  /** The Stripe customer of one of our users on this account (created once; the key makes a race harmless). */
  private async customer(userId: number): Promise<string> {
    const known = await this.repo.customer(this.id, userId);
    if (known) return known;
    const c = await this.stripe.customers.create(
      { metadata: { powerlyUserId: String(userId) } },
      { idempotencyKey: `cus_${this.id}_${userId}` },
    );
    return this.repo.saveCustomer(this.id, userId, c.id);
  }

  async authorize(input: AuthorizeInput): Promise<AuthorizeResult> {
    const customer =
      input.userId != null && (input.saveCard || input.offSession || input.token.startsWith('pm_'))
        ? await this.customer(input.userId)
        : undefined;
    // The method's Stripe type: iDEAL and WeChat Pay charge at once and cannot be saved; WeChat Pay shows a QR code.
    const type =
      input.methodType === 'STRIPE_IDEAL' ? 'ideal' : input.methodType === 'STRIPE_WECHAT' ? 'wechat_pay' : 'card';
    const params: Stripe.PaymentIntentCreateParams = {
      allowed_payment_method_types: [type],
      ...(type === 'wechat_pay' ? { payment_method_options: { wechat_pay: { client: 'web' } } } : {}),
      amount: input.amount,
      currency: input.currency.toLowerCase(),
      payment_method: input.token,
      confirm: true,
      capture_method: input.capture,
      ...(customer ? { customer } : {}),
      ...(input.offSession ? { off_session: true } : {}),
      ...(input.saveCard && !input.offSession && type === 'card' ? { setup_future_usage: 'off_session' as const } : {}),
      ...(input.returnUrl ? { return_url: input.returnUrl } : {}),
      metadata: { powerlyUserId: String(input.userId ?? ''), purpose: input.purpose ?? '' },
      expand: ['latest_charge'],
    };
    try {
      // The debit-only type: the card's funding type (PaymentMethod card.funding) is read before any payment is made;
      // credit, prepaid and unknown are declined. The PaymentIntent itself is the card's, so a replay matches it.
      if (input.methodType === DEBIT_CARD_TYPE) {
        const pm = await this.stripe.paymentMethods.retrieve(input.token);
        if (pm.type !== 'card' || pm.card?.funding !== 'debit') {
          return {
            ok: false,
            ref: null,
            declineCode: DEBIT_ONLY,
            card: pm.card ? { brand: pm.card.brand, last4: pm.card.last4 } : null,
          };
        }
      }
      const pi = await this.stripe.paymentIntents.create(params, { idempotencyKey: `pi_${input.idempotencyKey}` });
      return this.outcome(pi);
    } catch (err) {
      return this.declined(err);
    }
  }

  override async resume(ref: string, userId: number): Promise<AuthorizeResult> {
    const pi = await this.stripe.paymentIntents.retrieve(ref, { expand: ['latest_charge'] });
    if (pi.metadata?.powerlyUserId !== String(userId))
      return { ok: false, ref: null, declineCode: 'token_invalid', card: null };
    return this.outcome(pi);
  }

  /** Our view of a payment intent. */
  private outcome(pi: Intent): AuthorizeResult {
    const charge = typeof pi.latest_charge === 'object' ? pi.latest_charge : null;
    const c = charge?.payment_method_details?.card;
    const card: CardSummary | null = c
      ? { brand: c.brand ?? 'card', last4: c.last4 ?? '' }
      : charge?.payment_method_details?.type
        ? { brand: charge.payment_method_details.type, last4: '' }
        : null;
    const pm = typeof pi.payment_method === 'string' ? pi.payment_method : pi.payment_method?.id;
    const customer = typeof pi.customer === 'string' ? pi.customer : pi.customer?.id;
    const saved =
      pm && customer && (pi.setup_future_usage === 'off_session' || pm.startsWith('pm_'))
        ? { paymentMethod: pm, customer }
        : null;
    switch (pi.status) {
      case 'requires_capture':
        return {
          ok: true,
          ref: pi.id,
          status: 'authorized',
          card: card ?? { brand: 'card', last4: '' },
          saved,
          captureBefore: c?.capture_before ? new Date(c.capture_before * 1000) : null,
          amount: pi.amount,
          currency: pi.currency,
        };
      case 'succeeded':
        return {
          ok: true,
          ref: pi.id,
          status: 'captured',
          card: card ?? { brand: 'card', last4: '' },
          saved,
          amount: pi.amount_received,
          currency: pi.currency,
        };
      case 'requires_action':
      case 'processing':
        return { ok: true, ref: pi.id, status: 'requires_action', clientSecret: pi.client_secret ?? '', card };
      default: {
        const code = pi.last_payment_error?.decline_code ?? pi.last_payment_error?.code ?? 'card_declined';
        return { ok: false, ref: pi.id, declineCode: KNOWN_DECLINES.has(code) ? code : 'card_declined', card };
      }
    }
  }

  private declined(err: unknown): AuthorizeResult {
    if (
      err instanceof Stripe.errors.StripeCardError ||
      (err instanceof Stripe.errors.StripeError && err.type === 'StripeCardError')
    ) {
      const e = err as Stripe.errors.StripeCardError;
      const code =
        e.code === 'authentication_required'
          ? 'authentication_required'
          : (e.decline_code ?? e.code ?? 'card_declined');
      const pi = (e.raw as { payment_intent?: { id?: string } } | undefined)?.payment_intent;
      return {
        ok: false,
        ref: pi?.id ?? null,
        declineCode: KNOWN_DECLINES.has(code) ? code : 'card_declined',
        card: null,
      };
    }
    if (
      err instanceof Stripe.errors.StripeInvalidRequestError &&
      (err.code === 'resource_missing' || err.param === 'payment_method')
    ) {
      return { ok: false, ref: null, declineCode: 'token_invalid', card: null };
    }
    throw err; // network / API errors: the caller's job or request retries with the same idempotency key
  }

  async capture(ref: string, amount: number, opts?: ProviderCallOptions) {
    await this.stripe.paymentIntents.capture(
      ref,
      { amount_to_capture: amount },
      { idempotencyKey: opts?.idempotencyKey ?? `capture_${ref}` },
    );
  }

  async void(ref: string, opts?: ProviderCallOptions) {
    try {
      await this.stripe.paymentIntents.cancel(ref, {}, { idempotencyKey: opts?.idempotencyKey ?? `cancel_${ref}` });
    } catch (err) {
      // Already cancelled (by Stripe at expiry, or by an earlier attempt): the goal is reached.
      if (err instanceof Stripe.errors.StripeInvalidRequestError && err.code === 'payment_intent_unexpected_state') {
        const pi = await this.stripe.paymentIntents.retrieve(ref);
        if (pi.status === 'canceled') return;
      }
      throw err;
    }
  }

  async refund(ref: string, amount: number, opts?: ProviderCallOptions) {
    await this.stripe.refunds.create(
      { payment_intent: ref, amount },
      { idempotencyKey: opts?.idempotencyKey ?? `refund_${ref}_${amount}` },
    );
  }

  /**
   * The account's balance transactions created in [from, to) (GET /v1/balance_transactions, every page through
   * starting_after while has_more, each with its source expanded for the payment intent): charges and refunds; the
   * other kinds (payouts, adjustments, Stripe's own fees) are not payments of ours.
   */
  override settlements(from: Date, to: Date): Promise<Settlements> {
    return Promise.resolve({ cumulative: false, pages: this.balancePages(from, to) });
  }

  private async *balancePages(from: Date, to: Date): AsyncGenerator<SettlementLine[]> {
    const sec = (d: Date) => Math.floor(d.getTime() / 1000);
    let startingAfter: string | undefined;
    for (;;) {
      const page = await this.stripe.balanceTransactions.list({
        created: { gte: sec(from), lt: sec(to) },
        limit: 100,
        expand: ['data.source'],
        ...(startingAfter ? { starting_after: startingAfter } : {}),
      });
      const lines: SettlementLine[] = [];
      for (const bt of page.data) {
        const type =
          bt.type === 'charge' || bt.type === 'payment'
            ? 'charge'
            : bt.type === 'refund' || bt.type === 'payment_refund'
              ? 'refund'
              : null;
        if (!type) continue;
        const source =
          bt.source && typeof bt.source === 'object'
            ? (bt.source as { id: string; payment_intent?: string | { id: string } | null })
            : null;
        const pi = source?.payment_intent;
        lines.push({
          ref: typeof pi === 'string' ? pi : (pi?.id ?? null),
          source: source?.id ?? String(bt.source),
          type,
          amount: bt.amount,
          fee: bt.fee,
          currency: bt.currency.toUpperCase(),
        });
      }
      yield lines;
      const last = page.data.at(-1);
      if (!page.has_more || !last) return;
      startingAfter = last.id;
    }
  }

  override async createSetup(userId?: number) {
    const customer = userId != null ? await this.customer(userId) : undefined;
    const si = await this.stripe.setupIntents.create(
      { usage: 'off_session', ...(customer ? { customer } : {}), metadata: { powerlyUserId: String(userId ?? '') } },
      { idempotencyKey: `seti_${this.id}_${userId ?? 'anon'}_${Date.now()}` },
    );
    return { id: si.id, clientSecret: si.client_secret ?? '' };
  }

  /**
   * The client confirmed the SetupIntent with Stripe.js (3-D Secure included); we check it succeeded with the
   * payment method the client names and read the card. `token` may also be a payment method to confirm with here.
   */
  override async confirmSetup(setupId: string, clientSecret: string, token: string) {
    let si = await this.stripe.setupIntents.retrieve(setupId);
    if (si.client_secret !== clientSecret)
      throw Object.assign(new Error('setup intent secret mismatch'), { code: 'resource_missing' });
    if (si.status === 'requires_payment_method' || si.status === 'requires_confirmation') {
      try {
        si = await this.stripe.setupIntents.confirm(
          setupId,
          { payment_method: token },
          { idempotencyKey: `seti_confirm_${setupId}` },
        );
      } catch (err) {
        if (err instanceof Stripe.errors.StripeError)
          throw Object.assign(new Error(err.message), { code: err.decline_code ?? err.code ?? 'card_declined' });
        throw err;
      }
    }
    if (si.status === 'requires_action')
      throw Object.assign(new Error('authentication required'), { code: 'authentication_required' });
    if (si.status !== 'succeeded') throw Object.assign(new Error(`setup ${si.status}`), { code: 'card_declined' });
    const pmId = typeof si.payment_method === 'string' ? si.payment_method : si.payment_method?.id;
    if (!pmId) throw Object.assign(new Error('no payment method'), { code: 'card_declined' });
    const pm = await this.stripe.paymentMethods.retrieve(pmId);
    return { paymentMethod: pm.id, card: { brand: pm.card?.brand ?? pm.type, last4: pm.card?.last4 ?? '' } };
  }

  override async detachPaymentMethod(ref: string) {
    try {
      await this.stripe.paymentMethods.detach(ref, {}, { idempotencyKey: `detach_${ref}` });
    } catch (err) {
      // Detached before (a retried removal): fine.
      if (!(err instanceof Stripe.errors.StripeInvalidRequestError)) throw err;
    }
  }

  /** A delivery to the webhook entry: its `stripe-signature` verified (verifyEvent), read as one of the actions. */
  notification(req: WebhookRequest): Promise<WebhookDelivery | null> {
    const event = this.verifyEvent(req.rawBody, headerOf(req, 'stripe-signature'));
    return Promise.resolve(event ? { action: cardAction(event), event } : null);
  }

  /** Verifies Stripe's `Stripe-Signature` (HMAC-SHA256 with the endpoint's signing secret, 300 s tolerance). */
  override verifyEvent(raw: string, signature: string | undefined): ProviderEvent | null {
    if (!signature) return null;
    let e: Stripe.Event;
    try {
      e = this.stripe.webhooks.constructEvent(raw, signature, this.account.webhookSecret);
    } catch {
      return null;
    }
    const o = e.data.object as unknown as Record<string, unknown>;
    const ref = typeof o.id === 'string' ? o.id : '';
    const paymentRef = typeof o.payment_intent === 'string' ? o.payment_intent : undefined;
    return {
      id: e.id,
      type: e.type,
      data: {
        ref,
        status: typeof o.status === 'string' ? o.status : undefined,
        amountCaptured:
          typeof o.amount_received === 'number'
            ? o.amount_received
            : typeof o.amount_captured === 'number'
              ? o.amount_captured
              : undefined,
        amountRefunded: typeof o.amount_refunded === 'number' ? o.amount_refunded : undefined,
        paymentRef,
      },
    };
  }
}
