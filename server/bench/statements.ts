// `BENCH_STATEMENTS=1 npm run bench:live`: which statements the API process sends to PostgreSQL during the burst,
// counted by text. live.ts preloads this module into the API process (`--import`, with BENCH_STATEMENTS_API set),
// where it counts every query node-postgres sends and answers the bench's `{ id, statements: 'reset' | 'take' }`;
// the bench uses `statementsOf` to ask. PostgreSQL only (PGlite has no node-postgres client).
// Where the server has pg_stat_statements (`shared_preload_libraries = 'pg_stat_statements'`, then `create extension
// pg_stat_statements`; `pg_stat_statements.track = all` also counts the statements inside functions and triggers),
// `serverTimesOf` reads PostgreSQL's own execution time per statement before and after the burst: what each costs
// there, lock waits included. It reads the server's statistics without resetting them (other clients' statements
// in the window count too: use a quiet server).
import pg from 'pg';

export type Counted = { sql: string; n: number };

if (process.env.BENCH_STATEMENTS_API && process.send) {
  const counts = new Map<string, number>();
  const query = pg.Client.prototype.query as (...args: unknown[]) => unknown;
  (pg.Client.prototype as unknown as { query: typeof query }).query = function (this: pg.Client, ...args: unknown[]) {
    const c = args[0] as string | { text?: string };
    const text = (typeof c === 'string' ? c : (c.text ?? '')).replace(/\s+/g, ' ').trim();
    counts.set(text, (counts.get(text) ?? 0) + 1);
    return query.apply(this, args);
  };
  process.on('message', (m: { id?: number; statements?: 'reset' | 'take' }) => {
    if (!m.statements) return;
    const rows = [...counts].map(([sql, n]) => ({ sql, n })).sort((a, b) => b.n - a.n);
    if (m.statements === 'reset') counts.clear();
    process.send!({ id: m.id, rows: m.statements === 'take' ? rows : [] });
  });
}

/** The bench's side: `ask` sends a message to the API process and resolves with its answer's rows. */
export function statementsOf(ask: (m: { statements: 'reset' | 'take' }) => Promise<unknown[]>) {
  return {
    reset: async () => void (await ask({ statements: 'reset' })),
    take: async () => (await ask({ statements: 'take' })) as Counted[],
  };
}

type ServerStat = { queryid: string; calls: number; ms: number; toplevel: boolean; query: string };

/** PostgreSQL's execution time per statement in a window (pg_stat_statements), or undefined where it is not installed. */
export async function serverTimesOf(query: (sql: string) => Promise<unknown[]>) {
  const read = async () =>
    new Map(
      (
        (await query(
          `select queryid::text, calls::int, total_exec_time as ms, toplevel, regexp_replace(query, '\\s+', ' ', 'g') as query
           from public.pg_stat_statements`,
        )) as ServerStat[]
      ).map((r) => [`${r.queryid}/${r.toplevel}`, r]),
    );
  const before = await read().catch(() => undefined);
  if (!before) return undefined;
  return async () =>
    [...(await read())]
      .map(([k, r]) => ({ ...r, calls: r.calls - (before.get(k)?.calls ?? 0), ms: r.ms - (before.get(k)?.ms ?? 0) }))
      .filter((r) => r.calls > 0)
      .sort((a, b) => b.ms - a.ms);
}
