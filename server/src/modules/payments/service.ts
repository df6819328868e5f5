// Our side of every payment: one row per provider payment, moved only along PAYMENT_TRANSITIONS, each move
// logged in payment_transitions. Provider calls (network, outside our transactions) are made here too.
import type { Clock } from '../../lib/clock.ts';
import { badRequest, notFound } from '../../lib/errors.ts';
import { PaymentsRepository } from './repository.ts';
import {
  NotSupported,
  type AuthorizeResult,
  type PaymentProvider,
  type ProviderEvent,
  type ProviderRegistry,
} from './provider.ts';
import { checkClaims, checkOutcome, type Claim } from './purposes.ts';
import { checkReturnUrl } from './return-url.ts';
import { PaymentOffers } from './offers.ts';
import { DEFINITIONS } from './methods/registry.ts';
import { type PaymentStatus, PAYMENT_TRANSITIONS, newPaymentId, type PaymentsOptions } from './service-shapes.ts';

export * from './service-shapes.ts';
/** A provider call that failed (declined, invalid, unreachable): `code`, `status` (methods/adapter.ts). */
export { ProviderError } from './methods/adapter.ts';

/** The currencies the payment methods other than cards take, as their definitions declare (methods/registry.ts). */
export const METHOD_CURRENCIES: readonly string[] = [...new Set(DEFINITIONS.flatMap((d) => d.currencies ?? []))];

export class PaymentsService extends PaymentOffers {
  constructor(
    repo: PaymentsRepository,
    providers: ProviderRegistry,
    private readonly clock: Clock,
    private readonly opts: PaymentsOptions = {},
  ) {
    super(repo, providers);
  }

  /**
   * The agent of a request (header agentOpenId): empty means the platform. An agent we do not know is a
   * clear 404, never a silent fallback to another account's keys.
   */
  async agent(header: string | undefined): Promise<string> {
    const id = (header ?? '').trim();
    const platform = this.platform;
    if (!id || id === platform) return platform;
    if (this.providers.hasOwnCardProvider(id)) return id;
    if (!/^[\w.-]{1,64}$/.test(id) || !(await (this.opts.agentExists?.(id) ?? Promise.resolve(false)))) {
      // Named back only when it is an id at all (never markup or anything else a client sent).
      throw notFound('error.agent.unknown', { agent: /^[\w.-]{1,64}$/.test(id) ? id : '?' });
    }
    return id;
  }

  /** A return URL must be on the app's own origins or the agent's registered ones, else 400 (return-url.ts). */
  checkReturnUrl(url: string | undefined, agent = this.platform) {
    return checkReturnUrl(url, agent, this.opts);
  }

  /** Records the outcome of an authorisation (in the caller's unit of work when it runs in one). */
  async record(input: {
    providerId: string;
    result: AuthorizeResult;
    userId: number;
    orderId: string | null;
    purpose: string;
    amount: number;
    currency: string;
    id?: string;
  }) {
    const id = input.id ?? newPaymentId();
    const r = input.result;
    if (r.ok && r.status === 'requires_action') throw new Error('a payment awaiting customer action is not recorded');
    const saved = r.ok ? r.saved : null;
    await this.repo.insert({
      id,
      provider: input.providerId,
      provider_ref: r.ref,
      user_id: input.userId,
      order_id: input.orderId,
      purpose: input.purpose,
      amount: input.amount,
      currency: input.currency,
      status: r.ok ? r.status : 'declined',
      captured_amount: r.ok && r.status === 'captured' ? input.amount : 0,
      failure_code: r.ok ? null : r.declineCode,
      card_brand: r.card?.brand ?? null,
      card_last4: r.card?.last4 ?? null,
      payment_method_ref: saved?.paymentMethod ?? null,
      customer_ref: saved?.customer ?? null,
      capture_before: r.ok ? (r.captureBefore ?? null) : null,
      at: this.clock.now(),
    });
    return id;
  }

  /**
   * A payment waiting for its customer: what it was started for (its owner, purpose, amount and currency), kept for
   * the resume check. Called when the provider first answers `requires_action`.
   */
  recordStart(providerId: string, ref: string, c: Claim) {
    return this.repo.insertStart({ provider: providerId, ref, ...c, at: this.clock.now() });
  }

  /** The resume check alone (a flow that must refuse before it commits anything, e.g. its guard): see resume(). */
  async checkResume(providerId: string, ref: string, want: Claim) {
    checkClaims(await this.repo.claimsOf(providerId, ref), want);
  }

  /**
   * The one way a flow resumes a payment: checked against what was recorded of it (start and payment rows: the
   * user's, for this purpose, amount and currency; else 422 / 409 and the provider is not even asked), then the
   * provider's outcome is checked against the same claim. A provider that cannot resume answers 422 (NotSupported).
   */
  async resume(provider: PaymentProvider, ref: string, want: Claim): Promise<AuthorizeResult> {
    await this.checkResume(provider.id, ref, want);
    const r = await provider.resume(ref, want.userId);
    checkOutcome(r, want);
    return r;
  }

  /**
   * Settles an authorised payment at the provider, then moves our row: capture `amount` (0 → void); capturing
   * less releases the rest. A hold that was captured in full before it lapsed (docs/payments.md, hold expiry)
   * is refunded down to `amount` instead.
   */
  async settleAuthorization(paymentId: string, amount: number) {
    const p = await this.repo.find(paymentId);
    if (!p) throw new Error(`no payment ${paymentId}`);
    const provider = this.providers.get(p.provider);
    if (p.status === 'captured' && p.purpose === 'deposit_preauth') {
      const back = Number(p.captured_amount) - Number(p.refunded_amount ?? 0) - amount;
      if (back > 0) {
        await provider.refund(p.provider_ref!, back, { idempotencyKey: `settle_${p.id}` });
        await this.repo.addRefund(p.id, back, this.clock.now(), `settle_${p.id}`);
      }
      return (await this.repo.find(paymentId))!.status;
    }
    if (p.status !== 'authorized') return p.status; // already settled (a retried job)
    if (amount > 0) {
      // Flows hold only with providers that capture part (methodHolds); never a partial capture a provider cannot do.
      if (amount < Number(p.amount) && !provider.capabilities.partialCapture)
        throw new NotSupported(provider.id, 'partialCapture');
      await provider.capture(p.provider_ref!, amount, { idempotencyKey: `capture_${p.id}` });
      await this.move(p.id, 'authorized', amount === p.amount ? 'captured' : 'partially_captured', amount);
    } else {
      await provider.void(p.provider_ref!, { idempotencyKey: `void_${p.id}` });
      await this.move(p.id, 'authorized', 'voided', null);
    }
    return (await this.repo.find(paymentId))!.status;
  }

  async move(id: string, from: PaymentStatus, to: PaymentStatus, captured: number | null) {
    if (!PAYMENT_TRANSITIONS[from].includes(to)) throw new Error(`payment ${id}: ${from} → ${to} not allowed`);
    return this.repo.setStatus(id, from, to, captured, this.clock.now());
  }

  /**
   * A provider payment nothing took, in the caller's unit of work, which holds the charge's lock (lockCharge) and has
   * found the payment unrecorded: records it released, so that no later resume can take it, and answers the
   * compensation the caller enqueues with it: a charge refunded, a hold or a payment still waiting for the customer
   * voided (the Wi-Fi line's release and the rental's orphan guard).
   */
  async recordReleased(
    row: {
      providerId: string;
      userId: number;
      orderId: string | null;
      purpose: string;
      amount: number;
      currency: string;
    },
    result: Extract<AuthorizeResult, { ok: true }>,
  ): Promise<{ action: 'void' } | { action: 'refund'; amount: number }> {
    if (result.status === 'captured') {
      const amount = result.amount ?? row.amount;
      const id = await this.record({ ...row, result, amount });
      // Recorded refunded with the job that refunds it (committed together: it retries until done, or is dead and seen).
      await this.repo.addRefund(id, amount, this.clock.now());
      return { action: 'refund', amount };
    }
    if (result.status === 'authorized') {
      const id = await this.record({ ...row, result });
      await this.move(id, 'authorized', 'voided', null);
    } else {
      await this.record({
        ...row,
        result: { ok: false, ref: result.ref, declineCode: 'abandoned', card: result.card },
      });
    }
    return { action: 'void' };
  }

  /**
   * What a payment can still give back at its provider: captured, less what is recorded as refunded, less the
   * refunds already promised (`promised`, by their keys: jobs not run yet) and not recorded; 0 when it was not
   * captured or its method cannot refund. A refund never asks for more (the provider would refuse it for good).
   */
  async refundRoom(paymentId: string, promised: { key: string; amount: number }[] = []): Promise<number> {
    const p = await this.repo.find(paymentId);
    if (!p || !['captured', 'partially_captured'].includes(p.status) || !this.hasProvider(p.provider)) return 0;
    if (!this.providerById(p.provider).capabilities.refund) return 0;
    const recorded = await this.repo.refundKeys(
      paymentId,
      promised.map((x) => x.key),
    );
    const pending = promised.filter((x) => !recorded.has(x.key)).reduce((n, x) => n + x.amount, 0);
    return Math.max(0, Number(p.captured_amount) - Number(p.refunded_amount ?? 0) - pending);
  }

  /** Refunds part of a captured payment at the provider (idempotent by `key`) and records it. */
  async refund(paymentId: string, amount: number, key: string) {
    const p = await this.repo.find(paymentId);
    if (!p) throw new Error(`no payment ${paymentId}`);
    if (amount <= 0 || amount > Number(p.captured_amount) - Number(p.refunded_amount ?? 0))
      throw badRequest('error.validation.amount');
    await this.providers.get(p.provider).refund(p.provider_ref!, amount, { idempotencyKey: key });
    await this.repo.addRefund(p.id, amount, this.clock.now(), key);
  }

  /**
   * A verified payment event (Stripe: payment_intent.*, charge.refunded): brings our row up to the provider's
   * state, forward only. Events arrive late, twice or out of order; each carries the object's state at that
   * time, and a state our row has already passed is ignored (PAYMENT_TRANSITIONS has no way back).
   */
  async applyPaymentEvent(providerId: string, e: ProviderEvent): Promise<'applied' | 'ignored'> {
    const ref = e.type.startsWith('charge.') ? e.data.paymentRef : e.data.ref;
    if (!ref) return 'ignored';
    const p = await this.repo.byRef(providerId, ref);
    if (!p) return 'ignored'; // not ours yet (an order not written): the orphan guard or our own call records it
    const at = this.clock.now();
    const from = p.status as PaymentStatus;
    if (e.type === 'payment_intent.canceled' && from === 'authorized') {
      await this.move(p.id, from, 'voided', null);
      return 'applied';
    }
    if ((e.type === 'payment_intent.succeeded' || e.data.status === 'succeeded') && from === 'authorized') {
      const got = e.data.amountCaptured ?? p.amount;
      await this.move(p.id, from, got >= p.amount ? 'captured' : 'partially_captured', got);
      return 'applied';
    }
    if (e.type === 'charge.refunded' && (from === 'captured' || from === 'partially_captured')) {
      const more = (e.data.amountRefunded ?? 0) - Number(p.refunded_amount ?? 0);
      if (more > 0 && (await this.repo.addRefund(p.id, more, at))) return 'applied';
    }
    return 'ignored';
  }

  /** A provider's webhook event, stored once per event id: false when it is a redelivery. */
  recordEvent(providerId: string, e: { id: string; type: string }, at: Date) {
    return this.repo.recordProviderEvent({ id: e.id, provider: providerId, type: e.type, payload: e, at });
  }
}

/** The agent of the request (header agentOpenId); an unknown agent is a 404 before any money moves. */
export const agentOf = (payments: PaymentsService, headers: Record<string, unknown>) => {
  const h = headers.agentopenid;
  return payments.agent(typeof h === 'string' ? h : undefined);
};
