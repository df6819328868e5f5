// The back office's withdrawals queue: who may see and act on a bank withdrawal (role × scope), a finance person's
// manual payout, rejection and approval with the ledger's invariants after each, the audit entry of each, and the
// rider's movements showing every state; two people acting at once (one wins, the other gets a 409).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sha256 } from '../src/lib/ids.ts';
import { checkLedger } from '../src/modules/wallet/reconcile.ts';
import { csrfOfSession } from '../src/plugins/ops-api.ts';
import { build, type Built } from './helper.ts';
import { accessTable, callerConsoles, person, type Caller } from './ops/callers.ts';
import { OpsConsole } from './ops/console.ts';
import { awaitingWithdrawal, fundedRider } from './ops/withdrawals.ts';

const API = '/cdb-app-api/v1/app';

type Op =
  'list withdrawals' | 'read a withdrawal of A' | 'approve in A' | 'record a manual payout in A' | 'reject in A';
//                                  none platformOwner adminA adminB supportA financeA technicianA readOnlyA partnerA
const TABLE: Record<Op, number[]> = {
  'list withdrawals': [401, 200, 200, 200, 200, 200, 403, 200, 403],
  'read a withdrawal of A': [401, 200, 200, 404, 200, 200, 403, 200, 403],
  'approve in A': [401, 200, 200, 404, 403, 200, 403, 403, 403],
  'record a manual payout in A': [401, 200, 200, 404, 403, 200, 403, 403, 403],
  'reject in A': [401, 200, 200, 404, 403, 200, 403, 403, 403],
};

describe('the withdrawals queue', () => {
  let b: Built;
  let consoles = new Map<Caller, OpsConsole>();
  let rider: Awaited<ReturnType<typeof fundedRider>>;
  const fresh = () => awaitingWithdrawal(b, rider.user.id, 'agent-a', 100);
  const movements = async () =>
    (
      await b.app.inject({
        method: 'GET',
        url: `${API}/cdb/user/wallet/list?currency=EUR&agentId=agent-a&pageSize=100`,
        headers: { token: rider.token },
      })
    ).json<{ data: { page: { records: Array<{ type: string; orderId: string; amount: number; status: string }> } } }>()
      .data.page.records;
  const balance = async () => (await b.app.powerly.wallet.walletOf(rider.user.id, 'EUR', 'agent-a')).balance;

  beforeAll(async () => {
    b = await build({ simulator: false });
    consoles = await callerConsoles(b);
    rider = await fundedRider(b.app, b.clock, 'agent-a', 100_000);
  });
  afterAll(() => b.close());

  accessTable(TABLE, () => consoles, {
    'list withdrawals': (c) => c.call('GET', '/withdrawals'),
    'read a withdrawal of A': async (c) => c.call('GET', `/withdrawals/${await fresh()}`),
    'approve in A': async (c) => c.call('POST', `/withdrawals/${await fresh()}/approve`, { reason: 'table test' }),
    'record a manual payout in A': async (c) =>
      c.call('POST', `/withdrawals/${await fresh()}/manual`, { bankReference: 'REF-1', reason: 'table test' }),
    'reject in A': async (c) => c.call('POST', `/withdrawals/${await fresh()}/reject`, { reason: 'table test' }),
  });

  it("lists awaiting payouts with the payee's fields, of the caller's agents only, page by page", async () => {
    const ids = [await fresh(), await fresh(), await fresh()];
    const seen: string[] = [];
    let url = '/withdrawals?limit=2';
    for (;;) {
      const page = (await consoles.get('financeA')!.call('GET', url)).json<{
        items: Array<{ id: string; state: string; payee: Record<string, string>; rail?: string }>;
        next?: string;
      }>();
      for (const w of page.items)
        expect(w).toMatchObject({
          state: 'awaiting_payout',
          payee: { accountHolder: 'Ana Silva', iban: 'LT121000011101001000' },
          rail: 'sandbox-bank',
        });
      seen.push(...page.items.map((w) => w.id));
      if (!page.next) break;
      url = `/withdrawals?limit=2&cursor=${page.next}`;
    }
    expect(seen).toEqual(expect.arrayContaining(ids));
    expect(new Set(seen).size).toBe(seen.length);
    expect(
      (await consoles.get('adminB')!.call('GET', '/withdrawals?state=all')).json<{ items: unknown[] }>().items,
    ).toEqual([]);
    expect((await consoles.get('financeA')!.call('GET', '/withdrawals?cursor=bm90LWEtY3Vyc29y')).statusCode).toBe(400);
    expect((await consoles.get('financeA')!.call('GET', '/withdrawals?state=lost')).statusCode).toBe(400);
  });

  it("finds withdrawals by id, the rider's phone, e-mail or id and a date range, and exports the search as CSV", async () => {
    const other = await fundedRider(b.app, b.clock, 'agent-a', 10_000);
    await b.db.query(`update users set mobile = '+370 600 11122', email = 'Vida@Example.com' where id = $1`, [
      other.user.id,
    ]);
    const from = b.clock.now().toISOString();
    const mine = await awaitingWithdrawal(b, other.user.id, 'agent-a', 300);
    b.clock.advance(60_000);
    const to = b.clock.now().toISOString();
    const later = await awaitingWithdrawal(b, other.user.id, 'agent-a', 400);
    const fin = consoles.get('financeA')!;
    const ids = async (query: string) =>
      (await fin.call('GET', `/withdrawals?state=all&${query}`))
        .json<{ items: Array<{ id: string }> }>()
        .items.map((w) => w.id);
    expect(await ids('q=370-600-111-22')).toEqual([mine, later]);
    expect(await ids('q=vida%40example.com')).toEqual([mine, later]);
    expect(await ids(`q=${other.user.id}`)).toEqual([mine, later]);
    expect(await ids(`q=${later}`)).toEqual([later]);
    expect(await ids(`q=${other.user.id}&from=${encodeURIComponent(from)}&to=${encodeURIComponent(to)}`)).toEqual([
      mine,
    ]);
    expect(await ids('q=nobody%40example.com')).toEqual([]);
    expect(
      (await consoles.get('adminB')!.call('GET', `/withdrawals?state=all&q=${other.user.id}`)).json<{
        items: unknown[];
      }>().items,
    ).toEqual([]);
    expect((await fin.call('GET', '/withdrawals?from=yesterday')).statusCode).toBe(400);

    const csv = await fin.call('GET', `/withdrawals.csv?q=${other.user.id}`);
    expect(csv.statusCode).toBe(200);
    expect(csv.headers['content-type']).toBe('text/csv; charset=utf-8');
    const lines = csv.body.trim().split('\r\n');
    expect(lines[0]).toBe(
      'id,created_at,state,rider_id,agent_id,amount,currency,channel,payee,provider,provider_ref,bank_reference,approved_by,settled_by,wait_reason',
    );
    expect(lines.slice(1).map((l) => l.split(',').slice(0, 7).join(','))).toEqual([
      expect.stringMatching(new RegExp(`^${mine},.*,awaiting_payout,${other.user.id},agent-a,300,EUR$`)),
      expect.stringMatching(new RegExp(`^${later},.*,awaiting_payout,${other.user.id},agent-a,400,EUR$`)),
    ]);
    expect(
      (await consoles.get('adminB')!.call('GET', `/withdrawals.csv?q=${other.user.id}`)).body.trim().split('\r\n'),
    ).toHaveLength(1);
    expect((await consoles.get('technicianA')!.call('GET', '/withdrawals.csv')).statusCode).toBe(403);
  });

  it('records a manual payout once: paid with the bank reference, audited, the ledger balanced, the rider sees it paid', async () => {
    const id = await fresh();
    const before = await balance();
    const fin = consoles.get('financeA')!;
    expect((await movements()).find((m) => m.orderId === id)).toMatchObject({
      type: 'withdrawal',
      amount: -1,
      status: 'awaiting_payout',
    });
    expect(
      (await fin.call('POST', `/withdrawals/${id}/manual`, { bankReference: ' ', reason: 'paid' })).statusCode,
    ).toBe(400);
    expect(
      (await fin.call('POST', `/withdrawals/${id}/manual`, { bankReference: 'SEPA-77', reason: 'no' })).statusCode,
    ).toBe(400); // reason too short
    const res = await fin.call('POST', `/withdrawals/${id}/manual`, {
      bankReference: 'SEPA-77',
      reason: 'paid from the EUR account',
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({
      id,
      state: 'paid',
      bankReference: 'SEPA-77',
      settledBy: 'financeA@example.com',
    });
    // The same person's retry answers the same; nothing moves twice.
    expect(
      (
        await fin.call('POST', `/withdrawals/${id}/manual`, {
          bankReference: 'SEPA-77',
          reason: 'paid from the EUR account',
        })
      ).json(),
    ).toMatchObject({ state: 'paid' });
    expect(await balance()).toBe(before);
    expect((await movements()).find((m) => m.orderId === id)).toMatchObject({ status: 'paid' });
    const { rows } = await b.db.query<{ n: number }>(
      "select count(*)::int as n from ledger_transfers where order_id = $1 and code = 'withdrawal_paid'",
      [id],
    );
    expect(rows[0]!.n).toBe(1);
    const audit = (await consoles.get('adminA')!.call('GET', `/audit?entity=withdrawal&entityId=${id}`)).json<{
      items: Array<{
        action: string;
        reason: string;
        staffEmail: string;
        before: { status: string };
        after: { status: string };
      }>;
    }>();
    expect(audit.items).toEqual([
      expect.objectContaining({
        action: 'withdrawal.record',
        reason: 'paid from the EUR account',
        staffEmail: 'financeA@example.com',
        before: expect.objectContaining({ status: 'awaiting_payout' }),
        after: expect.objectContaining({ status: 'paid' }),
      }),
    ]);
    // Someone else afterwards: a 409 that names who handled it, in the caller's language.
    const late = await consoles
      .get('adminA')!
      .call('POST', `/withdrawals/${id}/reject`, { reason: 'duplicate request' }, { lang: 'pt-PT' });
    expect(late.statusCode).toBe(409);
    expect(late.json().message).toContain('financeA@example.com');
    expect(late.json().message).toMatch(/levantamento/);
    expect(await checkLedger(b.db)).toEqual([]);
  });

  it('rejects with a reason: the money is back in the wallet through the ledger, and the rider sees it returned', async () => {
    const before = await balance();
    const id = await fresh();
    expect(await balance()).toBe(before - 100);
    const res = await consoles
      .get('financeA')!
      .call('POST', `/withdrawals/${id}/reject`, { reason: 'the account holder does not match' });
    expect(res.json()).toMatchObject({ state: 'rejected', waitReason: 'the account holder does not match' });
    expect(await balance()).toBe(before);
    const mine = (await movements()).filter((m) => m.orderId === id).map((m) => [m.type, m.status]);
    expect(mine).toEqual(
      expect.arrayContaining([
        ['withdrawal', 'rejected'],
        ['withdrawal_reversal', 'done'],
      ]),
    );
    expect(await checkLedger(b.db)).toEqual([]);
  });

  it('approves through the payout adapter that pays the channel: paid once, the ledger balanced', async () => {
    const id = await fresh();
    const res = await consoles.get('financeA')!.call('POST', `/withdrawals/${id}/approve`, { reason: 'payee checked' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ approvedBy: 'financeA@example.com', provider: 'sandbox-bank' });
    await b.app.powerly.jobs.runDue();
    expect((await consoles.get('financeA')!.call('GET', `/withdrawals/${id}`)).json()).toMatchObject({
      state: 'paid',
      bankReference: `sandbox-bank:sbx_${id}`,
    });
    expect((await movements()).find((m) => m.orderId === id)).toMatchObject({ status: 'paid' });
    expect(await checkLedger(b.db)).toEqual([]);
  });

  it('two finance people at once: one records the payout, the other is told someone was first (409); one movement', async () => {
    const other = new OpsConsole(b.app);
    const otherId = await person(b, 'second-finance@example.com', {
      agentId: 'agent-a',
      role: 'finance',
      venueIds: [],
    });
    await b.app.powerly.staff.repo.insertSession({
      tokenHash: sha256('second-finance-session-0123456789'),
      staffId: otherId,
      method: 'passkey',
      ip: '127.0.0.1',
      userAgent: 't',
      at: b.clock.now(),
      expiresAt: new Date(b.clock.now().getTime() + 3_600_000),
    });
    other.jar.set('ops_session', 'second-finance-session-0123456789');
    other.csrf = csrfOfSession('second-finance-session-0123456789');
    for (const [x, y] of [
      ['manual', 'manual'],
      ['manual', 'reject'],
      ['approve', 'approve'],
      ['approve', 'reject'],
    ] as const) {
      const id = await fresh();
      const body = (a: string) =>
        a === 'manual'
          ? { bankReference: `REF-${a}-${id}`, reason: 'at the same time' }
          : { reason: 'at the same time' };
      const answers = await Promise.all([
        consoles.get('financeA')!.call('POST', `/withdrawals/${id}/${x}`, body(x)),
        other.call('POST', `/withdrawals/${id}/${y}`, body(y)),
      ]);
      expect(answers.map((r) => r.statusCode).sort()).toEqual([200, 409]);
      const { rows } = await b.db.query<{ n: number }>(
        "select count(*)::int as n from ledger_transfers where order_id = $1 and code in ('withdrawal_paid', 'withdrawal_reversal')",
        [id],
      );
      await b.app.powerly.jobs.runDue();
      const settled = (
        await b.db.query<{ n: number }>(
          "select count(*)::int as n from ledger_transfers where order_id = $1 and code in ('withdrawal_paid', 'withdrawal_reversal')",
          [id],
        )
      ).rows[0]!.n;
      expect(rows[0]!.n).toBeLessThanOrEqual(1);
      expect(settled).toBe(1);
    }
    expect(await checkLedger(b.db)).toEqual([]);
  });
});
