// Our side of every payment: one row per provider payment, moved only along PAYMENT_TRANSITIONS, each move
// logged in payment_transitions. Provider calls (network, outside our transactions) are made here too.
import type { Clock } from '../../lib/clock.ts';
import { uuid } from '../../lib/ids.ts';
import { PaymentsRepository } from './repository.ts';
import type { AuthorizeResult, ProviderRegistry } from './provider.ts';

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
}

const COUNTRY: Record<string, string> = { CNY: 'CN', EUR: 'LT', USD: 'US' };
export const CARD_METHOD_ID = 'card-sandbox';

export class PaymentsService {
  constructor(
    readonly repo: PaymentsRepository,
    readonly providers: ProviderRegistry,
    private readonly clock: Clock,
  ) {}

  /** The methods a cabinet in `currency` offers. Only providers that are registered are offered. */
  methods(currency: string, symbol: string): PaymentMethod[] {
    if (!this.providers.has('sandbox')) return [];
    return [
      {
        pId: CARD_METHOD_ID,
        pPaymentType: 'STRIPE_CARD',
        label: 'Card',
        currencySymbol: symbol,
        pCurrencyType: currency,
        publicKey: this.providers.get('sandbox').publicKey(),
        configDetails: { accountCountry: COUNTRY[currency] ?? 'US', currency: currency.toLowerCase() },
      },
    ];
  }

  providerForMethod(methodId: string) {
    return methodId === CARD_METHOD_ID && this.providers.has('sandbox') ? this.providers.get('sandbox') : null;
  }

  /** Records the outcome of an authorisation (in the caller's unit of work when it runs in one). */
  async record(
    input: { providerId: string; result: AuthorizeResult; userId: number; orderId: string | null; purpose: string; amount: number; currency: string },
  ) {
    const id = `pay_${uuid()}`;
    const r = input.result;
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
      at: this.clock.now(),
    });
    return id;
  }

  /** Settles an authorised payment at the provider, then moves our row: capture `amount` (0 → void). */
  async settleAuthorization(paymentId: string, amount: number) {
    const p = await this.repo.find(paymentId);
    if (!p) throw new Error(`no payment ${paymentId}`);
    if (p.status !== 'authorized') return p.status; // already settled (a retried job)
    const provider = this.providers.get(p.provider);
    if (amount > 0) {
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


  /** The order id of the wallet top-up this provider charge was credited as, if any (locked: read before crediting). */
  async topUpOf(providerId: string, ref: string) {
    return (await this.repo.capturedTopUp(providerId, ref, { lock: true }))?.order_id;
  }

  /** Inside a unit of work: serialises the credit and the refund of one provider charge (they exclude each other). */
  lockCharge(providerId: string, ref: string) {
    return this.repo.lockCharge(providerId, ref);
  }

  /** Whether this provider charge was recorded as a refunded top-up. */
  isRefundedTopUp(providerId: string, ref: string) {
    return this.repo.isRefundedTopUp(providerId, ref);
  }

  /**
   * Records a top-up charge that is being refunded (its wallet credit failed): a payment row that ends `refunded`,
   * so that the provider's idempotent replay of the same charge is never credited afterwards.
   */
  async recordRefundedTopUp(input: { providerId: string; result: AuthorizeResult; userId: number; orderId: string; amount: number; currency: string }) {
    const id = await this.record({ ...input, purpose: 'wallet_topup' });
    await this.move(id, 'captured', 'refunded', null);
    return id;
  }

  /** Locks the user's captured top-ups in `currency` (inside a unit of work): withdrawals to cards check under it. */
  lockCapturedTopUps(userId: number, currency: string) {
    return this.repo.lockCapturedTopUps(userId, currency);
  }

  /** Whether this provider charge is recorded as captured (so it is in a wallet and must not be refunded). */
  isCaptured(providerId: string, ref: string) {
    return this.repo.isCaptured(providerId, ref);
  }

  /** The user's captured card top-ups in `currency`, newest first. */
  capturedTopUps(userId: number, currency: string) {
    return this.repo.capturedTopUps(userId, currency);
  }

  /** A provider's webhook event, stored once per event id: false when it is a redelivery. */
  recordEvent(providerId: string, e: { id: string; type: string }, at: Date) {
    return this.repo.recordProviderEvent({ id: e.id, provider: providerId, type: e.type, payload: e, at });
  }
}
