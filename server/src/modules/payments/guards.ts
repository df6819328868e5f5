// The charge guard: one job kind, owned by payments, that follows every charge a flow starts until the flow took it
// or it was released. A flow starts a charge for a purpose and, before the provider call, schedules its guard
// (start); once the customer must act (3-D Secure, a provider's page, a prompt on their phone) the guard follows
// the provider's reference instead (awaitCustomer). When the guard fires, payments looks at the charge's state:
//   - taken by its flow (the purpose handler's `settled`, or a payment row of that charge): nothing to do;
//   - no reference (the process died during the call): the same call again, with the same idempotency key (the
//     provider answers the first outcome, never a second charge);
//   - a reference: the payment's state now; still waiting → looked at again until its deadline, then released;
//   - completed, of the amount and currency asked: handed to the purpose's handler (`succeeded`), which takes it or
//     declines to (then released);
//   - anything else it took: released (release): under the charge's lock, recorded released (no later resume can
//     take it), with the flow's own release writes (`released`: a coupon's use given back) and the compensation
//     job (void or refund) in the same unit of work, run after the commit.
// Each flow registers one handler per purpose family (handle); payments does the rest, once.
import type { Db } from '../../db/db.ts';
import type { JobRunner } from '../../jobs/runner.ts';
import { AppError } from '../../lib/errors.ts';
import type { Logger } from '../cabinets/link.ts';
import { compensationsOf } from './compensation.ts';
import { ACTION_CHECK_MS, ACTION_TIMEOUT_MS, type AuthorizeResult, type PaymentProvider } from './provider.ts';
import type { PaymentsService } from './service.ts';

/** The one guard job kind of every charge. */
export const JOB_CHARGE_GUARD = 'payment.charge-guard';
/** How long after a provider call the guard looks (the request is long finished by then; else the process died). */
export const GUARD_MS = 120_000;

/** What a guard keeps of the charge it follows (the job's payload). */
export interface ChargeGuard {
  /** The purpose handler that takes or releases it (handle). */
  flow: string;
  providerId: string;
  userId: number;
  /** The payments row's purpose (purposes.ts). */
  purpose: string;
  /** Minor units, as the server computed. */
  amount: number;
  currency: string;
  capture: 'automatic' | 'manual';
  /** The order recorded on a released payment row (null: none). */
  orderId: string | null;
  /** A new call: its token and idempotency key (the replay sends the same). */
  token: string | null;
  key: string | null;
  /** A payment waiting for its customer: the provider's reference, and when it is released. */
  ref: string | null;
  deadline?: number;
  methodType: string | null;
  saveCard?: boolean;
  /** The flow's own (the rental's order, a coupon's use, a top-up's order number and agent, …). */
  data?: Record<string, unknown>;
}

export type Completed = Extract<AuthorizeResult, { ok: true }>;

/** What a flow declares for its purposes: how to tell it took the charge, and what to write when it succeeds or is released. */
export interface PurposeHandler {
  /** Whether the flow took the charge already (an order written with it): the guard does nothing. */
  settled?(g: ChargeGuard): Promise<boolean>;
  /**
   * A completed charge of the amount and currency asked: the flow takes it (true) or not (false: released). An
   * AppError thrown means the flow refused it and saw to its release; anything else is retried.
   */
  succeeded?(g: ChargeGuard, provider: PaymentProvider, result: Completed): Promise<boolean>;
  /** In the release's unit of work, under the charge's lock: the flow's own writes (a coupon's use given back). */
  released?(g: ChargeGuard): Promise<void>;
  /** The provider declined it: nothing to release; the flow's reservations go. */
  declined?(g: ChargeGuard): Promise<void>;
  /**
   * A job kind the flow used before this one (still in a database's queue): registered as an alias, its payload
   * turned into a guard (null: nothing to follow any more).
   */
  legacy?: { kind: string; toGuard(p: Record<string, unknown>): ChargeGuard | null };
}

export interface GuardDeps {
  db: Db;
  jobs: JobRunner;
  payments: PaymentsService;
  clock: { now(): Date };
  log: Logger;
}

export class ChargeGuards {
  private readonly handlers = new Map<string, PurposeHandler>();

  constructor(private readonly d: GuardDeps) {
    d.jobs.register(JOB_CHARGE_GUARD, (p) => this.run(p as unknown as ChargeGuard));
  }

  /** A flow's handler for its purposes (once per job runner; a second registration replaces the first). */
  handle(flow: string, h: PurposeHandler) {
    this.handlers.set(flow, h);
    // Jobs queued under the flow's former guard kind still run: the kind is an alias routed into this guard.
    if (h.legacy) {
      const { kind, toGuard } = h.legacy;
      this.d.jobs.register(kind, async (p) => {
        const g = toGuard(p);
        if (g) await this.run(g);
      });
    }
  }

  /** Schedules the guard of a new call (in the caller's unit of work when it runs in one): before the provider is asked. */
  start(g: ChargeGuard, delayMs = GUARD_MS): Promise<number> {
    return this.d.jobs.enqueue(JOB_CHARGE_GUARD, { ...g }, new Date(this.d.clock.now().getTime() + delayMs));
  }

  /**
   * The customer must act: the guard follows the provider's reference until ACTION_TIMEOUT_MS. A flow that takes a
   * completed charge (succeeded) has it looked at every ACTION_CHECK_MS (paid → taken even if the customer never
   * comes back); any other flow's is looked at once, at the deadline (a resume takes it before that).
   */
  awaitCustomer(g: ChargeGuard, ref: string): Promise<number> {
    const now = this.d.clock.now().getTime();
    const deadline = now + ACTION_TIMEOUT_MS;
    const first = this.handlers.get(g.flow)?.succeeded ? ACTION_CHECK_MS : ACTION_TIMEOUT_MS;
    return this.d.jobs.enqueue(JOB_CHARGE_GUARD, { ...g, token: null, ref, deadline }, new Date(now + first));
  }

  /** No longer needed: the guards of this call (its idempotency key) or of this waiting payment (its reference). */
  async cancel(by: { key?: string | null; ref?: string | null }) {
    if (by.key) await this.d.jobs.cancel(JOB_CHARGE_GUARD, 'key', by.key);
    if (by.ref) await this.d.jobs.cancel(JOB_CHARGE_GUARD, 'ref', by.ref);
  }

  private handler(flow: string) {
    const h = this.handlers.get(flow);
    if (!h) throw new Error(`no purpose handler "${flow}"`);
    return h;
  }

  /** The guard's job. */
  async run(g: ChargeGuard) {
    const h = this.handler(g.flow);
    const { payments } = this.d;
    if (!payments.providers.has(g.providerId)) return;
    const provider = payments.providers.get(g.providerId);
    if (await h.settled?.(g)) return;
    let result: AuthorizeResult;
    if (g.ref) {
      if (await payments.takenOrReleased(provider.id, g.ref)) return; // taken by a resume, or released already
      result = await provider.resume(g.ref, g.userId);
      if (result.ok && result.status === 'requires_action') {
        if (g.deadline !== undefined && this.d.clock.now().getTime() < g.deadline) {
          await this.d.jobs.enqueue(
            JOB_CHARGE_GUARD,
            { ...g },
            new Date(this.d.clock.now().getTime() + ACTION_CHECK_MS),
          );
        } else {
          await this.release(g, provider, result, 'not finished by its deadline');
        }
        return;
      }
    } else {
      // The same request as the first (same key, token, amount), as providers require for an idempotent replay.
      result = await provider.authorize({
        token: g.token ?? '',
        amount: g.amount,
        currency: g.currency,
        capture: g.capture,
        idempotencyKey: g.key ?? '',
        userId: g.userId,
        purpose: g.purpose,
        methodType: g.methodType ?? undefined,
        ...(g.saveCard ? { saveCard: true } : {}),
      });
    }
    if (!result.ok) {
      await h.declined?.(g);
      return;
    }
    const asked =
      result.status === (g.capture === 'manual' ? 'authorized' : 'captured') &&
      result.amount === g.amount &&
      result.currency?.toUpperCase() === g.currency;
    if (asked && h.succeeded) {
      let taken: boolean;
      try {
        taken = await h.succeeded(g, provider, result);
      } catch (err) {
        if (err instanceof AppError) return; // refused by its flow (paid meanwhile, refunded before): released there
        throw err;
      }
      if (taken) return;
    }
    await this.release(g, provider, result, g.ref ? 'the customer did not come back' : 'the request did not finish');
  }

  /**
   * Gives back a charge its flow did not take (the guard, or the flow itself when its unit of work failed): under
   * the charge's lock, unless it is recorded already (taken, or released before) or its flow took it, one unit of
   * work records it released (so no later resume can take it), with the flow's release writes and the compensation
   * job (a charge refunded, a hold or a payment still waiting for the customer voided), run after the commit.
   * Answers whether it released it.
   */
  async release(g: ChargeGuard, provider: PaymentProvider, result: Completed, why: string): Promise<boolean> {
    const h = this.handler(g.flow);
    const { payments } = this.d;
    const comp = compensationsOf(this.d.jobs, payments.providers);
    const jobId = await this.d.db.tx(async () => {
      await payments.lockCharge(provider.id, result.ref);
      if (await payments.takenOrReleased(provider.id, result.ref)) return null;
      if (await h.settled?.(g)) return null;
      this.d.log.warn(
        { flow: g.flow, orderId: g.orderId, ref: result.ref, why },
        'releasing a charge its flow did not take',
      );
      await h.released?.(g);
      const c = await payments.recordReleased(
        {
          providerId: provider.id,
          userId: g.userId,
          orderId: g.orderId,
          purpose: g.purpose,
          amount: g.amount,
          currency: g.currency,
        },
        result,
      );
      return comp.enqueue(
        {
          providerId: provider.id,
          ref: result.ref,
          ...c,
          reason: `${g.flow} ${g.orderId ?? String(g.data?.orderId ?? '')}: ${why}`,
        },
        this.d.clock.now(),
      );
    });
    if (jobId === null) return false;
    await comp.runNow(jobId);
    return true;
  }
}

const perRunner = new WeakMap<JobRunner, ChargeGuards>();
/** The charge guards of one job runner (every flow shares them; the job kind is registered once). */
export function chargeGuardsOf(d: GuardDeps): ChargeGuards {
  let g = perRunner.get(d.jobs);
  if (!g) perRunner.set(d.jobs, (g = new ChargeGuards(d)));
  return g;
}
