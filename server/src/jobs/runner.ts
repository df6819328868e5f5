// Timed work lives in the jobs table, so it survives a restart and any API process can run it: a job is claimed
// with FOR UPDATE SKIP LOCKED (two processes never take the same one), run, then marked done; a failure is
// retried with backoff. The poll interval is only a trigger — no business state is held in memory.
import type { Db, Queryable } from '../db/db.ts';
import type { Clock } from '../lib/clock.ts';
import type { Logger } from '../modules/cabinets/link.ts';

export type JobHandler = (payload: Record<string, unknown>) => Promise<void>;

const LEASE_MS = 60_000;
const MAX_ATTEMPTS = 20;

export class JobRunner {
  private readonly handlers = new Map<string, JobHandler>();
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<number> | null = null;

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly log: Logger,
  ) {}

  register(kind: string, handler: JobHandler) {
    this.handlers.set(kind, handler);
  }

  async enqueue(q: Queryable, kind: string, payload: Record<string, unknown>, runAt: Date) {
    await q.query('insert into jobs (kind, payload, run_at) values ($1, $2, $3)', [kind, JSON.stringify(payload), runAt]);
  }

  /** Marks not-yet-run jobs of `kind` whose payload has `key` = `value` as done (their work is no longer needed). */
  async cancel(kind: string, key: string, value: string, q: Queryable = this.db) {
    await q.query(`update jobs set done_at = $4 where kind = $1 and payload->>$2 = $3 and done_at is null`, [kind, key, value, this.clock.now()]);
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
      const job = await this.db.tx(async (tx) => {
        const { rows } = await tx.query<{ id: number; kind: string; payload: Record<string, unknown>; attempts: number }>(
          `select id, kind, payload, attempts from jobs
            where done_at is null and run_at <= $1 and (locked_until is null or locked_until < $1)
            order by run_at, id limit 1 for update skip locked`,
          [now],
        );
        const j = rows[0];
        if (j) {
          await tx.query('update jobs set locked_until = $2, attempts = attempts + 1 where id = $1', [
            j.id, new Date(now.getTime() + LEASE_MS),
          ]);
        }
        return j;
      });
      if (!job) break;
      const handler = this.handlers.get(job.kind);
      try {
        if (!handler) throw new Error(`no handler for job kind ${job.kind}`);
        const payload = typeof job.payload === 'string' ? (JSON.parse(job.payload) as Record<string, unknown>) : job.payload;
        await handler(payload);
        await this.db.query('update jobs set done_at = $2, locked_until = null where id = $1', [job.id, this.clock.now()]);
      } catch (err) {
        const attempts = job.attempts + 1;
        const delay = Math.min(300_000, 1000 * 2 ** attempts);
        this.log.error({ err, job: job.id, kind: job.kind, attempts }, 'job failed');
        await this.db.query(
          `update jobs set last_error = $2, locked_until = null, run_at = $3, done_at = case when $4 then $5 else null end where id = $1`,
          [job.id, String(err instanceof Error ? err.message : err), new Date(this.clock.now().getTime() + delay),
            attempts >= MAX_ATTEMPTS, this.clock.now()],
        );
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
