// Timed work lives in the jobs table, so it survives a restart and any API process can run it: a job is claimed
// with FOR UPDATE SKIP LOCKED (two processes never take the same one) under a lease that carries a fencing token,
// run, then marked done — only by the holder of the current token, so a slow process whose lease expired and was
// taken over cannot finish (or fail) it a second time. A failure is retried with backoff; a job that exhausts its
// attempts is `dead`: kept, listed for an operator (npm run jobs:dead) and never taken for done.
// The poll interval is only a trigger — no business state is held in memory.
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Db } from '../db/db.ts';
import type { Clock } from '../lib/clock.ts';
import type { Logger } from '../modules/cabinets/link.ts';
import { JobsRepository } from './repository.ts';

/** The running job: its id and fencing token (a stable `key` per job for the provider calls it makes). */
export interface JobContext {
  id: number;
  fence: number;
  attempt: number;
  /** Stable across retries of this job: an idempotency key for the provider calls the job makes. */
  key: string;
  /** Whether this process still holds the job's lease (check before an irreversible step after a long wait). */
  holdsLease(): Promise<boolean>;
}

export type JobHandler = (payload: Record<string, unknown>, job: JobContext) => Promise<void>;

/** Thrown before an irreversible step of a job whose lease another process has taken over. */
export class LeaseLost extends Error {
  constructor(readonly jobId: number) {
    super(`job ${jobId}: lease taken over by another process`);
  }
}

const runningJob = new AsyncLocalStorage<JobContext>();

/**
 * Called before every irreversible external step (each money-moving provider call goes through it, see
 * ProviderRegistry): inside a job whose lease was taken over (this process was slow, another one runs the job
 * now) it throws LeaseLost, so the step is never made by two processes. A no-op outside a job.
 */
export async function assertLease() {
  const job = runningJob.getStore();
  if (job && !(await job.holdsLease())) throw new LeaseLost(job.id);
}

export const LEASE_MS = 60_000;
export const MAX_ATTEMPTS = 20;

export class JobRunner {
  private readonly handlers = new Map<string, JobHandler>();
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<number> | null = null;
  private readonly repo: JobsRepository;
  /** Attempts before a job is dead (tests lower it). */
  maxAttempts = MAX_ATTEMPTS;

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly log: Logger,
  ) {
    this.repo = new JobsRepository(db);
  }

  register(kind: string, handler: JobHandler) {
    this.handlers.set(kind, handler);
  }

  /** Schedules a job; inside a unit of work it is written (or rolled back) with the rest of it. Returns its id. */
  async enqueue(kind: string, payload: Record<string, unknown>, runAt: Date): Promise<number> {
    return this.repo.insert(kind, payload, runAt);
  }

  /**
   * Schedules several jobs with one statement (in a unit of work: written or rolled back with it); `cancel`, a
   * job no longer needed, is marked done by the same statement.
   */
  async enqueueMany(
    jobs: { kind: string; payload: Record<string, unknown>; runAt: Date }[],
    opts: { cancel?: number } = {},
  ): Promise<number[]> {
    return this.repo.insertMany(
      jobs,
      opts.cancel === undefined ? undefined : { id: opts.cancel, at: this.clock.now() },
    );
  }

  /** Marks the job `id` done if it has not run (its work is no longer needed). */
  async cancelById(id: number) {
    await this.repo.cancelById(id, this.clock.now());
  }

  /**
   * Schedules a recurring job of `kind` at `runAt` unless one is already pending (its handler schedules the next,
   * passing its own id as `exceptId`).
   */
  async ensurePending(kind: string, runAt: Date, exceptId?: number) {
    await this.repo.ensurePending(kind, runAt, exceptId);
  }

  /**
   * Marks not-yet-run jobs of `kind` whose payload has `key` = `value` as done (their work is no longer needed).
   * `untried`: only jobs never attempted (one that ran may have left something behind its retry must clean up).
   */
  async cancel(kind: string, key: string, value: string, opts: { untried?: boolean } = {}) {
    await this.repo.cancel(kind, key, value, this.clock.now(), opts.untried);
  }

  /** The payloads of jobs of `kinds` not done yet (pending, retrying or dead) whose payload has `key` = `value`. */
  unfinished(kinds: string[], key: string, value: string) {
    return this.repo.unfinished(kinds, key, value);
  }

  /** Runs every due job once (those failing are rescheduled); returns how many ran. */
  runDue(limit = 50): Promise<number> {
    // One pass at a time per process; callers (poller, tests) share the pass in progress.
    this.running ??= this.pass(limit).finally(() => (this.running = null));
    return this.running;
  }

  /**
   * Runs one job now (a compensation enqueued a moment ago), under the same lease and fencing as the poller.
   * Returns whether it ran and succeeded; a failure leaves it scheduled for a retry.
   */
  async runNow(id: number): Promise<boolean> {
    return (await this.claimAndRun(id)) === 'done';
  }

  /** How many jobs are dead. */
  deadCount() {
    return this.repo.deadCount();
  }

  /** Jobs that exhausted their attempts. */
  dead(limit?: number) {
    return this.repo.dead(limit);
  }

  /** An operator's retry of a dead job. */
  revive(id: number) {
    return this.repo.revive(id, this.clock.now());
  }

  private async pass(limit: number) {
    let n = 0;
    for (; n < limit; n++) {
      if ((await this.claimAndRun()) === 'none') break;
    }
    return n;
  }

  private async claimAndRun(id?: number): Promise<'none' | 'done' | 'failed'> {
    const now = this.clock.now();
    const claimed = await this.db.tx(async () => {
      const j = await this.repo.nextDue(now, id);
      return j ? { job: j, fence: await this.repo.lease(j.id, new Date(now.getTime() + LEASE_MS)) } : undefined;
    });
    if (!claimed) return 'none';
    const { job, fence } = claimed;
    const handler = this.handlers.get(job.kind);
    const attempts = job.attempts + 1;
    try {
      if (!handler) throw new Error(`no handler for job kind ${job.kind}`);
      const payload =
        typeof job.payload === 'string' ? (JSON.parse(job.payload) as Record<string, unknown>) : job.payload;
      const ctx: JobContext = {
        id: Number(job.id),
        fence,
        attempt: attempts,
        key: `job_${job.id}`,
        holdsLease: () => this.repo.holds(job.id, fence),
      };
      await runningJob.run(ctx, () => handler(payload, ctx));
      if (!(await this.repo.done(job.id, fence, this.clock.now()))) {
        this.log.warn(
          { job: job.id, kind: job.kind, fence },
          'job lease lost before it finished: another process holds it',
        );
      }
      return 'done';
    } catch (err) {
      if (err instanceof LeaseLost) {
        // The job is another process's now: nothing to record (a failure would be refused by the fence anyway).
        this.log.warn({ job: job.id, kind: job.kind, fence }, 'job lease lost: stopped before an irreversible step');
        return 'failed';
      }
      const delay = Math.min(300_000, 1000 * 2 ** attempts);
      const dead = attempts >= this.maxAttempts;
      this.log.error(
        { err, job: job.id, kind: job.kind, attempts },
        dead ? 'job dead: an operator must handle it (npm run jobs:dead)' : 'job failed',
      );
      await this.repo.failed(
        job.id,
        fence,
        String(err instanceof Error ? err.message : err),
        new Date(this.clock.now().getTime() + delay),
        dead,
        this.clock.now(),
      );
      return 'failed';
    }
  }

  start(intervalMs = 500) {
    if (this.timer) return;
    this.timer = setInterval(() => {
      this.runDue().catch((err: unknown) => this.log.error({ err }, 'job poll failed'));
    }, intervalMs);
    this.timer.unref();
  }

  async stop() {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running;
  }
}
