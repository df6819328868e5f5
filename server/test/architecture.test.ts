// Architecture rules of the server (DESIGN.md "Server"), checked on the source tree:
//   SQL lives only in repositories (files named repository.ts or <something>-repository.ts) and in the db layer
//   (server/src/db: connection, migrations runner). Services, routes, jobs, adapters and scripts reach tables
//   through a repository, so every statement has one owner and runs in the current unit of work.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../src', import.meta.url));

function tsFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) return tsFiles(p);
    return p.endsWith('.ts') ? [p] : [];
  });
}

const allowed = (rel: string) => /(^|\/|-)repository\.ts$/.test(rel) || rel.startsWith('db/');

/** SQL statements in string or template literals, and calls of a query function. */
const SQL = [
  /['"`]\s*(select|insert\s+into|update\s+\w+\s+set|delete\s+from|with\s+\w+\s+as)\b/i,
  /\b(insert\s+into|delete\s+from)\s+\w+/i,
  /\bselect\s+[\w*.,\s()]+\s+from\s+\w+/i,
  /\bupdate\s+\w+\s+set\s+\w+\s*=/i,
  /\.query\s*(<[^>]*>)?\s*\(/,
];

/** Lines of `source` that look like SQL or run a query, ignoring comments. */
export function sqlLines(source: string): string[] {
  return source
    .split('\n')
    .filter((line) => !/^\s*(\/\/|\*|\/\*)/.test(line))
    .filter((line) => SQL.some((re) => re.test(line)));
}

describe('architecture', () => {
  it('finds SQL in a service (the rule can fail)', () => {
    expect(sqlLines("await this.db.query('select * from orders where id = $1', [id]);")).toHaveLength(1);
    expect(sqlLines('  `insert into jobs (kind) values ($1)`,')).toHaveLength(1);
    expect(sqlLines('// select the order from the list')).toHaveLength(0);
    expect(sqlLines("throw refused('error.wallet.insufficientBalance');")).toHaveLength(0);
  });

  it('has SQL only in repository files and the db layer', () => {
    const offenders: string[] = [];
    for (const file of tsFiles(root)) {
      const rel = relative(root, file).split('\\').join('/');
      if (allowed(rel)) continue;
      for (const line of sqlLines(readFileSync(file, 'utf8'))) offenders.push(`${rel}: ${line.trim().slice(0, 120)}`);
    }
    expect(offenders).toEqual([]);
  });
});
