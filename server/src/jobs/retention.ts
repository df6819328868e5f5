// Retention sweeps: tables that grow with traffic keep rows for a documented period (docs/operations.md
// "Retention"). One recurring database job runs every registered sweep (any process may run it; chains started by
// two processes merge through JobRunner.ensurePending). Each rule names the table, how many days rows are kept and
// a sweep that calls the owning repository (architecture rule: SQL only in repositories). A sweep deletes in
// batches and never touches rows still needed (pending or dead inbox events, dead jobs).
import type { Db } from '../db/db.ts';
import type { Clock } from '../lib/clock.ts';
import type { Logger } from '../modules/cabinets/link.ts';
import { IdempotencyStore } from '../idempotency/repository.ts';
import { SignInRepository } from '../modules/auth/repository.ts';
import { EmbedRepository } from '../modules/embed/repository.ts';
import { RateLimitRepository } from '../plugins/rate-limit-repository.ts';
import { JobsRepository } from './repository.ts';
import type { JobRunner } from './runner.ts';

export const JOB_RETENTION = 'housekeeping.retention';
const DAY_MS = 24 * 3600_000;

export interface RetentionRule {
  /** The table (for the log and docs). */
  table: string;
  /** Rows older than this many days go. */
  keepDays: number;
  /** Deletes up to one batch of rows older than `before`; returns how many it deleted. */
  sweep(before: Date): Promise<number>;
}

/** The platform tables' rules (the cabinet tables' are registered by services.ts with the cabinets repository). */
export const RETENTION: {
  table: string;
  column: string;
  keepDays: number;
  sweep(db: Db, before: Date): Promise<number>;
}[] = [
  // Finished jobs (done); dead jobs are kept until an operator handles them (npm run jobs:dead).
  { table: 'jobs', column: 'done_at', keepDays: 30, sweep: (db, before) => new JobsRepository(db).sweep(before) },
  // A client retries within minutes (a stale 'started' key is taken over after 2 minutes).
  {
    table: 'idempotency_keys',
    column: 'created_at',
    keepDays: 7,
    sweep: (db, before) => new IdempotencyStore(db).sweep(before),
  },
  // The performance summary reads the last days; three months of samples are kept for comparisons.
  {
    table: 'web_vitals',
    column: 'created_at',
    keepDays: 90,
    sweep: (db, before) => new EmbedRepository(db).sweepVitals(before),
  },
  // The SMS limits look back 24 hours at most.
  {
    table: 'otp_sends',
    column: 'created_at',
    keepDays: 2,
    sweep: (db, before) => new SignInRepository(db).sweepOtpSends(before),
  },
  // A captcha lives 5 minutes.
  {
    table: 'captchas',
    column: 'expires_at',
    keepDays: 1,
    sweep: (db, before) => new SignInRepository(db).sweepCaptchas(before),
  },
  // Rate-limit windows last a minute.
  {
    table: 'rate_limits',
    column: 'window_ends_at',
    keepDays: 1,
    sweep: (db, before) => new RateLimitRepository(db).sweep(before),
  },
];

/** The platform rules bound to one database, for Retention.add. */
export function platformRules(db: Db): RetentionRule[] {
  return RETENTION.map((r) => ({ table: r.table, keepDays: r.keepDays, sweep: (before: Date) => r.sweep(db, before) }));
}

/** Runs every platform rule once; returns the rows deleted per table. */
export async function sweepAll(db: Db, now: Date): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const r of platformRules(db))
    out[r.table] = (out[r.table] ?? 0) + (await r.sweep(new Date(now.getTime() - r.keepDays * DAY_MS)));
  return out;
}

export class Retention {
  private readonly rules: RetentionRule[] = [];

  constructor(
    private readonly jobs: JobRunner,
    private readonly clock: Clock,
    private readonly log: Logger,
    /** How often the sweep runs. */
    readonly everyMs = 3600_000,
  ) {
    jobs.register(JOB_RETENTION, async (_p, job) => {
      await this.sweep();
      // The next run; skipped when another process already scheduled one.
      await this.jobs.ensurePending(JOB_RETENTION, new Date(this.clock.now().getTime() + this.everyMs), job.id);
    });
  }

  add(...rules: RetentionRule[]) {
    this.rules.push(...rules);
    return this;
  }

  /** The registered periods (table → days), as documented. */
  periods() {
    return Object.fromEntries(this.rules.map((r) => [r.table, r.keepDays]));
  }

  /** Runs every sweep to the end (batch after batch); returns the rows deleted per table. */
  async sweep(): Promise<Record<string, number>> {
    const out: Record<string, number> = {};
    for (const r of this.rules) {
      const before = new Date(this.clock.now().getTime() - r.keepDays * DAY_MS);
      let total = 0;
      for (let i = 0; i < 1000; i++) {
        const n = await r.sweep(before);
        total += n;
        if (n === 0) break;
      }
      out[r.table] = total;
    }
    if (Object.values(out).some((n) => n > 0)) this.log.info({ deleted: out }, 'retention sweep');
    return out;
  }

  /** Makes sure the recurring job exists (at start-up; a no-op when one is scheduled). */
  async schedule() {
    await this.jobs.ensurePending(JOB_RETENTION, this.clock.now());
  }
}
