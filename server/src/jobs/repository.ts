// The jobs table (owned by the job runner): timed work that survives a restart and any API process can claim.
import type { Queryable } from '../db/db.ts';

export interface JobRow {
  id: number;
  kind: string;
  payload: Record<string, unknown>;
  attempts: number;
}

export class JobsRepository {
  constructor(private readonly db: Queryable) {}

  async insert(kind: string, payload: Record<string, unknown>, runAt: Date) {
    await this.db.query('insert into jobs (kind, payload, run_at) values ($1, $2, $3)', [kind, JSON.stringify(payload), runAt]);
  }

  async insertUnlessPending(kind: string, payload: Record<string, unknown>, runAt: Date, after: Date | null) {
    await this.db.query(
      `insert into jobs (kind, payload, run_at) select $1, $2, $3
        where not exists (select 1 from jobs where kind = $1 and done_at is null and ($4::timestamptz is null or run_at > $4))`,
      [kind, JSON.stringify(payload), runAt, after],
    );
  }

  /** Marks not-yet-run jobs of `kind` whose payload has `key` = `value` as done. */
  async cancel(kind: string, key: string, value: string, at: Date) {
    await this.db.query(`update jobs set done_at = $4 where kind = $1 and payload->>$2 = $3 and done_at is null`, [kind, key, value, at]);
  }

  /** The next due job not leased by another process, skipping rows locked by one (run inside a unit of work). */
  async nextDue(now: Date) {
    const { rows } = await this.db.query<JobRow>(
      `select id, kind, payload, attempts from jobs
        where done_at is null and run_at <= $1 and (locked_until is null or locked_until < $1)
        order by run_at, id limit 1 for update skip locked`,
      [now],
    );
    return rows[0];
  }

  async lease(id: number, until: Date) {
    await this.db.query('update jobs set locked_until = $2, attempts = attempts + 1 where id = $1', [id, until]);
  }

  async done(id: number, at: Date) {
    await this.db.query('update jobs set done_at = $2, locked_until = null where id = $1', [id, at]);
  }

  /** A failed run: retried at `retryAt`, or given up (done) when `giveUp`. */
  async failed(id: number, error: string, retryAt: Date, giveUp: boolean, at: Date) {
    await this.db.query(
      `update jobs set last_error = $2, locked_until = null, run_at = $3, done_at = case when $4 then $5 else null end where id = $1`,
      [id, error, retryAt, giveUp, at],
    );
  }
}
