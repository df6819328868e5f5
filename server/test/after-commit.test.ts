// Db.afterCommit (server/src/db/db.ts): what a unit of work registers runs once it has committed, never after a
// rollback, and what a savepoint that rolled back registered never runs. Runs on PGlite, and on PostgreSQL when
// DATABASE_URL is set.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { build, type Built } from './helper.ts';

let b: Built;
beforeAll(async () => {
  b = await build({ simulator: false });
});
afterAll(async () => b?.close());

describe(`Db.afterCommit (${process.env.DATABASE_URL ? 'PostgreSQL' : 'PGlite'})`, () => {
  it('runs after the commit, with the unit’s writes visible to other connections', async () => {
    const seen: number[] = [];
    await b.db.tx(async () => {
      await b.db.query(`insert into jobs (kind, payload, run_at) values ('after.commit', '{}', $1)`, [b.clock.now()]);
      b.db.afterCommit(() => seen.push(1));
      expect(seen).toEqual([]);
    });
    expect(seen).toEqual([1]);
  });

  it('never runs after a rollback', async () => {
    const seen: number[] = [];
    await expect(
      b.db.tx(async () => {
        b.db.afterCommit(() => seen.push(1));
        throw new Error('abort');
      }),
    ).rejects.toThrow('abort');
    expect(seen).toEqual([]);
  });

  it('a savepoint that rolled back takes what it registered with it; the outer unit’s stays', async () => {
    const seen: string[] = [];
    await b.db.tx(async () => {
      b.db.afterCommit(() => seen.push('outer'));
      await expect(
        b.db.tx(async () => {
          b.db.afterCommit(() => seen.push('inner-rolled-back'));
          throw new Error('inner');
        }),
      ).rejects.toThrow('inner');
      await b.db.tx(async () => b.db.afterCommit(() => seen.push('inner-released')));
      expect(seen).toEqual([]);
    });
    expect(seen).toEqual(['outer', 'inner-released']);
  });

  it('outside a unit of work, runs at once', () => {
    const seen: number[] = [];
    b.db.afterCommit(() => seen.push(1));
    expect(seen).toEqual([1]);
  });
});
