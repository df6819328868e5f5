// The unit of work (server/src/db/db.ts): inside db.tx every repository call joins the transaction without being
// handed it, so it commits or rolls back with the rest; nested db.tx is a savepoint. Runs on PGlite, and on
// PostgreSQL when DATABASE_URL is set.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allOf } from '../src/db/db.ts';
import { JobsRepository } from '../src/jobs/repository.ts';
import { AuthRepository } from '../src/modules/auth/repository.ts';
import { LedgerRepository } from '../src/modules/ledger/repository.ts';
import { LedgerService, userOwner } from '../src/modules/ledger/service.ts';
import { build, type Built } from './helper.ts';

let b: Built;
beforeAll(async () => {
  b = await build({ simulator: false });
});
afterAll(async () => b?.close());

const users = () => new AuthRepository(b.db);
const touristsNamed = async (name: string) =>
  Number((await b.db.query<{ n: number }>('select count(*)::int as n from users where name = $1', [name])).rows[0]!.n);
const tourist = (name: string) => ({
  kind: 'tourist' as const,
  name,
  deviceCode: `uow-${name}`,
  currency: 'EUR',
  at: b.clock.now(),
});

describe(`unit of work (${process.env.DATABASE_URL ? 'PostgreSQL' : 'PGlite'})`, () => {
  it('a repository call inside db.tx, given no transaction, rolls back with it', async () => {
    await expect(
      b.db.tx(async () => {
        expect(b.db.inTx()).toBe(true);
        await users().createUser(tourist('uow-rolled-back'));
        // Visible inside the unit (same transaction) ...
        expect(await touristsNamed('uow-rolled-back')).toBe(1);
        throw new Error('abort');
      }),
    ).rejects.toThrow('abort');
    // ... and gone after the rollback.
    expect(await touristsNamed('uow-rolled-back')).toBe(0);
    expect(b.db.inTx()).toBe(false);
  });

  it('commits every repository call of the unit together', async () => {
    await b.db.tx(async () => {
      await users().createUser(tourist('uow-committed'));
      await new JobsRepository(b.db).insert('uow.test', { n: 1 }, b.clock.now());
    });
    expect(await touristsNamed('uow-committed')).toBe(1);
  });

  it('a service several calls deep joins the unit too: a ledger transfer rolls back with it', async () => {
    const ledger = new LedgerService(new LedgerRepository(b.db), b.db);
    const from = await ledger.account(userOwner(8101), 'wallet', 'EUR');
    const to = await ledger.account(userOwner(8102), 'wallet', 'EUR');
    await expect(
      b.db.tx(async () => {
        await ledger.transfer({ debit: from, credit: to, amount: 500, code: 'uow_test', at: b.clock.now() });
        expect((await ledger.walletOf(8102, 'EUR')).balance).toBe(500);
        throw new Error('abort');
      }),
    ).rejects.toThrow('abort');
    expect((await ledger.walletOf(8102, 'EUR')).balance).toBe(0);
    const { rows } = await b.db.query("select 1 from ledger_transfers where code = 'uow_test'");
    expect(rows).toEqual([]);
  });

  it('a nested db.tx is a savepoint: its failure undoes only its own work', async () => {
    await b.db.tx(async () => {
      await users().createUser(tourist('uow-outer'));
      await expect(
        b.db.tx(async () => {
          await users().createUser(tourist('uow-inner'));
          throw new Error('inner');
        }),
      ).rejects.toThrow('inner');
      // The outer unit goes on (PostgreSQL would refuse every statement of an aborted transaction otherwise).
      await b.db.tx(async () => users().createUser(tourist('uow-inner-ok')));
    });
    expect(await touristsNamed('uow-outer')).toBe(1);
    expect(await touristsNamed('uow-inner')).toBe(0);
    expect(await touristsNamed('uow-inner-ok')).toBe(1);
  });

  it('a nested unit rolls back with its outer one', async () => {
    await expect(
      b.db.tx(async () => {
        await b.db.tx(async () => users().createUser(tourist('uow-nested-then-abort')));
        throw new Error('abort');
      }),
    ).rejects.toThrow('abort');
    expect(await touristsNamed('uow-nested-then-abort')).toBe(0);
  });

  it('work that outlives its unit does not write into the finished transaction', async () => {
    let later: Promise<unknown> | undefined;
    await b.db.tx(async () => {
      later = new Promise((r) => setTimeout(r, 20)).then(() => users().createUser(tourist('uow-after')));
    });
    await later;
    expect(await touristsNamed('uow-after')).toBe(1);
  });

  it('concurrent units stay apart', async () => {
    const results = await Promise.allSettled([
      b.db.tx(async () => {
        await users().createUser(tourist('uow-a'));
        await new Promise((r) => setTimeout(r, 10));
        throw new Error('a fails');
      }),
      b.db.tx(async () => {
        await users().createUser(tourist('uow-b'));
      }),
    ]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'fulfilled']);
    expect(await touristsNamed('uow-a')).toBe(0);
    expect(await touristsNamed('uow-b')).toBe(1);
  });

  it('statements sent together (allOf) commit together, each answer in its place', async () => {
    const [, , n] = await b.db.tx(() =>
      allOf([
        users().createUser(tourist('uow-together-1')),
        users().createUser(tourist('uow-together-2')),
        b.db.query<{ n: number }>("select count(*)::int as n from users where name like 'uow-together-%'"),
      ]),
    );
    // Run in PostgreSQL in the order sent: the count sees both rows.
    expect(n.rows[0]!.n).toBe(2);
    expect(await touristsNamed('uow-together-1')).toBe(1);
  });

  it('a failure among statements sent together rolls back the whole unit, after every one of them has answered', async () => {
    let late: string | undefined;
    const step = () =>
      allOf([
        users().createUser(tourist('uow-pipe-before')),
        // A part of the step with a follow-up that comes later: the unit waits for it, so it never autocommits.
        b.db
          .query('select 1')
          .then(() => new Promise((r) => setTimeout(r, 30)))
          .then(() => users().createUser(tourist('uow-pipe-late')))
          .then(
            () => (late = 'wrote'),
            () => (late = 'refused'),
          ),
        b.db.query('select 1/0'),
      ]);
    await expect(b.db.tx(step)).rejects.toThrow(/division by zero/);
    expect(late).toBe('refused');
    expect(await touristsNamed('uow-pipe-before')).toBe(0);
    expect(await touristsNamed('uow-pipe-late')).toBe(0);
  });

  it('allOf rejects with the first real failure, not the aborted-transaction errors that follow it', async () => {
    const aborted = Object.assign(new Error('current transaction is aborted'), { code: '25P02' });
    await expect(
      allOf([Promise.reject(aborted), Promise.reject(new Error('the cause')), Promise.resolve(1)]),
    ).rejects.toThrow('the cause');
    await expect(allOf([Promise.reject(aborted)])).rejects.toBe(aborted);
  });

  it.runIf(process.env.DATABASE_URL)(
    'PostgreSQL: a connection killed while statements sent together wait rejects every one of them, and the pool goes on',
    async () => {
      const killer = new pg.Client({ connectionString: process.env.DATABASE_URL });
      await killer.connect();
      try {
        const answered: string[] = [];
        const unit = b.db.tx(() =>
          allOf([
            users()
              .createUser(tourist('uow-killed'))
              .then(() => answered.push('insert')),
            b.db.query('select pg_sleep(5) as uow_pipelined_fault').then(() => answered.push('sleep')),
            b.db.query('select 1').then(() => answered.push('after')),
          ]),
        );
        unit.catch(() => undefined);
        // Once the batch is in PostgreSQL (the sleep running), its connection is terminated.
        for (let i = 0; ; i++) {
          const { rows } = await killer.query<{ n: number }>(
            "select count(pg_terminate_backend(pid))::int as n from pg_stat_activity where query like '%uow_pipelined_fault%' and pid <> pg_backend_pid()",
          );
          if (rows[0]!.n > 0) break;
          if (i > 200) throw new Error('the pipelined batch never reached PostgreSQL');
          await new Promise((r) => setTimeout(r, 10));
        }
        await expect(unit).rejects.toThrow();
        expect(answered).toEqual(['insert']); // answered before the kill: its transaction never committed
        expect(await touristsNamed('uow-killed')).toBe(0);
        // The pool drops the dead connection: the next units run.
        await b.db.tx(() => allOf([users().createUser(tourist('uow-after-kill')), b.db.query('select 1')]));
        expect(await touristsNamed('uow-after-kill')).toBe(1);
      } finally {
        await killer.end();
      }
    },
  );

  it.runIf(process.env.DATABASE_URL)(
    'PostgreSQL: idle pooled connections killed are replaced, and nothing is thrown',
    async () => {
      // The pool's connections (each answers with its backend's pid while the others sleep).
      const pids = new Set(
        (
          await Promise.all(
            Array.from({ length: 4 }, () =>
              b.db.query<{ pid: number }>('select pg_backend_pid() as pid, pg_sleep(0.05)'),
            ),
          )
        ).map((r) => r.rows[0]!.pid),
      );
      const killer = new pg.Client({ connectionString: process.env.DATABASE_URL });
      await killer.connect();
      try {
        await killer.query('select pg_terminate_backend(pid) from unnest($1::int[]) as pid', [[...pids]]);
      } finally {
        await killer.end();
      }
      await new Promise((r) => setTimeout(r, 100)); // the pool hears each connection end
      const { rows } = await b.db.query<{ pid: number }>('select pg_backend_pid() as pid');
      expect(pids.has(rows[0]!.pid)).toBe(false);
    },
  );
});
