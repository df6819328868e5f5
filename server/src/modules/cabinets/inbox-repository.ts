// The cabinet inbox (cabinet_events: every event stored before it is acknowledged, then processed with retries)
// and the counters of refused messages (cabinet_rejects), with their retention. The base of CabinetsRepository.
import type { Queryable } from '../../db/db.ts';

/** A row of the inbox (cabinet_events). */
export interface InboxRow {
  id: string;
  cabinet_id: string;
  type: string;
  payload: unknown;
  state: 'pending' | 'done' | 'dead';
  attempts: number;
  received_at: Date;
  last_error: string | null;
}

export class CabinetInbox {
  constructor(protected readonly db: Queryable) {}

  /**
   * Stores an event of a known cabinet in the inbox, pending; a repeat (same cabinet and event id) changes nothing.
   * Whether the cabinet is known (one statement: nothing is stored for an unknown one).
   */
  async storeEvent(e: {
    id: string;
    cabinetId: string;
    type: string;
    ts: string;
    powerbankId: string | null;
    payload: unknown;
    at: Date;
  }) {
    const { rows } = await this.db.query<{ known: boolean }>(
      `with c as (select exists (select 1 from cabinets where id = $2) as known),
            stored as (
              insert into cabinet_events (id, cabinet_id, type, cabinet_ts, payload, received_at, state, powerbank_id, next_attempt_at)
              select $1, $2, $3, $4::timestamptz, $5::jsonb, $6::timestamptz, 'pending', $7, $6::timestamptz from c where c.known
              on conflict (id) do nothing)
       select known from c`,
      [`${e.cabinetId}:${e.id}`, e.cabinetId, e.type, e.ts, JSON.stringify(e.payload), e.at, e.powerbankId],
    );
    return rows[0]?.known === true;
  }

  /** Takes a pending event for processing (row-locked until the unit of work ends; another process skips it). */
  async claimEvent(key: string) {
    const { rows } = await this.db.query<InboxRow>(
      `select * from cabinet_events where id = $1 and state = 'pending' for update skip locked`,
      [key],
    );
    return rows[0];
  }

  async eventDone(key: string, at: Date) {
    await this.db.query(
      `update cabinet_events set state = 'done', processed_at = $2, last_error = null where id = $1`,
      [key, at],
    );
  }

  /** A failed attempt: retried after a backoff (1 s doubling, at most 5 min), or 'dead' after `maxAttempts`. */
  async eventFailed(key: string, error: string, at: Date, maxAttempts: number) {
    const { rows } = await this.db.query<{ state: string; attempts: number }>(
      `update cabinet_events set attempts = attempts + 1, last_error = $2,
         next_attempt_at = $3::timestamptz + least(300, power(2, attempts)) * interval '1 second',
         state = case when attempts + 1 >= $4 then 'dead' else 'pending' end
        where id = $1 and state = 'pending' returning state, attempts`,
      [key, error.slice(0, 2000), at, maxAttempts],
    );
    return rows[0];
  }

  /** Pending events due for an attempt, oldest first. */
  async dueEvents(now: Date, limit: number) {
    const { rows } = await this.db.query<{ id: string }>(
      `select id from cabinet_events where state = 'pending' and next_attempt_at <= $1 order by received_at, id limit $2`,
      [now, limit],
    );
    return rows.map((r) => r.id);
  }

  /** How many inbox events are dead (the health check reports it). */
  async deadCount() {
    const { rows } = await this.db.query<{ n: number }>(
      `select count(*)::int as n from cabinet_events where state = 'dead'`,
    );
    return Number(rows[0]!.n);
  }

  /** The inbox as an operator sees it: counts by state, and the dead (or every pending) events. */
  async inbox(state: 'dead' | 'pending', limit = 100) {
    const { rows: counts } = await this.db.query<{ state: string; n: number }>(
      `select state, count(*)::int as n from cabinet_events group by state order by state`,
    );
    const { rows } = await this.db.query<InboxRow>(
      `select id, cabinet_id, type, payload, state, attempts, received_at, last_error from cabinet_events where state = $1
        order by received_at limit $2`,
      [state, limit],
    );
    return { counts: counts.map((c) => ({ state: c.state, n: Number(c.n) })), events: rows };
  }

  /** An operator sends a dead event back to processing (after fixing its cause). */
  async retryEvent(key: string, now: Date) {
    const res = await this.db.query(
      `update cabinet_events set state = 'pending', attempts = 0, next_attempt_at = $2 where id = $1 and state = 'dead'`,
      [key, now],
    );
    return res.rowCount === 1;
  }

  /** Counts a message refused without storing (unknown version, malformed, unknown cabinet). */
  async reject(cabinetId: string, reason: string, payload: string, at: Date) {
    await this.db.query(
      `insert into cabinet_rejects (cabinet_id, reason, count, first_at, last_at, last_payload) values ($1, $2, 1, $3, $3, $4)
       on conflict (cabinet_id, reason) do update set count = cabinet_rejects.count + 1, last_at = $3, last_payload = $4`,
      [cabinetId.slice(0, 200), reason, at, payload],
    );
  }

  async rejects() {
    const { rows } = await this.db.query<{
      cabinet_id: string;
      reason: string;
      count: number;
      last_at: Date;
      last_payload: string | null;
    }>(
      'select cabinet_id, reason, count::int as count, last_at, last_payload from cabinet_rejects order by last_at desc',
    );
    return rows;
  }

  /** Retention: processed events, old commands and reject counters last updated before `before`. */
  async sweepEvents(before: Date, batch = 5000) {
    const res = await this.db.query(
      `delete from cabinet_events where id in (select id from cabinet_events where state = 'done' and processed_at < $1 limit $2)`,
      [before, batch],
    );
    return res.rowCount;
  }

  async sweepCommands(before: Date, batch = 5000) {
    const res = await this.db.query(
      `delete from cabinet_commands where id in (select id from cabinet_commands where created_at < $1 and expires_at < $1 limit $2)`,
      [before, batch],
    );
    return res.rowCount;
  }

  async sweepRejects(before: Date) {
    return (await this.db.query('delete from cabinet_rejects where last_at < $1', [before])).rowCount;
  }
}
