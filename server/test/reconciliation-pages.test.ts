// The reconciliation reads a provider's report page by page: each page is in provider_settlement_lines before the
// next one is asked for (a day of any size in constant memory), and the day is compared with the ledger once every
// page is in. A report that breaks off in the middle stores nothing (an earlier result of the day stays), and the
// daily job tries that provider's day again an hour later. The provider here is a report over the sandbox's own
// payments (the real database, the real ledger): one rental's captured amount in one-unit lines, many pages.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ProviderError } from '../src/modules/payments/methods/adapter.ts';
import type { PaymentProvider, SettlementLine, Settlements } from '../src/modules/payments/provider.ts';
import {
  JOB_RECONCILE,
  JOB_RECONCILE_RETRY,
  reconciliationOf,
  SettlementsUnreadable,
  type Reconciliation,
} from '../src/modules/payments/reconciliation.ts';
import { build, type Built } from './helper.ts';
import { settledRental } from './ops/orders.ts';

let b: Built;
let recon: Reconciliation;
/** What the report holds: the rental's payment and its captured amount. */
let intent: { ref: string; captured: number; currency: string };
/** Where the report breaks off (a page number), if it does. */
let failAt: number | undefined;
const PAGE = 7;
/** The lines stored (this provider, every run) each time a page was asked for. */
const storedBefore: number[] = [];

const stored = async () =>
  Number(
    (await b.db.query<{ n: string }>(`select count(*) as n from provider_settlement_lines where provider = 'sandbox'`))
      .rows[0]!.n,
  );

async function* pages(): AsyncGenerator<SettlementLine[]> {
  const total = intent.captured;
  for (let at = 0, page = 0; at < total; at += PAGE, page++) {
    storedBefore.push(await stored());
    if (page === failAt) throw new ProviderError('provider_unavailable', 'sandbox report: HTTP 502', 502);
    const n = Math.min(PAGE, total - at);
    yield Array.from({ length: n }, (_, i) => ({
      ref: intent.ref,
      source: `${intent.ref}/${at + i}`,
      type: 'charge' as const,
      amount: 1,
      fee: 0,
      currency: intent.currency,
    }));
  }
}

const report = {
  id: 'sandbox',
  settlements: (): Promise<Settlements> => Promise.resolve({ cumulative: true, pages: pages() }),
} as unknown as PaymentProvider;
const day = () => b.clock.now().toISOString().slice(0, 10);
const row = async () =>
  (
    await b.db.query<{ status: string; lines: number }>(
      `select status, lines from provider_reconciliations where provider = 'sandbox' and day = $1`,
      [day()],
    )
  ).rows[0];

beforeAll(async () => {
  b = await build();
  recon = reconciliationOf(b.db, b.clock, b.app.powerly.jobs, { allProviders: () => [report] });
  const rental = await settledRental(b, 'pages-rider-000001');
  const { rows } = await b.db.query<{ provider_ref: string }>(
    `select provider_ref from payments where order_id = $1 and status in ('captured', 'partially_captured')`,
    [rental.orderId],
  );
  const ref = rows[0]!.provider_ref;
  const i = (
    await b.db.query<{ amount_captured: string; currency: string }>(
      'select amount_captured, currency from sandbox_intents where id = $1',
      [ref],
    )
  ).rows[0]!;
  intent = { ref, captured: Number(i.amount_captured), currency: i.currency.trim() };
}, 60_000);
afterAll(async () => b?.close());

describe('a report of many pages', () => {
  it('stores each page before it asks for the next, then matches the day against the ledger', async () => {
    expect(intent.captured).toBeGreaterThan(PAGE * 10);
    storedBefore.length = 0;
    const r = await recon.run('sandbox', day());
    expect(r.mismatches).toEqual([]);
    expect(r).toMatchObject({ status: 'matched', lines: intent.captured });
    const pageCount = Math.ceil(intent.captured / PAGE);
    expect(storedBefore).toHaveLength(pageCount);
    // Page k was asked for with the k pages before it already in the table.
    expect(storedBefore).toEqual(storedBefore.map((_, k) => k * PAGE));
    expect(await stored()).toBe(intent.captured);
  });

  it('a report that breaks off stores nothing: the day keeps its earlier result and the run its lines', async () => {
    failAt = 4;
    await expect(recon.run('sandbox', day())).rejects.toBeInstanceOf(SettlementsUnreadable);
    await expect(recon.run('sandbox', day())).rejects.toMatchObject({
      code: 503,
      key: 'ops.error.settlementsUnreadable',
      params: { provider: 'sandbox', reason: 'provider_unavailable' },
    });
    expect(await row()).toEqual({ status: 'matched', lines: intent.captured });
    // Only the earlier, finished run's lines remain.
    expect(await stored()).toBe(intent.captured);
  });

  it('the daily job tries a day it could not read again an hour later', async () => {
    const jobs = b.app.powerly.jobs;
    const yesterday = day();
    b.clock.advance(24 * 3_600_000);
    await b.db.query(`delete from provider_reconciliations where provider = 'sandbox' and day = $1`, [yesterday]);
    await jobs.ensurePending(JOB_RECONCILE, b.clock.now());
    await jobs.runDue();
    const retries = async () =>
      (
        await b.db.query<{ run_at: Date }>(`select run_at from jobs where kind = $1 and done_at is null`, [
          JOB_RECONCILE_RETRY,
        ])
      ).rows;
    expect(await retries()).toHaveLength(1);
    expect((await retries())[0]!.run_at.getTime() - b.clock.now().getTime()).toBe(3_600_000);
    expect(
      (await b.db.query(`select 1 from provider_reconciliations where provider = 'sandbox' and day = $1`, [yesterday]))
        .rows,
    ).toEqual([]);
    // The provider answers again: the retry reconciles the day.
    failAt = undefined;
    b.clock.advance(3_600_000);
    await jobs.runDue();
    expect(await retries()).toEqual([]);
    const { rows } = await b.db.query<{ status: string }>(
      `select status from provider_reconciliations where provider = 'sandbox' and day = $1`,
      [yesterday],
    );
    expect(rows).toEqual([{ status: 'matched' }]);
  });
});
