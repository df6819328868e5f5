// One query layer over PostgreSQL: PGlite (embedded, default) or a pg Pool (DATABASE_URL). One SQL dialect.
//
// Unit of work: `db.tx(fn)` opens a transaction and runs `fn` with it in an AsyncLocalStorage; every
// `db.query` made while `fn` runs (in any repository, however deep the call) goes to that transaction, so no
// transaction handle is passed around and none can be forgotten. Outside a `tx`, `db.query` autocommits.
//   - Nested `db.tx` inside a unit of work opens a SAVEPOINT: its failure rolls back only its own work (and
//     rethrows); its success releases the savepoint, and everything still commits or rolls back with the
//     outermost transaction. Nested units must be sequential, not run concurrently (Promise.all) in one unit.
//   - Independent statements of one step go together through `allOf` (not Promise.all): on PostgreSQL they are
//     pipelined (sent without waiting for each other, in one socket write), and run in the order written.
//   - Work that outlives its unit (a promise left running after `fn` returned) no longer sees it: its queries
//     autocommit on their own, never on a finished transaction.
//   - Each Db has its own storage: a unit of work on one database never captures queries on another.
import { AsyncLocalStorage } from 'node:async_hooks';
import { createHash } from 'node:crypto';
import net from 'node:net';
import { PGlite, type Transaction } from '@electric-sql/pglite';
import pg from 'pg';

export interface Queryable {
  /**
   * On PostgreSQL every query with parameters is a named prepared statement (parsed and planned once per
   * connection), named after its text unless `opts.name` names it (a name must always go with the same SQL).
   * PGlite ignores it.
   */
  query<R = Record<string, unknown>>(
    sql: string,
    params?: unknown[],
    opts?: { name?: string },
  ): Promise<{ rows: R[]; rowCount: number }>;
}

export interface Db extends Queryable {
  readonly kind: 'pglite' | 'postgres';
  /** Runs `fn` as one unit of work: every `query` of this Db inside it joins the transaction (see above). */
  tx<T>(fn: () => Promise<T>): Promise<T>;
  /** Whether the caller runs inside a unit of work of this Db. */
  inTx(): boolean;
  /**
   * Runs `fn` once the caller's unit of work has committed (its outermost transaction; inside a savepoint that rolls
   * back, never), or at once outside a unit (what came before autocommitted). Never after a rollback. `fn` is
   * synchronous and must not throw: it records what the commit made true (e.g. a stored response).
   */
  afterCommit(fn: () => void): void;
  /**
   * LISTEN on `channel` (a lowercase identifier) for this process: `fn(payload)` for each NOTIFY, and `fn(null)`
   * when the listening connection is lost and again once it is re-established (notifications in between may be
   * missed, so the listener should resynchronise). PGlite listens in-process; PostgreSQL holds one dedicated client
   * per Db. A NOTIFY sent inside a transaction is delivered only when it commits (PostgreSQL semantics).
   */
  listen(channel: string, fn: (payload: string | null) => void): Promise<() => Promise<void>>;
  /** Whether this process hears notifications now (false while the listening connection is down). */
  hearing(): boolean;
  close(): Promise<void>;
}

/**
 * Promise.all for statements sent together in a unit of work (pipelined on PostgreSQL): settles once every one of
 * them has, so no part of a failed step is left running (and autocommitting) after its unit has ended, and rejects
 * with the first real failure (the statements after it fail only because the transaction is aborted).
 */
export async function allOf<T extends readonly unknown[] | []>(
  steps: T,
): Promise<{ -readonly [K in keyof T]: Awaited<T[K]> }> {
  const settled = await Promise.allSettled(steps);
  const failures = settled.flatMap((r) => (r.status === 'rejected' ? [r.reason as unknown] : []));
  if (failures.length) throw failures.find((e) => (e as { code?: string }).code !== IN_FAILED_TX) ?? failures[0];
  return settled.map((r) => (r as PromiseFulfilledResult<unknown>).value) as {
    -readonly [K in keyof T]: Awaited<T[K]>;
  };
}

/** PostgreSQL's "current transaction is aborted, commands ignored until end of transaction block". */
const IN_FAILED_TX = '25P02';

interface Unit {
  q: Queryable;
  open: boolean;
  savepoints: number;
  /** What runs after the commit (Db.afterCommit). */
  after: (() => void)[];
}

/** The unit-of-work layer over a driver: `begin` runs a callback inside one real transaction. */
function unitOfWork(
  kind: Db['kind'],
  base: Queryable,
  begin: <T>(fn: (q: Queryable) => Promise<T>) => Promise<T>,
  close: () => Promise<void>,
  listen: Db['listen'],
  hearing: Db['hearing'] = () => true,
): Db {
  const current = new AsyncLocalStorage<Unit>();
  const active = () => {
    const u = current.getStore();
    return u?.open ? u : undefined;
  };
  return {
    kind,
    query: (sql, params, opts) => (active()?.q ?? base).query(sql, params, opts),
    inTx: () => active() !== undefined,
    afterCommit(fn) {
      const u = active();
      if (u) u.after.push(fn);
      else fn();
    },
    async tx<T>(fn: () => Promise<T>): Promise<T> {
      const outer = active();
      if (outer) {
        const name = `powerly_sp_${++outer.savepoints}`;
        const hooks = outer.after.length;
        await outer.q.query(`savepoint ${name}`);
        try {
          const out = await fn();
          await outer.q.query(`release savepoint ${name}`);
          return out;
        } catch (err) {
          outer.after.length = hooks; // what the savepoint's work registered is rolled back with it
          await outer.q.query(`rollback to savepoint ${name}`).catch(() => undefined);
          throw err;
        }
      }
      const after: (() => void)[] = [];
      const out = await begin(async (q) => {
        const unit: Unit = { q, open: true, savepoints: 0, after };
        try {
          return await current.run(unit, fn);
        } finally {
          unit.open = false;
        }
      });
      for (const f of after) f();
      return out;
    },
    listen,
    hearing,
    close,
  };
}

const CHANNEL = /^[a-z_][a-z0-9_]{0,62}$/;

/**
 * The NOTIFY channel `prefix` of one database schema (tests and tenants sharing a PostgreSQL server never hear each
 * other). The scan cache's triggers (migration 20261127120000) derive the same name in SQL.
 */
export const schemaChannel = (prefix: string, schema: string) =>
  `${prefix}${schema.toLowerCase().replace(/[^a-z0-9_]/g, '_')}`.slice(0, 63);

// int8 and numeric come back as strings from pg; we keep money in bigint columns and read them as numbers
// (minor units stay far below 2^53).
pg.types.setTypeParser(20, (v) => Number(v));
pg.types.setTypeParser(1700, (v) => Number(v));

function normaliseRow<R>(row: Record<string, unknown>): R {
  for (const k of Object.keys(row)) if (typeof row[k] === 'bigint') row[k] = Number(row[k]);
  return row as R;
}

/**
 * `image` (tests): start from a database image made by `pgliteImage` instead of an empty cluster, which skips
 * initdb (most of PGlite's start-up time) and whatever the image's setup did.
 */
export async function openPglite(dataDir?: string, image?: Blob): Promise<Db> {
  const lite = await PGlite.create(dataDir, image ? { loadDataDir: image } : undefined);
  return pgliteDb(lite);
}

/**
 * An in-memory PGlite prepared by `setup` (e.g. migrated and seeded), as an image `openPglite` can start from. Its
 * WAL segments are 1 MB rather than 16: the image is a quarter smaller and each start from it unpacks less.
 */
export async function pgliteImage(setup: (db: Db) => Promise<void>): Promise<Blob> {
  const lite = await PGlite.create({ initDbStartParams: ['--wal-segsize=1'] });
  try {
    await setup(pgliteDb(lite));
    return await lite.dumpDataDir('none');
  } finally {
    await lite.close();
  }
}

function pgliteDb(lite: PGlite): Db {
  const wrap = (q: PGlite | Transaction): Queryable => ({
    async query<R>(sql: string, params: unknown[] = []) {
      const res = await q.query<Record<string, unknown>>(sql, params);
      return { rows: res.rows.map((r) => normaliseRow<R>(r)), rowCount: res.affectedRows ?? res.rows.length };
    },
  });
  const listen: Db['listen'] = async (channel, fn) => {
    if (!CHANNEL.test(channel)) throw new Error('bad channel name');
    return lite.listen(channel, (payload) => fn(payload));
  };
  return unitOfWork(
    'pglite',
    wrap(lite),
    (fn) => lite.transaction((t) => fn(wrap(t))),
    () => lite.close(),
    listen,
  );
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
  const listener = pgListener(url, opts.schema);
  const pool = new pg.Pool({
    connectionString: url,
    max: opts.max ?? 10,
    // Statements sent together (a unit of work's independent statements under allOf, its `begin` with its first
    // statement) go without waiting for each other's answers, and leave in one write (see coalescingSocket).
    pipeline: true,
    stream: coalescingSocket,
    ...(opts.schema ? { options: `-c search_path=${opts.schema}` } : {}),
  });
  // An idle connection lost (PostgreSQL restarted, the backend terminated): the pool drops it and the next query
  // opens another. Unheard, the pool's 'error' would end the process.
  pool.on('error', () => undefined);
  // Every query with parameters is a named prepared statement, parsed and planned once per connection: for the
  // short statements of the hot paths, the parse and plan were about half of each round trip's cost in
  // PostgreSQL. The name is derived from the text, so one name always goes with the same SQL. A query without
  // parameters (DDL, the migrations' scripts of several statements) keeps the simple protocol.
  const names = new Map<string, string>();
  const nameOf = (sql: string) => {
    let n = names.get(sql);
    if (!n) names.set(sql, (n = `q_${createHash('sha1').update(sql).digest('base64url')}`));
    return n;
  };
  const wrap = (q: pg.Pool | pg.PoolClient): Queryable => ({
    async query<R>(sql: string, params: unknown[] = [], opts: { name?: string } = {}) {
      const name = opts.name ?? (params.length ? nameOf(sql) : undefined);
      const res = name ? await q.query({ name, text: sql, values: params }) : await q.query(sql, params);
      return { rows: res.rows as R[], rowCount: res.rowCount ?? 0 };
    },
  });
  return unitOfWork(
    'postgres',
    wrap(pool),
    async (fn) => {
      const client = await pool.connect();
      // A connection lost while the unit holds it (PostgreSQL restarted, the backend terminated) rejects the unit's
      // statements; the client also emits 'error', which, unheard, would end the process. It is heard here, and the
      // client is released as broken (the pool drops it).
      let lost: Error | undefined;
      const onLost = (err: Error) => (lost = err);
      client.on('error', onLost);
      try {
        // `begin` goes out with the unit's first statement (pipelined): one round trip fewer per transaction. Its
        // answer is awaited before the commit; it fails only with the connection, and then so does every statement.
        const began = client.query('begin');
        began.catch(() => undefined);
        const out = await fn(wrap(client));
        await began;
        await client.query('commit');
        return out;
      } catch (err) {
        await client.query('rollback').catch(() => undefined);
        throw err;
      } finally {
        client.removeListener('error', onLost);
        client.release(lost);
      }
    },
    async () => {
      await listener.close();
      await pool.end();
    },
    (channel, fn) => listener.add(channel, fn),
    () => listener.hearing(),
  );
}

/**
 * The pool's socket: every write made in one tick (the messages of statements sent together on a pipelined
 * connection) leaves in one system call at the end of the tick, instead of one each (system calls are dear on
 * virtualised hosts: docs/benchmarks.md). `net.Socket#connect` puts the prototype's `write` back on the socket, so
 * the coalescing `write` is installed after it.
 */
export function coalescingSocket(): net.Socket {
  const socket = new net.Socket();
  const write = net.Socket.prototype.write;
  let corked = false;
  const flush = () => {
    corked = false;
    socket.uncork();
  };
  const coalesced = function (this: net.Socket, ...args: Parameters<net.Socket['write']>) {
    if (!corked) {
      corked = true;
      this.cork();
      process.nextTick(flush);
    }
    return write.apply(this, args);
  } as net.Socket['write'];
  const connect = socket.connect;
  socket.connect = function (this: net.Socket, ...args: Parameters<net.Socket['connect']>) {
    connect.apply(this, args);
    this.write = coalesced;
    return this;
  } as net.Socket['connect'];
  return socket;
}

/**
 * The dedicated LISTEN connection of one PostgreSQL Db (a pooled client cannot hold LISTEN). Opened on the first
 * listen; when it drops it tells each listener (null), reconnects with backoff until it is back, re-LISTENs every
 * channel and tells each listener again.
 */
function pgListener(url: string, schema?: string) {
  const channels = new Map<string, Set<(payload: string | null) => void>>();
  let client: pg.Client | null = null;
  let connecting: Promise<pg.Client> | null = null;
  let closed = false;
  let retry: ReturnType<typeof setTimeout> | undefined;
  let attempt = 0;

  const tell = () => {
    for (const set of channels.values()) for (const fn of set) fn(null);
  };
  // Until it is back: each failed attempt schedules the next (backoff up to 10 s).
  const reconnect = () => {
    if (closed) return;
    retry = setTimeout(() => void connect().then(tell, reconnect), Math.min(10_000, 250 * 2 ** attempt++));
  };
  const connect = (): Promise<pg.Client> => {
    connecting ??= (async () => {
      const c = new pg.Client({ connectionString: url, ...(schema ? { options: `-c search_path=${schema}` } : {}) });
      c.on('notification', (n) => {
        for (const fn of channels.get(n.channel) ?? []) fn(n.payload ?? '');
      });
      const lost = () => {
        if (client !== c) return;
        client = null;
        connecting = null;
        c.removeAllListeners('end');
        void c.end().catch(() => undefined);
        if (closed) return;
        tell();
        reconnect();
      };
      c.on('error', lost);
      c.on('end', lost);
      try {
        await c.connect();
        for (const ch of channels.keys()) await c.query(`listen ${ch}`);
      } catch (err) {
        connecting = null;
        void c.end().catch(() => undefined);
        throw err;
      }
      attempt = 0;
      client = c;
      return c;
    })();
    return connecting;
  };

  return {
    async add(channel: string, fn: (payload: string | null) => void): Promise<() => Promise<void>> {
      if (!CHANNEL.test(channel)) throw new Error('bad channel name');
      let set = channels.get(channel);
      const first = !set;
      if (!set) channels.set(channel, (set = new Set()));
      set.add(fn);
      const c = await connect();
      if (first) await c.query(`listen ${channel}`);
      return async () => {
        set.delete(fn);
        if (set.size || channels.get(channel) !== set) return;
        channels.delete(channel);
        await client?.query(`unlisten ${channel}`).catch(() => undefined);
      };
    },
    hearing: () => client !== null,
    async close() {
      closed = true;
      clearTimeout(retry);
      const c = client;
      client = null;
      if (c) {
        c.removeAllListeners('end');
        await c.end().catch(() => undefined);
      }
    },
  };
}

export async function openDb(cfg: { databaseUrl?: string; dataDir?: string; schema?: string }): Promise<Db> {
  return cfg.databaseUrl ? openPostgres(cfg.databaseUrl, { schema: cfg.schema }) : openPglite(cfg.dataDir);
}
