// Rentals: pay or hold the deposit, create the order, command the eject; then follow the cabinet's answers
// (popped / pop-failed / no answer within the TTL) and settle on return with src/core/pricing.ts.
//
// Money moves are never half-applied: the provider call comes first (it cannot join our transaction), then one
// DB transaction writes the payment, the ledger hold, the order, the command and its timeout job. If that
// transaction fails, the provider authorisation is voided (or the charge refunded) before the error surfaces.
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { cabinetCodeFrom } from '#core/codeLink.ts';
import { isDeviceKind, orderPType, type RentalKind } from '#core/devices.ts';
import { toMajor } from '#core/money.ts';
import { billedMinutes, buyOutAt, buyOutFee, refundAfterBuyOut, rentalFee } from '#core/pricing.ts';
import { allOf, type Db } from '../../db/db.ts';
import type { JobRunner } from '../../jobs/runner.ts';
import type { Clock } from '../../lib/clock.ts';
import { AppError, badRequest, notFound, refused, conflict } from '../../lib/errors.ts';
import { commitIdempotencyKey } from '../../lib/idempotency.ts';
import { orderNo, uuid } from '../../lib/ids.ts';
import type { AuthRepository, UserRow } from '../auth/repository.ts';
import type { CabinetLink, Logger } from '../cabinets/link.ts';
import { PROTOCOL_VERSION, type Command } from '../cabinets/protocol.ts';
import type { CabinetsRepository, CabinetRow, CommandRow } from '../cabinets/repository.ts';
import { PaymentsService, chargeNotOurs, isChargeNotOurs, newPaymentId } from '../payments/service.ts';
import { ACTION_CHECK_MS, ACTION_TIMEOUT_MS, declineMessageKey, type AuthorizeResult, type PaymentProvider } from '../payments/provider.ts';
import { compensationsOf } from '../payments/compensation.ts';
import type { PaymentPurpose } from '../payments/purposes.ts';
import { currencySymbol, type PricedVenue, type VenuesService } from '../venues/service.ts';
import { providerOwner, PLATFORM, userOwner, type LedgerService } from '../ledger/service.ts';
import { BUY_OUT_FROM, Zujie } from './order-state.ts';
import type { OrderRow, RentalsRepository } from './repository.ts';
import type { LiveService } from '../live/service.ts';
import type { DepositReturns } from './deposit-returns.ts';

export interface RentalsDeps {
  db: Db;
  clock: Clock;
  log: Logger;
  repo: RentalsRepository;
  /** The users' rows (auth module): a user's rentals are serialised on it, and it keeps the last currency. */
  users: AuthRepository;
  cabinets: CabinetsRepository;
  venues: VenuesService;
  ledger: LedgerService;
  payments: PaymentsService;
  link: CabinetLink;
  jobs: JobRunner;
  /** How long a cabinet may take to eject before the order is cancelled and the hold voided. */
  ejectTtlMs: number;
  /** Extra wait after the TTL for a popped event already in flight. */
  ejectGraceMs: number;
  /** Tells the user's open screens that an order changed (delivered when the unit of work commits). */
  live: Pick<LiveService, 'publish'>;
  /** Where a cancelled rental's deposit top-up goes back (deposit-returns.ts). */
  depositReturns?: Pick<DepositReturns, 'cancelled'>;
  /** Receipts and reminders (modules/notify/notices.ts), told of each transition in its unit of work. */
  notices?: { changed(orderId: string, state: number): Promise<void> };
  /** Days after a buy-out within which a returned power bank gets it back, less the rent (per the venue's agent). */
  buyOutReversalDays?: (venueId: string) => Promise<number>;
}

export const JOB_EJECT_TIMEOUT = 'rental.eject-timeout';
export const JOB_SETTLE_PAYMENT = 'payment.settle-authorization';
export const JOB_BUY_OUT = 'rental.overtime-buy-out';
export const JOB_ORPHAN_AUTH = 'rental.orphan-authorisation';
/** Follows a debt payment (payType FK) until it settled the debt or was given back. */
export const JOB_DEBT_GUARD = 'rental.debt-guard';
/** Before a card hold lapses (capture_before) on an open rental: renew it off-session, else capture it. */
export const JOB_HOLD_EXPIRY = 'rental.hold-expiry';
/** A rent above the hold: the rest is charged off-session on the saved card (or becomes a debt, payType FK). */
export const JOB_CHARGE_EXTRA = 'rental.charge-extra';
/** A refund to the card a rental was paid with (state 5: a bought-out power bank came back). */
export const JOB_REFUND_CARD = 'payment.refund-card';
/** How long before capture_before the hold is dealt with (a failed job still has a day of retries). */
export const HOLD_RENEW_MARGIN_MS = 24 * 3_600_000;
/** The operator contract's note of an order whose deduction failed (spec §4: it shows the FK pay button). */
export const DEDUCTION_FAILED_NOTE = '扣款失败';
/** How long after a card call without an order its authorisation is presumed orphaned (the process died). */
export const ORPHAN_AUTH_MS = 120_000;

/** Parses a scanned code: the bare cabinet code or a code link (qrcode=, qr=, zhcode=; src/core/codeLink.ts). */
export { cabinetCodeFrom };

/** A rental's orphan guard (see rentWithDeposit): settled once it is no longer needed; cancelled with the order. */
type GuardState = { settled: boolean; guardId?: number; cancelled?: boolean };
type Settled = Extract<AuthorizeResult, { ok: true; status: 'authorized' | 'captured' }>;
type Funding =
  | { kind: 'preauth'; provider: PaymentProvider; result: Settled }
  | { kind: 'wallet'; topUp: { provider: PaymentProvider; result: Settled; amount: number } | null };

/** The customer must finish the payment (3-D Secure, a redirect or a QR code), then call again with `ref`. */
export interface ActionRequired {
  action: { clientSecret: string; paymentIntent: string };
}

export interface DepositInput {
  qrcode: string;
  token: string;
  paymentId: string;
  /** The payment intent the customer finished (after ActionRequired): resumed instead of a new payment. */
  paymentIntent?: string;
  agent?: string;
  returnUrl?: string;
  /** The device kind rented (default a power bank). */
  kind?: RentalKind;
}

export class RentalsService {
  constructor(private readonly d: RentalsDeps) {
    d.jobs.register(JOB_EJECT_TIMEOUT, (p) => this.ejectTimedOut(String(p.orderId)));
    d.jobs.register(JOB_ORPHAN_AUTH, (p) => this.releaseOrphan(p));
    d.jobs.register(JOB_DEBT_GUARD, (p) => this.debtGuard(p));
    d.jobs.register(JOB_BUY_OUT, (p) => this.buyOut(String(p.orderId), 'overtime').then(() => undefined));
    d.jobs.register(JOB_SETTLE_PAYMENT, async (p) => {
      await this.d.payments.settleAuthorization(String(p.paymentId), Number(p.amount));
      // The card hold is captured or released: the order's money changed for its owner's open screens.
      if (p.orderId && p.userId) await this.d.live.publish(Number(p.userId), { kind: 'order', orderId: String(p.orderId) });
    });
    d.jobs.register(JOB_HOLD_EXPIRY, (p, job) => this.holdExpiring(String(p.orderId), String(p.paymentId), job.attempt));
    d.jobs.register(JOB_CHARGE_EXTRA, (p) => this.chargeExtra(String(p.orderId), Number(p.amount)));
    d.jobs.register(JOB_REFUND_CARD, (p) => this.refundCard(String(p.paymentId), Number(p.amount), String(p.key)));
  }

  async resolveCabinet(url: string, kind: RentalKind = 'cdb'): Promise<{ cabinet: CabinetRow; priced: PricedVenue }> {
    const code = cabinetCodeFrom(url);
    const cabinet = code ? await this.d.cabinets.find(code) : undefined;
    if (!cabinet) throw notFound('error.cabinetNotFound');
    return { cabinet, priced: await this.d.venues.priced(cabinet.venue_id, kind) };
  }

  private async preflight(user: UserRow, qrcode: string, kind: RentalKind) {
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
    const taken = input.paymentIntent ? await this.d.payments.repo.byRef(provider.id, input.paymentIntent) : undefined;
    if (taken) throw chargeNotOurs(taken);
    const { cabinet, priced } = await this.preflight(user, input.qrcode, input.kind ?? 'cdb');
    // A pre-authorisation where the plan asks for one and the method can hold (spec §4); a method that only charges
    // (iDEAL, M-Pesa, …) pays the deposit into the wallet instead, as a deposit top-up.
    const preauth = this.holds(priced, input);
    const orderId = orderNo(this.d.clock.now());
    const currency = priced.venue.currency;
    const deposit = priced.plan.deposit;
    const amount = preauth ? deposit : deposit - (await this.d.ledger.walletOf(user.id, currency)).balance;
    if (amount <= 0) return this.rentWithDepositGuarded(user, input, orderId, cabinet, priced, amount);
    // A resumed payment must be this rental's deposit (checked before the guard: a refused resume leaves nothing behind).
    if (input.paymentIntent) await this.d.payments.checkResume(provider.id, input.paymentIntent, { userId: user.id, purpose: preauth ? 'deposit_preauth' : 'deposit_topup', amount, currency });
    // A guard, committed before the card call: if this process dies between the provider's answer and the order's
    // transaction, the job finds no order and releases the authorisation (releaseOrphan). Cancelled below.
    const guard = {
      orderId, paymentId: input.paymentId, agent: input.agent ?? null, userId: user.id, token: input.token, currency, amount,
      capture: preauth ? 'manual' : 'automatic', ref: input.paymentIntent ?? null,
    };
    const guardId = await this.d.jobs.enqueue(JOB_ORPHAN_AUTH, guard, new Date(this.d.clock.now().getTime() + ORPHAN_AUTH_MS));
    // The guard is cancelled only once the order exists (in the order's own transaction), a compensation job owns
    // the release, or the customer must act (then a new guard with the payment's reference releases it after the
    // timeout); otherwise (the compensation could not even be enqueued) it stays and releases the authorisation.
    const state: GuardState = { settled: false, guardId, cancelled: false };
    let out: string | ActionRequired | undefined;
    try {
      out = await this.rentWithDepositGuarded(user, input, orderId, cabinet, priced, amount, state);
      state.settled = true;
      return out;
    } finally {
      if (state.settled && !state.cancelled) {
        await this.d.jobs.cancelById(guardId).catch((err: unknown) => this.d.log.error({ err, orderId }, 'guard cancel failed'));
        // Waiting for the customer (3-D Secure): if they never come back, the payment is released after the timeout.
        if (out && typeof out === 'object' && !input.paymentIntent) {
          await this.d.jobs.enqueue(JOB_ORPHAN_AUTH, { ...guard, ref: out.action.paymentIntent }, new Date(this.d.clock.now().getTime() + ACTION_TIMEOUT_MS));
        }
      }
    }
  }

  /** Whether this rental's deposit is a hold: the plan asks for one and the method can hold. */
  private holds(priced: PricedVenue, input: DepositInput) {
    return priced.planRow.deposit_type === 0 && this.d.payments.methodHolds(input.paymentId, input.agent);
  }

  /** The card call: a new payment, or the outcome of one the customer finished (checked: theirs, the right amount). */
  private async pay(
    user: UserRow, provider: PaymentProvider, input: DepositInput, orderId: string, amount: number, currency: string, capture: 'manual' | 'automatic',
    purpose: PaymentPurpose, debtOf?: string,
  ) {
    const claim = { userId: user.id, purpose, amount, currency, ...(debtOf ? { orderId: debtOf } : {}) };
    if (!input.paymentIntent) {
      const started = await provider.authorize({
        token: input.token, amount, currency, capture, idempotencyKey: orderId, userId: user.id, saveCard: true, purpose, returnUrl: input.returnUrl,
        methodType: input.paymentId.split(':')[1],
      });
      // Waiting for the customer: what it is for is recorded, for the resume check.
      if (started.ok && started.status === 'requires_action') await this.d.payments.recordStart(provider.id, started.ref, claim);
      return started;
    }
    const r = await this.d.payments.resume(provider, input.paymentIntent, claim);
    if (r.ok && r.status !== 'requires_action' && (r.amount !== amount || r.currency?.toUpperCase() !== currency || (r.status === 'authorized') !== (capture === 'manual'))) {
      throw badRequest('error.paymentMethod');
    }
    return r;
  }

  private async rentWithDepositGuarded(
    user: UserRow, input: DepositInput, orderId: string, cabinet: CabinetRow, priced: PricedVenue, amount: number,
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
      if (result.status === 'requires_action') return { action: { clientSecret: result.clientSecret, paymentIntent: result.ref } };
      funding = { kind: 'preauth', provider, result };
    } else {
      if (amount > 0) {
        const result = await this.pay(user, provider, input, orderId, amount, currency, 'automatic', 'deposit_topup');
        if (!result.ok) {
          guard.settled = true;
          return this.declined(user, provider, result, amount, currency, 'deposit_topup');
        }
        if (result.status === 'requires_action') return { action: { clientSecret: result.clientSecret, paymentIntent: result.ref } };
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
        .catch((e: unknown) => this.d.log.error({ err: e, orderId }, 'compensation not enqueued: the orphan guard will release it'));
      throw err;
    }
    await this.sendEject(orderId, cabinet.id, command);
    return orderId;
  }

  /**
   * The orphan guard's job: no order was written for this card call (the process died in between). The provider
   * call is replayed with the same idempotency key, which returns the first outcome without charging again, and
   * an authorisation is voided (a top-up charge refunded).
   */
  private async releaseOrphan(p: Record<string, unknown>) {
    const orderId = String(p.orderId);
    if (await this.d.repo.find(orderId)) return;
    const provider = this.d.payments.providerForMethod(String(p.paymentId), p.agent ? String(p.agent) : undefined);
    if (!provider) return;
    const wallet = p.capture === 'automatic';
    const amount = Number(p.amount);
    let result: AuthorizeResult;
    if (p.ref) {
      // A payment the customer had to finish: released unless a rental took it (a resume, by another request).
      if (await this.d.payments.repo.byRef(provider.id, String(p.ref))) return;
      result = await provider.resume(String(p.ref), Number(p.userId));
    } else {
      // The same request as the first (same key, token, amount), as providers require for an idempotent replay.
      result = await provider.authorize({
        token: String(p.token), amount, currency: String(p.currency), capture: wallet ? 'automatic' : 'manual', idempotencyKey: orderId,
        userId: Number(p.userId), saveCard: true, purpose: wallet ? 'deposit_topup' : 'deposit_preauth', methodType: String(p.paymentId).split(':')[1],
      });
    }
    if (!result.ok) return;
    const ok = result;
    // Under the charge's lock, which a rental starting with this payment takes too (start): either the rental
    // committed first and the payment is left alone, or it is recorded released here and that rental is refused.
    const comp = compensationsOf(this.d.jobs, this.d.payments.providers);
    const jobId = await this.d.db.tx(async () => {
      await this.d.payments.lockCharge(provider.id, ok.ref);
      const [order, taken] = await allOf([this.d.repo.find(orderId), this.d.payments.repo.byRef(provider.id, ok.ref)]);
      if (order || taken) return null;
      this.d.log.warn({ orderId, ref: ok.ref }, p.ref ? 'releasing a payment the customer did not finish' : 'releasing an orphaned card authorisation');
      const c = await this.d.payments.recordReleased({
        providerId: provider.id, userId: Number(p.userId), orderId: null, purpose: wallet ? 'deposit_topup' : 'deposit_preauth', amount, currency: String(p.currency),
      }, ok);
      return comp.enqueue({ providerId: provider.id, ref: ok.ref, ...c, reason: `rental ${orderId}: not started with it` }, this.d.clock.now());
    });
    if (jobId !== null) await comp.runNow(jobId);
  }

  /** GET cdb/cabinet/useBalanceToRent */
  async rentWithBalance(user: UserRow, qrcode: string, kind: RentalKind = 'cdb'): Promise<string> {
    const { cabinet, priced } = await this.preflight(user, qrcode, kind);
    const orderId = orderNo(this.d.clock.now());
    await this.sendEject(orderId, cabinet.id, await this.start(orderId, user, cabinet, priced, { kind: 'wallet', topUp: null }, kind));
    return orderId;
  }

  private async declined(user: UserRow, provider: PaymentProvider, result: Extract<AuthorizeResult, { ok: false }>, amount: number, currency: string, purpose: string): Promise<never> {
    await this.d.payments.record({ providerId: provider.id, result, userId: user.id, orderId: null, purpose, amount, currency });
    throw refused(declineMessageKey(result.declineCode));
  }

  /**
   * Releases the money of a rental that was not started: a compensation job (payments/compensation.ts). Under the
   * charge's lock, as the orphan guard's release: a payment another rental took meanwhile (a double resume: the
   * second started while this one failed) or released already is left alone; otherwise it is recorded released (no
   * later resume can take it) with its job in the same transaction, run after the commit.
   */
  private async compensate(f: Funding, orderId: string, userId: number, currency: string, deposit: number) {
    const charge = f.kind === 'preauth' ? { provider: f.provider, result: f.result, amount: deposit, purpose: 'deposit_preauth' }
      : f.topUp ? { provider: f.topUp.provider, result: f.topUp.result, amount: f.topUp.amount, purpose: 'deposit_topup' } : null;
    if (!charge) return;
    const comp = compensationsOf(this.d.jobs, this.d.payments.providers);
    const jobId = await this.d.db.tx(async () => {
      await this.d.payments.lockCharge(charge.provider.id, charge.result.ref);
      if (await this.d.payments.repo.byRef(charge.provider.id, charge.result.ref)) return null;
      const c = await this.d.payments.recordReleased({
        providerId: charge.provider.id, userId, orderId: null, purpose: charge.purpose, amount: charge.amount, currency,
      }, charge.result);
      return comp.enqueue({ providerId: charge.provider.id, ref: charge.result.ref, ...c, reason: `rental ${orderId} not started` }, this.d.clock.now());
    });
    if (jobId !== null) await comp.runNow(jobId);
  }

  /**
   * One transaction: payment row, order, eject command, its jobs and the ledger hold; the command, to publish once
   * committed. The shared ledger accounts (the provider's clearing account is in every card rental) are locked
   * last, so concurrent rentals wait on them only for the transfer and the commit, not the whole transaction.
   */
  private async start(orderId: string, user: UserRow, cabinet: CabinetRow, priced: PricedVenue, f: Funding, kind: RentalKind, guard?: GuardState): Promise<Command> {
    const now = this.d.clock.now();
    const currency = priced.venue.currency;
    const deposit = priced.plan.deposit;
    const w = this.d.ledger;
    return this.d.db.tx(async () => {
      // The statements of each step are sent together (pipelined: one round trip per step, docs/architecture.md)
      // and run in PostgreSQL in the order written; the refusals are checked once the step's answers are in.
      // Serialise a user's rentals: the open-rental rule holds even for two concurrent requests (the lock also
      // records the currency as the user's last one). Serialise a cabinet's rentals: each unanswered eject
      // reserves one power bank, so two people scanning for the last one get exactly one order (the other is
      // refused here and its card hold voided). The eject names the slot: a lendable power bank the cabinet
      // reported (never a quarantined one), read under the cabinet's lock.
      // The provider payment funding it is locked too, and must be unrecorded: the orphan guard may have released it
      // (the customer came back at the timeout), or another request started a rental with it (a double resume).
      const charge = f.kind === 'preauth' ? { provider: f.provider, ref: f.result.ref } : f.topUp ? { provider: f.topUp.provider, ref: f.topUp.result.ref } : null;
      const [, open, , slot, , taken] = await allOf([
        this.d.users.lock(user.id, { currency }),
        this.d.repo.openCount(user.id),
        this.d.cabinets.lock(cabinet.id),
        this.d.cabinets.freeSlot(cabinet.id, now, kind),
        charge && this.d.payments.lockCharge(charge.provider.id, charge.ref),
        charge && this.d.payments.repo.byRef(charge.provider.id, charge.ref),
      ]);
      if (taken) throw chargeNotOurs(taken);
      if (open > 0) throw refused('error.rentCount');
      if (slot === undefined) throw conflict('error.noPowerbank');
      const paymentId = f.kind === 'preauth' ? newPaymentId() : null;
      const holdId = uuid(); // the deposit hold's transfer, made below
      const commandId = uuid();
      const expiresAt = new Date(now.getTime() + this.d.ejectTtlMs);
      const command: Command = { v: PROTOCOL_VERSION, id: commandId, type: 'eject', ts: now.toISOString(), ttlMs: this.d.ejectTtlMs, slot, kind };
      // The eject's timeout and, for a card hold, its expiry guard: one statement.
      const hold = f.kind === 'preauth' && paymentId ? this.holdGuard(orderId, paymentId, f.result.captureBefore ?? null) : null;
      const holdKey = { owner: userOwner(user.id), kind: 'deposit_hold', currency };
      const [, , , , , , accounts] = await allOf([
        f.kind === 'preauth'
          ? this.d.payments.record({ id: paymentId!, providerId: f.provider.id, result: f.result, userId: user.id, orderId, purpose: 'deposit_preauth', amount: deposit, currency })
          : f.topUp && this.d.payments.record({ providerId: f.topUp.provider.id, result: f.topUp.result, userId: user.id, orderId, purpose: 'deposit_topup', amount: f.topUp.amount, currency }),
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
        this.d.cabinets.insertCommand({ id: commandId, cabinetId: cabinet.id, orderId, type: 'eject', payload: command, at: now, expiresAt }),
        // The card call's orphan guard is no longer needed once this order commits: cancelled in the same statement.
        this.d.jobs.enqueueMany([
          { kind: JOB_EJECT_TIMEOUT, payload: { orderId }, runAt: new Date(expiresAt.getTime() + this.d.ejectGraceMs) },
          ...(hold ? [hold] : []),
        ], { cancel: guard?.guardId }),
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
        await w.transfer({ id: holdId, debit: clearing!, credit: holdAccount!, amount: deposit, code: 'deposit_preauth', orderId, at: now, pending: true, locked: true });
      } else {
        const [holdAccount, wallet, clearing] = accounts;
        if (f.topUp) await w.transfer({ debit: clearing!, credit: wallet!, amount: f.topUp.amount, code: 'wallet_topup', orderId, at: now });
        await w.transfer({ id: holdId, debit: wallet!, credit: holdAccount!, amount: deposit, code: 'deposit_hold', orderId, at: now, pending: true, mustNotOverdraw: true });
      }
      return command;
    }).then((command) => {
      if (guard?.guardId !== undefined) guard.cancelled = true;
      return command;
    });
  }

  /**
   * Publishes the command just committed (the one stored with the order: nothing is read back before the eject
   * goes out). A failure here is not fatal: the link re-publishes unanswered commands when it reconnects, and
   * the timeout job cancels and releases.
   */
  private async sendEject(orderId: string, cabinetId: string, command: Command) {
    // Published now; the broker's PUBACK is not waited for (the answer does not depend on it: the command is
    // committed, and re-published on reconnect until the cabinet answers or the timeout job cancels the order).
    void this.d.link.send(cabinetId, command).catch((err: unknown) => this.d.log.error({ err, orderId }, 'eject publish failed'));
  }

  // ---- cabinet answers --------------------------------------------------------------------------------------

  /** `cmd`: the command `e` answers, as the inbox read it (undefined: no such command). */
  async onPopped(cabinetId: string, e: { commandId: string; slot: number; powerbankId: string; ts: string }, cmd: CommandRow | undefined) {
    if (!cmd || cmd.cabinet_id !== cabinetId) return this.d.log.warn({ cabinetId, e }, 'popped for an unknown command');
    // The order's lock first, then the command's row: the order the eject timeout takes them in (the other order
    // deadlocked a 'popped' arriving as the timeout fired, and PostgreSQL aborted one of them).
    const order = await this.d.repo.find(cmd.order_id, { lock: true });
    await this.d.cabinets.ackCommand(cmd.id, this.d.clock.now(), 'popped');
    if (!order) return;
    if (order.zujie !== Zujie.pending) {
      // Too late (the TTL ran out and the order was cancelled) or a repeat: the bank is out without a rental.
      // The user was not charged (the hold is void); the inventory still records the bank as out, against this
      // cancelled order, so a later return puts it back and operations can see where it went.
      if (order.powerbank_id !== e.powerbankId) {
        this.d.log.warn({ orderId: order.id, zujie: order.zujie, powerbankId: e.powerbankId }, 'popped after the order closed');
        // Not over a later report (a late 'popped' never re-marks a returned power bank as out).
        const ts = Date.parse(e.ts);
        await this.d.cabinets.markRented(e.powerbankId, order.id, new Date(Math.min(Number.isFinite(ts) ? ts : Infinity, this.d.clock.now().getTime())));
      }
      return;
    }
    // The cabinet's clock, clamped like a return's: not before the command was issued, not after now.
    const reported = Date.parse(e.ts);
    const now = this.d.clock.now().getTime();
    const borrowedAt = new Date(Math.max(new Date(order.created_at).getTime(), Math.min(Number.isFinite(reported) ? reported : now, now)));
    await this.d.repo.transition(order.id, Zujie.pending, Zujie.renting, { powerbank_id: e.powerbankId, slot: e.slot, borrowed_at: borrowedAt });
    const out = await this.d.cabinets.markRented(e.powerbankId, order.id, borrowedAt, order.device_kind);
    await this.changed(order.user_id, order.id, Zujie.renting);
    await this.d.jobs.enqueue(JOB_BUY_OUT, { orderId: order.id }, buyOutAt(order.plan, borrowedAt));
    // Events may overtake each other (a cabinet reconnecting flushes its queue): a 'returned' of this power bank
    // stamped after this 'popped' that was handled first found no open order. Settle with it now. Only a return
    // received while this order was already waiting for its eject, and stamped after the pop, can be that one.
    const early = await this.d.cabinets.returnAfter(e.powerbankId, borrowedAt, order.created_at);
    if (early) {
      const r = (typeof early.payload === 'string' ? JSON.parse(early.payload) : early.payload) as { slot: number; ts: string };
      await this.onReturned(early.cabinet_id, { slot: r.slot, powerbankId: e.powerbankId, ts: r.ts });
      return;
    }
    // Or a cabinet's heartbeat already listed it in a slot after the pop (markRented did not apply).
    if (!out) {
      const [b] = await this.d.cabinets.powerbanks([e.powerbankId]);
      if (b?.cabinet_id && b.slot && b.seen_at) await this.onReturned(b.cabinet_id, { slot: b.slot, powerbankId: b.id, ts: new Date(b.seen_at).toISOString() });
    }
  }

  async onPopFailed(cabinetId: string, e: { commandId: string; reason: string }, cmd: CommandRow | undefined) {
    if (!cmd || cmd.cabinet_id !== cabinetId) return;
    const order = await this.d.repo.find(cmd.order_id, { lock: true }); // before the command's row, as in onPopped
    await this.d.cabinets.ackCommand(cmd.id, this.d.clock.now(), `pop-failed:${e.reason}`);
    if (order?.zujie === Zujie.pending) await this.cancel(order, `eject failed: ${e.reason}`);
  }

  private async ejectTimedOut(orderId: string) {
    await this.d.db.tx(async () => {
      const order = await this.d.repo.find(orderId, { lock: true });
      if (order?.zujie !== Zujie.pending) return;
      if (order.eject_command_id) await this.d.cabinets.ackCommand(order.eject_command_id, this.d.clock.now(), 'expired');
      await this.cancel(order, 'eject timed out');
    });
  }

  /** Pending → cancelled; the deposit hold is voided, and a card pre-authorisation voided at the provider. */
  private async cancel(order: OrderRow, note: string) {
    const now = this.d.clock.now();
    await this.d.repo.transition(order.id, Zujie.pending, Zujie.cancelled, { note, settled: true });
    await this.changed(order.user_id, order.id, Zujie.cancelled);
    if (order.hold_transfer_id) await this.d.ledger.voidPending(order.hold_transfer_id, now);
    if (order.payment_id) await this.d.jobs.enqueue(JOB_SETTLE_PAYMENT, { paymentId: order.payment_id, amount: 0, orderId: order.id, userId: order.user_id }, now);
    await this.d.depositReturns?.cancelled(order);
  }

  /**
   * A power bank went into a slot of `cabinetId` (any cabinet of the network): settle its rental with the
   * cabinet's own timestamp (a cabinet that was offline reports late; a timestamp in the future counts as now).
   * Past the overtime period the user pays at most the buy-out fee; a bought-out order that comes back gets the
   * difference to the rent for the real time back in the wallet (docs/pricing.md).
   */
  async onReturned(cabinetId: string, e: { slot: number; powerbankId: string; ts: string; fault?: string; kind?: unknown }) {
    let order = await this.d.repo.openForPowerbank(e.powerbankId);
    const reportedAt = Date.parse(e.ts);
    const nowMs = this.d.clock.now().getTime();
    const seenAt = new Date(Math.min(Number.isFinite(reportedAt) ? reportedAt : nowMs, nowMs));
    await this.d.cabinets.placeInSlot(e.powerbankId, cabinetId, e.slot, seenAt, isDeviceKind(e.kind) ? e.kind : undefined);
    if (!order || !order.borrowed_at) return;
    // A return stamped before this rental's pop belongs to an earlier rental of the power bank (delivered late).
    if (seenAt.getTime() < new Date(order.borrowed_at).getTime()) return;
    // A return that reports a fault: the order enters state 4 at the return's time, then settles like any return.
    if (e.fault && order.zujie === Zujie.renting && !order.settled) {
      await this.enterFault(order, e.ts, `fault on return: ${e.fault}`);
      order = (await this.d.repo.find(order.id))!;
    }
    const now = this.d.clock.now();
    const borrowedAt = new Date(order.borrowed_at!).getTime();
    const reported = Date.parse(e.ts);
    const returnedAt = new Date(Math.max(borrowedAt, Math.min(Number.isFinite(reported) ? reported : now.getTime(), now.getTime())));
    // State 4: the user pays only for the time until the fault was reported (docs/pricing.md).
    const faultAt = order.fault_at ? Math.max(borrowedAt, new Date(order.fault_at).getTime()) : Infinity;
    const elapsed = Math.min(returnedAt.getTime(), faultAt) - borrowedAt;
    const minutes = billedMinutes(elapsed);
    const overtime = borrowedAt + elapsed > buyOutAt(order.plan, new Date(borrowedAt)).getTime();
    const returnCabinet = await this.d.cabinets.find(cabinetId);
    const returnVenue = returnCabinet ? await this.d.venues.priced(returnCabinet.venue_id) : undefined;
    const where = { returned_at: returnedAt, return_cabinet_id: cabinetId, return_venue_name: returnVenue?.venue.name ?? cabinetId, use_minutes: minutes };
    const to = overtime ? Zujie.overtimeReturn : Zujie.returned;
    if (order.bought_out_at) {
      const charged = Number(order.fee ?? 0);
      // Within the agent's window after the buy-out (default 30 days) the buy-out comes back, less the rent due.
      const window = (await this.d.buyOutReversalDays?.(order.venue_id)) ?? Infinity;
      const refund = returnedAt.getTime() - new Date(order.bought_out_at).getTime() <= window * 86_400_000 ? refundAfterBuyOut(order.plan, charged, elapsed) : 0;
      await this.d.repo.transition(order.id, order.zujie, to, { ...where, fee: charged - refund });
      await this.changed(order.user_id, order.id, to);
      if (refund > 0) await this.d.live.publish(order.user_id, { kind: 'wallet' });
      if (refund > 0) {
        const w = this.d.ledger;
        const revenue = await w.account(PLATFORM, 'revenue', order.currency);
        const pay = order.payment_id ? await this.d.payments.find(order.payment_id) : undefined;
        if (pay && ['captured', 'partially_captured'].includes(pay.status) && this.d.payments.providers.get(pay.provider).capabilities.refund) {
          // The buy-out was taken from the card hold: the difference goes back to that card (a provider refund).
          const clearing = await w.account(providerOwner(pay.provider), 'clearing', order.currency);
          await w.transfer({ debit: revenue, credit: clearing, amount: refund, code: 'buy_out_refund', orderId: order.id, at: now });
          await this.d.jobs.enqueue(JOB_REFUND_CARD, { paymentId: pay.id, amount: refund, key: `state5_${order.id}` }, now);
        } else {
          const wallet = await w.account(userOwner(order.user_id), 'wallet', order.currency);
          await w.transfer({ debit: revenue, credit: wallet, amount: refund, code: 'buy_out_refund', orderId: order.id, at: now });
        }
      }
      return;
    }
    const fee = overtime ? Math.min(rentalFee(order.plan, elapsed), buyOutFee(order.plan)) : rentalFee(order.plan, elapsed);
    await this.d.repo.transition(order.id, order.zujie, to, { ...where, fee, settled: true });
    await this.charge(order, fee, now);
    await this.changed(order.user_id, order.id, to);
  }

  /**
   * A cabinet reported the rented power bank faulty ('powerbank-fault'): its open order goes 1 → 4 (still
   * ongoing, spec §4) and stops accruing at the report's time; it settles when the power bank is returned.
   * A report for a power bank with no renting order (or one already in 4) changes nothing.
   */
  async onFault(e: { powerbankId: string; ts: string; reason: string }) {
    const open = await this.d.repo.openForPowerbank(e.powerbankId);
    if (!open || open.zujie !== Zujie.renting || open.settled || !open.borrowed_at) return;
    const order = await this.d.repo.find(open.id, { lock: true });
    if (order?.zujie !== Zujie.renting || order.settled) return;
    await this.enterFault(order, e.ts, `fault: ${e.reason}`);
  }

  /** 1 → 4 with the fault time: the cabinet's own timestamp, within [borrowed, now]. */
  private async enterFault(order: OrderRow, ts: string, note: string) {
    const now = this.d.clock.now().getTime();
    const borrowedAt = new Date(order.borrowed_at!).getTime();
    const reported = Date.parse(ts);
    const at = new Date(Math.max(borrowedAt, Math.min(Number.isFinite(reported) ? reported : now, now)));
    await this.d.repo.transition(order.id, Zujie.renting, Zujie.fault, { fault_at: at, note });
    await this.changed(order.user_id, order.id, Zujie.fault);
  }

  /** The order changed: its owner's open screens refetch it (and the wallet, whose hold it moved). */
  private async changed(userId: number, orderId: string, state: number) {
    await this.d.live.publish(userId, { kind: 'order', orderId, state });
    await this.d.notices?.changed(orderId, state);
  }

  /** Takes `fee` from the order's deposit hold (the rest released) and settles the card authorisation. */
  private async charge(order: OrderRow, fee: number, now: Date) {
    const w = this.d.ledger;
    // A card hold covers up to the deposit; a rent above it is charged off-session on the saved card.
    const fromHold = order.payment_id ? Math.min(fee, order.deposit) : fee;
    if (order.hold_transfer_id) {
      if (fromHold > 0) {
        await w.postPending(order.hold_transfer_id, fromHold, now);
        const hold = await w.account(userOwner(order.user_id), 'deposit_hold', order.currency);
        const revenue = await w.account(PLATFORM, 'revenue', order.currency);
        await w.transfer({ debit: hold, credit: revenue, amount: fromHold, code: 'rent', orderId: order.id, at: now });
      } else {
        await w.voidPending(order.hold_transfer_id, now);
      }
    }
    if (order.payment_id) {
      // Not a guard that already ran: it may have renewed the hold at the card without recording it (its process
      // died, its unit of work failed); its retry finds the rental closed and releases that renewal.
      await this.d.jobs.cancel(JOB_HOLD_EXPIRY, 'orderId', order.id, { untried: true });
      await this.d.jobs.enqueue(JOB_SETTLE_PAYMENT, { paymentId: order.payment_id, amount: fromHold, orderId: order.id, userId: order.user_id }, now);
      if (fee > fromHold) await this.d.jobs.enqueue(JOB_CHARGE_EXTRA, { orderId: order.id, amount: fee - fromHold }, now);
    }
  }

  // ---- card holds: expiry and off-session charges (docs/payments.md) ------------------------------------------

  /** Schedules the hold's expiry guard a margin before the card network would release it. */
  private async guardHold(orderId: string, paymentId: string, captureBefore: Date | null) {
    const job = this.holdGuard(orderId, paymentId, captureBefore);
    if (job) await this.d.jobs.enqueue(job.kind, job.payload, job.runAt);
  }

  /** The hold's expiry guard job (none when the provider gave no capture deadline). */
  private holdGuard(orderId: string, paymentId: string, captureBefore: Date | null) {
    if (!captureBefore) return null;
    return { kind: JOB_HOLD_EXPIRY, payload: { orderId, paymentId }, runAt: new Date(Math.max(this.d.clock.now().getTime(), captureBefore.getTime() - HOLD_RENEW_MARGIN_MS)) };
  }

  /**
   * A hold is about to lapse on a still-open rental. First choice: a new hold for the same amount, off-session on
   * the card saved with the deposit, then the old one is released. If the bank refuses (or wants the customer to
   * authenticate), the whole hold is captured now, so the rental never loses its guarantee; at return the
   * difference to the rent is refunded to the card.
   */
  private async holdExpiring(orderId: string, paymentId: string, attempt = 1) {
    const order = await this.d.repo.find(orderId);
    if (!order) return;
    const p = await this.d.payments.find(paymentId);
    const provider = p && this.d.payments.providers.has(p.provider) ? this.d.payments.providers.get(p.provider) : undefined;
    const renew = () => provider!.authorize({
      token: p!.payment_method_ref!, amount: Number(p!.amount), currency: p!.currency, capture: 'manual', idempotencyKey: `renew_${p!.id}`,
      userId: order.user_id, offSession: true, purpose: 'deposit_preauth',
    });
    if (order.settled || order.payment_id !== paymentId) {
      // A retry after the rental closed: an earlier attempt may have renewed the hold at the card and failed before
      // recording it. The replay (same idempotency key) answers that renewal; unless it is recorded, it is released.
      if (attempt > 1 && p?.payment_method_ref && provider?.capabilities.offSession) {
        const r = await renew();
        if (r.ok && r.status !== 'captured') {
          const recorded = await this.d.db.tx(async () => {
            await this.d.repo.find(orderId, { lock: true });
            return Boolean(await this.d.payments.repo.byRef(provider.id, r.ref));
          });
          if (!recorded) await provider.void(r.ref);
        }
      }
      return;
    }
    if (p?.status !== 'authorized' || !provider) return;
    if (p.payment_method_ref && provider.capabilities.offSession) {
      const r = await renew();
      if (r.ok && r.status === 'authorized') {
        const renewed = await this.d.db.tx(async () => {
          const o = await this.d.repo.find(orderId, { lock: true });
          if (!o || o.settled || o.payment_id !== paymentId) return false;
          if (await this.d.payments.repo.byRef(provider.id, r.ref)) return true; // a retried job: done before
          const newId = await this.d.payments.record({
            providerId: provider.id, result: { ...r, saved: r.saved ?? { paymentMethod: p.payment_method_ref!, customer: p.customer_ref ?? '' } },
            userId: o.user_id, orderId, purpose: 'deposit_preauth', amount: Number(p.amount), currency: p.currency,
          });
          await this.d.repo.setPayment(orderId, newId);
          await this.d.jobs.enqueue(JOB_SETTLE_PAYMENT, { paymentId, amount: 0 }, this.d.clock.now());
          await this.guardHold(orderId, newId, r.captureBefore ?? null);
          return true;
        });
        if (!renewed) await provider.void(r.ref); // the rental closed meanwhile
        return;
      }
      if (r.ok && r.status === 'requires_action') await provider.void(r.ref).catch(() => undefined);
      this.d.log.warn({ orderId, declineCode: r.ok ? 'requires_action' : r.declineCode }, 'hold renewal refused: capturing the hold');
    }
    await this.d.payments.settleAuthorization(paymentId, Number(p.amount));
  }

  /**
   * The part of a rent above the hold, charged off-session on the card saved with the deposit. A refusal (the
   * bank wants the customer to authenticate: authentication_required, or a decline) leaves a debt on the order:
   * it shows the pay button (payType FK) and the user pays it in the app.
   */
  private async chargeExtra(orderId: string, amount: number) {
    const order = await this.d.repo.find(orderId);
    if (!order?.payment_id) return;
    const done = (await this.d.payments.repo.ofOrder(orderId)).some((x) => x.purpose === 'rent_extra');
    if (done || Number(order.debt ?? 0) > 0) return; // a retried job
    const p = await this.d.payments.find(order.payment_id);
    const provider = p ? this.d.payments.providers.get(p.provider) : null;
    const result: AuthorizeResult = p?.payment_method_ref && provider?.capabilities.offSession
      ? await provider.authorize({
          token: p.payment_method_ref, amount, currency: order.currency, capture: 'automatic', idempotencyKey: `extra_${orderId}`,
          userId: order.user_id, offSession: true, purpose: 'rent_extra',
        })
      : { ok: false, ref: null, declineCode: 'authentication_required', card: null };
    await this.d.db.tx(async () => {
      // Checked again under the order's lock: a process whose lease was taken over while its provider call was in
      // flight gets the same answer (same idempotency key) as the one that took over, and must not record it twice
      // (two payments and two rent entries, or the debt added twice).
      const o = await this.d.repo.find(orderId, { lock: true });
      if (!o || Number(o.debt ?? 0) > 0 || (await this.d.payments.repo.ofOrder(orderId)).some((x) => x.purpose === 'rent_extra')) return;
      if (result.ok && result.status === 'captured') {
        await this.d.payments.record({ providerId: provider!.id, result, userId: order.user_id, orderId, purpose: 'rent_extra', amount, currency: order.currency });
        const w = this.d.ledger;
        const clearing = await w.account(providerOwner(provider!.id), 'clearing', order.currency);
        const revenue = await w.account(PLATFORM, 'revenue', order.currency);
        await w.transfer({ debit: clearing, credit: revenue, amount, code: 'rent', orderId, at: this.d.clock.now() });
        return;
      }
      if (result.ok && result.status === 'requires_action' && provider) await provider.void(result.ref).catch(() => undefined);
      const declined: AuthorizeResult = result.ok ? { ok: false, ref: result.ref, declineCode: 'authentication_required', card: null } : result;
      await this.d.payments.record({ providerId: provider?.id ?? 'none', result: declined, userId: order.user_id, orderId, purpose: 'rent_extra', amount, currency: order.currency });
      await this.d.repo.addDebt(orderId, amount);
    });
  }

  /** The refund job: once per key at the provider (its idempotency key), recorded once on the payment. */
  private async refundCard(paymentId: string, amount: number, key: string) {
    const p = await this.d.payments.find(paymentId);
    if (!p) return;
    const done = (await this.d.payments.repo.transitionsOfOrder(p.order_id ?? '')).some((t) => t.payment_id === paymentId && t.to_status.startsWith('refund:') && Number(t.amount) === amount);
    if (done) return;
    await this.d.payments.refund(paymentId, amount, key);
  }

  /**
   * payType FK: pays what a failed deduction left on the order (never starts a rental). The money goes to the
   * operator's revenue; a payment that needs the customer (3-D Secure, a provider's page) returns ActionRequired
   * and is resumed with paymentIntent. A guard job follows every payment (debtGuard): the process dying between
   * the charge and the order's update, or a customer who paid but never came back, still settles the debt once.
   */
  async payDebt(user: UserRow, input: { outTradeNo: string; paymentId: string; token?: string; paymentIntent?: string; returnUrl?: string; agent?: string; key?: string }): Promise<string | ActionRequired> {
    const order = await this.check(user, input.outTradeNo);
    const debt = Number(order.debt ?? 0);
    const provider = this.d.payments.requireProvider(input.paymentId, input.agent);
    // The app resumes a payment its guard already applied (the customer came back late): the same answer.
    if (input.paymentIntent && order.debt_paid_at && (await this.d.payments.repo.byRef(provider.id, input.paymentIntent))?.order_id === order.id) return order.id;
    if (debt <= 0 || order.debt_paid_at) throw conflict('error.order.nothingToPay');
    if (!input.paymentIntent && !input.token) throw badRequest('error.validation.field', { field: 'stripeToken' });
    await this.d.payments.checkReturnUrl(input.returnUrl, input.agent);
    const key = `fk_${order.id}_${input.key ?? debt}`;
    const guard = {
      orderId: order.id, providerId: provider.id, userId: user.id, token: input.token ?? null, key, amount: debt, currency: order.currency, ref: null as string | null,
      methodType: input.paymentId.split(':')[1] ?? null,
    };
    // Committed before the provider call; a resumed payment is followed by the guard its first call left.
    if (!input.paymentIntent) await this.d.jobs.enqueue(JOB_DEBT_GUARD, guard, new Date(this.d.clock.now().getTime() + ORPHAN_AUTH_MS));
    const cancel = () => (input.paymentIntent ? this.d.jobs.cancel(JOB_DEBT_GUARD, 'ref', input.paymentIntent) : this.d.jobs.cancel(JOB_DEBT_GUARD, 'key', key));
    const result = await this.pay(user, provider, { qrcode: '', token: input.token ?? '', paymentId: input.paymentId, paymentIntent: input.paymentIntent, returnUrl: input.returnUrl },
      key, debt, order.currency, 'automatic', 'debt', order.id);
    if (!result.ok) {
      await cancel();
      return this.declined(user, provider, result, debt, order.currency, 'debt');
    }
    if (result.status === 'requires_action') {
      if (!input.paymentIntent) {
        await this.d.db.tx(async () => {
          await this.d.jobs.enqueue(JOB_DEBT_GUARD, { ...guard, key: `${key}:action`, ref: result.ref, deadline: this.d.clock.now().getTime() + ACTION_TIMEOUT_MS },
            new Date(this.d.clock.now().getTime() + ACTION_CHECK_MS));
          await this.d.jobs.cancel(JOB_DEBT_GUARD, 'key', key);
        });
      }
      return { action: { clientSecret: result.clientSecret, paymentIntent: result.ref } };
    }
    await this.settleDebt(provider, result, { orderId: order.id, userId: user.id, amount: debt, currency: order.currency });
    await cancel();
    return order.id;
  }

  /**
   * One unit of work: the debt paid with this charge, once (a retry, the customer's resume and the guard get the
   * same charge). A charge that can no longer pay it (paid meanwhile by another payment) is released (refunded); one
   * recorded by another flow or released by the guard is refused and left to its owner.
   */
  private async settleDebt(provider: PaymentProvider, result: Extract<AuthorizeResult, { ok: true }>, t: { orderId: string; userId: number; amount: number; currency: string }) {
    try {
      await this.d.db.tx(async () => {
        // Under the charge's lock, which the guard's release takes too: a charge recorded already is this debt's
        // (a replay: done) or not this debt's to take (another flow's, or released by the guard: refused, not refunded here).
        await this.d.payments.lockCharge(provider.id, result.ref);
        const prior = await this.d.payments.takenOrReleased(provider.id, result.ref);
        if (prior && prior.order_id === t.orderId && prior.purpose === 'debt' && prior.status === 'captured') return;
        if (prior) throw chargeNotOurs(prior);
        await this.d.repo.find(t.orderId, { lock: true });
        if (!(await this.d.repo.payDebt(t.orderId, t.amount, this.d.clock.now()))) throw conflict('error.order.nothingToPay');
        await this.d.payments.record({ providerId: provider.id, result, userId: t.userId, orderId: t.orderId, purpose: 'debt', amount: t.amount, currency: t.currency });
        const w = this.d.ledger;
        const clearing = await w.account(providerOwner(provider.id), 'clearing', t.currency);
        const revenue = await w.account(PLATFORM, 'revenue', t.currency);
        await w.transfer({ debit: clearing, credit: revenue, amount: t.amount, code: 'rent', orderId: t.orderId, at: this.d.clock.now() });
        await commitIdempotencyKey(t.orderId); // the request's key completes with the payment, in this transaction
      });
    } catch (err) {
      if (!isChargeNotOurs(err)) {
        await this.releaseDebtCharge(provider, result, t, 'not paid with it')
          .catch((e: unknown) => this.d.log.error({ err: e, orderId: t.orderId }, 'debt payment release not enqueued: its guard will release it'));
      }
      throw err;
    }
  }

  /**
   * A debt payment that did not pay the debt (paid meanwhile by another, or not finished by the guard's deadline):
   * under the charge's lock, unless it is recorded already (it paid the debt, or was released before), it is
   * recorded released (so no later resume takes it) with its compensation job (a charge refunded, a payment still
   * waiting for the customer voided), run after the commit.
   */
  private async releaseDebtCharge(provider: PaymentProvider, result: Extract<AuthorizeResult, { ok: true }>, t: { orderId: string; userId: number; amount: number; currency: string }, why: string) {
    const comp = compensationsOf(this.d.jobs, this.d.payments.providers);
    const jobId = await this.d.db.tx(async () => {
      await this.d.payments.lockCharge(provider.id, result.ref);
      if (await this.d.payments.takenOrReleased(provider.id, result.ref)) return null;
      this.d.log.warn({ orderId: t.orderId, ref: result.ref, why }, 'releasing a debt payment');
      const c = await this.d.payments.recordReleased({ providerId: provider.id, userId: t.userId, orderId: null, purpose: 'debt', amount: t.amount, currency: t.currency }, result);
      return comp.enqueue({ providerId: provider.id, ref: result.ref, ...c, reason: `debt of ${t.orderId}: ${why}` }, this.d.clock.now());
    });
    if (jobId !== null) await comp.runNow(jobId);
  }

  /**
   * The debt payment's guard. Without a ref (the process died during the call): the call replayed (same key: the
   * same charge). With a ref (the customer had to act): its state now, looked at again while it waits, released
   * after its deadline. A charge the provider took settles the debt (or is refunded if it no longer can).
   */
  private async debtGuard(p: Record<string, unknown>) {
    const providerId = String(p.providerId);
    if (!this.d.payments.providers.has(providerId)) return;
    const provider = this.d.payments.providers.get(providerId);
    const t = { orderId: String(p.orderId), userId: Number(p.userId), amount: Number(p.amount), currency: String(p.currency) };
    let result: AuthorizeResult;
    if (p.ref) {
      if (await this.d.payments.repo.byRef(providerId, String(p.ref))) return;
      result = await provider.resume(String(p.ref), t.userId);
      if (result.ok && result.status === 'requires_action') {
        if (this.d.clock.now().getTime() < Number(p.deadline)) await this.d.jobs.enqueue(JOB_DEBT_GUARD, p, new Date(this.d.clock.now().getTime() + ACTION_CHECK_MS));
        else await this.releaseDebtCharge(provider, result, t, 'not finished by its deadline');
        return;
      }
    } else {
      result = await provider.authorize({
        token: String(p.token), amount: t.amount, currency: t.currency, capture: 'automatic', idempotencyKey: String(p.key), userId: t.userId, saveCard: true, purpose: 'debt',
        methodType: p.methodType ? String(p.methodType) : undefined,
      });
    }
    if (!result.ok || result.status !== 'captured') return;
    if (result.amount !== t.amount || result.currency?.toUpperCase() !== t.currency) {
      await this.releaseDebtCharge(provider, result, t, 'amount differs');
      return;
    }
    await this.settleDebt(provider, result, t).catch((err: unknown) => {
      if (!(err instanceof AppError)) throw err; // the debt was paid meanwhile: the charge is being refunded
    });
  }

  /**
   * Closes an open order as bought out and charges the buy-out fee: by the overtime job once the overtime period
   * is over (spec §1), or at once when the user chooses to buy the power bank (cdb/order/buyOrder).
   * Returns false when the order is no longer open (returned meanwhile, already bought out).
   */
  async buyOut(orderId: string, why: 'overtime' | 'user'): Promise<boolean> {
    return this.d.db.tx(async () => {
      const order = await this.d.repo.find(orderId, { lock: true });
      if (!order || order.settled || !BUY_OUT_FROM.includes(order.zujie as never) || !order.borrowed_at) return false;
      const now = this.d.clock.now();
      if (why === 'overtime' && now < buyOutAt(order.plan, new Date(order.borrowed_at))) return false;
      const fee = buyOutFee(order.plan);
      const minutes = billedMinutes(now.getTime() - new Date(order.borrowed_at).getTime());
      await this.d.repo.buyOut(order.id, order.zujie, { fee, use_minutes: minutes, at: now, note: why === 'overtime' ? 'bought out: overtime' : 'bought out by the user' });
      await this.charge(order, fee, now);
      await this.changed(order.user_id, order.id, order.zujie);
      // The user's request key completes with the buy-out (never the overtime job's: it runs without one).
      if (why === 'user') await commitIdempotencyKey(await this.d.repo.find(order.id));
      return true;
    });
  }

  /** POST cdb/order/buyOrder: the user keeps the power bank of an open order for the buy-out fee. */
  async buyByUser(user: UserRow, orderId: string) {
    const order = await this.check(user, orderId);
    if (order.settled || !BUY_OUT_FROM.includes(order.zujie as never)) throw conflict('error.orderNotOpen');
    if (!(await this.buyOut(orderId, 'user'))) throw conflict('error.orderNotOpen');
    return this.check(user, orderId);
  }

  // ---- reads ------------------------------------------------------------------------------------------------

  async check(user: UserRow, tradeNo: string) {
    const order = await this.d.repo.find(tradeNo);
    if (!order || order.user_id !== user.id) throw notFound('error.orderNotFound');
    return order;
  }

  /** The owner's share link sign for the token-less detail (made once, then the same). */
  async share(user: UserRow, orderId: string): Promise<{ orderId: string; sign: string }> {
    const order = await this.check(user, orderId);
    const sign = order.share_sign ?? (await this.d.repo.shareSign(order.id, randomBytes(32).toString('base64url')));
    return { orderId: order.id, sign };
  }

  /**
   * The token-less detail (spec §2): only with the order's share sign (constant-time compare); a wrong sign
   * and an unknown order give the same not-found, so nothing is learnt by probing.
   */
  async publicDetail(orderId: string, sign: string) {
    const order = await this.d.repo.find(orderId);
    const stored = order?.share_sign ?? '';
    const a = Buffer.from(stored);
    const b = Buffer.from(sign);
    if (!order || !stored || a.length !== b.length || !timingSafeEqual(a, b)) throw notFound('error.orderNotFound');
    return order;
  }

  /** What the token-less detail shows: status, times, fee rule, estimate; nothing about the user. */
  toPublicWire(o: OrderRow) {
    const w = this.toWire(o);
    return {
      pOrderid: w.pOrderid, pZujie: w.pZujie, pJiesuanid: w.pJiesuanid, pBorrowtime: w.pBorrowtime, pGhtime: w.pGhtime,
      pShopName: w.pShopName, pGhShopName: w.pGhShopName, pUseMins: w.pUseMins, pJiesuan: w.pJiesuan,
      pCurrency: w.pCurrency, pCurrencyName: w.pCurrencyName, pYajin: w.pYajin, pJifei: w.pJifei,
      pJifeiDanwei: w.pJifeiDanwei, pFengding: w.pFengding, priceUnit: w.priceUnit, overtimeAmount: w.overtimeAmount,
      estimatedAmount: w.estimatedAmount, boughtOut: w.boughtOut, buyOutAt: w.buyOutAt, buyOutAmount: w.buyOutAmount,
      /** The order's price plan in minor units: the page previews the running fee with src/core/pricing.ts. */
      plan: o.plan,
      /** Order state 4: when the power bank was reported faulty (the estimate stops there). */
      faultAt: o.fault_at ? new Date(o.fault_at).toISOString() : null,
      serverTime: this.d.clock.now().toISOString(),
    };
  }

  async list(user: UserRow, page: number, size: number) {
    return this.d.repo.list(user.id, page, size);
  }

  async openCount(userId: number) {
    return this.d.repo.openCount(userId);
  }

  /** Which of these power banks are on an open rental (a cabinet listing one in a slot settles it). */
  async openPowerbanks(ids: string[]) {
    return ids.length ? this.d.repo.openPowerbanks(ids) : [];
  }

  /** The operator contract's Order. */
  toWire(o: OrderRow) {
    const c = o.currency;
    const w = o.wire_strategy;
    const open = !o.settled && (o.zujie === Zujie.renting || o.zujie === Zujie.fault);
    const boughtOut = o.bought_out_at != null;
    const now = this.d.clock.now();
    // A faulty power bank (state 4) stops accruing at the fault report.
    const end = o.returned_at ?? (o.fault_at && new Date(o.fault_at) < now ? new Date(o.fault_at) : now);
    const elapsed = o.borrowed_at ? Math.max(0, new Date(end).getTime() - new Date(o.borrowed_at).getTime()) : 0;
    return {
      pOrderid: o.id,
      pType: orderPType(o.device_kind),
      /** Powerly extension: the device rented (src/core/devices.ts). */
      deviceType: o.device_kind,
      pZujie: o.zujie,
      pJiesuanid: o.settled && o.zujie !== Zujie.cancelled ? 1 : 0,
      pBorrowtime: (o.borrowed_at ?? o.created_at).toISOString(),
      pGhtime: o.returned_at ? new Date(o.returned_at).toISOString() : null,
      pShopName: o.venue_name ?? '',
      pGhShopName: o.return_venue_name ?? '',
      pUseMins: o.use_minutes ?? (open ? billedMinutes(elapsed) : 0),
      pJiesuan: toMajor(o.fee ?? 0, c),
      pCurrency: c,
      pCurrencyName: currencySymbol(c),
      pYajin: toMajor(o.deposit, c),
      pJifei: w.pPrice,
      pJifeiDanwei: w.pPriceMinute,
      pFengding: w.pDayAmount,
      priceUnit: w.priceUnit,
      overtimeAmount: w.pOvertimeAmount,
      pUserid: o.user_id,
      pCabinetid: o.cabinet_id,
      pPowerbankId: o.powerbank_id ?? '',
      /** The deduction failed: the order list shows a pay button (payType FK) for what is owed. */
      palipayjsSm: Number(o.debt ?? 0) > 0 && !o.debt_paid_at ? DEDUCTION_FAILED_NOTE : '',
      debtAmount: Number(o.debt ?? 0) > 0 && !o.debt_paid_at ? toMajor(Number(o.debt), c) : 0,
      estimatedAmount: toMajor(open ? rentalFee(o.plan, elapsed) : Number(o.fee ?? 0), c),
      /** Powerly extension: the order was closed as bought out (the overtime period passed, or the user bought it). */
      boughtOut,
      /** Powerly extension: when an open order is bought out if still not returned. */
      buyOutAt: o.borrowed_at ? buyOutAt(o.plan, new Date(o.borrowed_at)).toISOString() : null,
      /** Powerly extension: the buy-out fee of this order's plan. */
      buyOutAmount: toMajor(buyOutFee(o.plan), c),
      depositFrom: o.payment_id ? ('card' as const) : ('wallet' as const),
    };
  }

}
