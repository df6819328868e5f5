// Timed work lives in the jobs table, so it survives a restart and any API process can run it: a job is claimed
// with FOR UPDATE SKIP LOCKED (two processes never take the same one), run, then marked done; a failure is
// retried with backoff. The poll interval is only a trigger — no business state is held in memory.
import type { Db } from '../db/db.ts';
import type { Clock } from '../lib/clock.ts';
import type { Logger } from '../modules/cabinets/link.ts';
import { JobsRepository } from './repository.ts';

export type JobHandler = (payload: Record<string, unknown>) => Promise<void>;

const LEASE_MS = 60_000;
const MAX_ATTEMPTS = 20;

export class JobRunner {
  private readonly handlers = new Map<string, JobHandler>();
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<number> | null = null;
  private readonly repo: JobsRepository;

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

  /** Schedules a job; inside a unit of work it is written (or rolled back) with the rest of it. */
  async enqueue(kind: string, payload: Record<string, unknown>, runAt: Date) {
    await this.repo.insert(kind, payload, runAt);
  }

  /**
   * Schedules a job of `kind` unless one is already pending (with `after`: pending to run after it), for a
   * recurring job that must exist once however many processes schedule it.
   */
  async enqueueUnlessPending(kind: string, payload: Record<string, unknown>, runAt: Date, after?: Date) {
    await this.repo.insertUnlessPending(kind, payload, runAt, after ?? null);
  }

  /** Marks not-yet-run jobs of `kind` whose payload has `key` = `value` as done (their work is no longer needed). */
  async cancel(kind: string, key: string, value: string) {
    await this.repo.cancel(kind, key, value, this.clock.now());
  }

  /** Runs every due job once (those failing are rescheduled); returns how many ran. */
  runDue(limit = 50): Promise<number> {
    // One pass at a time per process; callers (poller, tests) share the pass in progress.
    this.running ??= this.pass(limit).finally(() => (this.running = null));
    return this.running;
  }

  private async pass(limit: number) {
    let n = 0;
    for (; n < limit; n++) {
      const now = this.clock.now();
      const job = await this.db.tx(async () => {
        const j = await this.repo.nextDue(now);
        if (j) await this.repo.lease(j.id, new Date(now.getTime() + LEASE_MS));
        return j;
      });
      if (!job) break;
      const handler = this.handlers.get(job.kind);
      try {
        if (!handler) throw new Error(`no handler for job kind ${job.kind}`);
        const payload = typeof job.payload === 'string' ? (JSON.parse(job.payload) as Record<string, unknown>) : job.payload;
        await handler(payload);
        await this.repo.done(job.id, this.clock.now());
      } catch (err) {
        const attempts = job.attempts + 1;
        const delay = Math.min(300_000, 1000 * 2 ** attempts);
        this.log.error({ err, job: job.id, kind: job.kind, attempts }, 'job failed');
        await this.repo.failed(job.id, String(err instanceof Error ? err.message : err), new Date(this.clock.now().getTime() + delay),
          attempts >= MAX_ATTEMPTS, this.clock.now());
      }
    }
    return n;
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
