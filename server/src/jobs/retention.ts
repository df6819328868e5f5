// Retention sweeps: tables that grow with traffic keep rows for a documented period (docs/operations.md
// "Retention"). One recurring database job (housekeeping.retention, hourly) runs every registered sweep; each
// module registers the tables it owns with a period and a sweep of its repository (SQL stays with the owner).
// A sweep deletes in batches and never touches rows still needed (pending or dead inbox events, for example).
import type { Clock } from '../lib/clock.ts';
import type { Logger } from '../modules/cabinets/link.ts';
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

export class Retention {
  private readonly rules: RetentionRule[] = [];

  constructor(
    private readonly jobs: JobRunner,
    private readonly clock: Clock,
    private readonly log: Logger,
    /** How often the sweep runs. */
    readonly everyMs = 3600_000,
  ) {
    jobs.register(JOB_RETENTION, async () => {
      await this.sweep();
      // The next run; skipped when another process already scheduled one.
      const now = this.clock.now();
      await this.jobs.enqueueUnlessPending(JOB_RETENTION, {}, new Date(now.getTime() + this.everyMs), now);
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
    await this.jobs.enqueueUnlessPending(JOB_RETENTION, {}, this.clock.now());
  }
}
