// A method adapter (adapter.ts) as a payment provider of the registry: the rentals, wallet, debt and Wi-Fi flows
// pay with it exactly as with a card provider whose customer must act (3-D Secure). `authorize` starts the payment
// at the provider and answers `requires_action` with what the customer does next; the app repeats its call with
// `paymentIntent` = our outTradeNo, and `resume` reads the provider's state (after the customer's return with its
// parameters, or by polling while they confirm on their phone). Capture, void and refund go to the adapter with
// the provider's current ref; the orphan guards and compensation jobs of the flows therefore work unchanged.
import { createHash } from 'node:crypto';
import type { Clock } from '../../../lib/clock.ts';
import { randomToken } from '../../../lib/ids.ts';
import { NotSupported, PaymentProvider, type AuthorizeInput, type AuthorizeResult, type Capabilities, type PayoutInput, type ProviderCallOptions, type Settlements } from '../provider.ts';
import { ProviderError, webhookPath, type MethodDefinition, type ExternalState, type MethodAdapter, type NotificationRequest, type SavedCardRef, type StartInput, type StatusResult } from './adapter.ts';
import { CARD_TOKEN_TTL_MS, openCard, sealCard, sealContext, type CardFields } from './card-seal.ts';
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

export class ExternalMethodProvider extends PaymentProvider {
  constructor(
    private readonly instanceId: string,
    readonly definition: MethodDefinition,
    private readonly adapter: MethodAdapter,
    private readonly repo: ExternalRepository,
    private readonly clock: Clock,
    /** Absolute base of this server for the provider's return and notification URLs ('' in the sandbox: relative). */
    private readonly publicUrl: string,
    readonly sandbox: boolean,
    /** Seals card fields in payer tokens (card-seal.ts): only a live method with a direct card type has one. */
    private readonly cardKey?: Buffer,
    /** Where the user's customer at this provider is kept (methods that save cards). */
    private readonly customers?: CustomerStore,
  ) {
    super();
  }

  override get id() {
    return this.instanceId;
  }

  get capabilities(): Capabilities {
    return this.definition.capabilities;
  }

  /** What the app's payment form needs of this provider (a card SDK's public key, an authenticity token). */
  publicKey() {
    return this.adapter.clientConfig?.().publicKey ?? '';
  }

  clientConfig() {
    return this.adapter.clientConfig?.() ?? {};
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
    return this.definition.savesCards === true && this.adapter.saveCard !== undefined && this.customers !== undefined;
  }

  /** Saves cards after a paid charge whose payer asked (saveCardFlag; Flutterwave), live only. */
  get savesAfterPayment(): boolean {
    return this.definition.savesCards === 'afterPayment' && this.customers !== undefined && !this.sandbox;
  }

  /**
   * Where a paid charge's reusable card goes (the wallet's saved cards: set by the app, which owns the wiring). Called
   * with a stable id per payment, so a repeated report (a retried verify, a webhook) saves it once.
   */
  onReusableCard?: (c: { userId: number; provider: string; outTradeNo: string; payType: string; paymentMethodRef: string; brand: string; last4: string; currency: string }) => Promise<void>;

  /**
   * Saves the card of a single-use card token (the provider's client SDK; the sandbox card form in test mode) on the
   * user's customer at the provider: the saved card's reference (for the wallet's saved_cards) and its summary.
   */
  async saveCard(userId: number, card: { token: string; email: string; paymentMethodId?: string; issuerId?: string }) {
    if (!this.savesFromToken) throw new NotSupported(this.id, 'cardSaving');
    const known = await this.customers!.customer(this.id, userId);
    const r = await this.adapter.saveCard!({ customerRef: known, ...card }, { idempotencyKey: `savecard_${createHash('sha256').update(`${userId}\n${card.token}`).digest('hex').slice(0, 32)}` });
    if (!known) await this.customers!.saveCustomer(this.id, userId, r.customerRef);
    return { paymentMethod: savedCardRefOf(r), card: { brand: r.brand, last4: r.last4 } };
  }

  override async detachPaymentMethod(ref: string) {
    const saved = parseSavedCardRef(ref);
    if (!saved) throw new NotSupported(this.id, 'cardSaving');
    // A card saved after a payment (a provider token, no card object at the provider): forgetting it is ours alone.
    if (this.definition.savesCards === 'afterPayment') return;
    if (!this.adapter.removeCard) throw new NotSupported(this.id, 'cardSaving');
    await this.adapter.removeCard(saved);
  }

  kindOf(payType: string) {
    return this.definition.payTypes.find((t) => t.type === payType)?.kind;
  }

  /** Whether `payType` takes the card fields from our server here: a live direct card type (Flutterwave), never test mode. */
  takesCardFields(payType: string) {
    return !this.sandbox && this.cardKey !== undefined && this.definition.payTypes.some((t) => t.type === payType && t.directCard === true);
  }

  /**
   * Keeps what the payer gave as a single-use token for the paying call. Card fields (only where takesCardFields) are
   * sealed, never stored in clear, and make the token expire after CARD_TOKEN_TTL_MS.
   */
  async payerToken(userId: number, payType: string, details: PayerDetails, card?: CardFields) {
    const id = PAYER_TOKEN_PREFIX + randomToken(18);
    const now = this.clock.now();
    let expiresAt: Date | undefined;
    if (card) {
      if (!this.takesCardFields(payType) || !this.cardKey) throw new Error(`${this.id}: ${payType} does not take card fields`);
      details = { ...details, sealedCard: sealCard(this.cardKey, card, sealContext(id, userId, this.id)) };
      expiresAt = new Date(now.getTime() + CARD_TOKEN_TTL_MS);
    }
    await this.repo.insertToken({ id, userId, provider: this.id, payType, details, expiresAt }, now);
    return id;
  }

  async authorize(input: AuthorizeInput): Promise<AuthorizeResult> {
    const outTradeNo = outTradeNoOf(this.id, input.idempotencyKey);
    // A replayed call (a retried request, an orphan guard) gets the first call's payment back, never a second one.
    const prior = await this.repo.find(outTradeNo);
    if (prior) return prior.state === 'pending' ? this.actionOf(prior) : this.resultOf(prior);
    if (input.capture === 'manual' && !this.capabilities.hold) throw new NotSupported(this.id, 'holds');
    const saved = parseSavedCardRef(input.token);
    let payType: string;
    let d: PayerDetails;
    let card: StartInput['card'];
    if (saved) {
      // A saved card (the wallet's, of this user): only on the user's own customer at the provider.
      const mine = this.savesCards && input.userId != null ? await this.customers!.customer(this.id, input.userId) : undefined;
      const type = this.definition.payTypes.find((t) => t.kind === 'card')?.type;
      if (!mine || mine !== saved.customerRef || !type) return { ok: false, ref: null, declineCode: 'token_invalid', card: null };
      payType = type;
      d = {};
      card = { saved };
    } else {
      const used = input.userId != null ? await this.repo.useToken(input.token, input.userId, this.id, this.clock.now()) : undefined;
      if (!used) return { ok: false, ref: null, declineCode: 'token_invalid', card: null };
      payType = used.pay_type;
      d = used.details;
      card = d.card;
    }
    if (d.sealedCard) {
      // Opened only here, for the provider call; the row no longer holds it (useToken removed it).
      const opened = this.cardKey ? openCard(this.cardKey, d.sealedCard, sealContext(input.token, input.userId ?? 0, this.id)) : undefined;
      if (!opened) return { ok: false, ref: null, declineCode: 'token_invalid', card: null };
      card = opened;
    }
    const base = this.publicUrl.replace(/\/$/, '');
    let started;
    try {
      started = await this.adapter.start({
        outTradeNo, amount: input.amount, currency: input.currency, description: `Powerly ${input.purpose ?? ''}`.trim(),
        capture: input.capture, returnUrl: `${base}/payments/return/${outTradeNo}`, cancelUrl: `${base}/payments/return/${outTradeNo}?cancel=1`,
        notifyUrl: `${base}${webhookPath(this.id)}`, idempotencyKey: input.idempotencyKey, payType,
        payer: { userId: input.userId ?? 0, email: d.email, phone: d.phone, openId: d.openId, name: d.name, ip: d.ip },
        card, deposit: input.capture === 'manual' ? input.amount : undefined,
      });
    } catch (err) {
      if (err instanceof ProviderError && err.code !== 'network' && (err.status ?? 400) < 500) {
        return { ok: false, ref: null, declineCode: err.code, card: null };
      }
      throw err;
    }
    // The app's own card screen (MercadoPago.js) may save the new card: it names the method for the save call.
    if (this.savesFromToken && this.cardOnSdkScreen && !saved && started.action.kind === 'form' && started.action.url.startsWith('#/')) {
      started.action = { ...started.action, fields: { ...started.action.fields, paymentId: `${this.id}:${payType}` } };
    }
    const row: ExternalRow = {
      out_trade_no: outTradeNo, provider: this.id, pay_type: payType, provider_ref: started.ref, user_id: input.userId ?? 0,
      amount: input.amount, currency: input.currency, capture: input.capture, state: started.state, failure_code: started.failureCode ?? null,
      action: started.action, app_return_url: appPath(input.returnUrl), return_params: null,
      save_card: !saved && d.saveCard === true && this.savesAfterPayment,
    };
    await this.repo.insert(row, this.clock.now());
    if (row.state === 'paid' || row.state === 'authorized') await this.keepCard(row);
    return started.state === 'pending' ? this.actionOf(row) : this.resultOf(row);
  }

  /** The payment's state now: the provider is asked unless our row is final. Only its payer may resume it. */
  override async resume(ref: string, userId: number): Promise<AuthorizeResult> {
    const row = await this.repo.find(ref);
    if (!row || row.user_id !== userId) return { ok: false, ref: null, declineCode: 'token_invalid', card: null };
    const now = await this.refresh(row);
    return now.state === 'pending' ? this.actionOf(now) : this.resultOf(now);
  }

  /** Asks the provider (completing with the customer's return parameters once) and records what it says. */
  async refresh(row: ExternalRow): Promise<ExternalRow> {
    if (row.state !== 'pending') return row;
    const call = { idempotencyKey: `complete_${row.out_trade_no}` };
    let st: StatusResult;
    if (row.return_params?.cancel === '1') {
      // Anyone can post a cancel to the return URL: the provider is asked first, and a payment it took is recorded.
      st = await this.adapter.status(row.provider_ref, row.out_trade_no);
      if (st.state === 'pending') st = { ref: st.ref || row.provider_ref, state: 'cancelled', failureCode: 'cancelled' };
    } else if (row.return_params && this.adapter.complete) {
      // A saved card's payment (the screen made a token of the card the action named) is the user's customer's.
      const customerRef = row.action.kind === 'form' && row.action.fields.cardId ? await this.customers?.customer(this.id, row.user_id) : undefined;
      const payment = {
        amount: row.amount, currency: row.currency, capture: row.capture, description: 'Powerly', notifyUrl: `${this.publicUrl.replace(/\/$/, '')}${webhookPath(this.id)}`,
        ...(customerRef ? { customerRef } : {}),
      };
      st = await this.adapter.complete(row.provider_ref, row.out_trade_no, row.return_params, call, payment);
    } else st = await this.adapter.status(row.provider_ref, row.out_trade_no);
    return this.record(row, st);
  }

  /**
   * The one-time code the card's issuer sent the customer (a card charge whose action is the app's OTP screen:
   * Flutterwave's validate-charge flow), passed to the provider; then the payment's state as for any resume. Only
   * its payer, only while it waits for the code. A replay once the payment is settled sends nothing and answers its
   * state; a wrong code throws the adapter's ProviderError (`incorrect_otp`) and the payment stays pending.
   */
  async submitOtp(outTradeNo: string, userId: number, otp: string): Promise<ExternalRow | undefined> {
    const row = await this.repo.find(outTradeNo);
    if (!row || row.provider !== this.id || row.user_id !== userId) return undefined;
    if (row.action.kind !== 'form' || row.action.fields.outTradeNo !== outTradeNo || !row.action.url.endsWith('Otp') || !this.adapter.complete) return undefined;
    if (row.state !== 'pending') return row;
    const st = await this.adapter.complete(row.provider_ref, row.out_trade_no, { otp }, { idempotencyKey: `otp_${outTradeNo}` });
    return this.record(row, st);
  }

  /**
   * saveCardFlag: the paid charge's reusable card (the provider gives it only once paid: Flutterwave's verify
   * data.card.token) becomes the user's saved card. Never fails the payment: a card that could not be saved is
   * simply not saved (nothing is logged: the error could carry the token) and the payment goes on.
   */
  private async keepCard(row: ExternalRow, st?: StatusResult) {
    if (!row.save_card || !this.onReusableCard || row.user_id <= 0) return;
    try {
      const card = (st?.reusableCard ? st : await this.adapter.status(row.provider_ref, row.out_trade_no)).reusableCard;
      if (!card) return;
      const customerRef = await this.customers!.saveCustomer(this.id, row.user_id, `user-${row.user_id}`);
      await this.onReusableCard({
        userId: row.user_id, provider: this.id, outTradeNo: row.out_trade_no, payType: row.pay_type, currency: row.currency,
        paymentMethodRef: savedCardRefOf({ customerRef, cardRef: card.cardRef }), brand: card.brand, last4: card.last4,
      });
    } catch {
      // The payment stands; the card is simply not saved (the customer can tick it again next time).
    }
  }

  /** Records what the provider says of a payment (checked against what we asked) and reads the row again. */
  private async record(row: ExternalRow, st: StatusResult): Promise<ExternalRow> {
    // What the provider took must be what we asked for.
    if ((st.state === 'paid' || st.state === 'authorized') && ((st.amount != null && st.amount !== row.amount) || (st.currency && st.currency.toUpperCase() !== row.currency))) {
      st = { ...st, state: 'failed', failureCode: 'amount_mismatch' };
    }
    if (st.state !== row.state || st.ref !== row.provider_ref) await this.repo.update(row.out_trade_no, { state: st.state, ref: st.ref, failureCode: st.failureCode }, this.clock.now());
    const now = (await this.repo.find(row.out_trade_no))!;
    if (row.state === 'pending' && (now.state === 'paid' || now.state === 'authorized')) await this.keepCard(now, st);
    return now;
  }

  private actionOf(row: ExternalRow): AuthorizeResult {
    return { ok: true, status: 'requires_action', ref: row.out_trade_no, clientSecret: EXTERNAL_ACTION_PREFIX + JSON.stringify(row.action), card: null };
  }

  private resultOf(row: ExternalRow): AuthorizeResult {
    const card = { brand: row.pay_type, last4: '' };
    if (row.state === 'paid' || row.state === 'authorized') {
      return { ok: true, ref: row.out_trade_no, status: row.state === 'paid' ? 'captured' : 'authorized', card, amount: row.amount, currency: row.currency, captureBefore: null };
    }
    return { ok: false, ref: row.out_trade_no, declineCode: row.failure_code ?? (row.state === 'cancelled' ? 'cancelled' : 'card_declined'), card };
  }

  private async current(ref: string) {
    const row = await this.repo.find(ref);
    if (!row) throw new Error(`${this.id}: no payment ${ref}`);
    return row;
  }

  async capture(ref: string, amount: number, opts?: ProviderCallOptions) {
    const row = await this.current(ref);
    if (!this.adapter.capture) throw new NotSupported(this.id, 'capture');
    await this.adapter.capture(row.provider_ref, amount, { idempotencyKey: opts?.idempotencyKey ?? `capture_${ref}` });
    await this.repo.update(ref, { state: 'paid', ref: row.provider_ref }, this.clock.now());
  }

  /**
   * Releases a payment: an authorisation is voided; one still waiting for the customer is asked once more (a
   * payment they finished meanwhile is refunded) and otherwise closed on our side.
   */
  async void(ref: string, opts?: ProviderCallOptions) {
    const row = await this.refresh(await this.current(ref));
    const key = opts?.idempotencyKey ?? `void_${ref}`;
    if (row.state === 'authorized') {
      if (!this.adapter.void) throw new NotSupported(this.id, 'void');
      await this.adapter.void(row.provider_ref, { idempotencyKey: key });
    } else if (row.state === 'paid') await this.adapter.refund(row.provider_ref, row.amount, { idempotencyKey: key });
    else if (row.state !== 'pending') return;
    const closed = await this.repo.update(ref, { state: 'cancelled', ref: row.provider_ref, failureCode: 'released' }, this.clock.now());
    // Read pending, but not closed: a concurrent read (the customer's resume, a notification) recorded their payment
    // in between. Released as such (refunded, or voided), else it would be neither taken nor given back.
    if (!closed && row.state === 'pending') await this.void(ref, opts);
  }

  /**
   * A notification about a payment we released while it still waited for the customer (the flow's deadline
   * passed, or the rental could not start): if the customer paid it after all, the money goes back: a charge is
   * refunded, a hold voided, each once (the provider's idempotency key; the row then says so).
   */
  async settleLate(row: ExternalRow) {
    if (row.state !== 'cancelled' || row.failure_code !== 'released') return row;
    const st = await this.adapter.status(row.provider_ref, row.out_trade_no);
    if (st.state === 'paid') await this.adapter.refund(st.ref, st.amount ?? row.amount, { idempotencyKey: `late_${row.out_trade_no}` });
    else if (st.state === 'authorized' && this.adapter.void) await this.adapter.void(st.ref, { idempotencyKey: `late_${row.out_trade_no}` });
    else return row;
    await this.repo.givenBack(row.out_trade_no, st.ref, st.state === 'paid' ? 'released_refunded' : 'released_voided', this.clock.now());
    return (await this.repo.find(row.out_trade_no))!;
  }

  async refund(ref: string, amount: number, opts?: ProviderCallOptions) {
    const row = await this.current(ref);
    await this.adapter.refund(row.provider_ref, amount, { idempotencyKey: opts?.idempotencyKey ?? `refund_${ref}_${amount}` });
  }

  override async payout(input: PayoutInput) {
    if (!this.adapter.payout) throw new NotSupported(this.id, 'payouts');
    return this.adapter.payout(input);
  }

  override settlements(from: Date, to: Date): Promise<Settlements | null> {
    return Promise.resolve(this.adapter.settlements ? { cumulative: false, pages: this.adapter.settlements(from, to) } : null);
  }

  /**
   * A provider's notification: verified by the adapter, then the payment is read again from the provider (a
   * notification tells that something happened; the state we record is the provider's answer to our own call).
   */
  async notification(req: NotificationRequest) {
    const n = await this.adapter.notification(req);
    if (!n) return null;
    const row = n.outTradeNo ? await this.repo.find(n.outTradeNo) : n.ref ? await this.repo.byProviderRef(this.id, n.ref) : undefined;
    return { n, row };
  }

  /** The customer is back from the provider: its parameters, and where the app resumes. */
  async customerReturned(outTradeNo: string, params: Record<string, string>) {
    return this.repo.saveReturn(outTradeNo, params, this.clock.now());
  }
}

/** Only a path of our own app is kept as the place to come back to (never another site: no open redirect). */
function appPath(url: string | undefined): string | null {
  if (!url) return null;
  try {
    const u = new URL(url, 'http://app.invalid');
    // A path of our own origin only: leading slashes (and backslashes) collapse, so it never reads as another host.
    return `/${u.pathname.replace(/^[/\\]+/, '')}${u.search}${u.hash}`;
  } catch {
    return null;
  }
}

export type { ExternalState };
