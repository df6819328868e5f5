// One query layer over PostgreSQL: PGlite (embedded, default) or a pg Pool (DATABASE_URL). One SQL dialect.
// `tx` runs a callback in a transaction; repositories take an optional `Queryable` so they work in or out of one.
import { PGlite, type Transaction } from '@electric-sql/pglite';
import pg from 'pg';

export interface Queryable {
  /**
   * `opts.name` makes it a named prepared statement on PostgreSQL (parsed and planned once per connection; the
   * name must always go with the same SQL). For the hot path only; PGlite ignores it.
   */
  query<R = Record<string, unknown>>(sql: string, params?: unknown[], opts?: { name?: string }): Promise<{ rows: R[]; rowCount: number }>;
}

export interface Db extends Queryable {
  readonly kind: 'pglite' | 'postgres';
  tx<T>(fn: (tx: Queryable) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

// int8 and numeric come back as strings from pg; we keep money in bigint columns and read them as numbers
// (minor units stay far below 2^53).
pg.types.setTypeParser(20, (v) => Number(v));
pg.types.setTypeParser(1700, (v) => Number(v));

function normaliseRow<R>(row: Record<string, unknown>): R {
  for (const k of Object.keys(row)) if (typeof row[k] === 'bigint') row[k] = Number(row[k]);
  return row as R;
}

export async function openPglite(dataDir?: string): Promise<Db> {
  const lite = await PGlite.create(dataDir);
  const wrap = (q: PGlite | Transaction): Queryable => ({
    async query<R>(sql: string, params: unknown[] = []) {
      const res = await q.query<Record<string, unknown>>(sql, params);
      return { rows: res.rows.map((r) => normaliseRow<R>(r)), rowCount: res.affectedRows ?? res.rows.length };
    },
  });
  const base = wrap(lite);
  return {
    kind: 'pglite',
    query: base.query,
    tx: (fn) => lite.transaction((t) => fn(wrap(t))),
    close: () => lite.close(),
  };
}

/** `schema` (tests) puts every table of this connection in its own schema, created if missing. */
export async function openPostgres(url: string, opts: { schema?: string; max?: number } = {}): Promise<Db> {
  if (opts.schema && !/^[a-z_][a-z0-9_]*$/.test(opts.schema)) throw new Error('bad schema name');
  if (opts.schema) {
    const c = new pg.Client({ connectionString: url });
    await c.connect();
    await c.query(`create schema if not exists ${opts.schema}`);
    await c.end();
  }
  const pool = new pg.Pool({
    connectionString: url,
    max: opts.max ?? 10,
    ...(opts.schema ? { options: `-c search_path=${opts.schema}` } : {}),
  });
  const wrap = (q: pg.Pool | pg.PoolClient): Queryable => ({
    async query<R>(sql: string, params: unknown[] = [], opts: { name?: string } = {}) {
      const res = opts.name ? await q.query({ name: opts.name, text: sql, values: params }) : await q.query(sql, params);
      return { rows: res.rows as R[], rowCount: res.rowCount ?? 0 };
    },
  });
  const base = wrap(pool);
  return {
    kind: 'postgres',
    query: base.query,
    async tx(fn) {
      const client = await pool.connect();
      try {
        await client.query('begin');
        const out = await fn(wrap(client));
        await client.query('commit');
        return out;
      } catch (err) {
        await client.query('rollback').catch(() => undefined);
        throw err;
      } finally {
        client.release();
      }
    },
    close: () => pool.end(),
  };
}

export async function openDb(cfg: { databaseUrl?: string; dataDir?: string; schema?: string }): Promise<Db> {
  return cfg.databaseUrl ? openPostgres(cfg.databaseUrl, { schema: cfg.schema }) : openPglite(cfg.dataDir);
}
