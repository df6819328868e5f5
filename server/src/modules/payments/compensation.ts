// Compensations (void an authorisation, refund a charge) are jobs, never inline best-effort calls: the job is
// committed first, then run at once; if the provider call fails it is retried with backoff by any process, and
// after the last attempt it is `dead` (visible to an operator, npm run jobs:dead), never silently dropped. The
// provider call carries an idempotency key stable per job, so a job run twice (a lease taken over) refunds once.
import type { JobContext, JobRunner } from '../../jobs/runner.ts';
import type { ProviderRegistry } from './provider.ts';

export const JOB_COMPENSATE = 'payment.compensate';

export interface Compensation {
  providerId: string;
  ref: string;
  action: 'void' | 'refund';
  /** Refund: minor units. */
  amount?: number;
  /** Why (an order id, a top-up): for the operator reading a dead job. */
  reason: string;
}

export class Compensations {
  constructor(
    private readonly jobs: JobRunner,
    private readonly providers: ProviderRegistry,
  ) {
    jobs.register(JOB_COMPENSATE, (p, job) => this.run(p as unknown as Compensation, job));
  }

  /**
   * Enqueues the compensation (inside a unit of work: with it) and, outside one, runs it now. Returns whether it
   * already completed; false means the job will retry it.
   */
  async request(c: Compensation, at: Date): Promise<boolean> {
    return this.runNow(await this.enqueue(c, at));
  }

  /** Enqueues only (inside a unit of work: committed with it); run it with runNow(id) after the commit. */
  enqueue(c: Compensation, at: Date): Promise<number> {
    return this.jobs.enqueue(JOB_COMPENSATE, { ...c }, at);
  }

  runNow(id: number) {
    return this.jobs.runNow(id);
  }

  private async run(c: Compensation, job: JobContext) {
    const provider = this.providers.get(c.providerId);
    if (c.action === 'void') await provider.void(c.ref, { idempotencyKey: job.key });
    else await provider.refund(c.ref, Number(c.amount), { idempotencyKey: job.key });
  }
}

const perRunner = new WeakMap<JobRunner, Compensations>();
/** The compensations of one job runner (rentals and wallet share them; the job handler is registered once). */
export function compensationsOf(jobs: JobRunner, providers: ProviderRegistry): Compensations {
  let c = perRunner.get(jobs);
  if (!c) perRunner.set(jobs, (c = new Compensations(jobs, providers)));
  return c;
}
