// The support desk's refund of a rental's fee, in full or in part (docs/operations.md "Support desk").
//
// One unit of work under the order's row lock: the idempotency key (a replay answers the stored correction; the
// same key with another amount is a 422), the version the person read (If-Match: the number of corrections; someone
// else's correction in between is a 409), the limit (never more than what the rider was charged for the rental
// minus what was already given back, read from the ledger), the ledger transfers out of the platform's revenue,
// the correction's row, the lower fee the rider sees, the provider refund's job, the audit entry and the rider's
// live update. The money goes back to the card the rental was paid with, through the payments module's refund
// (a job, idempotent per correction at the provider and on the payment row, so a process killed mid-way refunds
// once after restart); what the card cannot take (no card, a method that cannot refund) goes to the rider's wallet.
import { toMajor } from '#core/money.ts';
import { ORDER_STATE } from '#core/orders.ts';
import { inScope, type Scope } from '#core/opsAccess.ts';
import type { RefundResult } from '#contract/ops/rentals.ts';
import type { Db } from '../../db/db.ts';
import type { JobRunner } from '../../jobs/runner.ts';
import type { Clock } from '../../lib/clock.ts';
import { AppError, badRequest, conflict, notFound, refused } from '../../lib/errors.ts';
import { sha256, uuid } from '../../lib/ids.ts';
import { staleVersion } from '../../lib/ops-concurrency.ts';
import type { Actor, AuditService } from '../audit/service.ts';
import type { LedgerHistoryRepository } from '../ledger/history-repository.ts';
import { PLATFORM, providerOwner, userOwner, type LedgerService } from '../ledger/service.ts';
import type { LiveService } from '../live/service.ts';
import type { PaymentsHistoryRepository } from '../payments/history-repository.ts';
import type { PaymentsService } from '../payments/service.ts';
import { supportRefundLimit, type DeskSettings } from './ops-config.ts';
import { moneyOf, rentalScope } from './ops-desk.ts';
import type { CorrectionRow, RentalsOpsRepository } from './ops-repository.ts';
import { JOB_DESK_REFUND, cardRoom } from './shared.ts';

export { JOB_DESK_REFUND };
const KEY = /^[\w-]{8,100}$/;

export interface RefundDeps {
  db: Db;
  clock: Clock;
  jobs: JobRunner;
  repo: RentalsOpsRepository;
  ledger: LedgerService;
  ledgerHistory: LedgerHistoryRepository;
  payments: PaymentsService;
  paymentsHistory: PaymentsHistoryRepository;
  audit: Pick<AuditService, 'record'>;
  live: Pick<LiveService, 'publish'>;
  settings: DeskSettings;
}

export class RentalRefunds {
  constructor(private readonly d: RefundDeps) {
    d.jobs.register(JOB_DESK_REFUND, async (p) => {
      const paymentId = String(p.paymentId);
      const key = String(p.key);
      // A retry after the refund was recorded (the process died after it): done.
      if (await d.paymentsHistory.refundRecorded(paymentId, key)) return;
      await d.payments.refund(paymentId, Number(p.amount), key);
    });
  }

  /**
   * The refund, once per `key`; `version` is the number of corrections the person saw (If-Match). `finance` is the
   * caller's money.correct scope: outside it (support), at most the desk's support limit.
   */
  async refund(
    scope: Scope,
    finance: Scope,
    actor: Actor,
    orderId: string,
    input: { amount: number; key: string | undefined; version: number },
  ): Promise<RefundResult> {
    const key = input.key?.trim();
    if (!key || !KEY.test(key)) throw badRequest('ops.error.idempotencyKey');
    const hash = sha256(JSON.stringify({ kind: 'refund', amount: input.amount }));
    const done = await this.d.db.tx(async () => {
      const o = await this.d.repo.inScope(orderId, rentalScope(scope), { lock: true });
      if (!o) throw notFound('ops.error.notFound');
      const prior = await this.d.repo.correctionByKey(orderId, key);
      if (prior) {
        if (prior.request_hash !== hash) throw refused('ops.error.keyReused');
        return { row: prior, job: null, refundable: moneyOf(await this.d.ledgerHistory.ofOrder(orderId)).refundable };
      }
      const corrections = await this.d.repo.corrections(orderId);
      if (corrections.length !== input.version) throw staleVersion();
      const closed =
        o.settled &&
        (o.zujie === ORDER_STATE.returned || o.zujie === ORDER_STATE.overtimeReturn || o.bought_out_at != null);
      if (!closed) throw conflict('ops.error.rental.open');
      const money = moneyOf(await this.d.ledgerHistory.ofOrder(orderId));
      const currency = o.currency.trim();
      const limit = supportRefundLimit(this.d.settings, currency);
      if (!inScope(finance, o.agent_id, o.venue_id) && input.amount > limit) {
        throw new AppError(403, 'ops.error.refund.supportLimit', { limit: toMajor(limit, currency), currency });
      }
      if (input.amount > money.refundable)
        throw refused('ops.error.refund.tooLarge', { refundable: toMajor(money.refundable, currency), currency });
      const { paymentId, room } = await this.cardRoom(o.payment_id);
      const toCard = Math.min(input.amount, room);
      const toWallet = input.amount - toCard;
      const now = this.d.clock.now();
      const w = this.d.ledger;
      const revenue = await w.account(PLATFORM, 'revenue', currency);
      if (toCard > 0) {
        const pay = (await this.d.payments.find(paymentId!))!;
        const clearing = await w.account(providerOwner(pay.provider), 'clearing', currency);
        await w.transfer({ debit: revenue, credit: clearing, amount: toCard, code: 'desk_refund', orderId, at: now });
      }
      if (toWallet > 0) {
        const wallet = await w.account(userOwner(o.user_id), 'wallet', currency);
        await w.transfer({ debit: revenue, credit: wallet, amount: toWallet, code: 'desk_refund', orderId, at: now });
      }
      const row: CorrectionRow = {
        id: `cor_${uuid()}`,
        order_id: orderId,
        idempotency_key: key,
        request_hash: hash,
        kind: 'refund',
        amount: input.amount,
        currency,
        to_card: toCard,
        to_wallet: toWallet,
        payment_id: toCard > 0 ? paymentId : null,
        staff_id: actor.staffId,
        reason: actor.reason ?? '',
        created_at: now,
      };
      await this.d.repo.insertCorrection(row);
      await this.d.repo.lowerFee(orderId, input.amount);
      const job =
        toCard > 0
          ? await this.d.jobs.enqueue(
              JOB_DESK_REFUND,
              { paymentId, amount: toCard, key: `desk_${row.id}`, orderId },
              now,
            )
          : null;
      await this.d.audit.record(actor, {
        action: 'rental.refund',
        entity: 'rental',
        entityId: orderId,
        agentId: o.agent_id,
        before: { fee: Number(o.fee ?? 0), refunded: money.refunded },
        after: {
          fee: Math.max(0, Number(o.fee ?? 0) - input.amount),
          refunded: money.refunded + input.amount,
          toCard,
          toWallet,
          correction: row.id,
        },
      });
      await this.d.live.publish(o.user_id, { kind: 'order', orderId, state: o.zujie });
      if (toWallet > 0) await this.d.live.publish(o.user_id, { kind: 'wallet' });
      return { row, job, refundable: money.refundable - input.amount };
    });
    // Committed with the correction: run now; if the provider is down, the job retries (and is seen when dead).
    if (done.job !== null) await this.d.jobs.runNow(done.job).catch(() => false);
    const r = done.row;
    return {
      id: r.id,
      orderId,
      amount: r.amount,
      currency: r.currency,
      toCard: r.to_card,
      toWallet: r.to_wallet,
      refundable: done.refundable,
    };
  }

  /** What the rental's card can still take back (shared.ts cardRoom: earlier card refunds still running included). */
  private async cardRoom(paymentId: string | null): Promise<{ paymentId: string | null; room: number }> {
    return { paymentId, room: paymentId ? await cardRoom(this.d, paymentId) : 0 };
  }
}
