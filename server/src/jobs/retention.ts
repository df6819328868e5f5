// Retention: the tables that grow with traffic are swept once a day by one recurring job (any process runs it;
// chains started by two processes merge, see JobRunner.ensurePending). Each entry names the table, the column its
// age is read from and how many days rows are kept; the DELETE lives in the table's owning repository
// (architecture rule: SQL only in repositories). docs/operations.md lists the periods.
import type { Db } from '../db/db.ts';
import type { Clock } from '../lib/clock.ts';
import { IdempotencyStore } from '../idempotency/repository.ts';
import { SignInRepository } from '../modules/auth/repository.ts';
import { EmbedRepository } from '../modules/embed/repository.ts';
import { RateLimitRepository } from '../plugins/rate-limit-repository.ts';
import { JobsRepository } from './repository.ts';
import type { JobRunner } from './runner.ts';

export const JOB_RETENTION = 'retention.sweep';
const DAY = 24 * 3600_000;

export interface RetentionRule {
  table: string;
  /** The timestamp column a row's age is read from. */
  column: string;
  keepDays: number;
  /** Deletes the rows of `table` whose `column` is before `before` (the owning repository's statement). */
  sweep(db: Db, before: Date): Promise<number>;
}

export const RETENTION: RetentionRule[] = [
  // Finished jobs (done); dead jobs are kept until an operator handles them (npm run jobs:dead).
  { table: 'jobs', column: 'done_at', keepDays: 30, sweep: (db, before) => new JobsRepository(db).sweep(before) },
  // A client retries within minutes (a stale 'started' key is taken over after 2 minutes).
  { table: 'idempotency_keys', column: 'created_at', keepDays: 7, sweep: (db, before) => new IdempotencyStore(db).sweep(before) },
  // The performance summary reads the last days; three months of samples are kept for comparisons.
  { table: 'web_vitals', column: 'created_at', keepDays: 90, sweep: (db, before) => new EmbedRepository(db).sweepVitals(before) },
  // The SMS limits look back 24 hours at most.
  { table: 'otp_sends', column: 'created_at', keepDays: 2, sweep: (db, before) => new SignInRepository(db).sweepOtpSends(before) },
  // A captcha lives 5 minutes.
  { table: 'captchas', column: 'expires_at', keepDays: 1, sweep: (db, before) => new SignInRepository(db).sweepCaptchas(before) },
  // Rate-limit windows last a minute.
  { table: 'rate_limits', column: 'window_ends_at', keepDays: 1, sweep: (db, before) => new RateLimitRepository(db).sweep(before) },
];

/** Runs every rule once; returns the rows deleted per table. */
export async function sweepAll(db: Db, now: Date, rules: RetentionRule[] = RETENTION): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const r of rules) out[r.table] = (out[r.table] ?? 0) + (await r.sweep(db, new Date(now.getTime() - r.keepDays * DAY)));
  return out;
}

/**
 * Registers the daily sweep (every process can run it); `schedule()` makes sure one is pending (once per
 * installation, whatever the number of processes: main.ts's processes call it when their poller starts).
 */
export function registerRetention(jobs: JobRunner, db: Db, clock: Clock) {
  jobs.register(JOB_RETENTION, async (_p, job) => {
    await sweepAll(db, clock.now());
    await jobs.ensurePending(JOB_RETENTION, new Date(clock.now().getTime() + DAY), job.id);
  });
  return { schedule: () => jobs.ensurePending(JOB_RETENTION, clock.now()) };
}
