// Top-up: money into a wallet by a charge through the chosen method's provider.
//
// Order of effects, so that a money movement is never half-applied: guard job → provider charge (idempotent by
// key) → one unit of work: payment row + ledger transfer; if that unit fails the refund is recorded with its job (a
// replay is never credited); if the process dies in between, the guard records and refunds the charge. A payment
// the customer must finish (3-D Secure, a provider's page or phone prompt) is followed by the guard instead:
// credited when paid (even if the customer never returns), released after its deadline.
import { toMinor } from '#core/money.ts';
import { badRequest, notFound, refused } from '../../lib/errors.ts';
import { commitIdempotencyKey } from '../../lib/idempotency.ts';
import { orderNo } from '../../lib/ids.ts';
import type { UserRow } from '../auth/service.ts';
import { DEFAULT_AGENT, providerOwner, userOwner } from '../ledger/service.ts';
import { declineMessageKey, type AuthorizeResult } from '../payments/provider.ts';
import { chargeNotOurs, isChargeNotOurs } from '../payments/service.ts';
import { chargeGuardsOf, type ChargeGuard, type PurposeHandler } from '../payments/guards.ts';
import { MAX_TOPUP_MAJOR, parseAmount, parseCurrency } from './payouts.ts';
import type { WalletDeps } from './deps.ts';

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

export class TopUps {
  constructor(private readonly d: WalletDeps) {}

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
    const provider = this.d.payments.requireProvider(inp.paymentId, agent || DEFAULT_AGENT);
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
  handler(): PurposeHandler {
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
}
