// The support desk putting a rental right: ending a stuck rental at a chosen time (the fee by its plan), releasing a
// deposit hold left on a closed rental, waiving a debt, reversing a buy-out. For each: its own permission (role ×
// scope table: outside the agent a 404), the idempotency key, the version (If-Match), the money through the ledger
// and the charge lifecycle (balanced after each), and its audit entry with the reason, in the rental's timeline.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MINUTE_MS } from '#core/pricing.ts';
import { uuid } from '../src/lib/ids.ts';
import { RentalsRepository } from '../src/modules/rentals/repository.ts';
import { build, cabinetsOnline, cardToken, ledgerBalanced, touristToken, waitFor, type Built } from './helper.ts';
import { accessTable, callerConsoles, type Caller } from './ops/callers.ts';
import type { OpsConsole } from './ops/console.ts';

const API = '/cdb-app-api/v1/app';
const HOUR = 60 * MINUTE_MS;
const keepSignedIn = (b: Built) =>
  b.db.query(`update staff_sessions set last_seen_at = $1, expires_at = $1::timestamptz + interval '1 hour'`, [
    b.clock.now(),
  ]);

/** A rental paid with the test card at Vilnius (€1 per started hour past 10 free minutes, deposit held on the card), popped and still out. */
async function openRental(b: Built, device: string) {
  await cabinetsOnline(b, ['PWL-VNO-001']);
  const token = await touristToken(b.app, device);
  const res = await b.app.inject({
    method: 'POST',
    url: `${API}/cdb/cabinet/useDepositToRent`,
    headers: { token },
    payload: { qrcode: 'PWL-VNO-001', stripeToken: await cardToken(b.app), paymentId: 'card-sandbox' },
  });
  expect(res.json().code, res.body).toBe(0);
  const orderId: string = res.json().data.outTradeNo;
  const detail = async () =>
    (
      await b.app.inject({ method: 'GET', url: `${API}/cdb/mine/order/detail?orderId=${orderId}`, headers: { token } })
    ).json().data;
  await waitFor(async () => ((await detail()).pZujie === 1 ? true : null), 'popped');
  const { rows } = await b.db.query<{ borrowed_at: Date; payment_id: string }>(
    'select borrowed_at, payment_id from orders where id = $1',
    [orderId],
  );
  return { orderId, detail, borrowedAt: new Date(rows[0]!.borrowed_at), paymentId: rows[0]!.payment_id };
}

type Action = 'end' | 'waive-debt' | 'release-hold' | 'reverse-buy-out';
const act = (
  c: OpsConsole,
  orderId: string,
  action: Action,
  body: Record<string, unknown>,
  o: { key?: string; version?: number } = {},
) =>
  c.call(
    'POST',
    `/rentals/${orderId}/${action}`,
    { reason: 'rider called the desk', ...body },
    { 'idempotency-key': o.key ?? uuid(), 'if-match': `"v${o.version ?? 0}"` },
  );

describe('putting a rental right', () => {
  let b: Built;
  let consoles = new Map<Caller, OpsConsole>();
  let settled: string;
  const admin = () => consoles.get('adminA')!;
  const audit = async (orderId: string) =>
    (await admin().call('GET', `/audit?entity=rental&entityId=${orderId}`)).json<{
      items: Array<{ action: string; reason: string }>;
    }>().items;

  beforeAll(async () => {
    b = await build();
    consoles = await callerConsoles(b);
    await b.db.query(`update venues set agent_id = 'agent-a' where id = 'v-vno-gedimino'`);
    // A rental the desk ends at once: closed, nothing held, nothing owed (the access table's subject).
    const r = await openRental(b, 'actions-rider-00001');
    expect((await act(admin(), r.orderId, 'end', { at: r.borrowedAt.toISOString() })).statusCode).toBe(200);
    await b.app.powerly.jobs.runDue();
    settled = r.orderId;
  });
  afterAll(() => b.close());

  // On a closed rental with nothing held, owed or bought out, everyone allowed is refused without a change (409).
  //                                 none platformOwner adminA adminB supportA financeA technicianA readOnlyA partnerA
  const TABLE: Record<Action, number[]> = {
    end: [401, 409, 409, 404, 409, 409, 403, 403, 403],
    'waive-debt': [401, 409, 409, 404, 403, 409, 403, 403, 403],
    'release-hold': [401, 409, 409, 404, 409, 409, 403, 403, 403],
    'reverse-buy-out': [401, 409, 409, 404, 403, 409, 403, 403, 403],
  };
  accessTable(TABLE, () => consoles, {
    end: (c) =>
      act(c, settled, 'end', { at: new Date(b.clock.now().getTime() - MINUTE_MS).toISOString() }, { version: 1 }),
    'waive-debt': (c) => act(c, settled, 'waive-debt', {}, { version: 1 }),
    'release-hold': (c) => act(c, settled, 'release-hold', {}, { version: 1 }),
    'reverse-buy-out': (c) =>
      act(
        c,
        settled,
        'reverse-buy-out',
        { at: new Date(b.clock.now().getTime() - MINUTE_MS).toISOString() },
        { version: 1 },
      ),
  });

  it('ends a stuck rental at the chosen time with the fee by its plan; then releases the card hold its dead settlement left; once each', async () => {
    const r = await openRental(b, 'actions-rider-00002');
    b.clock.advance(5 * HOUR);
    await keepSignedIn(b);
    const support = consoles.get('supportA')!;
    // Not before the pop, not in the future.
    expect(
      (await act(support, r.orderId, 'end', { at: new Date(r.borrowedAt.getTime() - MINUTE_MS).toISOString() }))
        .statusCode,
    ).toBe(422);
    expect(
      (await act(support, r.orderId, 'end', { at: new Date(b.clock.now().getTime() + HOUR).toISOString() })).statusCode,
    ).toBe(422);
    const at = new Date(r.borrowedAt.getTime() + 2 * HOUR).toISOString();
    const key = uuid();
    const ended = await act(support, r.orderId, 'end', { at }, { key });
    expect(ended.json()).toMatchObject({ kind: 'end', amount: 200, currency: 'EUR', state: 3 });
    // A retried click: the same correction; the key with another time: 422; someone else's stale view: 409.
    expect((await act(support, r.orderId, 'end', { at }, { key })).json().id).toBe(ended.json().id);
    expect((await act(support, r.orderId, 'end', { at: r.borrowedAt.toISOString() }, { key })).statusCode).toBe(422);
    expect((await act(admin(), r.orderId, 'end', { at })).statusCode).toBe(409);
    expect(await r.detail()).toMatchObject({ pZujie: 3 });
    await ledgerBalanced(b.app);

    // The card's settlement job died (its provider was down): the hold stays authorised until the desk releases it.
    const dead = await b.db.query(
      `update jobs set dead_at = $2, last_error = 'provider down' where kind = 'payment.settle-authorization' and payload->>'paymentId' = $1 and done_at is null`,
      [r.paymentId, b.clock.now()],
    );
    expect(dead.rowCount).toBe(1);
    await b.app.powerly.jobs.runDue();
    expect(
      (await b.db.query<{ status: string }>('select status from payments where id = $1', [r.paymentId])).rows[0]!
        .status,
    ).toBe('authorized');
    const released = await act(support, r.orderId, 'release-hold', {}, { version: 1 });
    expect(released.json(), released.body).toMatchObject({ kind: 'release', state: 3 });
    await waitFor(async () => {
      await b.app.powerly.jobs.runDue();
      const { rows } = await b.db.query<{ status: string; captured_amount: string }>(
        'select status, captured_amount from payments where id = $1',
        [r.paymentId],
      );
      return rows[0]!.status !== 'authorized' ? rows[0] : null;
    }, 'hold settled').then((p) => expect(Number(p.captured_amount)).toBe(200));
    expect((await act(support, r.orderId, 'release-hold', {}, { version: 2 })).statusCode).toBe(409);
    await ledgerBalanced(b.app);
    expect((await audit(r.orderId)).map((a) => [a.action, a.reason])).toEqual(
      expect.arrayContaining([
        ['rental.end', 'rider called the desk'],
        ['rental.release', 'rider called the desk'],
      ]),
    );
    const timeline = (await support.call('GET', `/rentals/${r.orderId}`)).json<{
      entries: Array<{ what: string }>;
      version: number;
    }>();
    expect(timeline.entries.map((e) => e.what)).toEqual(
      expect.arrayContaining(['staff.rental.end', 'staff.rental.release']),
    );
    expect(timeline.version).toBe(2);
  });

  it('waives a debt a failed deduction left: the rider owes nothing, the fee is what was paid', async () => {
    const { rows } = await b.db.query<{ fee: string }>('select fee from orders where id = $1', [settled]);
    await b.db.tx(() => new RentalsRepository(b.db).addDebt(settled, 300));
    await b.db.query('update orders set fee = fee + 300 where id = $1', [settled]);
    const finance = consoles.get('financeA')!;
    const waived = await act(finance, settled, 'waive-debt', { reason: 'card expired, goodwill' }, { version: 1 });
    expect(waived.json(), waived.body).toMatchObject({ kind: 'waive', amount: 300 });
    const after = await b.db.query<{ fee: string; debt_paid_at: Date | null }>(
      'select fee, debt_paid_at from orders where id = $1',
      [settled],
    );
    expect(Number(after.rows[0]!.fee)).toBe(Number(rows[0]!.fee));
    expect(after.rows[0]!.debt_paid_at).not.toBeNull();
    expect((await act(finance, settled, 'waive-debt', {}, { version: 2 })).statusCode).toBe(409);
    expect((await audit(settled)).map((a) => [a.action, a.reason])).toContainEqual([
      'rental.waive',
      'card expired, goodwill',
    ]);
    await ledgerBalanced(b.app);
  });

  it('reverses a buy-out whose power bank is back: the buy-out fee less the rent goes back to the card', async () => {
    const r = await openRental(b, 'actions-rider-00003');
    b.clock.advance(HOUR);
    await keepSignedIn(b);
    expect(await b.app.powerly.rentals.buyOut(r.orderId, 'user')).toBe(true);
    await b.app.powerly.jobs.runDue();
    const { rows } = await b.db.query<{ fee: string }>('select fee from orders where id = $1', [r.orderId]);
    const boughtFor = Number(rows[0]!.fee);
    const finance = consoles.get('financeA')!;
    const reversed = await act(finance, r.orderId, 'reverse-buy-out', {
      at: b.clock.now().toISOString(),
      reason: 'power bank found in the venue',
    });
    expect(reversed.json(), reversed.body).toMatchObject({
      kind: 'reverse',
      amount: boughtFor - 100,
      toCard: boughtFor - 100,
      toWallet: 0,
      state: 3,
    });
    const { rows: moved } = await b.db.query<{ amount: string }>(
      `select amount from ledger_transfers where order_id = $1 and code = 'buy_out_refund'`,
      [r.orderId],
    );
    expect(moved.map((m) => Number(m.amount))).toEqual([boughtFor - 100]);
    expect(
      (await act(finance, r.orderId, 'reverse-buy-out', { at: b.clock.now().toISOString() }, { version: 1 }))
        .statusCode,
    ).toBe(409);
    expect((await audit(r.orderId)).map((a) => [a.action, a.reason])).toContainEqual([
      'rental.reverse',
      'power bank found in the venue',
    ]);
    await ledgerBalanced(b.app);
  });
});
