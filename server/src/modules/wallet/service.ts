// The wallet product: money in and out of a wallet — top-up (card charge through the provider), withdrawal (a
// ledger hold until the provider's payout event confirms or rejects it), the movements list and saved cards.
// Balances live in the ledger (modules/ledger); this module owns withdrawals, saved cards and card setups.
//
// Order of effects, so that a money movement is never half-applied:
//   top-up      guard job → provider charge (idempotent by key) → one unit of work: payment row + ledger
//               transfer; if that unit fails the refund is recorded with its job (a replay is never credited);
//               if the process dies in between, the guard records and refunds the charge. A payment the
//               customer must finish (3-D Secure, a provider's page or phone prompt) is followed by the guard
//               instead: credited when paid (even if the customer never returns), released after its deadline.
//   withdrawal  withdrawals.ts.
import { toMinor } from '#core/money.ts';
import { PAYOUTS } from '../../config/payouts.ts';
import { Withdrawals } from './withdrawals.ts';
import { movements, type MovementsQuery } from './movements.ts';
import { badRequest, notFound, refused } from '../../lib/errors.ts';
import { commitIdempotencyKey } from '../../lib/idempotency.ts';
import { orderNo, uuid } from '../../lib/ids.ts';
import { EMAIL } from '#core/email.ts';
import type { UserRow } from '../auth/service.ts';
import { DEFAULT_AGENT, providerOwner, userOwner } from '../ledger/service.ts';
import { declineMessageKey, type AuthorizeResult, type PaymentProvider } from '../payments/provider.ts';
import { chargeNotOurs, isChargeNotOurs, ProviderError } from '../payments/service.ts';
import { chargeGuardsOf, type ChargeGuard, type PurposeHandler } from '../payments/guards.ts';
import { MAX_TOPUP_MAJOR, parseAmount, parseCurrency } from './payouts.ts';
import type { WalletDeps } from './deps.ts';

export { JOB_PAYOUT_SUBMIT } from './withdrawals.ts';
/**
 * The guard kind top-ups used before payments owned the one charge guard (payments/guards.ts): still registered, as
 * an alias routed into it, so that jobs already queued in a database run. Nothing new is queued under it.
 */
export const JOB_TOPUP_GUARD = 'wallet.topup-guard';
/** The purpose handler a top-up's charge guard hands its charge to. */
export const WALLET_TOPUP = 'wallet_topup';

export interface TopUpResult {
  outTradeNo: string;
  balance: number;
  currency: string;
}
/** What a top-up credits: whose wallet, how much, under which order number and provider key. */
interface TopUpTarget {
  userId: number;
  outTradeNo: string;
  amount: number;
  currency: string;
  agent: string;
  key: string;
}
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

  constructor(private readonly d: WalletDeps) {
    this.withdrawals = new Withdrawals(d, d.payouts ?? PAYOUTS);
    this.guards.handle(WALLET_TOPUP, this.topUpHandler());
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

  // ── Top-up ──────────────────────────────────────────────────────────────────────────────────────────────

  async topUp(
    user: UserRow,
    inp: {
      amount: string;
      currency: string;
      agentId?: string;
      paymentId: string;
      stripeToken?: string;
      cardId?: string;
      saveCard?: boolean;
      paymentIntent?: string;
      returnUrl?: string;
      key: string;
    },
  ) {
    const currency = parseCurrency(inp.currency);
    const amount = parseAmount(inp.amount, currency);
    if (amount > toMinor(MAX_TOPUP_MAJOR, currency))
      throw refused('error.wallet.topupTooLarge', { max: MAX_TOPUP_MAJOR });
    // The agent must exist (the embed's agents, or the platform): never a wallet for a name nobody registered.
    const agent = inp.agentId ? await this.d.payments.agent(inp.agentId) : DEFAULT_AGENT;
    const provider = this.provider(inp.paymentId, agent);
    let token = inp.stripeToken;
    if (inp.cardId) {
      const card = await this.d.repo.card(user.id, inp.cardId);
      // A card saved with another provider than the chosen method's (a Mercado Pago card with a Stripe method) is not this method's.
      if (!card || card.agent_id !== agent || card.provider !== provider.id) throw notFound('error.card.notFound');
      token = card.payment_method_ref;
    }
    if (!token && !inp.paymentIntent) throw badRequest('error.validation.field', { field: 'stripeToken' });
    await this.d.payments.checkReturnUrl(inp.returnUrl, agent);
    const outTradeNo = orderNo(this.d.clock.now());
    // The provider's idempotency key derives from the client's: a retried request never charges twice. A payment
    // the customer finished (3-D Secure, iDEAL, WeChat Pay) is resumed: checked to be theirs and of this amount.
    const providerKey = `cz_${user.id}_${inp.key}`;
    const t: TopUpTarget = { userId: user.id, outTradeNo, amount, currency, agent, key: providerKey };
    const guard = this.guardOf(provider.id, t, {
      token: token ?? null,
      methodType: inp.paymentId.split(':')[1] ?? null,
    });
    const claim = { userId: user.id, purpose: 'wallet_topup', amount, currency } as const;
    let result: AuthorizeResult;
    if (inp.paymentIntent) {
      // A resumed payment is guarded by the guard its first call left (with its ref). It must have been started as a
      // top-up of this amount and currency by this user (payments' resume check), in every state.
      result = await this.d.payments.resume(provider, inp.paymentIntent, claim);
    } else {
      // The charge's guard, committed before the card call: if this process dies between the charge and its credit
      // (or its recorded refund), it replays the call (same key: the provider returns the same charge) and refunds it.
      await this.guards.start(guard);
      result = await provider.authorize({
        token: token!,
        amount,
        currency,
        capture: 'automatic',
        idempotencyKey: providerKey,
        userId: user.id,
        purpose: 'wallet_topup',
        returnUrl: inp.returnUrl,
        methodType: inp.paymentId.split(':')[1],
        saveCard: inp.saveCard === true && !inp.cardId,
      });
    }
    // The customer must act (3-D Secure, a provider's page, a prompt on their phone): the client repeats the call
    // with `paymentIntent`. The guard now follows that payment: it credits it once the customer has paid, even if
    // they never come back to the app, and releases it after ACTION_TIMEOUT_MS.
    const cancel = () => this.guards.cancel(inp.paymentIntent ? { ref: inp.paymentIntent } : { key: providerKey });
    if (result.ok && result.status === 'requires_action') {
      if (!inp.paymentIntent) {
        const ref = result.ref;
        await this.d.db.tx(async () => {
          await this.d.payments.recordStart(provider.id, ref, claim);
          await this.guards.awaitCustomer({ ...guard, key: `${providerKey}:action` }, ref);
          await this.guards.cancel({ key: providerKey });
        });
      }
      const { balance } = await this.d.ledger.walletOf(user.id, currency, agent);
      return {
        outTradeNo: '',
        balance,
        currency,
        action: { clientSecret: result.clientSecret, paymentIntent: result.ref },
      };
    }
    if (!result.ok) {
      await cancel();
      await this.d.payments.record({
        providerId: provider.id,
        result,
        userId: user.id,
        orderId: outTradeNo,
        purpose: 'wallet_topup',
        amount,
        currency,
      });
      throw refused(declineMessageKey(result.declineCode));
    }
    let done: string;
    try {
      done = await this.credit(provider.id, result, t);
    } catch (err) {
      // A charge another flow took, or that its guard released, is refused without a refund of ours.
      if (isChargeNotOurs(err)) throw err;
      await this.guards.release(guard, provider, result, 'not credited');
      await this.guards.cancel({ key: providerKey });
      throw err;
    }
    await cancel();
    // "Save this card": the card the provider kept for later payments is listed with the user's cards of this agent
    // (its id from the top-up, so a replayed charge saves it once).
    if (result.saved && result.card && inp.saveCard) {
      await this.d.repo.insertCardOnce({
        id: `card_${done}`,
        userId: user.id,
        agentId: agent,
        provider: provider.id,
        paymentMethodRef: result.saved.paymentMethod,
        methodId: inp.paymentId,
        brand: result.card.brand,
        last4: result.card.last4,
        currency,
        at: this.d.clock.now(),
      });
    }
    const { balance } = await this.d.ledger.walletOf(user.id, currency, t.agent);
    return { outTradeNo: done, balance, currency };
  }

  /**
   * One unit of work: the payment row and the wallet credit of a captured top-up charge, once per charge (a retry
   * after a crash, the customer's resume and the action guard all get the same charge: the first credits it).
   * Answers the top-up's order number (an earlier credit's, when there was one).
   */
  private async credit(
    providerId: string,
    result: Extract<AuthorizeResult, { ok: true }>,
    t: TopUpTarget,
  ): Promise<string> {
    const ledger = this.d.ledger;
    return this.d.db.tx(async () => {
      await this.d.payments.lockCharge(providerId, result.ref); // against the guard's refund of the same charge
      const prior = await this.d.payments.topUpOf(providerId, result.ref);
      if (prior) return prior;
      // The provider replays a charge we refunded (its credit failed before): never credit it.
      if (await this.d.payments.isRefundedTopUp(providerId, result.ref)) throw refused('error.wallet.topupRefunded');
      // A charge of another flow, or one released by a guard (the resume names any payment of this user): never credited.
      const other = await this.d.payments.takenOrReleased(providerId, result.ref);
      if (other) throw chargeNotOurs(other);
      await this.d.payments.record({
        providerId,
        result,
        userId: t.userId,
        orderId: t.outTradeNo,
        purpose: 'wallet_topup',
        amount: t.amount,
        currency: t.currency,
      });
      const clearing = await ledger.account(providerOwner(providerId), 'clearing', t.currency, t.agent);
      const wallet = await ledger.account(userOwner(t.userId), 'wallet', t.currency, t.agent);
      await ledger.transfer({
        debit: clearing,
        credit: wallet,
        amount: t.amount,
        code: 'wallet_topup',
        orderId: t.outTradeNo,
        at: this.d.clock.now(),
      });
      // The request's idempotency key completes in this transaction (lib/idempotency.ts; none in a job).
      await commitIdempotencyKey({
        outTradeNo: t.outTradeNo,
        balance: (await ledger.walletOf(t.userId, t.currency, t.agent)).balance,
        currency: t.currency,
      } satisfies TopUpResult);
      await this.d.live.publish(t.userId, { kind: 'wallet' });
      return t.outTradeNo;
    });
  }

  /** The charge guard payments runs for every top-up charge. */
  private get guards() {
    return chargeGuardsOf(this.d);
  }

  private guardOf(
    providerId: string,
    t: TopUpTarget,
    call: { token: string | null; methodType: string | null; ref?: string | null; deadline?: number },
  ): ChargeGuard {
    return {
      flow: WALLET_TOPUP,
      providerId,
      userId: t.userId,
      purpose: 'wallet_topup',
      amount: t.amount,
      currency: t.currency,
      capture: 'automatic',
      orderId: t.outTradeNo,
      token: call.token,
      key: t.key,
      ref: call.ref ?? null,
      methodType: call.methodType,
      ...(call.deadline !== undefined ? { deadline: call.deadline } : {}),
      data: { agent: t.agent },
    };
  }

  /**
   * What a top-up's guard does with its charge (payments/guards.ts). A call whose process died (no ref) is refunded:
   * the customer was never told it was credited. A payment the customer finished elsewhere (a ref) is credited:
   * they paid for this top-up, whether or not they came back to the app.
   */
  private topUpHandler(): PurposeHandler {
    const target = (g: ChargeGuard): TopUpTarget => ({
      userId: g.userId,
      outTradeNo: String(g.orderId),
      amount: g.amount,
      currency: g.currency,
      key: String(g.key),
      agent: typeof g.data?.agent === 'string' ? g.data.agent : DEFAULT_AGENT,
    });
    return {
      succeeded: async (g, provider, result) => {
        if (!g.ref) return false;
        await this.credit(provider.id, result, target(g));
        return true;
      },
      legacy: {
        kind: JOB_TOPUP_GUARD,
        toGuard: (p) =>
          this.guardOf(
            String(p.providerId),
            {
              userId: Number(p.userId),
              outTradeNo: String(p.outTradeNo),
              amount: Number(p.amount),
              currency: String(p.currency),
              key: String(p.key),
              agent: typeof p.agent === 'string' ? p.agent : DEFAULT_AGENT,
            },
            {
              token: p.token ? String(p.token) : null,
              methodType: p.methodType ? String(p.methodType) : null,
              ref: p.ref ? String(p.ref) : null,
              ...(p.deadline !== undefined ? { deadline: Number(p.deadline) } : {}),
            },
          ),
      },
    };
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
