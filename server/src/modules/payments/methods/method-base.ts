// What every payment method provider (WeChat Pay, PayPal, M-Pesa, …: methods/*.ts) has in common besides its
// provider's wire operations: its definition (payment types, capabilities), our reference at the provider
// (outTradeNo), the payer's single-use tokens, the cards it saves, and the check that what the provider took is what
// we asked for. MethodProvider (external.ts) adds the customer-action lifecycle; each method implements only the
// wire operations declared here (start, status, complete, capturePayment, voidPayment, refundPayment, payout,
// readNotification, saveCardToken, removeCard).
import { createHash } from 'node:crypto';
import type { Clock } from '../../../lib/clock.ts';
import { randomToken } from '../../../lib/ids.ts';
import { NotSupported, PaymentProvider, type AuthorizeResult, type Capabilities } from '../provider.ts';
import type {
  AdapterDeps,
  MethodDefinition,
  Notification,
  NotificationRequest,
  PaymentFacts,
  ProviderCall,
  SaveCardInput,
  SavedCardRef,
  StartInput,
  StartResult,
  StatusResult,
} from './adapter.ts';
import { CARD_TOKEN_TTL_MS, sealCard, sealContext, type CardFields } from './card-seal.ts';
import type { ExternalRepository, ExternalRow, PayerDetails } from './repository.ts';

/** The client secret of an external action: the app reads the action from it (src/pay/external.ts). */
export const EXTERNAL_ACTION_PREFIX = 'ext:';
/** Payer tokens (made by POST cdb/payment/method/payer) start with this. */
export const PAYER_TOKEN_PREFIX = 'mt_';

/**
 * A saved card of a method that saves cards, as the wallet keeps it (saved_cards.payment_method_ref) and hands it to
 * authorize as the token: its customer and card at the provider. Paying with it needs the user's own customer.
 */
export const SAVED_CARD_PREFIX = 'msc:';

export function savedCardRefOf(c: SavedCardRef): string {
  return `${SAVED_CARD_PREFIX}${encodeURIComponent(c.customerRef)}:${encodeURIComponent(c.cardRef)}`;
}

export function parseSavedCardRef(token: string): SavedCardRef | undefined {
  if (!token.startsWith(SAVED_CARD_PREFIX)) return undefined;
  const [customer, card, ...rest] = token.slice(SAVED_CARD_PREFIX.length).split(':');
  if (!customer || !card || rest.length) return undefined;
  try {
    return { customerRef: decodeURIComponent(customer), cardRef: decodeURIComponent(card) };
  } catch {
    return undefined;
  }
}

/** Our users' customers at a provider (payment_customers: the payments module's table). */
export interface CustomerStore {
  customer(provider: string, userId: number): Promise<string | undefined>;
  /** Stores the user's customer; the first one stored wins (returned). */
  saveCustomer(provider: string, userId: number, ref: string): Promise<string>;
}

/** Our reference at the provider for one paying call: stable per call (its idempotency key), alphanumeric, 32 characters. */
export function outTradeNoOf(provider: string, idempotencyKey: string): string {
  return 'P' + createHash('sha256').update(`${provider}\n${idempotencyKey}`).digest('hex').slice(0, 31).toUpperCase();
}

/**
 * What a method provider registered in the app needs besides its configuration (AdapterDeps.host): its instance id
 * (`paypal`, `paypal.<agent>`), our payment rows, the public base for return and notification URLs.
 */
export interface MethodHost {
  instanceId: string;
  repo: ExternalRepository;
  clock: Clock;
  /** Absolute base of this server for the provider's return and notification URLs ('' in the sandbox: relative). */
  publicUrl: string;
  /** The method's test mode (methods/sandbox.ts) rather than the provider's live API. */
  sandbox: boolean;
  /** Seals card fields in payer tokens (card-seal.ts): only a live method with a direct card type has one. */
  cardKey?: Buffer;
  /** Where the user's customer at this provider is kept (methods that save cards). */
  customers?: CustomerStore;
}

export abstract class MethodProviderBase extends PaymentProvider {
  private readonly host?: MethodHost;

  constructor(
    readonly definition: MethodDefinition,
    protected readonly deps: AdapterDeps,
  ) {
    super();
    this.host = deps.host;
  }

  // The provider's wire operations (each method implements those its provider has).
  /** The provider creates the payment; the answer says what the customer does next. */
  abstract start(input: StartInput): Promise<StartResult>;
  /** The provider's current state of a payment (polled by the app's check call and by the expiry job). */
  abstract status(ref: string, outTradeNo: string): Promise<StatusResult>;
  /** The customer is back with the provider's parameters (PayPal: token, PayerID); absent: status(). */
  complete?(
    ref: string,
    outTradeNo: string,
    params: Record<string, string>,
    call: ProviderCall,
    payment?: PaymentFacts,
  ): Promise<StatusResult>;
  /** Only with capabilities.hold: captures up to the authorised amount at the provider (the rest released). */
  capturePayment?(ref: string, amount: number, call: ProviderCall): Promise<void>;
  /** Only with capabilities.hold: releases an authorisation at the provider. */
  voidPayment?(ref: string, call: ProviderCall): Promise<void>;
  /** Refunds the provider's payment `ref` (the provider's current ref, not ours). */
  abstract refundPayment(ref: string, amount: number, call: ProviderCall): Promise<void>;
  /** Verifies and reads a webhook delivery; null when its signature (or source) does not verify. */
  abstract readNotification(req: NotificationRequest): Promise<Notification | null>;
  /** Saves a card token's card on a customer at the provider (Mercado Pago customers and cards). */
  saveCardToken?(input: SaveCardInput, call: ProviderCall): Promise<SavedCardRef & { brand: string; last4: string }>;
  /** Removes a saved card at the provider (a card already gone there counts as removed). */
  removeCard?(card: SavedCardRef): Promise<void>;
  /** Public data the client needs (MercadoPago public key, Monri authenticity token, WeChat appId). */
  clientConfig(): Record<string, string> {
    return {};
  }

  /** The instance id once registered (`paypal`, `paypal.<agent>`), else the method's own id. */
  override get id(): string {
    return this.host?.instanceId ?? this.definition.id;
  }

  get capabilities(): Capabilities {
    return this.definition.capabilities;
  }

  /** What the app's payment form needs of this provider (a card SDK's public key, an authenticity token). */
  publicKey() {
    return this.clientConfig().publicKey ?? '';
  }

  /** Whether this is the method's test mode (methods/sandbox.ts). */
  get sandbox(): boolean {
    return this.host?.sandbox ?? false;
  }

  /** What the lifecycle needs of the app; a method made only for its wire operations (a test) has none. */
  protected get app(): MethodHost {
    if (!this.host) throw new Error(`${this.id}: not registered (no MethodHost)`);
    return this.host;
  }

  protected get now() {
    return this.app.clock.now();
  }

  /** Live with the provider's own card SDK on an app screen (definition.clientSdk): no card token before the paying call. */
  get cardOnSdkScreen(): boolean {
    return !this.sandbox && this.definition.clientSdk !== undefined;
  }

  /** Whether this method saves cards for later payments (from a client SDK's card token, or after a paid charge). */
  get savesCards(): boolean {
    return this.savesFromToken || this.savesAfterPayment;
  }

  /** Saves cards from a client SDK's card token (saveCard: cdb/user/card/saveToken; Mercado Pago). */
  get savesFromToken(): boolean {
    return (
      this.definition.savesCards === true && this.saveCardToken !== undefined && this.host?.customers !== undefined
    );
  }

  /** Saves cards after a paid charge whose payer asked (saveCardFlag; Flutterwave), live only. */
  get savesAfterPayment(): boolean {
    return this.definition.savesCards === 'afterPayment' && this.host?.customers !== undefined && !this.sandbox;
  }

  /**
   * Where a paid charge's reusable card goes (the wallet's saved cards: set by the app, which owns the wiring). Called
   * with a stable id per payment, so a repeated report (a retried verify, a webhook) saves it once.
   */
  onReusableCard?: (c: {
    userId: number;
    provider: string;
    outTradeNo: string;
    payType: string;
    paymentMethodRef: string;
    brand: string;
    last4: string;
    currency: string;
  }) => Promise<void>;

  /**
   * Saves the card of a single-use card token (the provider's client SDK; the sandbox card form in test mode) on the
   * user's customer at the provider: the saved card's reference (for the wallet's saved_cards) and its summary.
   */
  async saveCard(userId: number, card: { token: string; email: string; paymentMethodId?: string; issuerId?: string }) {
    if (!this.savesFromToken) throw new NotSupported(this.id, 'cardSaving');
    const customers = this.app.customers!;
    const known = await customers.customer(this.id, userId);
    const r = await this.saveCardToken!(
      { customerRef: known, ...card },
      {
        idempotencyKey: `savecard_${createHash('sha256').update(`${userId}\n${card.token}`).digest('hex').slice(0, 32)}`,
      },
    );
    if (!known) await customers.saveCustomer(this.id, userId, r.customerRef);
    return { paymentMethod: savedCardRefOf(r), card: { brand: r.brand, last4: r.last4 } };
  }

  override async detachPaymentMethod(ref: string) {
    const saved = parseSavedCardRef(ref);
    if (!saved) throw new NotSupported(this.id, 'cardSaving');
    // A card saved after a payment (a provider token, no card object at the provider): forgetting it is ours alone.
    if (this.definition.savesCards === 'afterPayment') return;
    if (!this.removeCard) throw new NotSupported(this.id, 'cardSaving');
    await this.removeCard(saved);
  }

  kindOf(payType: string) {
    return this.definition.payTypes.find((t) => t.type === payType)?.kind;
  }

  /** Whether `payType` takes the card fields from our server here: a live direct card type (Flutterwave), never test mode. */
  takesCardFields(payType: string) {
    return (
      !this.sandbox &&
      this.host?.cardKey !== undefined &&
      this.definition.payTypes.some((t) => t.type === payType && t.directCard === true)
    );
  }

  /**
   * Keeps what the payer gave as a single-use token for the paying call. Card fields (only where takesCardFields) are
   * sealed, never stored in clear, and make the token expire after CARD_TOKEN_TTL_MS.
   */
  async payerToken(userId: number, payType: string, details: PayerDetails, card?: CardFields) {
    const id = PAYER_TOKEN_PREFIX + randomToken(18);
    const now = this.now;
    let expiresAt: Date | undefined;
    if (card) {
      const key = this.app.cardKey;
      if (!this.takesCardFields(payType) || !key) throw new Error(`${this.id}: ${payType} does not take card fields`);
      details = { ...details, sealedCard: sealCard(key, card, sealContext(id, userId, this.id)) };
      expiresAt = new Date(now.getTime() + CARD_TOKEN_TTL_MS);
    }
    await this.app.repo.insertToken({ id, userId, provider: this.id, payType, details, expiresAt }, now);
    return id;
  }

  /**
   * saveCardFlag: the paid charge's reusable card (the provider gives it only once paid: Flutterwave's verify
   * data.card.token) becomes the user's saved card. Never fails the payment: a card that could not be saved is
   * simply not saved (nothing is logged: the error could carry the token) and the payment goes on.
   */
  protected async keepCard(row: ExternalRow, st?: StatusResult) {
    if (!row.save_card || !this.onReusableCard || row.user_id <= 0) return;
    try {
      const card = (st?.reusableCard ? st : await this.status(row.provider_ref, row.out_trade_no)).reusableCard;
      if (!card) return;
      const customerRef = await this.app.customers!.saveCustomer(this.id, row.user_id, `user-${row.user_id}`);
      await this.onReusableCard({
        userId: row.user_id,
        provider: this.id,
        outTradeNo: row.out_trade_no,
        payType: row.pay_type,
        currency: row.currency,
        paymentMethodRef: savedCardRefOf({ customerRef, cardRef: card.cardRef }),
        brand: card.brand,
        last4: card.last4,
      });
    } catch {
      // The payment stands; the card is simply not saved (the customer can tick it again next time).
    }
  }

  /** Records what the provider says of a payment (checked against what we asked) and reads the row again. */
  protected async record(row: ExternalRow, st: StatusResult): Promise<ExternalRow> {
    // What the provider took must be what we asked for.
    if (
      (st.state === 'paid' || st.state === 'authorized') &&
      ((st.amount != null && st.amount !== row.amount) || (st.currency && st.currency.toUpperCase() !== row.currency))
    ) {
      st = { ...st, state: 'failed', failureCode: 'amount_mismatch' };
    }
    const { repo } = this.app;
    if (st.state !== row.state || st.ref !== row.provider_ref)
      await repo.update(row.out_trade_no, { state: st.state, ref: st.ref, failureCode: st.failureCode }, this.now);
    const now = (await repo.find(row.out_trade_no))!;
    if (row.state === 'pending' && (now.state === 'paid' || now.state === 'authorized')) await this.keepCard(now, st);
    return now;
  }

  protected actionOf(row: ExternalRow): AuthorizeResult {
    return {
      ok: true,
      status: 'requires_action',
      ref: row.out_trade_no,
      clientSecret: EXTERNAL_ACTION_PREFIX + JSON.stringify(row.action),
      card: null,
    };
  }

  protected resultOf(row: ExternalRow): AuthorizeResult {
    const card = { brand: row.pay_type, last4: '' };
    if (row.state === 'paid' || row.state === 'authorized') {
      return {
        ok: true,
        ref: row.out_trade_no,
        status: row.state === 'paid' ? 'captured' : 'authorized',
        card,
        amount: row.amount,
        currency: row.currency,
        captureBefore: null,
      };
    }
    return {
      ok: false,
      ref: row.out_trade_no,
      declineCode: row.failure_code ?? (row.state === 'cancelled' ? 'cancelled' : 'card_declined'),
      card,
    };
  }

  /** Our row of a payment by our reference (outTradeNo). */
  protected async current(ref: string) {
    const row = await this.app.repo.find(ref);
    if (!row) throw new Error(`${this.id}: no payment ${ref}`);
    return row;
  }

  /** The customer is back from the provider: its parameters, and where the app resumes. */
  async customerReturned(outTradeNo: string, params: Record<string, string>) {
    return this.app.repo.saveReturn(outTradeNo, params, this.now);
  }
}
