// Renting with a deposit (useDepositToRent): the deposit held or paid by a payment method (or taken from the wallet),
// under the charge's orphan guard, then the rental started (rent-start.ts); the compensation of a rental that did not
// start.
import { badRequest, refused } from '../../lib/errors.ts';
import { orderNo } from '../../lib/ids.ts';
import type { UserRow } from '../auth/service.ts';
import { type Command } from '../cabinets/protocol.ts';
import type { CabinetRow } from '../cabinets/stock.ts';
import { chargeNotOurs, isChargeNotOurs } from '../payments/service.ts';
import { declineMessageKey, type AuthorizeResult, type PaymentProvider } from '../payments/provider.ts';
import type { ChargeGuard, PurposeHandler } from '../payments/guards.ts';
import type { PaymentPurpose } from '../payments/purposes.ts';
import { type PricedVenue } from '../venues/service.ts';
import {
  JOB_ORPHAN_AUTH,
  RENTAL_DEPOSIT,
  type GuardState,
  type Funding,
  type ActionRequired,
  type DepositInput,
} from './shared.ts';
import { RentalsStart } from './rent-start.ts';

export abstract class RentalsRenting extends RentalsStart {
  /** POST cdb/cabinet/useDepositToRent */
  async rentWithDeposit(user: UserRow, input: DepositInput): Promise<string | ActionRequired> {
    const provider = this.d.payments.requireProvider(input.paymentId, input.agent);
    await this.d.payments.checkReturnUrl(input.returnUrl, input.agent);
    const taken = input.paymentIntent ? await this.d.payments.byRef(provider.id, input.paymentIntent) : undefined;
    if (taken) throw chargeNotOurs(taken);
    const { cabinet, priced } = await this.preflight(user, input.qrcode, input.kind ?? 'cdb');
    // A pre-authorisation where the plan asks for one and the method can hold; a method that only charges
    // (iDEAL, M-Pesa, …) pays the deposit into the wallet instead, as a deposit top-up.
    const preauth = this.holds(priced, input);
    const orderId = orderNo(this.d.clock.now());
    const currency = priced.venue.currency;
    const deposit = priced.plan.deposit;
    const amount = preauth ? deposit : deposit - (await this.d.ledger.walletOf(user.id, currency)).balance;
    if (amount <= 0) return this.rentWithDepositGuarded(user, input, orderId, cabinet, priced, amount);
    // A resumed payment must be this rental's deposit (checked before the guard: a refused resume leaves nothing behind).
    if (input.paymentIntent)
      await this.d.payments.checkResume(provider.id, input.paymentIntent, {
        userId: user.id,
        purpose: preauth ? 'deposit_preauth' : 'deposit_topup',
        amount,
        currency,
      });
    // The charge's guard (payments/guards.ts), committed before the card call: if this process dies between the
    // provider's answer and the order's transaction, it finds no order and releases the charge. Cancelled below.
    const guard = this.depositGuard(user.id, input, orderId, provider.id, amount, currency, preauth);
    const guardId = await this.guards.start(guard);
    // The guard is cancelled only once the order exists (in the order's own transaction), a compensation job owns
    // the release, or the customer must act (then the guard follows the payment's reference and releases it after
    // the timeout); otherwise (the compensation could not even be enqueued) it stays and releases the charge.
    const state: GuardState = { settled: false, guardId, cancelled: false };
    let out: string | ActionRequired | undefined;
    try {
      out = await this.rentWithDepositGuarded(user, input, orderId, cabinet, priced, amount, state);
      state.settled = true;
      return out;
    } finally {
      if (state.settled && !state.cancelled) {
        await this.d.jobs
          .cancelById(guardId)
          .catch((err: unknown) => this.d.log.error({ err, orderId }, 'guard cancel failed'));
        // Waiting for the customer (3-D Secure): if they never come back, the payment is released after the timeout.
        if (out && typeof out === 'object' && !input.paymentIntent)
          await this.guards.awaitCustomer(guard, out.action.paymentIntent);
      }
    }
  }

  /** What the guard of a rental's deposit charge keeps (the rental's order in `data`: once it exists, the charge is its). */
  protected depositGuard(
    userId: number,
    input: Pick<DepositInput, 'token' | 'paymentId' | 'paymentIntent'>,
    orderId: string,
    providerId: string,
    amount: number,
    currency: string,
    preauth: boolean,
  ): ChargeGuard {
    return {
      flow: RENTAL_DEPOSIT,
      providerId,
      userId,
      purpose: preauth ? 'deposit_preauth' : 'deposit_topup',
      amount,
      currency,
      capture: preauth ? 'manual' : 'automatic',
      orderId: null,
      token: input.token || null,
      key: orderId,
      ref: input.paymentIntent ?? null,
      methodType: input.paymentId.split(':')[1] ?? null,
      saveCard: true,
      data: { orderId },
    };
  }

  /**
   * What the guard of a rental's deposit charge does (payments/guards.ts): once the rental's order exists the charge
   * is its; otherwise (the process died, the customer never came back) the charge is released.
   */
  protected depositHandler(): PurposeHandler {
    return {
      settled: async (g) => Boolean(await this.d.repo.find(String(g.data?.orderId))),
      legacy: {
        kind: JOB_ORPHAN_AUTH,
        toGuard: (p) => {
          const provider = this.d.payments.providerForMethod(
            String(p.paymentId),
            p.agent ? String(p.agent) : undefined,
          );
          if (!provider) return null;
          return this.depositGuard(
            Number(p.userId),
            {
              token: String(p.token ?? ''),
              paymentId: String(p.paymentId),
              paymentIntent: p.ref ? String(p.ref) : undefined,
            },
            String(p.orderId),
            provider.id,
            Number(p.amount),
            String(p.currency),
            p.capture !== 'automatic',
          );
        },
      },
    };
  }

  /** Whether this rental's deposit is a hold: the plan asks for one and the method can hold. */
  protected holds(priced: PricedVenue, input: DepositInput) {
    return priced.planRow.deposit_type === 0 && this.d.payments.methodHolds(input.paymentId, input.agent);
  }

  /** The card call: a new payment, or the outcome of one the customer finished (checked: theirs, the right amount). */
  protected async pay(
    user: UserRow,
    provider: PaymentProvider,
    input: DepositInput,
    orderId: string,
    amount: number,
    currency: string,
    capture: 'manual' | 'automatic',
    purpose: PaymentPurpose,
    debtOf?: string,
  ) {
    const claim = { userId: user.id, purpose, amount, currency, ...(debtOf ? { orderId: debtOf } : {}) };
    if (!input.paymentIntent) {
      const started = await provider.authorize({
        token: input.token,
        amount,
        currency,
        capture,
        idempotencyKey: orderId,
        userId: user.id,
        saveCard: true,
        purpose,
        returnUrl: input.returnUrl,
        methodType: input.paymentId.split(':')[1],
      });
      // Waiting for the customer: what it is for is recorded, for the resume check.
      if (started.ok && started.status === 'requires_action')
        await this.d.payments.recordStart(provider.id, started.ref, claim);
      return started;
    }
    const r = await this.d.payments.resume(provider, input.paymentIntent, claim);
    if (
      r.ok &&
      r.status !== 'requires_action' &&
      (r.amount !== amount ||
        r.currency?.toUpperCase() !== currency ||
        (r.status === 'authorized') !== (capture === 'manual'))
    ) {
      throw badRequest('error.paymentMethod');
    }
    return r;
  }

  protected async rentWithDepositGuarded(
    user: UserRow,
    input: DepositInput,
    orderId: string,
    cabinet: CabinetRow,
    priced: PricedVenue,
    amount: number,
    guard: GuardState = { settled: false },
  ): Promise<string | ActionRequired> {
    const provider = this.d.payments.requireProvider(input.paymentId, input.agent);
    const currency = priced.venue.currency;
    const deposit = priced.plan.deposit;
    let funding: Funding;
    if (this.holds(priced, input)) {
      const result = await this.pay(user, provider, input, orderId, deposit, currency, 'manual', 'deposit_preauth');
      if (!result.ok) {
        guard.settled = true; // declined: nothing to release
        return this.declined(user, provider, result, deposit, currency, 'deposit_preauth');
      }
      if (result.status === 'requires_action')
        return { action: { clientSecret: result.clientSecret, paymentIntent: result.ref } };
      funding = { kind: 'preauth', provider, result };
    } else {
      if (amount > 0) {
        const result = await this.pay(user, provider, input, orderId, amount, currency, 'automatic', 'deposit_topup');
        if (!result.ok) {
          guard.settled = true;
          return this.declined(user, provider, result, amount, currency, 'deposit_topup');
        }
        if (result.status === 'requires_action')
          return { action: { clientSecret: result.clientSecret, paymentIntent: result.ref } };
        funding = { kind: 'wallet', topUp: { provider, result, amount } };
      } else {
        funding = { kind: 'wallet', topUp: null };
      }
    }
    let command: Command;
    try {
      command = await this.start(orderId, user, cabinet, priced, funding, input.kind ?? 'cdb', guard);
    } catch (err) {
      // The payment is another's to settle: a rental started with it, or the orphan guard released it.
      if (isChargeNotOurs(err)) {
        guard.settled = true;
        throw err;
      }
      // A job from here on: if the provider call fails now, the job retries it (and ends `dead`, visible, at worst).
      await this.compensate(funding, orderId, user.id, currency, deposit)
        .then(() => (guard.settled = true))
        .catch((e: unknown) =>
          this.d.log.error({ err: e, orderId }, 'compensation not enqueued: the orphan guard will release it'),
        );
      throw err;
    }
    await this.sendEject(orderId, cabinet.id, command);
    return orderId;
  }

  protected async declined(
    user: UserRow,
    provider: PaymentProvider,
    result: Extract<AuthorizeResult, { ok: false }>,
    amount: number,
    currency: string,
    purpose: string,
  ): Promise<never> {
    await this.d.payments.record({
      providerId: provider.id,
      result,
      userId: user.id,
      orderId: null,
      purpose,
      amount,
      currency,
    });
    throw refused(declineMessageKey(result.declineCode));
  }

  /**
   * Releases the money of a rental that was not started: a compensation job (payments/compensation.ts). Under the
   * charge's lock, as the orphan guard's release: a payment another rental took meanwhile (a double resume: the
   * second started while this one failed) or released already is left alone; otherwise it is recorded released (no
   * later resume can take it) with its job in the same transaction, run after the commit.
   */
  protected async compensate(f: Funding, orderId: string, userId: number, currency: string, deposit: number) {
    const charge =
      f.kind === 'preauth'
        ? { provider: f.provider, result: f.result, amount: deposit, preauth: true }
        : f.topUp
          ? { provider: f.topUp.provider, result: f.topUp.result, amount: f.topUp.amount, preauth: false }
          : null;
    if (!charge) return;
    const g = this.depositGuard(
      userId,
      { token: '', paymentId: '' },
      orderId,
      charge.provider.id,
      charge.amount,
      currency,
      charge.preauth,
    );
    await this.guards.release(g, charge.provider, charge.result, 'not started');
  }

  // ---- cabinet answers --------------------------------------------------------------------------------------
}
