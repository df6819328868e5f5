// Once per test run (vitest globalSetup of the server and browser projects): the migrated, seeded PGlite image
// every in-memory build starts from (helper.ts), written to a temporary file, so initdb, the migrations and the
// seed run once per run instead of once per build. Nothing to make when the tests run on PostgreSQL.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { pgliteImage } from '../src/db/db.ts';
import { migrate } from '../src/db/migrate.ts';
import { seed } from '../src/db/seed.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The file holding the seeded PGlite image, or '' when the tests run on PostgreSQL. */
    pgliteImage: string;
  }
}

export default async function setup(project: TestProject) {
  if (process.env.DATABASE_URL) {
    project.provide('pgliteImage', '');
    return;
  }
  const dir = mkdtempSync(join(tmpdir(), 'powerly-pglite-'));
  const file = join(dir, 'seeded.tar');
  const image = await pgliteImage(async (db) => {
    await migrate(db);
    await seed(db);
  });
  writeFileSync(file, Buffer.from(await image.arrayBuffer()));
  project.provide('pgliteImage', file);
  return () => rmSync(dir, { recursive: true, force: true });
}
