// Timestamped, forward-only migrations: server/migrations/<yyyymmddhhmmss>_<name>.sql, applied in name order,
// each recorded in schema_migrations. The whole run holds a transaction-scoped advisory lock, so two
// processes starting together on one PostgreSQL apply each migration once.
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Db } from './db.ts';

const DIR = fileURLToPath(new URL('../../migrations/', import.meta.url));
const LOCK_KEY = 7_202_611; // any constant shared by every Powerly process

export async function migrate(db: Db, log: (msg: string) => void = () => undefined): Promise<string[]> {
  const files = readdirSync(DIR)
    .filter((f) => /^\d{14}_[\w-]+\.sql$/.test(f))
    .sort();
  return db.tx(async () => {
    await db.query('select pg_advisory_xact_lock($1)', [LOCK_KEY]);
    await db.query(
      'create table if not exists schema_migrations (name text primary key, applied_at timestamptz not null default now())',
    );
    const done = new Set(
      (await db.query<{ name: string }>('select name from schema_migrations')).rows.map((r) => r.name),
    );
    const applied: string[] = [];
    for (const f of files) {
      if (done.has(f)) continue;
      const sql = readFileSync(DIR + f, 'utf8');
      for (const stmt of splitStatements(sql)) await db.query(stmt);
      await db.query('insert into schema_migrations (name) values ($1)', [f]);
      applied.push(f);
      log(`migration applied: ${f}`);
    }
    return applied;
  });
}

/**
 * Statements separated by `;` at the end of a line, except inside a dollar-quoted body (`$$ … $$`: a function's
 * statements end in `;` too).
 */
function splitStatements(sql: string): string[] {
  const out: string[] = [];
  let current = '';
  let quoted = false;
  for (const line of sql.split('\n')) {
    current += `${line}\n`;
    if ((line.match(/\$\$/g) ?? []).length % 2 === 1) quoted = !quoted;
    if (!quoted && /;\s*$/.test(line)) {
      out.push(current.replace(/;\s*$/, ''));
      current = '';
    }
  }
  out.push(current);
  return out.map((s) => s.replace(/^\s*--.*$/gm, '').trim()).filter(Boolean);
}
