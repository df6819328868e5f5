// Architecture rules of the server (DESIGN.md "Server"), checked on the source tree:
//   SQL lives only in repositories (files named repository.ts or <something>-repository.ts) and in the db layer
//   (server/src/db: connection, migrations runner). Services, routes, jobs, adapters and scripts reach tables
//   through a repository, so every statement has one owner and runs in the current unit of work.
//   Every table of the migrations has exactly one owning module (OWNERS); only the owner's repository writes
//   it. A repository may read another module's table only in a join listed in READ_MODELS (one-round-trip
//   views on hot paths: the scan, the map, the order lists).
//   Walls between modules (server/src/modules/<m>/): a module imports another only through the files that module
//   makes public (PUBLIC: its service, and the few shared shapes listed), never its repository or internals; no two
//   modules import each other (the lower one takes a port, filled at wiring in server/src/services.ts).
//   No source file is above 400 lines (the ones still above are listed in LONG_FILES and may only shrink), and no test
//   file (server/test, tests; those still above: LONG_TEST_FILES).
// The lists (OWNERS, READ_MODELS, PUBLIC) and the walks of the tree are in architecture-rules.ts.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  allowed,
  folderOf,
  importsOf,
  longFiles,
  migrations,
  moduleImports,
  OWNERS,
  ownerOf,
  PAYMENTS_INTERNALS,
  READ_MODELS,
  repoRoot,
  root,
  sqlLines,
  tablesIn,
  tsFiles,
} from './architecture-rules.ts';

/** Test files still above MAX_LINES (repository-relative): these may only shrink. None is left. */
const LONG_TEST_FILES: readonly string[] = [];

describe('architecture', () => {
  it('every table of the migrations has exactly one owner', () => {
    const tables = readdirSync(migrations)
      .filter((f) => f.endsWith('.sql'))
      .flatMap((f) =>
        [
          ...readFileSync(join(migrations, f), 'utf8').matchAll(
            /create\s+table\s+(?:if\s+not\s+exists\s+)?([a-z_]+)/gi,
          ),
        ].map((m) => m[1]!),
      );
    expect(tables.length).toBeGreaterThan(10);
    const unowned = tables.filter((t) => !ownerOf(t));
    expect(unowned).toEqual([]);
    const listed = Object.values(OWNERS).flat();
    expect(listed.filter((t, i) => listed.indexOf(t) !== i)).toEqual([]);
  });

  it('finds the tables a statement writes and reads (the rule can fail)', () => {
    expect(tablesIn("await this.db.query('update orders set zujie = $2 where id = $1', [id]);").writes).toEqual([
      'orders',
    ]);
    expect(tablesIn('`insert into ledger_transfers (id) values ($1)`').writes).toEqual(['ledger_transfers']);
    expect(tablesIn('`select o.* from orders o join venues v on v.id = o.venue_id`').reads).toEqual([
      'orders',
      'venues',
    ]);
  });

  it("a repository writes only its own module's tables and reads others only through listed read models", () => {
    const offenders: string[] = [];
    for (const file of tsFiles(root)) {
      const rel = relative(root, file).split('\\').join('/');
      if (!/(^|\/|-)repository\.ts$/.test(rel)) continue;
      const folder = folderOf(rel);
      const { writes, reads } = tablesIn(readFileSync(file, 'utf8'));
      for (const t of writes)
        if (ownerOf(t) && ownerOf(t) !== folder) offenders.push(`${rel} writes ${t} (owner ${ownerOf(t)})`);
      for (const t of reads) {
        if (!ownerOf(t) || ownerOf(t) === folder || READ_MODELS[folder]?.includes(t)) continue;
        offenders.push(`${rel} reads ${t} (owner ${ownerOf(t)})`);
      }
    }
    expect(offenders).toEqual([]);
  });

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

  it('a module imports another only through its public files (service, listed shapes)', () => {
    const offenders = [...moduleImports()].filter((i) => !i.public).map((i) => `${i.from} → ${i.to}`);
    expect(offenders, "crossings of a wall: go through the owner's service or a public file").toEqual([]);
  });

  it('no two modules import each other', () => {
    const edges = new Set([...moduleImports()].map((i) => `${i.fromModule}>${i.toModule}`));
    const cycles = [...edges]
      .map((e) => e.split('>') as [string, string])
      .filter(([a, b]) => a < b && edges.has(`${b}>${a}`))
      .map(([a, b]) => `${a} ↔ ${b}`);
    expect(cycles, 'modules importing each other: invert one side (a port given at wiring)').toEqual([]);
  });

  it("no module reaches into payments' repository or provider registry: it goes through PaymentsService", () => {
    const offenders = tsFiles(root)
      .map((file) => relative(root, file).split('\\').join('/'))
      .filter((rel) => !rel.startsWith('modules/payments/'))
      .flatMap((rel) => (PAYMENTS_INTERNALS.test(readFileSync(join(root, rel), 'utf8')) ? [rel] : []));
    expect(offenders).toEqual([]);
    expect(PAYMENTS_INTERNALS.test('const p = await this.d.payments.repo.byRef(id, ref);'), 'the rule can fail').toBe(
      true,
    );
    expect(PAYMENTS_INTERNALS.test('this.d.payments.providers.get(id)'), 'the rule can fail').toBe(true);
    expect(PAYMENTS_INTERNALS.test('this.d.payments.byRef(id, ref)')).toBe(false);
  });

  it('finds a crossing of a wall (the rule can fail)', () => {
    const found = importsOf(
      "import type { X } from '../payments/repository.ts';\nimport { y } from './local.ts';",
      'modules/rentals/debts.ts',
    );
    expect(found).toEqual([
      {
        from: 'modules/rentals/debts.ts',
        to: 'modules/payments/repository.ts',
        fromModule: 'rentals',
        toModule: 'payments',
        public: false,
      },
    ]);
  });

  it('has no test file above 400 lines', () => {
    const long = longFiles([join(repoRoot, 'server/test'), join(repoRoot, 'tests')]);
    expect(
      long.filter((f) => !LONG_TEST_FILES.includes(f)),
      'move shared fixtures and helpers into a helper module, or split by topic',
    ).toEqual([]);
    expect(
      LONG_TEST_FILES.filter((f) => !long.includes(f)),
      'fixed: remove them from LONG_TEST_FILES',
    ).toEqual([]);
  });

  it('has no source file above 400 lines', () => {
    const long = longFiles([root, join(repoRoot, 'src')]);
    expect(
      long.filter((f) => !LONG_FILES.includes(f)),
      'split by use case',
    ).toEqual([]);
    expect(
      LONG_FILES.filter((f) => !long.includes(f)),
      'fixed: remove them from LONG_FILES',
    ).toEqual([]);
  });
});

/** Files still above MAX_LINES (repository-relative). */
const LONG_FILES: readonly string[] = [];
