// The wallet product: money in and out of a wallet — top-up (card charge through the provider), withdrawal (a
// ledger hold until the provider's payout event confirms or rejects it), the movements list and saved cards.
// Balances live in the ledger (modules/ledger); this module owns withdrawals, saved cards and card setups.
//
// Top-up: topups.ts; withdrawal: withdrawals.ts (bank payouts: bank-payouts.ts); movements: movements.ts.
import { PAYOUTS } from '../../config/payouts.ts';
import { Withdrawals } from './withdrawals.ts';
import { movements, type MovementsQuery } from './movements.ts';
import { badRequest, notFound, refused } from '../../lib/errors.ts';
import { commitIdempotencyKey } from '../../lib/idempotency.ts';
import { uuid } from '../../lib/ids.ts';
import { EMAIL } from '#core/email.ts';
import type { UserRow } from '../auth/service.ts';
import { DEFAULT_AGENT } from '../ledger/service.ts';
import { declineMessageKey, type PaymentProvider } from '../payments/provider.ts';
import { ProviderError } from '../payments/service.ts';
import { chargeGuardsOf } from '../payments/guards.ts';
import { parseCurrency } from './payouts.ts';
import type { WalletDeps } from './deps.ts';
import { TopUps, WALLET_TOPUP } from './topups.ts';

export { JOB_PAYOUT_SUBMIT } from './withdrawals.ts';
export { JOB_TOPUP_GUARD, WALLET_TOPUP, type TopUpResult } from './topups.ts';
export interface WithdrawalResult {
  tixianOrderId: string;
  balance: number;
  currency: string;
  status: 'pending' | 'awaiting_payout';
}

export type { WalletDeps } from './deps.ts';

export class WalletService {
  /** Withdrawals (withdrawals.ts). */
  readonly withdrawals: Withdrawals;
  /** Top-ups (topups.ts). */
  readonly topUps: TopUps;

  constructor(private readonly d: WalletDeps) {
    this.withdrawals = new Withdrawals(d, d.payouts ?? PAYOUTS);
    this.topUps = new TopUps(d);
    chargeGuardsOf(d).handle(WALLET_TOPUP, this.topUps.handler());
  }

  /** The provider of one of the agent's methods (another agent's method or an unknown one: 400, nothing moves). */
  private provider(methodId: string, agent?: string): PaymentProvider {
    return this.d.payments.requireProvider(methodId, agent || DEFAULT_AGENT);
  }

  // ── Withdrawal: withdrawals.ts (apply, create, payout events), bank payouts: bank-payouts.ts ─────────────

  findWithdrawal(id: string) {
    return this.withdrawals.findWithdrawal(id);
  }
  /** An operator paid an awaiting bank payout: the bank's reference, who and why (idempotent, under the row's lock). */
  recordManualPayout(withdrawalId: string, bankReference: string, actor: string, reason?: string) {
    return this.withdrawals.bank.recordManualPayout(withdrawalId, bankReference, actor, reason);
  }
  /** An operator refuses an awaiting bank payout: the money goes back to the wallet (idempotent). */
  rejectPayout(withdrawalId: string, reason: string, actor: string) {
    return this.withdrawals.bank.rejectPayout(withdrawalId, reason, actor);
  }

  // ── Balances ────────────────────────────────────────────────────────────────────────────────────────────

  /** The user's balance and held deposit in one currency (of one agent). */
  walletOf(userId: number, currency: string, agent = DEFAULT_AGENT) {
    return this.d.ledger.walletOf(userId, currency, agent);
  }

  /** One wallet per currency × agent the user has an account in; the primary currency always. */
  wallets(userId: number, primary: string) {
    return this.d.ledger.wallets(userId, primary);
  }

  // ── Top-up: topups.ts ───────────────────────────────────────────────────────────────────────────────────

  topUp(...args: Parameters<TopUps['topUp']>) {
    return this.topUps.topUp(...args);
  }

  // ── Movements (movements.ts) ────────────────────────────────────────────────────────────────────────────

  movements(user: UserRow, inp: MovementsQuery) {
    return movements(this.d, user, inp);
  }

  // ── Saved cards ─────────────────────────────────────────────────────────────────────────────────────────

  /**
   * A saved card of this user and agent as a payment method for a payment: its provider ref. Another user's
   * card, a removed one or one saved under another agent is not found (nothing is charged).
   */
  async savedCardRef(userId: number, cardId: string, agent: string, paymentId?: string) {
    const card = await this.d.repo.card(userId, cardId);
    if (!card || card.agent_id !== agent) throw notFound('error.card.notFound');
    // A card saved with another provider than the chosen method's (a Mercado Pago card with a Stripe method) is not this method's.
    if (paymentId !== undefined && card.provider !== this.provider(paymentId, agent).id)
      throw notFound('error.card.notFound');
    return card.payment_method_ref;
  }

  cards(userId: number, agentId?: string) {
    return this.d.repo.cards(userId, agentId || DEFAULT_AGENT);
  }

  /** POST cdb/user/card/save?paymentId: starts a setup with the chosen payment method's provider. */
  async startCardSetup(user: UserRow, inp: { paymentId: string; agentId?: string; currency: string }) {
    const currency = parseCurrency(inp.currency);
    if (currency === 'NGN') throw refused('error.card.unsupported');
    const provider = this.provider(inp.paymentId, inp.agentId);
    const setup = await provider.createSetup(user.id);
    await this.d.repo.insertSetup({
      id: setup.id,
      userId: user.id,
      agentId: inp.agentId || DEFAULT_AGENT,
      currency,
      methodId: inp.paymentId,
      provider: provider.id,
      at: this.d.clock.now(),
    });
    return { clientSecret: setup.clientSecret, paymentId: setup.id };
  }

  /** POST cdb/user/card/confirm {paymentId, paymentMethod}: the provider turns the card token into a saved card. */
  async confirmCardSetup(user: UserRow, inp: { paymentId: string; paymentMethod: string; clientSecret: string }) {
    const s = await this.d.repo.setup(inp.paymentId, user.id);
    if (!s) throw notFound('error.card.setupNotFound');
    if (s.card_id) return { pId: s.card_id };
    const provider = this.d.payments.providerById(s.provider);
    let res: Awaited<ReturnType<PaymentProvider['confirmSetup']>>;
    try {
      res = await provider.confirmSetup(s.id, inp.clientSecret, inp.paymentMethod);
    } catch (e) {
      const code = (e as { code?: string }).code;
      if (code === 'resource_missing') throw notFound('error.card.setupNotFound');
      throw refused(declineMessageKey(code));
    }
    const cardId = `card_${uuid()}`;
    await this.d.db.tx(async () => {
      await this.d.repo.insertCard({
        id: cardId,
        userId: user.id,
        agentId: s.agent_id,
        provider: s.provider,
        paymentMethodRef: res.paymentMethod,
        methodId: s.method_id,
        brand: res.card.brand,
        last4: res.card.last4,
        currency: s.currency,
        at: this.d.clock.now(),
      });
      await this.d.repo.completeSetup(s.id, cardId);
      await commitIdempotencyKey({ pId: cardId }); // the request's key completes with the saved card
    });
    return { pId: cardId };
  }

  /**
   * POST cdb/user/card/saveToken: a card token of a method that saves cards (Mercado Pago) saved on the user's customer
   * at its provider, and listed with the user's other saved cards of the agent (paid with later by its id, as any).
   */
  async saveMethodCard(
    user: UserRow,
    inp: {
      paymentId: string;
      agentHeader?: string;
      token: string;
      email: string;
      paymentMethodId?: string;
      issuerId?: string;
      currency?: string;
    },
  ) {
    const agent = await this.d.payments.agent(inp.agentHeader);
    const method = this.d.payments.externalMethod(inp.paymentId, agent);
    if (!method || method.kind !== 'card') throw badRequest('error.paymentMethod');
    if (!method.provider.savesFromToken) throw refused('error.card.saveUnsupported');
    const email = inp.email.trim();
    if (!EMAIL.test(email)) throw badRequest('error.invoice.emailInvalid');
    const currency = parseCurrency(inp.currency ?? user.currency);
    let saved: Awaited<ReturnType<typeof method.provider.saveCard>>;
    try {
      saved = await method.provider.saveCard(user.id, {
        token: inp.token,
        email,
        paymentMethodId: inp.paymentMethodId || undefined,
        issuerId: inp.issuerId || undefined,
      });
    } catch (e) {
      // The provider refused the token (used, unknown, a declined card): the user's language, never a 500.
      if (e instanceof ProviderError && e.code !== 'network' && (e.status ?? 500) < 500)
        throw refused(declineMessageKey(e.code === '3003' || e.code === '2006' ? 'token_invalid' : e.code));
      throw e;
    }
    const cardId = `card_${uuid()}`;
    await this.d.db.tx(async () => {
      await this.d.repo.insertCard({
        id: cardId,
        userId: user.id,
        agentId: agent,
        provider: method.provider.id,
        paymentMethodRef: saved.paymentMethod,
        methodId: inp.paymentId,
        brand: saved.card.brand,
        last4: saved.card.last4,
        currency,
        at: this.d.clock.now(),
      });
      await commitIdempotencyKey({ pId: cardId });
    });
    return { pId: cardId };
  }

  /**
   * saveCardFlag: a paid payment's reusable card (a method that saves cards after a payment: Flutterwave), saved for
   * the user at the agent whose method took it. Its id comes from the payment, so a repeated report saves it once.
   */
  async savePaidCard(
    agentId: string,
    c: {
      userId: number;
      provider: string;
      outTradeNo: string;
      payType: string;
      paymentMethodRef: string;
      brand: string;
      last4: string;
      currency: string;
    },
  ) {
    await this.d.repo.insertCardOnce({
      id: `card_${c.outTradeNo}`,
      userId: c.userId,
      agentId,
      provider: c.provider,
      paymentMethodRef: c.paymentMethodRef,
      methodId: `${c.provider}:${c.payType}`,
      brand: c.brand,
      last4: c.last4,
      currency: c.currency,
      at: this.d.clock.now(),
    });
  }

  /** GET cdb/user/card/remove/{cardId} */
  async removeCard(user: UserRow, cardId: string) {
    const card = await this.d.repo.card(user.id, cardId);
    if (!card) throw notFound('error.card.notFound');
    // A card of a provider no longer configured here cannot be reached there: it only leaves the rider's list.
    if (this.d.payments.hasProvider(card.provider))
      await this.d.payments.providerById(card.provider).detachPaymentMethod(card.payment_method_ref);
    await this.d.repo.removeCard(cardId, this.d.clock.now());
  }
}
