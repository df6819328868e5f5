// The sandbox card provider: behaves like a card provider's test mode. Tokens are made by
// POST /sandbox-pay/v1/tokens (test cards in docs/api.md), are single-use, and every payment intent runs the
// provider-side state machine below, persisted in the database (as the provider's own records).
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Db } from '../../db/db.ts';
import type { JobRunner } from '../../jobs/runner.ts';
import type { Clock } from '../../lib/clock.ts';
import { randomToken } from '../../lib/ids.ts';
import { SecretsRepository } from '../../secrets/repository.ts';
import { SandboxAcquirerRepository, type IntentRow } from './sandbox-repository.ts';
import {
  DEBIT_CARD_TYPE,
  DEBIT_ONLY,
  PaymentProvider,
  type AuthorizeInput,
  type Capabilities,
  type AuthorizeResult,
  type PayoutInput,
  type ProviderCallOptions,
  type ProviderEvent,
  type WebhookDelivery,
  type WebhookRequest,
  cardAction,
  headerOf,
  type SettlementLine,
  type Settlements,
} from './provider.ts';
import { SandboxError, tokenize, type TokenInput } from './sandbox-cards.ts';

export { SandboxError, TEST_FUNDING, luhnValid, sandboxSavedCards } from './sandbox-cards.ts';

export type IntentStatus =
  'requires_confirmation' | 'authorized' | 'captured' | 'partially_captured' | 'voided' | 'refunded' | 'declined';

const INTENT_TRANSITIONS: Record<IntentStatus, IntentStatus[]> = {
  requires_confirmation: ['authorized', 'captured', 'declined'],
  authorized: ['captured', 'partially_captured', 'voided'],
  captured: ['refunded'],
  partially_captured: ['refunded'],
  voided: [],
  refunded: [],
  declined: [],
};

/** The installation secret that signs the sandbox's webhook deliveries (secrets/repository.ts; never a constant). */
export const SANDBOX_WEBHOOK_SECRET_NAME = 'sandbox.webhook-secret';
export const JOB_SANDBOX_PAYOUT_ARRIVAL = 'sandbox.payout-arrival';
/** Signatures older than this are refused (replayed deliveries). */
const SIGNATURE_TOLERANCE_S = 300;

/** A payout to an account whose number ends in these digits fails (test mode), like card 4000…0002. */
export const SANDBOX_FAILING_ACCOUNT_SUFFIX = '0002';

export type EventSink = (raw: string, signature: string) => Promise<void>;

/** Card networks let a hold live 7 days for most cards; the sandbox's holds do too. */
export const SANDBOX_HOLD_DAYS = 7;

export class SandboxCardProvider extends PaymentProvider {
  static override readonly id = 'sandbox';
  readonly capabilities: Capabilities = {
    hold: true,
    partialCapture: true,
    offSession: true,
    refund: true,
    payout: true,
    webhook: true,
  };
  private sink: EventSink | null = null;
  private jobs: JobRunner | null = null;
  /** Delay between a payout request and its arrival event (test mode is fast; 0 = the next job pass). */
  payoutDelayMs = 0;
  private readonly repo: SandboxAcquirerRepository;

  private webhookSecret: string | null;

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly key = 'pk_sandbox_powerly',
    webhookSecret?: string,
  ) {
    super();
    this.repo = new SandboxAcquirerRepository(db);
    this.webhookSecret = webhookSecret ?? null;
  }

  /** Loads this installation's webhook secret (made on the first start) unless one was given; buildApp calls it. */
  async init() {
    this.webhookSecret ??= await new SecretsRepository(this.db).get(SANDBOX_WEBHOOK_SECRET_NAME, this.clock.now());
  }

  private secret(): string {
    if (!this.webhookSecret) throw new Error('sandbox provider: init() not called (no webhook secret)');
    return this.webhookSecret;
  }

  /**
   * Wires the provider's asynchronous side: payouts arrive through a DB job (survives restarts) that delivers a
   * signed webhook event to `sink`, as the real provider would POST it to our webhook endpoint.
   */
  connect(jobs: JobRunner, sink: EventSink) {
    this.jobs = jobs;
    this.sink = sink;
    jobs.register(JOB_SANDBOX_PAYOUT_ARRIVAL, (p) => this.arrive(String(p.payoutId)));
  }

  /**
   * Its own records as settlements: every intent touched in [from, to) with what it captured and refunded so far
   * (the sandbox keeps totals, not movements; no fee in test mode).
   */
  override settlements(from: Date, to: Date): Promise<Settlements> {
    return Promise.resolve({ cumulative: true, pages: this.intentPages(from, to) });
  }

  private async *intentPages(from: Date, to: Date, size = 500): AsyncGenerator<SettlementLine[]> {
    for (let after = ''; ;) {
      const intents = await this.repo.intentsTouched(from, to, after, size);
      const lines: SettlementLine[] = [];
      for (const i of intents) {
        if (i.amount_captured > 0)
          lines.push({
            ref: i.id,
            source: i.id,
            type: 'charge',
            amount: i.amount_captured,
            fee: 0,
            currency: i.currency,
          });
        if (i.amount_refunded > 0)
          lines.push({
            ref: i.id,
            source: `${i.id}/refunds`,
            type: 'refund',
            amount: -i.amount_refunded,
            fee: 0,
            currency: i.currency,
          });
      }
      if (lines.length) yield lines;
      if (intents.length < size) return;
      after = intents.at(-1)!.id;
    }
  }

  /** The signature header of a delivery: t=<unix seconds>,v1=<hex HMAC-SHA256 of "t.body">. */
  sign(raw: string, at = this.clock.now()): string {
    const t = Math.floor(at.getTime() / 1000);
    const v1 = createHmac('sha256', this.secret()).update(`${t}.${raw}`).digest('hex');
    return `t=${t},v1=${v1}`;
  }

  /** A delivery to the webhook entry: its `sandbox-signature` verified (verifyEvent), read as one of the actions. */
  notification(req: WebhookRequest): Promise<WebhookDelivery | null> {
    const event = this.verifyEvent(req.rawBody, headerOf(req, 'sandbox-signature'));
    return Promise.resolve(event ? { action: cardAction(event), event } : null);
  }

  override verifyEvent(raw: string, signature: string | undefined): ProviderEvent | null {
    const m = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(signature ?? '');
    if (!m) return null;
    const t = Number(m[1]);
    if (Math.abs(this.clock.now().getTime() / 1000 - t) > SIGNATURE_TOLERANCE_S) return null;
    const expected = createHmac('sha256', this.secret()).update(`${t}.${raw}`).digest();
    const given = Buffer.from(m[2]!, 'hex');
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
    try {
      const e = JSON.parse(raw) as ProviderEvent;
      return typeof e.id === 'string' && typeof e.type === 'string' && e.data && typeof e.data.ref === 'string'
        ? e
        : null;
    } catch {
      return null;
    }
  }

  override async createSetup() {
    const id = `seti_${randomToken(12)}`;
    const clientSecret = `${id}_secret_${randomToken(12)}`;
    await this.repo.insertSetupIntent(id, clientSecret, this.clock.now());
    return { id, clientSecret };
  }

  override async confirmSetup(setupId: string, clientSecret: string, token: string) {
    const si = await this.repo.setupIntent(setupId);
    if (!si || si.client_secret !== clientSecret)
      throw new SandboxError('resource_missing', `No such setup intent: ${setupId}`, 404);
    if (si.status === 'succeeded')
      throw new SandboxError('setup_intent_unexpected_state', 'This setup intent was already confirmed.', 400);
    const now = this.clock.now();
    const tok = await this.useToken(token, now);
    if (!tok) throw new SandboxError('token_invalid', 'The card token is invalid or was already used.');
    if (tok.outcome !== 'ok') throw new SandboxError(tok.outcome, 'Your card was declined.');
    const pm = `pm_${randomToken(12)}`;
    await this.repo.insertPaymentMethod(pm, tok.id, now);
    await this.repo.completeSetupIntent(setupId, pm);
    return { paymentMethod: pm, card: { brand: tok.brand, last4: tok.last4 } };
  }

  /** Marks a single-use card token used; undefined when it is unknown or was used already. */
  private async useToken(token: string, at: Date) {
    return this.repo.useToken(token, at);
  }

  override async detachPaymentMethod(ref: string) {
    await this.repo.detachPaymentMethod(ref, this.clock.now());
  }

  override async payout(input: PayoutInput) {
    const id = `po_${input.idempotencyKey}`;
    const now = this.clock.now();
    // The payout and its arrival in one unit of work: a process stopping between the two left a payout in transit
    // with no arrival, and the retried request (same key) found it made and scheduled none; the provider never
    // forgets a payout it accepted.
    await this.db.tx(async () => {
      const created = await this.repo.insertPayout(id, input.amount, input.currency, input.destination, now);
      if (created && this.jobs) {
        await this.jobs.enqueue(
          JOB_SANDBOX_PAYOUT_ARRIVAL,
          { payoutId: id },
          new Date(now.getTime() + this.payoutDelayMs),
        );
      }
    });
    return { ref: id };
  }

  /** The payout reaches the payee's bank (or bounces) and the provider tells us with a signed event. */
  private async arrive(payoutId: string) {
    const p = await this.repo.payout(payoutId);
    if (!p) return;
    const dest =
      typeof p.destination === 'string' ? (JSON.parse(p.destination) as PayoutInput['destination']) : p.destination;
    const fails =
      dest.kind === 'channel' &&
      Object.values(dest.account).some((v) => v.replace(/\s/g, '').endsWith(SANDBOX_FAILING_ACCOUNT_SUFFIX));
    if (p.status === 'in_transit') {
      await this.repo.settlePayout(
        payoutId,
        fails ? 'failed' : 'paid',
        fails ? 'account_closed' : null,
        this.clock.now(),
      );
    }
    const final = (await this.repo.payout(payoutId))!;
    // The event id is stable per payout outcome: a redelivery (retried job) is the same event.
    const event: ProviderEvent = {
      id: `evt_${payoutId}_${final.status}`,
      type: final.status === 'paid' ? 'payout.paid' : 'payout.failed',
      data: { ref: payoutId, ...(final.failure_code ? { failureCode: final.failure_code } : {}) },
    };
    const raw = JSON.stringify(event);
    if (this.sink) await this.sink(raw, this.sign(raw));
  }

  publicKey() {
    return this.key;
  }

  /** The client-side tokenisation endpoint's logic (sandbox-cards.ts). */
  tokenize(input: TokenInput) {
    return tokenize(this.repo, this.key, this.clock, input);
  }

  async authorize(input: AuthorizeInput): Promise<AuthorizeResult> {
    const now = this.clock.now();
    const id = `pi_${input.idempotencyKey}`;
    const replay = async (): Promise<AuthorizeResult | undefined> => {
      // Idempotent per key: a retried authorisation returns the first intent.
      const p = await this.repo.intentWithCard(id);
      if (!p) return undefined;
      const card = { brand: p.brand, last4: p.last4 };
      return p.status === 'declined'
        ? { ok: false, ref: p.id, declineCode: p.decline_code ?? 'card_declined', card }
        : { ok: true, ref: p.id, status: input.capture === 'manual' ? 'authorized' : 'captured', card };
    };
    // A saved card (pm_…) is reusable: a replay is looked for first. A card token (tok_…) is single-use: it is
    // taken first, and only when it is gone already is this a replay (one query fewer on the first call).
    const saved = input.token.startsWith('pm_');
    if (saved) {
      const r = await replay();
      if (r) return r;
    }
    // setup_future_usage: a single-use token becomes a reusable payment method for off-session charges (kept only
    // when the intent is not declined).
    const keepAs =
      input.saveCard && input.userId != null && !saved
        ? { paymentMethod: `pm_${randomToken(12)}`, customer: `cus_sandbox_${input.userId}` }
        : null;
    // A debit-only payment type: the card's funding decides before the issuer is asked (a replay answers the same).
    const debitOnly = input.methodType === DEBIT_CARD_TYPE ? DEBIT_ONLY : null;
    // The intent is confirmed as it is created (requires_confirmation → its outcome, INTENT_TRANSITIONS), in one
    // statement with the saved payment method (and, for a single-use token, the token taken); an intent of this key
    // made meanwhile answers as a replay.
    const intent = { id, amount: input.amount, currency: input.currency, capture: input.capture, at: now };
    const taken = saved
      ? await this.confirmSaved(input.token, intent, debitOnly)
      : await this.repo.takeTokenIntoIntent(
          input.token,
          { ...intent, paymentMethod: keepAs?.paymentMethod ?? null },
          debitOnly,
        );
    if (!taken)
      return (saved ? undefined : await replay()) ?? { ok: false, ref: null, declineCode: 'token_invalid', card: null };
    const card = { brand: taken.brand, last4: taken.last4 };
    if (!taken.made) return (await replay())!;
    if (taken.decline_code) return { ok: false, ref: id, declineCode: taken.decline_code, card };
    if (taken.status === 'authorized') {
      const captureBefore = new Date(now.getTime() + SANDBOX_HOLD_DAYS * 86_400_000);
      return { ok: true, ref: id, status: 'authorized', card, saved: keepAs, captureBefore };
    }
    return { ok: true, ref: id, status: 'captured', card, saved: keepAs };
  }

  /** A saved card's intent, confirmed as it is made (authorize): undefined when the payment method is gone. */
  private async confirmSaved(
    paymentMethod: string,
    i: { id: string; amount: number; currency: string; capture: string; at: Date },
    debitOnly: string | null,
  ) {
    const token = await this.repo.paymentMethodToken(paymentMethod);
    if (!token) return undefined;
    const declined = debitOnly && token.funding !== 'debit' ? debitOnly : token.outcome !== 'ok' ? token.outcome : null;
    const status: IntentStatus = declined ? 'declined' : i.capture === 'manual' ? 'authorized' : 'captured';
    const made = await this.repo.insertConfirmedIntent({
      ...i,
      tokenId: token.id,
      status,
      amountCaptured: status === 'captured' ? i.amount : 0,
      declineCode: declined,
      paymentMethod: null,
    });
    return { ...token, made, status, decline_code: declined };
  }

  // Idempotency (opts.idempotencyKey): the sandbox's state machine already treats a repeated move to the state an
  // intent is in as done (move()), which is what a provider's idempotent replay of the same call returns.
  async capture(ref: string, amount: number, _opts?: ProviderCallOptions) {
    const i = await this.intent(ref);
    if (amount <= 0 || amount > i.amount) throw new SandboxError('amount_too_large', 'Capture amount is invalid.');
    await this.move(ref, amount === i.amount ? 'captured' : 'partially_captured', { amount_captured: amount });
  }

  async void(ref: string, _opts?: ProviderCallOptions) {
    await this.move(ref, 'voided');
  }

  /** A refund per idempotency key, as Stripe's: several parts, each once, never more in all than was captured. */
  async refund(ref: string, amount: number, opts?: ProviderCallOptions) {
    const key = opts?.idempotencyKey ?? `re_${randomToken(12)}`;
    const i = await this.intent(ref);
    if (await this.repo.refundMade(ref, key)) return;
    if (!['captured', 'partially_captured', 'refunded'].includes(i.status)) {
      throw new SandboxError('payment_intent_unexpected_state', `Cannot refund a ${i.status} payment.`, 400);
    }
    if (amount <= 0 || amount > i.amount_captured - i.amount_refunded)
      throw new SandboxError('amount_too_large', 'Refund amount is invalid.');
    if (!(await this.repo.addRefund(ref, key, amount, i.amount_refunded, this.clock.now()))) {
      throw new SandboxError('payment_intent_unexpected_state', 'Concurrent update.', 409);
    }
  }

  async status(ref: string): Promise<IntentStatus> {
    return (await this.intent(ref)).status;
  }

  private async intent(ref: string): Promise<IntentRow> {
    const i = await this.repo.intent(ref);
    if (!i) throw new SandboxError('resource_missing', `No such payment intent: ${ref}`, 404);
    return i;
  }

  /** The one place a sandbox intent changes state; a compare-and-set so concurrent calls cannot both win. */
  private async move(ref: string, to: IntentStatus, extra: Record<string, string | number> = {}) {
    const i = await this.intent(ref);
    if (i.status === to) return; // at-least-once callers: repeating a completed step is harmless
    if (!INTENT_TRANSITIONS[i.status].includes(to)) {
      throw new SandboxError('payment_intent_unexpected_state', `Cannot move ${i.status} → ${to}.`, 400);
    }
    if (!(await this.repo.moveIntent(ref, i.status, to, extra, this.clock.now())))
      throw new SandboxError('payment_intent_unexpected_state', 'Concurrent update.', 409);
  }
}
