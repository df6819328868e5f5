// Riders blocked in the back office (users.blocked_*): the auth module owns the users table.
import type { Queryable } from '../../db/db.ts';
import type { UserRow } from './repository.ts';

export type BlockedUserRow = UserRow & {
  created_at: Date;
  blocked_at: Date | null;
  blocked_reason: string | null;
  blocked_by: string | null;
};

export class RiderBlocksRepository {
  constructor(private readonly db: Queryable) {}

  async lock(id: string): Promise<BlockedUserRow | undefined> {
    const { rows } = await this.db.query<BlockedUserRow>('select * from users where id = $1 for no key update', [id]);
    return rows[0];
  }

  async find(id: string): Promise<BlockedUserRow | undefined> {
    const { rows } = await this.db.query<BlockedUserRow>('select * from users where id = $1', [id]);
    return rows[0];
  }

  async set(id: string, b: { at: Date; reason: string; by: string } | null) {
    await this.db.query('update users set blocked_at = $2, blocked_reason = $3, blocked_by = $4 where id = $1', [
      id,
      b?.at ?? null,
      b?.reason ?? null,
      b?.by ?? null,
    ]);
  }
}
