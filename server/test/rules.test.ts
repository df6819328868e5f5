// Rules that do not need the HTTP layer: the ledger's two-phase transfers, the order state table, the
// locale catalogues, migrations run by two processes at once.
import { readdirSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOCALES, catalogKeys } from '../src/lib/i18n.ts';
import { migrate } from '../src/db/migrate.ts';
import { canTransition } from '../src/modules/rentals/order-state.ts';
import { LedgerRepository } from '../src/modules/ledger/repository.ts';
import { LedgerService, PLATFORM, providerOwner, userOwner } from '../src/modules/ledger/service.ts';
import { luhnValid } from '../src/modules/payments/sandbox.ts';
import { build, type Built } from './helper.ts';

let b: Built;
beforeAll(async () => {
  b = await build({ simulator: false });
});
afterAll(async () => b?.close());

describe('ledger', () => {
  it('holds, posts less than held (the rest released), and refuses to resolve a hold twice or overdraw', async () => {
    const w = new LedgerService(new LedgerRepository(b.db), b.db);
    const at = b.clock.now();
    const [wallet, hold, clearing, revenue] = await Promise.all([
      w.account(userOwner(9001), 'wallet', 'EUR'),
      w.account(userOwner(9001), 'deposit_hold', 'EUR'),
      w.account(providerOwner('sandbox'), 'clearing', 'EUR'),
      w.account(PLATFORM, 'revenue', 'EUR'),
    ]);
    await b.db.query(
      `insert into users (id, kind, name) values (9001, 'tourist', 'Tourist-LEDGER') on conflict do nothing`,
    );
    await b.db.tx(() => w.transfer({ debit: clearing, credit: wallet, amount: 1000, code: 'wallet_topup', at }));
    await expect(
      b.db.tx(() =>
        w.transfer({
          debit: wallet,
          credit: hold,
          amount: 1001,
          code: 'deposit_hold',
          at,
          pending: true,
          mustNotOverdraw: true,
        }),
      ),
    ).rejects.toMatchObject({ code: 422, key: 'error.insufficientBalance' });
    const pendingId = await b.db.tx(() =>
      w.transfer({
        debit: wallet,
        credit: hold,
        amount: 800,
        code: 'deposit_hold',
        at,
        pending: true,
        mustNotOverdraw: true,
      }),
    );
    expect(await w.walletOf(9001, 'EUR')).toEqual({ balance: 200, held: 800 });
    await expect(b.db.tx(() => w.postPending(pendingId, 801, at))).rejects.toThrow(RangeError);
    await b.db.tx(async () => {
      await w.postPending(pendingId, 350, at);
      await w.transfer({ debit: hold, credit: revenue, amount: 350, code: 'rent', at });
    });
    expect(await w.walletOf(9001, 'EUR')).toEqual({ balance: 650, held: 0 });
    await expect(b.db.tx(() => w.voidPending(pendingId, at))).rejects.toMatchObject({ code: 409 });
    const { rows } = await b.db.query<{ flag: string; amount: number }>(
      'select flag, amount from ledger_transfers where pending_id = $1 or id = $1 order by created_at, flag',
      [pendingId],
    );
    expect(rows.map((r) => [r.flag, Number(r.amount)]).sort()).toEqual(
      [
        ['pending', 800],
        ['post_pending', 350],
      ].sort(),
    );
    const audit = await w.audit();
    expect(audit.accountsOutOfStep).toEqual([]);
    expect(audit.byCurrency.map((c) => [c.currency, Number(c.net), Number(c.pending_net)])).toEqual([['EUR', 0, 0]]);
  });

  it('the audit notices a balance that is out of step with the transfers', async () => {
    await b.db.query(`update ledger_accounts set credits_posted = credits_posted + 1 where owner_type = 'platform'`);
    const audit = await new LedgerRepository(b.db).audit();
    expect(audit.accountsOutOfStep.length).toBe(1);
    expect(Number(audit.byCurrency[0]!.net)).toBe(1);
    await b.db.query(`update ledger_accounts set credits_posted = credits_posted - 1 where owner_type = 'platform'`);
  });
});

describe('order states', () => {
  it('allows only the transitions of the table', () => {
    expect(canTransition(0, 1)).toBe(true);
    expect(canTransition(0, 2)).toBe(true);
    expect(canTransition(1, 3)).toBe(true);
    expect(canTransition(2, 1)).toBe(false);
    expect(canTransition(3, 1)).toBe(false);
    expect(canTransition(0, 3)).toBe(false);
  });
});

describe('locales', () => {
  it('every server locale has exactly the keys of en-US, and no empty message', () => {
    const en = catalogKeys('en-US');
    expect(en.length).toBeGreaterThan(10);
    for (const l of LOCALES) expect(catalogKeys(l), l).toEqual(en);
  });
});

describe('sandbox card numbers', () => {
  it('checks Luhn', () => {
    expect(luhnValid('4242424242424242')).toBe(true);
    expect(luhnValid('4000000000000002')).toBe(true);
    expect(luhnValid('4242424242424241')).toBe(false);
  });
});

describe('migrations', () => {
  it('apply once even when two runs race (advisory lock), and are recorded', async () => {
    const [a, c] = await Promise.all([migrate(b.db), migrate(b.db)]);
    expect([...a, ...c]).toEqual([]); // build() already applied them
    const { rows } = await b.db.query<{ name: string }>('select name from schema_migrations');
    // Every migration file, once each (new migrations are added on other branches too).
    const files = readdirSync(new URL('../migrations/', import.meta.url))
      .filter((f) => f.endsWith('.sql'))
      .sort();
    expect(files).toContain('20261121120000_initial.sql');
    expect(rows.map((r) => r.name).sort()).toEqual(files);
  });
});
