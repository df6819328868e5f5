// Bank withdrawals (a payouts.json channel: SEPA, ACH; or a manual bank transfer): paid only by a real payout
// adapter (a rail, payments/payouts/), or waiting as "awaiting payout" until an operator records the bank's reference.
//
// Ledger (one unit of work each):
//   request   wallet → payouts in transit (the platform's account of money promised to a bank, per currency/agent)
//   paid      payouts in transit → the paying side's clearing (the rail's, or `bank` for an operator's transfer)
//   rejected  payouts in transit → wallet (the money is back, shown to the rider as a returned withdrawal)
//
// States: `pending` (a rail is paying it) → `paid` | `rejected`, or `awaiting_payout` (no rail pays the channel, or
// the rail needs an operator) → `paid` (recordManualPayout) | `rejected` (rejectPayout). Every settlement locks the
// withdrawal's row and is idempotent: a repeated call answers the settled withdrawal, never a second movement.
//
// A rail's payout is a durable job (JOB_BANK_PAYOUT): the first run submits it with the withdrawal id as the
// provider's idempotency key and stores the provider's reference; later runs ask its state until it is final. A
// process that dies anywhere in between leaves the job, whose next run names the same payout at the provider.
import type { Db } from '../../db/db.ts';
import type { JobRunner } from '../../jobs/runner.ts';
import type { Clock } from '../../lib/clock.ts';
import { badRequest, conflict, notFound, refused } from '../../lib/errors.ts';
import type { Logger } from '../cabinets/link.ts';
import type { LiveService } from '../live/service.ts';
import { PLATFORM, providerOwner, userOwner, type LedgerService } from '../ledger/service.ts';
import type { Account } from '../ledger/service.ts';
import { BankPayoutError, type BankPayoutInput, type BankPayoutRail } from '../payments/payouts/rail.ts';
import type { WalletRepository, WithdrawalRow } from './repository.ts';

export const JOB_BANK_PAYOUT = 'wallet.bank-payout';
/** The ledger account of bank payouts requested and not yet paid or rejected (owner: the platform). */
export const PAYOUTS_IN_TRANSIT = 'payouts_in_transit';
/** Whose clearing an operator's recorded bank transfer is paid from. */
export const MANUAL_BANK = 'bank';

export interface BankPayoutsDeps {
  db: Db;
  clock: Clock;
  log: Logger;
  repo: WalletRepository;
  ledger: LedgerService;
  jobs: JobRunner;
  live: Pick<LiveService, 'publish'>;
  /** The real payout adapters (and, in test mode only, the sandbox's). */
  rails: BankPayoutRail[];
}

type Outcome =
  | { paid: true; reference: string; via: string; actor: string; reason: string | null }
  | { paid: false; reason: string; actor: string };

const text = (v: unknown, max: number) => (typeof v === 'string' ? v.trim() : '').slice(0, max + 1);

export class BankPayouts {
  constructor(private readonly d: BankPayoutsDeps) {
    d.jobs.register(JOB_BANK_PAYOUT, (p) => this.run(String(p.withdrawalId), true));
  }

  /** The payout adapters this process runs with. */
  railIds(): string[] {
    return this.d.rails.map((r) => r.id);
  }

  /** The rail that pays this channel in this currency, if any. */
  railFor(channel: string, currency: string): BankPayoutRail | undefined {
    return this.d.rails.find((r) => r.pays(channel, currency));
  }

  private inTransit(currency: string, agent: string): Promise<Account> {
    return this.d.ledger.account(PLATFORM, PAYOUTS_IN_TRANSIT, currency, agent);
  }

  /**
   * Inside the request's unit of work: the money leaves the wallet into payouts in transit (refused when the balance
   * is short). Answers the transfer's id (the withdrawal's hold_transfer_id).
   */
  async moveToTransit(
    wallet: Account,
    w: { id: string; currency: string; agent: string; amount: number; at: Date },
  ): Promise<string> {
    return this.d.ledger.transfer({
      debit: wallet,
      credit: await this.inTransit(w.currency, w.agent),
      amount: w.amount,
      code: 'withdrawal',
      orderId: w.id,
      at: w.at,
      mustNotOverdraw: true,
    });
  }

  /** Inside the request's unit of work, after the row: the rail's job (none when the payout awaits an operator). */
  async schedule(withdrawalId: string, rail: BankPayoutRail | undefined, at: Date) {
    if (rail) await this.d.jobs.enqueue(JOB_BANK_PAYOUT, { withdrawalId }, at);
  }

  private input(wd: WithdrawalRow): BankPayoutInput {
    return {
      withdrawalId: wd.id,
      amount: Number(wd.amount),
      currency: wd.currency,
      channel: wd.channel_id ?? 'manual',
      account: wd.account_data ?? {},
      idempotencyKey: wd.id,
    };
  }

  /**
   * Submits the rail's payout (once: the stored reference, or the provider's idempotency key). From the job
   * (`fromJob`), also asks its state: settles it when final, asks again after the rail's interval while it moves.
   */
  async run(withdrawalId: string, fromJob = false): Promise<void> {
    const wd = await this.d.repo.withdrawal(withdrawalId);
    if (!wd?.bank || wd.status !== 'pending') return;
    const rail = this.d.rails.find((r) => r.id === wd.provider);
    if (!rail) {
      // Its rail is no longer configured (a restart without it): a person takes over.
      await this.toOperator(wd.id, `${wd.provider ?? 'rail'}_unavailable`, null);
      return;
    }
    const input = this.input(wd);
    let ref = wd.provider_ref;
    if (!ref) {
      try {
        ref = (await rail.submit(input)).ref;
      } catch (e) {
        if (e instanceof BankPayoutError && e.kind === 'invalid_account') {
          await this.settle(wd.id, { paid: false, reason: e.code, actor: rail.id }, ['pending']);
          return;
        }
        if (e instanceof BankPayoutError) {
          this.d.log.warn({ withdrawal: wd.id, code: e.code }, 'bank payout waits for an operator');
          await this.toOperator(wd.id, e.code, e.ref ?? null);
          return;
        }
        throw e; // transient: the job runs it again with the same key
      }
      await this.d.repo.setPayoutRef(wd.id, ref, this.d.clock.now());
    }
    if (!fromJob) return; // the request's own submit: the job asks the outcome
    const st = await rail.status(ref, input);
    if (st.state === 'paid')
      await this.settle(
        wd.id,
        { paid: true, reference: `${rail.id}:${ref}`, via: rail.id, actor: rail.id, reason: null },
        ['pending'],
      );
    else if (st.state === 'failed')
      await this.settle(wd.id, { paid: false, reason: st.failureCode ?? 'payout_failed', actor: rail.id }, ['pending']);
    else
      await this.d.jobs.enqueue(
        JOB_BANK_PAYOUT,
        { withdrawalId },
        new Date(this.d.clock.now().getTime() + rail.checkEveryMs),
      );
  }

  private async toOperator(id: string, reason: string, ref: string | null) {
    await this.d.db.tx(async () => {
      const wd = await this.d.repo.lockWithdrawal(id);
      if (wd?.status !== 'pending') return;
      await this.d.repo.awaitPayout(id, reason, ref, this.d.clock.now());
      await this.d.live.publish(Number(wd.user_id), { kind: 'wallet' });
    });
  }

  /**
   * One unit of work under the withdrawal's lock: paid (payouts in transit → the payer's clearing) or rejected (back
   * to the wallet). A withdrawal already settled the same way is answered as it is; one settled otherwise, or in a
   * state `from` does not list, is a conflict.
   */
  private async settle(id: string, o: Outcome, from: WithdrawalRow['status'][]): Promise<WithdrawalRow> {
    return this.d.db.tx(async () => {
      const wd = await this.d.repo.lockWithdrawal(id);
      if (!wd?.bank) throw notFound('error.notFound');
      if (wd.status === 'paid' && o.paid && wd.bank_reference === o.reference) return wd;
      if (wd.status === 'rejected' && !o.paid) return wd;
      if (!from.includes(wd.status)) throw conflict('error.conflict');
      const now = this.d.clock.now();
      const transit = await this.inTransit(wd.currency, wd.agent_id);
      const to = o.paid
        ? await this.d.ledger.account(providerOwner(o.via), 'clearing', wd.currency, wd.agent_id)
        : await this.d.ledger.account(userOwner(wd.user_id), 'wallet', wd.currency, wd.agent_id);
      const transfer = await this.d.ledger.transfer({
        debit: transit,
        credit: to,
        amount: Number(wd.amount),
        code: o.paid ? 'withdrawal_paid' : 'withdrawal_reversal',
        orderId: wd.id,
        at: now,
      });
      await this.d.repo.settleBank(id, {
        status: o.paid ? 'paid' : 'rejected',
        bankReference: o.paid ? o.reference : null,
        settledBy: o.actor,
        reason: o.reason,
        transferId: transfer,
        at: now,
      });
      await this.d.live.publish(Number(wd.user_id), { kind: 'wallet' });
      return (await this.d.repo.withdrawal(id))!;
    });
  }

  /**
   * An operator paid an awaiting payout by bank transfer: records the bank's reference, who recorded it and why.
   * Idempotent: the same reference again answers the paid withdrawal; another reference, or a withdrawal a rail is
   * paying or that was rejected, is a conflict.
   */
  async recordManualPayout(
    withdrawalId: string,
    bankReference: string,
    actor: string,
    reason?: string,
  ): Promise<WithdrawalRow> {
    const ref = text(bankReference, 100);
    const who = text(actor, 100);
    if (!ref || ref.length > 100) throw badRequest('error.validation.field', { field: 'bankReference' });
    if (!who || who.length > 100) throw badRequest('error.validation.field', { field: 'actor' });
    return this.settle(
      withdrawalId,
      { paid: true, reference: ref, via: MANUAL_BANK, actor: who, reason: text(reason, 500).slice(0, 500) || null },
      ['awaiting_payout'],
    );
  }

  /** An operator refuses an awaiting payout: the money goes back to the wallet. Idempotent. */
  async rejectPayout(withdrawalId: string, reason: string, actor: string): Promise<WithdrawalRow> {
    const why = text(reason, 500);
    const who = text(actor, 100);
    if (!why || why.length > 500) throw badRequest('error.validation.field', { field: 'reason' });
    if (!who || who.length > 100) throw badRequest('error.validation.field', { field: 'actor' });
    return this.settle(withdrawalId, { paid: false, reason: why, actor: who }, ['awaiting_payout']);
  }

  /** The rail an operator's approval pays through: the one it waited on (its balance topped up), else any that pays it. */
  approvalRail(wd: WithdrawalRow): BankPayoutRail | undefined {
    return (
      this.d.rails.find((r) => r.id === wd.provider && r.pays(wd.channel_id ?? 'manual', wd.currency)) ??
      this.railFor(wd.channel_id ?? 'manual', wd.currency)
    );
  }

  /**
   * Inside a unit of work holding the withdrawal's lock (an awaiting payout): pending with its rail's job. 422 when no
   * rail pays it (the operator records a bank transfer instead). Submit it after the commit (`submitNow`).
   */
  async approveLocked(wd: WithdrawalRow, who: string): Promise<void> {
    const rail = this.approvalRail(wd);
    if (!rail) throw refused('error.payout.noRail');
    const now = this.d.clock.now();
    await this.d.repo.approveBank(wd.id, rail.id, who, now);
    await this.d.jobs.enqueue(JOB_BANK_PAYOUT, { withdrawalId: wd.id }, now);
    await this.d.live.publish(Number(wd.user_id), { kind: 'wallet' });
  }

  /** Submits an approved payout now; the job enqueued with the approval is the safety net if this fails or dies. */
  async submitNow(withdrawalId: string): Promise<void> {
    await this.run(withdrawalId).catch((e: unknown) =>
      this.d.log.warn({ err: e, withdrawal: withdrawalId }, 'approved payout submit deferred to job'),
    );
  }

  /** An operator approves an awaiting payout through its rail (the script's entry; the console's is payout-queue.ts). */
  async approvePayout(withdrawalId: string, actor: string): Promise<WithdrawalRow> {
    const who = text(actor, 100);
    if (!who || who.length > 100) throw badRequest('error.validation.field', { field: 'actor' });
    await this.d.db.tx(async () => {
      const wd = await this.d.repo.lockWithdrawal(withdrawalId);
      if (!wd?.bank) throw notFound('error.notFound');
      if (operatorTurn(wd, { action: 'approve', who }) === 'open') await this.approveLocked(wd, who);
    });
    await this.submitNow(withdrawalId);
    return (await this.d.repo.withdrawal(withdrawalId))!;
  }

  /** A bank withdrawal as stored, and locked (inside a unit of work) for a person's action. */
  find(id: string) {
    return this.d.repo.withdrawal(id);
  }

  lock(id: string) {
    return this.d.repo.lockWithdrawal(id);
  }

  /** The payouts an operator must make, oldest first. */
  awaiting(limit = 100) {
    return this.d.repo.awaitingPayouts(limit);
  }
}

export type OperatorAction =
  | { action: 'approve'; who: string }
  | { action: 'record'; who: string; reference: string }
  | { action: 'reject'; who: string };

/**
 * Whether a person's action on a locked bank withdrawal goes on (`open`: it awaits payout), was already made by
 * them (`done`: a retry, answered as it is), or lost to someone or something else (409, naming who settled it).
 */
export function operatorTurn(wd: WithdrawalRow, a: OperatorAction): 'open' | 'done' {
  if (wd.status === 'awaiting_payout') return 'open';
  const mine =
    a.action === 'approve'
      ? wd.approved_by === a.who
      : a.action === 'record'
        ? wd.status === 'paid' && wd.settled_by === a.who && wd.bank_reference === a.reference
        : wd.status === 'rejected' && wd.settled_by === a.who;
  if (mine) return 'done';
  throw conflict('error.payout.settled', { by: wd.approved_by ?? wd.settled_by ?? wd.provider ?? '?' });
}
