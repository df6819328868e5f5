import type { Queryable } from '../../db/db.ts';

/** Owns live_tickets, and sends the live NOTIFY (inside the caller's unit of work: delivered when it commits). */
export class LiveRepository {
  constructor(private readonly db: Queryable) {}

  async notify(channel: string, payload: string): Promise<void> {
    await this.db.query('select pg_notify($1, $2)', [channel, payload]);
  }

  async schema(): Promise<string> {
    const { rows } = await this.db.query<{ s: string }>('select current_schema() as s');
    return rows[0]?.s ?? 'public';
  }

  async insertTicket(hash: string, userId: number, expiresAt: Date): Promise<void> {
    await this.db.query('insert into live_tickets (ticket_hash, user_id, expires_at) values ($1, $2, $3)', [
      hash,
      userId,
      expiresAt,
    ]);
  }

  /** Consumes a ticket: its user when it exists and has not expired; it is gone afterwards either way. */
  async takeTicket(hash: string, now: Date): Promise<number | undefined> {
    const { rows } = await this.db.query<{ user_id: number; expires_at: Date }>(
      'delete from live_tickets where ticket_hash = $1 returning user_id, expires_at',
      [hash],
    );
    const r = rows[0];
    return r && new Date(r.expires_at) > now ? Number(r.user_id) : undefined;
  }

  async deleteExpired(now: Date): Promise<void> {
    await this.db.query('delete from live_tickets where expires_at <= $1', [now]);
  }
}
