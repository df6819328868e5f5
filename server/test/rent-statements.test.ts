// How much the rent path asks of the database (docs/architecture.md "Unit of work", docs/benchmarks.md): a card
// rental's transaction is the repository's rental_start (the user's and the cabinet's locks, the refusal checks
// and the order, command and jobs rows: one statement) with the charge's lock and row, the idempotency key, the live
// update and the ledger's accounts sent together, then the transfer; the idempotency key is written twice in all
// (claimed, then completed in the rental's transaction), never again after the commit.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { build, cabinetsOnline, cardToken, touristToken, type Built } from './helper.ts';

const API = '/cdb-app-api/v1/app';
let b: Built;
beforeAll(async () => {
  b = await build();
  await cabinetsOnline(b, ['PWL-VNO-001']);
});
afterAll(async () => b?.close());

/** The statements sent while `fn` runs, with whether each was inside a unit of work. */
async function statementsOf(fn: () => Promise<unknown>) {
  const sent: { sql: string; inTx: boolean }[] = [];
  const query = b.db.query;
  b.db.query = ((sql: string, params?: unknown[], opts?: { name?: string }) => {
    sent.push({ sql: sql.replace(/\s+/g, ' ').trim(), inTx: b.db.inTx() });
    return query(sql, params, opts);
  }) as typeof query;
  try {
    await fn();
  } finally {
    b.db.query = query;
  }
  return sent;
}

describe(`the rent path's statements (${process.env.DATABASE_URL ? 'PostgreSQL' : 'PGlite'})`, () => {
  it('a card rental: one transaction of nine statements (two more for a first rental’s ledger accounts), the key written twice', async () => {
    const rent = async (token: string, key: string) =>
      b.app.inject({
        method: 'POST',
        url: `${API}/cdb/cabinet/useDepositToRent`,
        headers: { token, 'content-type': 'application/json', 'idempotency-key': key },
        payload: { qrcode: 'PWL-VNO-001', stripeToken: await cardToken(b.app), paymentId: 'card-sandbox' },
      });
    const token = await touristToken(b.app);
    let res: Awaited<ReturnType<typeof rent>> | undefined;
    const sent = await statementsOf(async () => (res = await rent(token, 'rent-statements-1')));
    expect(res!.json()).toMatchObject({ code: 0, data: { outTradeNo: expect.stringMatching(/^PO/) } });
    const inTx = sent.filter((s) => s.inTx).map((s) => s.sql);
    expect(inTx.filter((s) => s.includes('rental_start('))).toHaveLength(1);
    // The order, its command and its jobs are written by rental_start only.
    expect(inTx.filter((s) => /insert into (orders|cabinet_commands)\b/.test(s))).toEqual([]);
    // rental_start, the charge's lock and lookup, the payment row, the key, the live update, the ledger's accounts
    // (created, then locked again: this user's first rental) and the transfer.
    expect(inTx).toHaveLength(7 + 2 + 1);
    expect(sent.filter((s) => /idempotency_keys/.test(s.sql)).map((s) => s.sql.split(' ')[0])).toEqual([
      'insert',
      'update',
    ]);
    const { rows } = await b.db.query<{ state: string; response_code: number }>(
      'select state, response_code from idempotency_keys where key = $1',
      ['rent-statements-1'],
    );
    expect(rows).toEqual([{ state: 'done', response_code: 200 }]);
  });
});
