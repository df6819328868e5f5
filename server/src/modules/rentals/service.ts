// Rentals: pay or hold the deposit, create the order, command the eject; then follow the cabinet's answers
// (popped / pop-failed / no answer within the TTL) and settle on return with src/core/pricing.ts.
//
// Money moves are never half-applied: the provider call comes first (it cannot join our transaction), then one
// DB transaction writes the payment, the ledger hold, the order, the command and its timeout job. If that
// transaction fails, the provider authorisation is voided (or the charge refunded) before the error surfaces.
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { cabinetCodeFrom } from '#core/codeLink.ts';
import { toMajor } from '#core/money.ts';
import { billedMinutes, buyOutAt, buyOutFee, refundAfterBuyOut, rentalFee } from '#core/pricing.ts';
import type { Db } from '../../db/db.ts';
import type { JobRunner } from '../../jobs/runner.ts';
import type { Clock } from '../../lib/clock.ts';
import { badRequest, notFound, refused, conflict } from '../../lib/errors.ts';
import { orderNo, uuid } from '../../lib/ids.ts';
import type { AuthRepository, UserRow } from '../auth/repository.ts';
import type { CabinetLink, Logger } from '../cabinets/link.ts';
import { PROTOCOL_VERSION, type Command } from '../cabinets/protocol.ts';
import type { CabinetsRepository, CabinetRow } from '../cabinets/repository.ts';
import type { PaymentsService } from '../payments/service.ts';
import type { AuthorizeResult, PaymentProvider } from '../payments/provider.ts';
import { currencySymbol, type PricedVenue, type VenuesService } from '../venues/service.ts';
import { providerOwner, PLATFORM, userOwner, type LedgerService } from '../ledger/service.ts';
import { BUY_OUT_FROM, Zujie } from './order-state.ts';
import type { OrderRow, RentalsRepository } from './repository.ts';

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
}

export const JOB_EJECT_TIMEOUT = 'rental.eject-timeout';
export const JOB_SETTLE_PAYMENT = 'payment.settle-authorization';
export const JOB_BUY_OUT = 'rental.overtime-buy-out';
export const JOB_ORPHAN_AUTH = 'rental.orphan-authorisation';
/** How long after a card call without an order its authorisation is presumed orphaned (the process died). */
export const ORPHAN_AUTH_MS = 120_000;

/** Parses a scanned code: the bare cabinet code or a code link (qrcode=, qr=, zhcode=; src/core/codeLink.ts). */
export { cabinetCodeFrom };

type Funding =
  | { kind: 'preauth'; provider: PaymentProvider; result: Extract<AuthorizeResult, { ok: true }> }
  | { kind: 'wallet'; topUp: { provider: PaymentProvider; result: Extract<AuthorizeResult, { ok: true }>; amount: number } | null };

export class RentalsService {
  constructor(private readonly d: RentalsDeps) {
    d.jobs.register(JOB_EJECT_TIMEOUT, (p) => this.ejectTimedOut(String(p.orderId)));
    d.jobs.register(JOB_ORPHAN_AUTH, (p) => this.releaseOrphan(p));
    d.jobs.register(JOB_BUY_OUT, (p) => this.buyOut(String(p.orderId), 'overtime').then(() => undefined));
    d.jobs.register(JOB_SETTLE_PAYMENT, (p) => this.d.payments.settleAuthorization(String(p.paymentId), Number(p.amount)).then(() => undefined));
  }

  async resolveCabinet(url: string): Promise<{ cabinet: CabinetRow; priced: PricedVenue }> {
    const code = cabinetCodeFrom(url);
    const cabinet = code ? await this.d.cabinets.find(code) : undefined;
    if (!cabinet) throw notFound('error.cabinetNotFound');
    return { cabinet, priced: await this.d.venues.priced(cabinet.venue_id) };
  }

  private async preflight(user: UserRow, qrcode: string) {
    const r = await this.resolveCabinet(qrcode);
    if (!r.cabinet.online) throw conflict('error.cabinetOffline');
    // Fail fast: without the broker the eject cannot go out; refuse now, before any money moves.
    if (!this.d.link.isUp()) throw conflict('error.cabinetLinkDown');
    // Each unanswered eject reserves its slot (checked again under the cabinet's lock in start()).
    if ((await this.d.cabinets.freeSlot(r.cabinet.id, this.d.clock.now())) === undefined) throw conflict('error.noPowerbank');
    if ((await this.d.repo.openCount(user.id)) > 0) throw refused('error.rentCount');
    return r;
  }

  /** POST cdb/cabinet/useDepositToRent */
  async rentWithDeposit(user: UserRow, input: { qrcode: string; token: string; paymentId: string }): Promise<string> {
    const { cabinet, priced } = await this.preflight(user, input.qrcode);
    const provider = this.d.payments.providerForMethod(input.paymentId);
    if (!provider) throw badRequest('error.paymentMethod');
    const orderId = orderNo(this.d.clock.now());
    const currency = priced.venue.currency;
    const deposit = priced.plan.deposit;
    const preauth = priced.planRow.deposit_type === 0;
    const amount = preauth ? deposit : deposit - (await this.d.ledger.walletOf(user.id, currency)).balance;
    if (amount <= 0) return this.rentWithDepositGuarded(user, input, orderId, cabinet, priced, amount);
    // A guard, committed before the card call: if this process dies between the provider's answer and the order's
    // transaction, the job finds no order and releases the authorisation (releaseOrphan). Cancelled below.
    const guard = { orderId, paymentId: input.paymentId, token: input.token, currency, amount, capture: preauth ? 'manual' : 'automatic' };
    await this.d.jobs.enqueue(JOB_ORPHAN_AUTH, guard, new Date(this.d.clock.now().getTime() + ORPHAN_AUTH_MS));
    try {
      return await this.rentWithDepositGuarded(user, input, orderId, cabinet, priced, amount);
    } finally {
      await this.d.jobs.cancel(JOB_ORPHAN_AUTH, 'orderId', orderId).catch((err: unknown) => this.d.log.error({ err, orderId }, 'guard cancel failed'));
    }
  }

  private async rentWithDepositGuarded(
    user: UserRow, input: { qrcode: string; token: string; paymentId: string }, orderId: string, cabinet: CabinetRow, priced: PricedVenue, amount: number,
  ) {
    const provider = this.d.payments.providerForMethod(input.paymentId)!;
    const currency = priced.venue.currency;
    const deposit = priced.plan.deposit;
    let funding: Funding;
    if (priced.planRow.deposit_type === 0) {
      const result = await provider.authorize({ token: input.token, amount: deposit, currency, capture: 'manual', idempotencyKey: orderId });
      if (!result.ok) return this.declined(user, provider, result, deposit, currency, 'deposit_preauth');
      funding = { kind: 'preauth', provider, result };
    } else {
      if (amount > 0) {
        const result = await provider.authorize({ token: input.token, amount, currency, capture: 'automatic', idempotencyKey: orderId });
        if (!result.ok) return this.declined(user, provider, result, amount, currency, 'deposit_topup');
        funding = { kind: 'wallet', topUp: { provider, result, amount } };
      } else {
        funding = { kind: 'wallet', topUp: null };
      }
    }
    try {
      await this.start(orderId, user, cabinet, priced, funding);
    } catch (err) {
      await this.compensate(funding).catch((e: unknown) => this.d.log.error({ err: e, orderId }, 'compensation failed'));
      throw err;
    }
    await this.sendEject(orderId);
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
    const provider = this.d.payments.providerForMethod(String(p.paymentId));
    if (!provider) return;
    const wallet = p.capture === 'automatic';
    const amount = Number(p.amount);
    // The same request as the first (same key, token, amount), as providers require for an idempotent replay.
    const result = await provider.authorize({
      token: String(p.token), amount, currency: String(p.currency), capture: wallet ? 'automatic' : 'manual', idempotencyKey: orderId,
    });
    if (!result.ok) return;
    this.d.log.warn({ orderId, ref: result.ref }, 'releasing an orphaned card authorisation');
    if (wallet) await provider.refund(result.ref, amount);
    else await provider.void(result.ref);
  }

  /** GET cdb/cabinet/useBalanceToRent */
  async rentWithBalance(user: UserRow, qrcode: string): Promise<string> {
    const { cabinet, priced } = await this.preflight(user, qrcode);
    const orderId = orderNo(this.d.clock.now());
    await this.start(orderId, user, cabinet, priced, { kind: 'wallet', topUp: null });
    await this.sendEject(orderId);
    return orderId;
  }

  private async declined(user: UserRow, provider: PaymentProvider, result: Extract<AuthorizeResult, { ok: false }>, amount: number, currency: string, purpose: string): Promise<never> {
    await this.d.payments.record({ providerId: provider.id, result, userId: user.id, orderId: null, purpose, amount, currency });
    const known = ['card_declined', 'insufficient_funds', 'token_invalid'];
    throw refused(`error.payment.${known.includes(result.declineCode) ? result.declineCode : 'card_declined'}`);
  }

  private async compensate(f: Funding) {
    if (f.kind === 'preauth') await f.provider.void(f.result.ref);
    else if (f.topUp) await f.topUp.provider.refund(f.topUp.result.ref, f.topUp.amount);
  }

  /** One transaction: payment row, ledger, order, eject command and its timeout job. */
  private async start(orderId: string, user: UserRow, cabinet: CabinetRow, priced: PricedVenue, f: Funding) {
    const now = this.d.clock.now();
    const currency = priced.venue.currency;
    const deposit = priced.plan.deposit;
    const w = this.d.ledger;
    await this.d.db.tx(async () => {
      // Serialise a user's rentals: the open-rental rule holds even for two concurrent requests.
      await this.d.users.lock(user.id);
      if ((await this.d.repo.openCount(user.id)) > 0) throw refused('error.rentCount');
      // Serialise a cabinet's rentals: each unanswered eject reserves one power bank, so two people scanning
      // for the last one get exactly one order (the other is refused here and its card hold voided).
      await this.d.cabinets.lock(cabinet.id);
      // The eject names the slot: a lendable power bank the cabinet reported (never a quarantined one).
      const slot = await this.d.cabinets.freeSlot(cabinet.id, now);
      if (slot === undefined) throw conflict('error.noPowerbank');
      const hold = await w.account(userOwner(user.id), 'deposit_hold', currency);
      let paymentId: string | null = null;
      let holdId: string;
      if (f.kind === 'preauth') {
        paymentId = await this.d.payments.record({ providerId: f.provider.id, result: f.result, userId: user.id, orderId, purpose: 'deposit_preauth', amount: deposit, currency });
        const clearing = await w.account(providerOwner(f.provider.id), 'clearing', currency);
        holdId = await w.transfer({ debit: clearing, credit: hold, amount: deposit, code: 'deposit_preauth', orderId, at: now, pending: true });
      } else {
        const wallet = await w.account(userOwner(user.id), 'wallet', currency);
        if (f.topUp) {
          await this.d.payments.record({ providerId: f.topUp.provider.id, result: f.topUp.result, userId: user.id, orderId, purpose: 'deposit_topup', amount: f.topUp.amount, currency });
          const clearing = await w.account(providerOwner(f.topUp.provider.id), 'clearing', currency);
          await w.transfer({ debit: clearing, credit: wallet, amount: f.topUp.amount, code: 'wallet_topup', orderId, at: now });
        }
        holdId = await w.transfer({ debit: wallet, credit: hold, amount: deposit, code: 'deposit_hold', orderId, at: now, pending: true, mustNotOverdraw: true });
      }
      const commandId = uuid();
      const expiresAt = new Date(now.getTime() + this.d.ejectTtlMs);
      const command: Command = { v: PROTOCOL_VERSION, id: commandId, type: 'eject', ts: now.toISOString(), ttlMs: this.d.ejectTtlMs, slot };
      await this.d.repo.insert({
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
      });
      await this.d.cabinets.insertCommand({ id: commandId, cabinetId: cabinet.id, orderId, type: 'eject', payload: command, at: now, expiresAt });
      await this.d.jobs.enqueue(JOB_EJECT_TIMEOUT, { orderId }, new Date(expiresAt.getTime() + this.d.ejectGraceMs));
      await this.d.users.setCurrency(user.id, currency);
    });
  }

  /** Publishes the stored command. A failure here is not fatal: the timeout job cancels and releases. */
  private async sendEject(orderId: string) {
    const order = await this.d.repo.find(orderId);
    const cmd = order?.eject_command_id ? await this.d.cabinets.command(order.eject_command_id) : undefined;
    if (!order || !cmd) return;
    const payload = (typeof cmd.payload === 'string' ? JSON.parse(cmd.payload) : cmd.payload) as Command;
    await this.d.link.send(order.cabinet_id, payload).catch((err: unknown) => this.d.log.error({ err, orderId }, 'eject publish failed'));
  }

  // ---- cabinet answers --------------------------------------------------------------------------------------

  async onPopped(cabinetId: string, e: { commandId: string; slot: number; powerbankId: string; ts: string }) {
    const cmd = await this.d.cabinets.command(e.commandId);
    if (!cmd || cmd.cabinet_id !== cabinetId) return this.d.log.warn({ cabinetId, e }, 'popped for an unknown command');
    await this.d.cabinets.ackCommand(cmd.id, this.d.clock.now(), 'popped');
    const order = await this.d.repo.find(cmd.order_id, { lock: true });
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
    const out = await this.d.cabinets.markRented(e.powerbankId, order.id, borrowedAt);
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

  async onPopFailed(cabinetId: string, e: { commandId: string; reason: string }) {
    const cmd = await this.d.cabinets.command(e.commandId);
    if (!cmd || cmd.cabinet_id !== cabinetId) return;
    await this.d.cabinets.ackCommand(cmd.id, this.d.clock.now(), `pop-failed:${e.reason}`);
    const order = await this.d.repo.find(cmd.order_id, { lock: true });
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
    if (order.hold_transfer_id) await this.d.ledger.voidPending(order.hold_transfer_id, now);
    if (order.payment_id) await this.d.jobs.enqueue(JOB_SETTLE_PAYMENT, { paymentId: order.payment_id, amount: 0 }, now);
  }

  /**
   * A power bank went into a slot of `cabinetId` (any cabinet of the network): settle its rental with the
   * cabinet's own timestamp (a cabinet that was offline reports late; a timestamp in the future counts as now).
   * Past the overtime period the user pays at most the buy-out fee; a bought-out order that comes back gets the
   * difference to the rent for the real time back in the wallet (docs/pricing.md).
   */
  async onReturned(cabinetId: string, e: { slot: number; powerbankId: string; ts: string; fault?: string }) {
    let order = await this.d.repo.openForPowerbank(e.powerbankId);
    const reportedAt = Date.parse(e.ts);
    const nowMs = this.d.clock.now().getTime();
    const seenAt = new Date(Math.min(Number.isFinite(reportedAt) ? reportedAt : nowMs, nowMs));
    await this.d.cabinets.placeInSlot(e.powerbankId, cabinetId, e.slot, seenAt);
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
      const refund = refundAfterBuyOut(order.plan, charged, elapsed);
      await this.d.repo.transition(order.id, order.zujie, to, { ...where, fee: charged - refund });
      if (refund > 0) {
        const w = this.d.ledger;
        const revenue = await w.account(PLATFORM, 'revenue', order.currency);
        const wallet = await w.account(userOwner(order.user_id), 'wallet', order.currency);
        await w.transfer({ debit: revenue, credit: wallet, amount: refund, code: 'buy_out_refund', orderId: order.id, at: now });
      }
      return;
    }
    const fee = overtime ? Math.min(rentalFee(order.plan, elapsed), buyOutFee(order.plan)) : rentalFee(order.plan, elapsed);
    await this.d.repo.transition(order.id, order.zujie, to, { ...where, fee, settled: true });
    await this.charge(order, fee, now);
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
  }

  /** Takes `fee` from the order's deposit hold (the rest released) and settles the card authorisation. */
  private async charge(order: OrderRow, fee: number, now: Date) {
    const w = this.d.ledger;
    if (order.hold_transfer_id) {
      if (fee > 0) {
        await w.postPending(order.hold_transfer_id, fee, now);
        const hold = await w.account(userOwner(order.user_id), 'deposit_hold', order.currency);
        const revenue = await w.account(PLATFORM, 'revenue', order.currency);
        await w.transfer({ debit: hold, credit: revenue, amount: fee, code: 'rent', orderId: order.id, at: now });
      } else {
        await w.voidPending(order.hold_transfer_id, now);
      }
    }
    if (order.payment_id) await this.d.jobs.enqueue(JOB_SETTLE_PAYMENT, { paymentId: order.payment_id, amount: fee }, now);
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
      pType: 'cdb',
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
      palipayjsSm: '',
      estimatedAmount: toMajor(open ? rentalFee(o.plan, elapsed) : Number(o.fee ?? 0), c),
      /** Powerly extension: the order was closed as bought out (the overtime period passed, or the user bought it). */
      boughtOut,
      /** Powerly extension: when an open order is bought out if still not returned. */
      buyOutAt: o.borrowed_at ? buyOutAt(o.plan, new Date(o.borrowed_at)).toISOString() : null,
      /** Powerly extension: the buy-out fee of this order's plan. */
      buyOutAmount: toMajor(buyOutFee(o.plan), c),
    };
  }

}
