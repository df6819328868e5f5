// The installation_secrets table: secrets an installation generates on its first start (the sandbox's webhook
// secret, the sandbox embed signing key) so that no secret is a constant in the public source. Every API process
// on the same database reads the same value; the first to start makes it (insert … on conflict do nothing).
import { randomBytes } from 'node:crypto';
import type { Queryable } from '../db/db.ts';

export class SecretsRepository {
  constructor(private readonly db: Queryable) {}

  /** The installation's secret `name`, made on first use (by `make`; default 32 random bytes, base64url). */
  async get(
    name: string,
    at: Date = new Date(),
    make: () => string = () => randomBytes(32).toString('base64url'),
  ): Promise<string> {
    await this.db.query(
      'insert into installation_secrets (name, value, created_at) values ($1, $2, $3) on conflict (name) do nothing',
      [name, make(), at],
    );
    const { rows } = await this.db.query<{ value: string }>('select value from installation_secrets where name = $1', [
      name,
    ]);
    return rows[0]!.value;
  }
}
