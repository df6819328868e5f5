import type { Queryable } from '../../db/db.ts';

export interface UserRow {
  id: number;
  kind: 'tourist' | 'user';
  name: string;
  device_code: string | null;
  currency: string;
  email: string | null;
  mobile: string | null;
}

export class AuthRepository {
  constructor(private readonly db: Queryable) {}

  async userByDeviceCode(code: string, q: Queryable = this.db) {
    const { rows } = await q.query<UserRow>('select * from users where device_code = $1', [code]);
    return rows[0];
  }

  async createUser(u: { kind: 'tourist'; name: string; deviceCode: string | null; currency: string; at: Date }, q: Queryable = this.db) {
    const { rows } = await q.query<UserRow>(
      `insert into users (kind, name, device_code, currency, created_at) values ($1,$2,$3,$4,$5)
       on conflict (device_code) do update set device_code = excluded.device_code returning *`,
      [u.kind, u.name, u.deviceCode, u.currency, u.at],
    );
    return rows[0]!;
  }

  async user(id: number, q: Queryable = this.db) {
    const { rows } = await q.query<UserRow>('select * from users where id = $1', [id]);
    return rows[0];
  }

  async setCurrency(id: number, currency: string, q: Queryable = this.db) {
    await q.query('update users set currency = $2 where id = $1', [id, currency]);
  }

  async createSession(s: { tokenHash: string; userId: number; at: Date; expiresAt: Date }, q: Queryable = this.db) {
    await q.query('insert into sessions (token_hash, user_id, created_at, expires_at) values ($1,$2,$3,$4)', [
      s.tokenHash, s.userId, s.at, s.expiresAt,
    ]);
  }

  async userBySession(tokenHash: string, now: Date, q: Queryable = this.db) {
    const { rows } = await q.query<UserRow>(
      'select u.* from sessions s join users u on u.id = s.user_id where s.token_hash = $1 and s.expires_at > $2 and s.revoked_at is null',
      [tokenHash, now],
      { name: 'auth.userBySession' },
    );
    return rows[0];
  }

  async revokeSession(tokenHash: string, at: Date, q: Queryable = this.db) {
    const r = await q.query('update sessions set revoked_at = $2 where token_hash = $1 and revoked_at is null', [tokenHash, at]);
    return r.rowCount > 0;
  }
}
