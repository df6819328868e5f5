// The idempotency_keys table: one row per (user, Idempotency-Key) — the claim, the request's hash and the stored
// response (see lib/idempotency.ts for the protocol).
import type { Db } from '../db/db.ts';
import { STALE_KEY_MS, type ExistingKey, type KeyStore } from '../lib/idempotency.ts';

export class IdempotencyStore implements KeyStore {
  constructor(private readonly db: Db) {}

  afterCommit(fn: () => void) {
    this.db.afterCommit(fn);
  }

  async claimKey(userId: number, key: string, hash: string, at: Date) {
    const ins = await this.db.query(
      `insert into idempotency_keys (user_id, key, request_hash, state, created_at) values ($1,$2,$3,'started',$4)
       on conflict (user_id, key) do nothing`,
      [userId, key, hash, at],
    );
    if (ins.rowCount === 1) return { claimed: true as const };
    const takeover = await this.db.query(
      `update idempotency_keys set created_at = $4 where user_id = $1 and key = $2 and request_hash = $3
          and state = 'started' and created_at < $5`,
      [userId, key, hash, at, new Date(at.getTime() - STALE_KEY_MS)],
    );
    if (takeover.rowCount === 1) return { claimed: true as const };
    const { rows } = await this.db.query<ExistingKey>(
      'select request_hash, state, response_code, response_body from idempotency_keys where user_id = $1 and key = $2',
      [userId, key],
    );
    return { claimed: false as const, existing: rows[0] };
  }

  async completeKey(userId: number, key: string, code: number, body: unknown) {
    const r = await this.db.query(
      `update idempotency_keys set state = 'done', response_code = $3, response_body = $4 where user_id = $1 and key = $2 and state = 'started'`,
      [userId, key, code, JSON.stringify(body)],
    );
    return r.rowCount === 1;
  }

  /** Retention: keys created before `before` (a client retries within minutes; a replay after that runs anew). */
  async sweep(before: Date) {
    return (await this.db.query('delete from idempotency_keys where created_at < $1', [before])).rowCount;
  }

  async releaseKey(userId: number, key: string) {
    await this.db.query(`delete from idempotency_keys where user_id = $1 and key = $2 and state = 'started'`, [
      userId,
      key,
    ]);
  }
}
