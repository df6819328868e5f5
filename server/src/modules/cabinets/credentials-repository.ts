// The cabinet_credentials table (owned by the cabinets module): each cabinet's broker password hash; and the
// cabinet_token_secrets table: a TCP-family cabinet's token secret, sealed (token-secrets.ts).
import type { Queryable } from '../../db/db.ts';

export class CabinetCredentialsRepository {
  constructor(private readonly db: Queryable) {}

  /** Issues (or replaces) a cabinet's credential hash. */
  async set(cabinetId: string, hash: string, at: Date) {
    await this.db.query(
      `insert into cabinet_credentials (cabinet_id, password_hash, created_at) values ($1, $2, $3)
       on conflict (cabinet_id) do update set password_hash = excluded.password_hash, created_at = excluded.created_at`,
      [cabinetId, hash, at],
    );
  }

  async hashOf(cabinetId: string) {
    const { rows } = await this.db.query<{ password_hash: string }>(
      'select password_hash from cabinet_credentials where cabinet_id = $1',
      [cabinetId],
    );
    return rows[0]?.password_hash;
  }

  async all() {
    const { rows } = await this.db.query<{ cabinet_id: string; password_hash: string }>(
      'select cabinet_id, password_hash from cabinet_credentials order by cabinet_id',
    );
    return rows;
  }

  async cabinetExists(cabinetId: string) {
    const { rows } = await this.db.query('select 1 from cabinets where id = $1', [cabinetId]);
    return rows.length === 1;
  }

  /** Issues (or replaces) a cabinet's sealed token secret. */
  async setTokenSecret(cabinetId: string, sealed: string, at: Date) {
    await this.db.query(
      `insert into cabinet_token_secrets (cabinet_id, sealed, created_at) values ($1, $2, $3)
       on conflict (cabinet_id) do update set sealed = excluded.sealed, created_at = excluded.created_at`,
      [cabinetId, sealed, at],
    );
  }

  async sealedTokenSecret(cabinetId: string) {
    const { rows } = await this.db.query<{ sealed: string }>(
      'select sealed from cabinet_token_secrets where cabinet_id = $1',
      [cabinetId],
    );
    return rows[0]?.sealed;
  }

  async vendorOf(cabinetId: string) {
    const { rows } = await this.db.query<{ vendor: string }>('select vendor from cabinets where id = $1', [cabinetId]);
    return rows[0]?.vendor;
  }
}
