// A rental that never started (the cabinet released no power bank) costs nothing, and the rider is told exactly
// where the deposit went and when it arrives:
// - a card hold is voided at once (the cancellation runs its release job immediately);
// - a deposit top-up (a method that charges at once: a card on a top-up plan, iDEAL, M-Pesa …) is refunded to the
//   card or method it came from, by a job that runs KEEP_WINDOW after the cancellation; until then the rider may
//   keep it in the wallet instead (POST cdb/mine/order/deposit/keep). A top-up spent meanwhile (a new rental's
//   deposit) is refunded as far as the wallet still has it; a method that takes no refunds leaves it in the wallet.
// The refund goes through the payments lifecycle: the payment row's refund (keyed, never twice), the provider call as
// a compensation job (retried, dead and visible at worst), and the ledger's wallet → provider clearing transfer, all
// in one unit of work with the row saying so.
import type { Db } from '../../db/db.ts';
import { DepositReturnsRepository } from './deposit-returns-repository.ts';
import type { Clock } from '../../lib/clock.ts';
import { conflict } from '../../lib/errors.ts';
import type { JobRunner } from '../../jobs/runner.ts';
import { LedgerService, providerOwner, userOwner } from '../ledger/service.ts';
import type { Compensations } from '../payments/compensation.ts';
import type { PaymentsService } from '../payments/service.ts';
import type { LiveService } from '../live/service.ts';
import type { OrderRow } from './repository.ts';

export const JOB_DEPOSIT_REFUND = 'rental.deposit-refund';
/** How long the rider has to keep a failed rental's top-up in the wallet before it is refunded (default). */
export const KEEP_WINDOW_MS = 120_000;
/** The ledger code of a failed rental's top-up going back to its card or method. */
export const DEPOSIT_REFUND_CODE = 'deposit_refund';

export type DepositReturnState = 'scheduled' | 'refunded' | 'kept' | 'kept_spent' | 'kept_unrefundable';

export interface DepositReturnRow {
  order_id: string;
  user_id: number;
  payment_id: string;
  amount: number;
  currency: string;
  state: DepositReturnState;
  at: Date;
  refunded_amount: number;
  job_id: number | null;
}

/** What became of the deposit of a cancelled order, as the rider's screen says it. */
export interface DepositBack {
  orderId: string;
  /** card_hold: a pre-authorisation; refund: a top-up going back to its card or method; wallet: paid from the wallet. */
  kind: 'card_hold' | 'refund' | 'wallet';
  state: 'releasing' | 'released' | 'in_wallet' | DepositReturnState;
  /** Minor units. */
  amount: number;
  /** Minor units refunded (state refunded: may be less than amount when some was spent meanwhile). */
  refunded: number;
  currency: string;
  /** When it happened, or (scheduled) when the refund is made. */
  at: string | null;
  /** The card ("Visa •••• 4242") or method the money goes back to. */
  method: string | null;
  canKeep: boolean;
}

export interface DepositReturnsDeps {
  db: Db;
  clock: Clock;
  jobs: JobRunner;
  ledger: LedgerService;
  payments: PaymentsService;
  compensations: Compensations;
  live: Pick<LiveService, 'publish'>;
  keepWindowMs?: number;
}

export class DepositReturns {
  private readonly repo: DepositReturnsRepository;

  constructor(private readonly d: DepositReturnsDeps) {
    this.repo = new DepositReturnsRepository(d.db);
    d.jobs.register(JOB_DEPOSIT_REFUND, (p) => this.refund(String(p.orderId)));
  }

  /**
   * The order was cancelled before its power bank came out (in the cancellation's unit of work, or right after it):
   * a top-up made as this order's deposit is scheduled to go back to its card or method.
   */
  async cancelled(order: OrderRow) {
    if (order.payment_id) return; // a card hold: its release job voids it
    const pay = await this.d.payments.depositTopUpOf(order.id);
    if (!pay) return; // paid from the wallet's balance: the hold's release put it back
    const now = this.d.clock.now();
    const left = Number(pay.captured_amount) - Number(pay.refunded_amount ?? 0);
    const refundable = this.d.payments.canRefund(pay.provider);
    const runAt = new Date(now.getTime() + (this.d.keepWindowMs ?? KEEP_WINDOW_MS));
    await this.d.db.tx(async () => {
      const jobId =
        refundable && left > 0 ? await this.d.jobs.enqueue(JOB_DEPOSIT_REFUND, { orderId: order.id }, runAt) : null;
      await this.repo.insert(
        {
          order_id: order.id,
          user_id: order.user_id,
          payment_id: pay.id,
          amount: left,
          currency: pay.currency,
          state: jobId === null ? 'kept_unrefundable' : 'scheduled',
          at: jobId === null ? now : runAt,
          job_id: jobId,
        },
        now,
      );
    });
  }

  /** The rider keeps the top-up in the wallet: the scheduled refund is cancelled (409 once it was made). */
  async keep(order: OrderRow): Promise<void> {
    await this.d.db.tx(async () => {
      const r = await this.repo.find(order.id, { lock: true });
      if (!r) throw conflict('error.deposit.nothingToKeep');
      if (r.state === 'kept') return;
      if (r.state !== 'scheduled') throw conflict('error.deposit.alreadySettled');
      if (r.job_id !== null) await this.d.jobs.cancelById(r.job_id);
      await this.repo.settle(order.id, 'kept', 0, this.d.clock.now());
    });
    await this.d.live.publish(order.user_id, { kind: 'order', orderId: order.id });
  }

  /**
   * The refund job: under the row's lock, the payment row's refund (keyed by the order: never twice), the ledger's
   * wallet → clearing transfer, and the provider call as a compensation job, committed together; then the provider
   * is called at once (the compensation retries it if that fails).
   */
  private async refund(orderId: string) {
    const now = this.d.clock.now();
    const compensation = await this.d.db.tx(async () => {
      const r = await this.repo.find(orderId, { lock: true });
      if (r?.state !== 'scheduled') return null; // kept meanwhile, or a job run twice
      const pay = await this.d.payments.find(r.payment_id);
      if (!pay?.provider_ref) throw new Error(`deposit refund ${orderId}: no payment ${r.payment_id}`);
      await this.d.payments.lockCharge(pay.provider, pay.provider_ref);
      const [wallet, clearing] = await this.d.ledger.lockedAccounts([
        { owner: userOwner(r.user_id), kind: 'wallet', currency: r.currency },
        { owner: providerOwner(pay.provider, r.user_id), kind: 'clearing', currency: r.currency },
      ]);
      // What the wallet still has of it: a new rental's deposit may have taken some meanwhile.
      const amount = Math.min(r.amount, Math.max(0, LedgerService.available(wallet)));
      if (amount <= 0) {
        await this.repo.settle(orderId, 'kept_spent', 0, now);
        return null;
      }
      await this.d.payments.recordRefund(pay.id, amount, now, `deposit_${orderId}`);
      await this.d.ledger.transfer({
        debit: wallet!,
        credit: clearing!,
        amount,
        code: DEPOSIT_REFUND_CODE,
        orderId,
        at: now,
        mustNotOverdraw: true,
        locked: true,
      });
      await this.repo.settle(orderId, 'refunded', amount, now);
      await this.d.live.publish(r.user_id, { kind: 'wallet' });
      await this.d.live.publish(r.user_id, { kind: 'order', orderId });
      return this.d.compensations.enqueue(
        {
          providerId: pay.provider,
          ref: pay.provider_ref,
          action: 'refund',
          amount,
          reason: `deposit of cancelled order ${orderId}`,
        },
        now,
      );
    });
    if (compensation !== null) await this.d.compensations.runNow(compensation);
  }

  /** What became of the deposit of a cancelled order (its owner's; checked by the caller). */
  async of(order: OrderRow): Promise<DepositBack> {
    const base = {
      orderId: order.id,
      amount: Number(order.deposit),
      refunded: 0,
      currency: order.currency,
      canKeep: false,
    };
    if (order.payment_id) {
      const pay = await this.d.payments.find(order.payment_id);
      const steps = await this.d.payments.timeline(order.id);
      const voided = steps.find((s) => s.payment_id === order.payment_id && s.to_status === 'voided');
      return {
        ...base,
        kind: 'card_hold',
        state: voided ? 'released' : 'releasing',
        at: voided ? new Date(voided.at).toISOString() : null,
        method: pay ? cardLabel(pay) : null,
      };
    }
    const r = await this.repo.find(order.id);
    if (!r) return { ...base, kind: 'wallet', state: 'in_wallet', at: null, method: null };
    const pay = await this.d.payments.find(r.payment_id);
    return {
      ...base,
      kind: 'refund',
      state: r.state,
      amount: r.amount,
      refunded: r.refunded_amount,
      at: new Date(r.at).toISOString(),
      method: pay ? cardLabel(pay) : null,
      canKeep: r.state === 'scheduled',
    };
  }
}

function cardLabel(p: { card_brand?: string | null; card_last4?: string | null }) {
  if (!p.card_last4) return null;
  const brand = p.card_brand ? p.card_brand.charAt(0).toUpperCase() + p.card_brand.slice(1) : '';
  return `${brand} •••• ${p.card_last4}`.trim();
}
