// What payments answers about the charges it recorded, and the locks a flow takes on one: read through the service,
// never the repository (PaymentsService extends this; another module uses only PaymentsService).
import type { JobRunner } from '../../jobs/runner.ts';
import { compensationsOf } from './compensation.ts';
import type { AuthorizeResult, Capabilities, PaymentProvider, ProviderRegistry } from './provider.ts';
import type { PaymentRow, PaymentsRepository } from './repository.ts';

export abstract class PaymentRecords {
  constructor(
    readonly repo: PaymentsRepository,
    readonly providers: ProviderRegistry,
  ) {}

  /** The order id of the wallet top-up this provider charge was credited as, if any (locked: read before crediting). */
  async topUpOf(providerId: string, ref: string) {
    return (await this.repo.capturedTopUp(providerId, ref, { lock: true }))?.order_id;
  }

  /** Inside a unit of work: serialises the credit and the refund of one provider charge (they exclude each other). */
  lockCharge(providerId: string, ref: string) {
    return this.repo.lockCharge(providerId, ref);
  }

  /**
   * Inside a unit of work holding the charge's lock: the payment row of this provider charge that some flow took or
   * that its guard released (not a plain decline), if any. Such a charge is that flow's to keep or give back.
   */
  takenOrReleased(providerId: string, ref: string) {
    return this.repo.takenOrReleased(providerId, ref);
  }

  /** Whether this provider charge was recorded as a refunded top-up. */
  isRefundedTopUp(providerId: string, ref: string) {
    return this.repo.isRefundedTopUp(providerId, ref);
  }

  /** Locks the user's captured top-ups in `currency` (inside a unit of work): withdrawals to cards check under it. */
  lockCapturedTopUps(userId: number, currency: string) {
    return this.repo.lockCapturedTopUps(userId, currency);
  }

  /** The user's captured card top-ups in `currency`, newest first. */
  capturedTopUps(userId: number, currency: string) {
    return this.repo.capturedTopUps(userId, currency);
  }

  find(id: string) {
    return this.repo.find(id);
  }

  /** Our latest payment row of a provider payment, if any (another module never reads the payments repository). */
  byRef(providerId: string, ref: string) {
    return this.repo.byRef(providerId, ref);
  }

  /** The payment rows of an order. */
  ofOrder(orderId: string) {
    return this.repo.ofOrder(orderId);
  }

  /** The captured top-up made as this order's deposit (a rental paid by top-up), if any. */
  depositTopUpOf(orderId: string) {
    return this.repo.depositTopUpOf(orderId);
  }

  /** Records a refund made at the provider (idempotent by `key`), in the caller's unit of work. */
  recordRefund(paymentId: string, amount: number, at: Date, key?: string) {
    return this.repo.addRefund(paymentId, amount, at, key);
  }

  /** A registered provider by id (throws for one not registered: check with hasProvider). */
  providerById(id: string): PaymentProvider {
    return this.providers.get(id);
  }

  /** Every registered provider (the daily reconciliation goes through each). */
  allProviders(): PaymentProvider[] {
    return this.providers.all();
  }

  hasProvider(id: string) {
    return this.providers.has(id);
  }

  /** The compensation jobs (void, refund) of a job runner, for a flow that enqueues one with its own writes. */
  compensations(jobs: JobRunner) {
    return compensationsOf(jobs, this.providers);
  }

  /** Whether the provider of `id` is registered and can refund. */
  canRefund(id: string) {
    return this.can(id, 'refund');
  }

  /**
   * Whether the provider of `id` is registered and declares `capability` (provider.ts Capabilities). Flows ask
   * this, never a provider's flags themselves, and the registry refuses a call that needs a lacking one (422).
   */
  can(id: string, capability: keyof Capabilities): boolean {
    return this.providers.has(id) && this.providers.get(id).capabilities[capability];
  }

  /** Whether payment `p` left a saved card its provider can charge again with the user absent. */
  canChargeOffSession(p: Pick<PaymentRow, 'provider' | 'payment_method_ref'>): boolean {
    return Boolean(p.payment_method_ref) && this.can(p.provider, 'offSession');
  }

  /**
   * Charges (automatic) or holds (manual) again, with the user absent, on the card saved with payment `p`: the
   * hold renewed before it lapses, the rent above the hold. When that is not possible (no saved card, or a provider
   * without the off-session capability) the provider is not asked and the answer is the decline
   * `authentication_required`, which each flow meets with its documented fallback (docs/payments.md "Off-session
   * charges": the hold captured, a debt the rider pays in the app).
   */
  async chargeOffSession(
    p: Pick<PaymentRow, 'provider' | 'payment_method_ref'>,
    input: {
      amount: number;
      currency: string;
      capture: 'manual' | 'automatic';
      idempotencyKey: string;
      userId: number;
      purpose: string;
    },
  ): Promise<AuthorizeResult> {
    if (!this.canChargeOffSession(p))
      return { ok: false, ref: null, declineCode: 'authentication_required', card: null };
    return this.providers.get(p.provider).authorize({ ...input, token: p.payment_method_ref!, offSession: true });
  }

  /** The order's money timeline: every status change of its payments (held, captured, released, refunded). */
  timeline(orderId: string) {
    return this.repo.transitionsOfOrder(orderId);
  }
}
