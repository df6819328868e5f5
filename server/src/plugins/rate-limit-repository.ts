// The rate_limits table (owned by the rate-limit plugin): one counter per key and fixed window, shared by every
// API process through the database (no Redis dependency).
import type { Queryable } from '../db/db.ts';

export class RateLimitRepository {
  constructor(private readonly db: Queryable) {}

  /** Counts one hit of `key` in its window (a new window when the last one ended); returns the count and its end. */
  async hit(key: string, now: Date, windowMs: number) {
    const { rows } = await this.db.query<{ hits: number; window_ends_at: Date }>(
      `insert into rate_limits (key, hits, window_ends_at) values ($1, 1, $2)
       on conflict (key) do update set
         hits = case when rate_limits.window_ends_at <= $3 then 1 else rate_limits.hits + 1 end,
         window_ends_at = case when rate_limits.window_ends_at <= $3 then excluded.window_ends_at else rate_limits.window_ends_at end
       returning hits, window_ends_at`,
      [key, new Date(now.getTime() + windowMs), now],
      { name: 'rate_limit_hit' },
    );
    return { hits: Number(rows[0]!.hits), endsAt: new Date(rows[0]!.window_ends_at) };
  }

  /** Retention: windows that ended before `before`. */
  async sweep(before: Date) {
    return (await this.db.query('delete from rate_limits where window_ends_at < $1', [before])).rowCount;
  }
}
