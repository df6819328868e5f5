// The jobs table (owned by the job runner): timed work that survives a restart and any API process can claim.
import type { Queryable } from '../db/db.ts';

export interface JobRow {
  id: number;
  kind: string;
  payload: Record<string, unknown>;
  attempts: number;
}

export interface DeadJob {
  id: number;
  kind: string;
  payload: Record<string, unknown>;
  attempts: number;
  last_error: string | null;
  dead_at: Date;
}

export class JobsRepository {
  constructor(private readonly db: Queryable) {}

  async insert(kind: string, payload: Record<string, unknown>, runAt: Date) {
    const { rows } = await this.db.query<{ id: number }>(
      'insert into jobs (kind, payload, run_at) values ($1, $2, $3) returning id',
      [kind, JSON.stringify(payload), runAt],
    );
    return Number(rows[0]!.id);
  }

  /** Several jobs in one statement (their ids), marking the not-yet-run job `cancel.id` done in the same one. */
  async insertMany(
    jobs: { kind: string; payload: Record<string, unknown>; runAt: Date }[],
    cancel?: { id: number; at: Date },
  ) {
    const { rows } = await this.db.query<{ id: number }>(
      `with c as (update jobs set done_at = $5 where id = $4 and done_at is null and dead_at is null)
       insert into jobs (kind, payload, run_at) select k, p, r from unnest($1::text[], $2::jsonb[], $3::timestamptz[]) with ordinality as j(k, p, r, n)
        order by n returning id`,
      [
        jobs.map((j) => j.kind),
        jobs.map((j) => JSON.stringify(j.payload)),
        jobs.map((j) => j.runAt.toISOString()),
        cancel?.id ?? 0,
        cancel?.at ?? null,
      ],
    );
    return rows.map((r) => Number(r.id));
  }

  /** Marks one not-yet-run job as done (its work is no longer needed). */
  async cancelById(id: number, at: Date) {
    await this.db.query('update jobs set done_at = $2 where id = $1 and done_at is null and dead_at is null', [id, at]);
  }

  /** Schedules a job of `kind` unless one is pending (a recurring job: chains started by two processes merge). */
  async ensurePending(kind: string, runAt: Date, exceptId = 0) {
    await this.db.query(
      `insert into jobs (kind, payload, run_at) select $1, '{}'::jsonb, $2
        where not exists (select 1 from jobs where kind = $1 and done_at is null and dead_at is null and id <> $3)`,
      [kind, runAt, exceptId],
    );
  }

  /** Marks not-yet-run jobs of `kind` whose payload has `key` = `value` as done (`untried`: only those never attempted). */
  async cancel(kind: string, key: string, value: string, at: Date, untried = false) {
    await this.db.query(
      `update jobs set done_at = $4 where kind = $1 and payload->>$2 = $3 and done_at is null and dead_at is null${untried ? ' and attempts = 0' : ''}`,
      [kind, key, value, at],
    );
  }

  /** The payloads of jobs of these kinds not done yet (pending, retrying or dead) whose payload has `key` = `value`. */
  async unfinished(kinds: string[], key: string, value: string): Promise<Record<string, unknown>[]> {
    const { rows } = await this.db.query<{ payload: Record<string, unknown> | string }>(
      'select payload from jobs where kind = any($1::text[]) and payload->>$2 = $3 and done_at is null',
      [kinds, key, value],
    );
    return rows.map((r) =>
      typeof r.payload === 'string' ? (JSON.parse(r.payload) as Record<string, unknown>) : r.payload,
    );
  }

  /** The next due job not leased by another process, skipping rows locked by one (run inside a unit of work). */
  async nextDue(now: Date, id?: number) {
    const { rows } = await this.db.query<JobRow>(
      `select id, kind, payload, attempts from jobs
        where done_at is null and dead_at is null and run_at <= $1 and (locked_until is null or locked_until < $1)
          ${id === undefined ? '' : 'and id = $2'}
        order by run_at, id limit 1 for update skip locked`,
      id === undefined ? [now] : [now, id],
    );
    return rows[0];
  }

  /** Leases a job until `until` and returns its new fencing token. */
  async lease(id: number, until: Date) {
    const { rows } = await this.db.query<{ fence: string | number }>(
      'update jobs set locked_until = $2, attempts = attempts + 1, fence = fence + 1 where id = $1 returning fence',
      [id, until],
    );
    return Number(rows[0]!.fence);
  }

  /** Whether `fence` is still the job's current lease (no other process took it over). */
  async holds(id: number, fence: number) {
    const { rows } = await this.db.query(
      'select 1 from jobs where id = $1 and fence = $2 and done_at is null and dead_at is null',
      [id, fence],
    );
    return rows.length === 1;
  }

  /** Done, if `fence` is still the current lease; false when another process took the job over. */
  async done(id: number, fence: number, at: Date) {
    const r = await this.db.query(
      'update jobs set done_at = $2, locked_until = null where id = $1 and fence = $3 and done_at is null',
      [id, at, fence],
    );
    return r.rowCount === 1;
  }

  /** A failed run (current lease only): retried at `retryAt`, or dead when `giveUp`. */
  async failed(id: number, fence: number, error: string, retryAt: Date, giveUp: boolean, at: Date) {
    await this.db.query(
      `update jobs set last_error = $2, locked_until = null, run_at = $3, dead_at = case when $4 then $5::timestamptz else null end
        where id = $1 and fence = $6 and done_at is null`,
      [id, error.slice(0, 2000), retryAt, giveUp, at, fence],
    );
  }

  /** How many jobs are dead (the health check reports it; an operator handles them with npm run jobs:dead). */
  async deadCount() {
    const { rows } = await this.db.query<{ n: number }>(
      'select count(*)::int as n from jobs where dead_at is not null',
    );
    return Number(rows[0]!.n);
  }

  async dead(limit = 100) {
    const { rows } = await this.db.query<DeadJob>(
      'select id, kind, payload, attempts, last_error, dead_at from jobs where dead_at is not null order by dead_at desc limit $1',
      [limit],
    );
    return rows;
  }

  /** An operator's retry of a dead job: due now, with a fresh attempt budget. */
  async revive(id: number, at: Date) {
    const r = await this.db.query(
      'update jobs set dead_at = null, attempts = 0, run_at = $2 where id = $1 and dead_at is not null',
      [id, at],
    );
    return r.rowCount === 1;
  }

  /** One dead job (the back office's action reads it under its lock). */
  async lockDead(id: number) {
    const { rows } = await this.db.query<DeadJob>(
      'select id, kind, payload, attempts, last_error, dead_at from jobs where id = $1 and dead_at is not null for update',
      [id],
    );
    return rows[0];
  }

  /** An operator gives up on a dead job: done without running again (false when it is not dead). */
  async abandon(id: number, by: string, at: Date) {
    const r = await this.db.query(
      'update jobs set dead_at = null, done_at = $2, abandoned_at = $2, abandoned_by = $3 where id = $1 and dead_at is not null',
      [id, at, by],
    );
    return r.rowCount === 1;
  }

  /** Retention: finished jobs older than `before` (dead ones are kept until an operator handles them). */
  async sweep(before: Date) {
    const r = await this.db.query('delete from jobs where done_at is not null and done_at < $1', [before]);
    return r.rowCount;
  }
}
