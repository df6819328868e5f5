// Renting: the cabinet scanned, the deposit held or paid (or the wallet), the order started and the eject sent; the orphan guard and compensation of a rental that did not start.
import { cabinetCodeFrom } from '#core/codeLink.ts';
import { type RentalKind } from '#core/devices.ts';
import { allOf } from '../../db/db.ts';
import { badRequest, notFound, refused, conflict } from '../../lib/errors.ts';
import { commitIdempotencyKey } from '../../lib/idempotency.ts';
import { orderNo, uuid } from '../../lib/ids.ts';
import type { UserRow } from '../auth/service.ts';
import { PROTOCOL_VERSION, type Command } from '../cabinets/protocol.ts';
import type { CabinetRow } from '../cabinets/stock.ts';
import { chargeNotOurs, isChargeNotOurs, newPaymentId } from '../payments/service.ts';
import { declineMessageKey, type AuthorizeResult, type PaymentProvider } from '../payments/provider.ts';
import type { ChargeGuard, PurposeHandler } from '../payments/guards.ts';
import type { PaymentPurpose } from '../payments/purposes.ts';
import { depositPaymentReason, type PricedVenue } from '../venues/service.ts';
import { providerOwner, userOwner } from '../ledger/service.ts';
import { Zujie } from './order-state.ts';
import {
  JOB_EJECT_TIMEOUT,
  JOB_ORPHAN_AUTH,
  RENTAL_DEPOSIT,
  type GuardState,
  type Funding,
  type ActionRequired,
  type DepositInput,
} from './shared.ts';
import { RentalsReads } from './reads.ts';

export abstract class RentalsRenting extends RentalsReads {
  protected abstract holdGuard(
    orderId: string,
    paymentId: string,
    captureBefore: Date | null,
  ): { kind: string; payload: Record<string, unknown>; runAt: Date } | null;
  protected abstract changed(userId: number, orderId: string, state: number): Promise<void>;

  async resolveCabinet(url: string, kind: RentalKind = 'cdb'): Promise<{ cabinet: CabinetRow; priced: PricedVenue }> {
    const code = cabinetCodeFrom(url);
    const cabinet = code ? await this.d.cabinets.find(code) : undefined;
    if (!cabinet) throw notFound('error.cabinetNotFound');
    return { cabinet, priced: await this.d.venues.priced(cabinet.venue_id, kind) };
  }

  protected async preflight(user: UserRow, qrcode: string, kind: RentalKind) {
    const code = cabinetCodeFrom(qrcode);
    const cabinet = code ? await this.d.cabinets.find(code) : undefined;
    if (!cabinet) throw notFound('error.cabinetNotFound');
    if (!cabinet.online) throw conflict('error.cabinetOffline');
    // Fail fast: without the broker the eject cannot go out; refuse now, before any money moves.
    if (!this.d.link.isUp()) throw conflict('error.cabinetLinkDown');
    // The plan, a free slot (each unanswered eject reserves its slot; checked again under the cabinet's lock in
    // start()) and the user's open rentals: independent reads, made at once. The refusals keep their order.
    const [priced, slot, open] = await Promise.all([
      this.d.venues.priced(cabinet.venue_id, kind),
      this.d.cabinets.freeSlot(cabinet.id, this.d.clock.now(), kind),
      this.d.repo.openCount(user.id),
    ]);
    if (slot === undefined) throw conflict('error.noPowerbank');
    if (open > 0) throw refused('error.rentCount');
    return { cabinet, priced };
  }

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

  /** GET cdb/cabinet/useBalanceToRent */
  async rentWithBalance(user: UserRow, qrcode: string, kind: RentalKind = 'cdb'): Promise<string> {
    const { cabinet, priced } = await this.preflight(user, qrcode, kind);
    // The scan's rule (venues' depositPaymentReason): a wallet short of the deposit is refused (again under the
    // wallet's lock by the hold in start()); at an agent whose deposits are always paid, a wallet that does not also
    // cover the overtime fee is too: that deposit is paid through confirm.
    const { balance } = await this.d.ledger.walletOf(user.id, priced.venue.currency);
    const reason = depositPaymentReason(priced, balance);
    if (reason === 'balance') throw refused('error.insufficientBalance');
    if (reason === 'agent') throw refused('error.depositByPayment');
    const orderId = orderNo(this.d.clock.now());
    await this.sendEject(
      orderId,
      cabinet.id,
      await this.start(orderId, user, cabinet, priced, { kind: 'wallet', topUp: null }, kind),
    );
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

  /**
   * One transaction: payment row, order, eject command, its jobs and the ledger hold; the command, to publish once
   * committed. The shared ledger accounts (the provider's clearing account is in every card rental) are locked
   * last, so concurrent rentals wait on them only for the transfer and the commit, not the whole transaction.
   */
  protected async start(
    orderId: string,
    user: UserRow,
    cabinet: CabinetRow,
    priced: PricedVenue,
    f: Funding,
    kind: RentalKind,
    guard?: GuardState,
  ): Promise<Command> {
    const now = this.d.clock.now();
    const currency = priced.venue.currency;
    const deposit = priced.plan.deposit;
    const w = this.d.ledger;
    return this.d.db
      .tx(async () => {
        // The statements of each step are sent together (pipelined: one round trip per step, docs/architecture.md)
        // and run in PostgreSQL in the order written; the refusals are checked once the step's answers are in.
        // Serialise a user's rentals: the open-rental rule holds even for two concurrent requests (the lock also
        // records the currency as the user's last one). Serialise a cabinet's rentals: each unanswered eject
        // reserves one power bank, so two people scanning for the last one get exactly one order (the other is
        // refused here and its card hold voided). The eject names the slot: a lendable power bank the cabinet
        // reported (never a quarantined one), read under the cabinet's lock.
        // The provider payment funding it is locked too, and must be unrecorded: the orphan guard may have released it
        // (the customer came back at the timeout), or another request started a rental with it (a double resume).
        const charge =
          f.kind === 'preauth'
            ? { provider: f.provider, ref: f.result.ref }
            : f.topUp
              ? { provider: f.topUp.provider, ref: f.topUp.result.ref }
              : null;
        const [, open, , slot, , taken] = await allOf([
          this.d.users.lock(user.id, { currency }),
          this.d.repo.openCount(user.id),
          this.d.cabinets.lock(cabinet.id),
          this.d.cabinets.freeSlot(cabinet.id, now, kind),
          charge && this.d.payments.lockCharge(charge.provider.id, charge.ref),
          charge && this.d.payments.byRef(charge.provider.id, charge.ref),
        ]);
        if (taken) throw chargeNotOurs(taken);
        if (open > 0) throw refused('error.rentCount');
        if (slot === undefined) throw conflict('error.noPowerbank');
        const paymentId = f.kind === 'preauth' ? newPaymentId() : null;
        const holdId = uuid(); // the deposit hold's transfer, made below
        const commandId = uuid();
        const expiresAt = new Date(now.getTime() + this.d.ejectTtlMs);
        const command: Command = {
          v: PROTOCOL_VERSION,
          id: commandId,
          type: 'eject',
          ts: now.toISOString(),
          ttlMs: this.d.ejectTtlMs,
          slot,
          kind,
        };
        // The eject's timeout and, for a card hold, its expiry guard: one statement.
        const hold =
          f.kind === 'preauth' && paymentId ? this.holdGuard(orderId, paymentId, f.result.captureBefore ?? null) : null;
        const holdKey = { owner: userOwner(user.id), kind: 'deposit_hold', currency };
        const [, , , , , , accounts] = await allOf([
          f.kind === 'preauth'
            ? this.d.payments.record({
                id: paymentId!,
                providerId: f.provider.id,
                result: f.result,
                userId: user.id,
                orderId,
                purpose: 'deposit_preauth',
                amount: deposit,
                currency,
              })
            : f.topUp &&
              this.d.payments.record({
                providerId: f.topUp.provider.id,
                result: f.topUp.result,
                userId: user.id,
                orderId,
                purpose: 'deposit_topup',
                amount: f.topUp.amount,
                currency,
              }),
          this.d.repo.insert({
            id: orderId,
            user_id: user.id,
            cabinet_id: cabinet.id,
            venue_id: priced.venue.id,
            deposit_type: priced.planRow.deposit_type,
            currency,
            plan: priced.plan,
            wire_strategy: priced.wire,
            deposit,
            hold_transfer_id: holdId,
            payment_id: paymentId,
            eject_command_id: commandId,
            created_at: now,
            device_kind: kind,
          }),
          this.d.cabinets.insertCommand({
            id: commandId,
            cabinetId: cabinet.id,
            orderId,
            type: 'eject',
            payload: command,
            at: now,
            expiresAt,
          }),
          // The card call's orphan guard is no longer needed once this order commits: cancelled in the same statement.
          this.d.jobs.enqueueMany(
            [
              {
                kind: JOB_EJECT_TIMEOUT,
                payload: { orderId },
                runAt: new Date(expiresAt.getTime() + this.d.ejectGraceMs),
              },
              ...(hold ? [hold] : []),
            ],
            { cancel: guard?.guardId },
          ),
          commitIdempotencyKey(orderId), // the request's key completes with the order, in this transaction
          this.changed(user.id, orderId, Zujie.pending),
          // The ledger's accounts last: the provider's clearing account is shared, so its lock is held only for the
          // transfer and the commit.
          f.kind === 'preauth'
            ? w.lockedAccounts([holdKey, { owner: providerOwner(f.provider.id, user.id), kind: 'clearing', currency }])
            : allOf([
                w.account(holdKey.owner, holdKey.kind, currency),
                w.account(userOwner(user.id), 'wallet', currency),
                f.topUp ? w.account(providerOwner(f.topUp.provider.id, user.id), 'clearing', currency) : undefined,
              ]),
        ]);
        if (f.kind === 'preauth') {
          const [holdAccount, clearing] = accounts;
          await w.transfer({
            id: holdId,
            debit: clearing!,
            credit: holdAccount!,
            amount: deposit,
            code: 'deposit_preauth',
            orderId,
            at: now,
            pending: true,
            locked: true,
          });
        } else {
          const [holdAccount, wallet, clearing] = accounts;
          if (f.topUp)
            await w.transfer({
              debit: clearing!,
              credit: wallet!,
              amount: f.topUp.amount,
              code: 'wallet_topup',
              orderId,
              at: now,
            });
          await w.transfer({
            id: holdId,
            debit: wallet!,
            credit: holdAccount!,
            amount: deposit,
            code: 'deposit_hold',
            orderId,
            at: now,
            pending: true,
            mustNotOverdraw: true,
          });
        }
        return command;
      })
      .then((command) => {
        if (guard?.guardId !== undefined) guard.cancelled = true;
        return command;
      });
  }

  /**
   * Publishes the command just committed (the one stored with the order: nothing is read back before the eject
   * goes out). A failure here is not fatal: the link re-publishes unanswered commands when it reconnects, and
   * the timeout job cancels and releases.
   */
  protected async sendEject(orderId: string, cabinetId: string, command: Command) {
    // Published now; the broker's PUBACK is not waited for (the answer does not depend on it: the command is
    // committed, and re-published on reconnect until the cabinet answers or the timeout job cancels the order).
    void this.d.link
      .send(cabinetId, command)
      .catch((err: unknown) => this.d.log.error({ err, orderId }, 'eject publish failed'));
  }

  // ---- cabinet answers --------------------------------------------------------------------------------------
}
