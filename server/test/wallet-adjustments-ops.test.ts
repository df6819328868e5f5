// Wallet credits and debits from the back office under four eyes: who may request and who may decide (role × scope,
// outside the agent a 404), that nothing moves until a different person approves, that the approval moves the
// money once in the ledger (a retry, a second approver, two approvers at once), that the requester can never decide
// their own request, that a debit never overdraws the wallet, and the audit entries with their reasons.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sha256 } from '../src/lib/ids.ts';
import { checkLedger } from '../src/modules/wallet/reconcile.ts';
import { csrfOfSession } from '../src/plugins/ops-api.ts';
import { build, type Built } from './helper.ts';
import { accessTable, callerConsoles, person, type Caller } from './ops/callers.ts';
import { OpsConsole } from './ops/console.ts';
import { fundedRider } from './ops/withdrawals.ts';

type Op = 'request a credit of a rider of A' | 'approve a request of A' | 'reject a request of A' | 'list the requests';
//                                          none platformOwner adminA adminB supportA financeA technicianA readOnlyA partnerA
const TABLE: Record<Op, number[]> = {
  'request a credit of a rider of A': [401, 200, 200, 404, 403, 200, 403, 403, 403],
  'approve a request of A': [401, 200, 200, 404, 403, 200, 403, 403, 403],
  'reject a request of A': [401, 200, 200, 404, 403, 200, 403, 403, 403],
  'list the requests': [401, 200, 200, 200, 403, 200, 403, 403, 403],
};

interface Item {
  id: string;
  state: string;
  amount: number;
  direction: string;
  decidedBy?: string;
  transferId?: string;
  requestedBy: string;
}

let seq = 0;
const key = () => `adj-key-${process.pid}-${++seq}`;

describe('wallet adjustments under four eyes', () => {
  let b: Built;
  let consoles = new Map<Caller, OpsConsole>();
  /** A second finance person of agent A: the requester whose requests the others decide. */
  let requester: OpsConsole;
  const balance = (userId: number) => b.app.powerly.ledger.walletOf(userId, 'EUR', 'agent-a').then((w) => w.balance);
  const request = async (
    c: OpsConsole,
    userId: number,
    body: Partial<{ direction: string; amount: number; agentId: string }> = {},
    k = key(),
  ) =>
    c.call(
      'POST',
      '/wallet-adjustments',
      {
        riderId: String(userId),
        agentId: 'agent-a',
        currency: 'EUR',
        direction: 'credit',
        amount: 500,
        reason: 'goodwill after a broken cable',
        ...body,
      },
      { 'idempotency-key': k },
    );
  const pending = async () => {
    const { user } = await fundedRider(b.app, b.clock, 'agent-a', 1000);
    return (await request(requester, user.id)).json<Item>().id;
  };

  beforeAll(async () => {
    b = await build({ simulator: false });
    consoles = await callerConsoles(b);
    const id = await person(b, 'requester@example.com', { agentId: 'agent-a', role: 'finance', venueIds: [] });
    const token = 'session-of-requester-0123456789abcdef';
    await b.app.powerly.staff.repo.insertSession({
      tokenHash: sha256(token),
      staffId: id,
      method: 'passkey',
      ip: '127.0.0.1',
      userAgent: 't',
      at: b.clock.now(),
      expiresAt: new Date(b.clock.now().getTime() + 3_600_000),
    });
    requester = new OpsConsole(b.app);
    requester.jar.set('ops_session', token);
    requester.csrf = csrfOfSession(token);
  });
  afterAll(() => b.close());

  accessTable(TABLE, () => consoles, {
    'request a credit of a rider of A': async (c) =>
      request(c, (await fundedRider(b.app, b.clock, 'agent-a', 100)).user.id),
    'approve a request of A': async (c) =>
      c.call('POST', `/wallet-adjustments/${await pending()}/approve`, { reason: 'checked the ticket' }),
    'reject a request of A': async (c) =>
      c.call('POST', `/wallet-adjustments/${await pending()}/reject`, { reason: 'no ticket found' }),
    'list the requests': async (c) => c.call('GET', '/wallet-adjustments?state=all'),
  });

  it('moves nothing until a different person approves; then once, in the ledger, with both reasons in the audit log', async () => {
    const { user } = await fundedRider(b.app, b.clock, 'agent-a', 1000);
    const k = key();
    const asked = await request(requester, user.id, { amount: 750 }, k);
    expect(asked.statusCode).toBe(200);
    const item = asked.json<Item>();
    expect(item).toMatchObject({
      state: 'pending',
      amount: 750,
      direction: 'credit',
      requestedBy: 'requester@example.com',
    });
    // The requester's retry answers the same request; the key with another amount is refused.
    expect((await request(requester, user.id, { amount: 750 }, k)).json<Item>().id).toBe(item.id);
    expect((await request(requester, user.id, { amount: 751 }, k)).statusCode).toBe(422);
    expect(
      (
        await requester.call('POST', '/wallet-adjustments', {
          riderId: String(user.id),
          agentId: 'agent-a',
          currency: 'EUR',
          direction: 'credit',
          amount: 1,
          reason: 'no key',
        })
      ).statusCode,
    ).toBe(400);
    expect(await balance(user.id)).toBe(1000);
    const queue = (await consoles.get('financeA')!.call('GET', `/wallet-adjustments?riderId=${user.id}`)).json<{
      items: Item[];
    }>().items;
    expect(queue.map((i) => i.id)).toEqual([item.id]);

    // Never one's own.
    const own = await requester.call(
      'POST',
      `/wallet-adjustments/${item.id}/approve`,
      { reason: 'approving myself' },
      { lang: 'en-US' },
    );
    expect(own.statusCode).toBe(403);
    expect(own.json().message).toBe(
      'You requested this credit or debit yourself: a different person must approve or reject it.',
    );
    expect(await balance(user.id)).toBe(1000);

    const approved = await consoles
      .get('financeA')!
      .call('POST', `/wallet-adjustments/${item.id}/approve`, { reason: 'ticket checked' });
    expect(approved.json<Item>()).toMatchObject({ state: 'approved', decidedBy: 'financeA@example.com' });
    expect(approved.json<Item>().transferId).toBeTruthy();
    expect(await balance(user.id)).toBe(1750);
    // The same approver again: as it is; anyone else: 409 naming who; nothing moves twice.
    expect(
      (
        await consoles
          .get('financeA')!
          .call('POST', `/wallet-adjustments/${item.id}/approve`, { reason: 'ticket checked' })
      ).statusCode,
    ).toBe(200);
    const late = await consoles
      .get('adminA')!
      .call('POST', `/wallet-adjustments/${item.id}/reject`, { reason: 'too late' });
    expect(late.statusCode).toBe(409);
    expect(late.json().message).toContain('financeA@example.com');
    expect(await balance(user.id)).toBe(1750);
    expect(await checkLedger(b.db)).toEqual([]);

    const audit = (
      await consoles.get('adminA')!.call('GET', `/audit?entity=wallet_adjustment&entityId=${item.id}`)
    ).json<{ items: Array<{ action: string; reason: string }> }>().items;
    expect(audit.map((a) => [a.action, a.reason]).sort()).toEqual([
      ['wallet_adjustment.approve', 'ticket checked'],
      ['wallet_adjustment.request', 'goodwill after a broken cable'],
    ]);
    // The rider sees the credit among their transactions.
    const { rows } = await b.db.query<{ code: string; amount: string }>(
      'select code, amount from ledger_transfers where id = $1',
      [approved.json<Item>().transferId],
    );
    expect(rows.map((r) => [r.code, Number(r.amount)])).toEqual([['wallet_adjustment', 750]]);
  });

  it('a debit never overdraws the wallet; a rejected request moves nothing; outside the agent every step is a 404', async () => {
    const { user } = await fundedRider(b.app, b.clock, 'agent-a', 300);
    const big = (await request(requester, user.id, { direction: 'debit', amount: 301 })).json<Item>();
    const refused = await consoles
      .get('financeA')!
      .call('POST', `/wallet-adjustments/${big.id}/approve`, { reason: 'chargeback' }, { lang: 'en-US' });
    expect(refused.statusCode).toBe(422);
    expect(refused.json().message).toMatch(/wallet holds less than this debit/);
    expect((await consoles.get('financeA')!.call('GET', `/wallet-adjustments/${big.id}`)).json<Item>().state).toBe(
      'pending',
    );
    const rejected = await consoles
      .get('financeA')!
      .call('POST', `/wallet-adjustments/${big.id}/reject`, { reason: 'asked for too much' });
    expect(rejected.json<Item>()).toMatchObject({ state: 'rejected', decisionNote: 'asked for too much' });

    const fits = (await request(requester, user.id, { direction: 'debit', amount: 300 })).json<Item>();
    expect(
      (
        await consoles
          .get('adminA')!
          .call('POST', `/wallet-adjustments/${fits.id}/approve`, { reason: 'chargeback confirmed' })
      ).statusCode,
    ).toBe(200);
    expect(await balance(user.id)).toBe(0);

    const b2 = consoles.get('adminB')!;
    expect((await b2.call('GET', `/wallet-adjustments/${fits.id}`)).statusCode).toBe(404);
    expect(
      (await b2.call('GET', '/wallet-adjustments?state=all'))
        .json<{ items: Item[] }>()
        .items.some((i) => i.id === fits.id),
    ).toBe(false);
    // A rider without an account with the agent is not a rider of that agent.
    const { user: other } = await fundedRider(b.app, b.clock, 'agent-b', 100);
    expect((await request(requester, other.id)).statusCode).toBe(404);
    expect(await checkLedger(b.db)).toEqual([]);
  });

  it('two approvers at once: one approval, one transfer', async () => {
    const { user } = await fundedRider(b.app, b.clock, 'agent-a', 0 + 1);
    const item = (await request(requester, user.id, { amount: 200 })).json<Item>();
    const [x, y] = await Promise.all([
      consoles.get('financeA')!.call('POST', `/wallet-adjustments/${item.id}/approve`, { reason: 'first' }),
      consoles.get('adminA')!.call('POST', `/wallet-adjustments/${item.id}/approve`, { reason: 'second' }),
    ]);
    expect([x.statusCode, y.statusCode].sort()).toEqual([200, 409]);
    expect(await balance(user.id)).toBe(201);
    const { rows } = await b.db.query(
      "select count(*)::int as n from ledger_transfers t join ledger_accounts a on a.id = t.credit_account_id where t.code = 'wallet_adjustment' and a.owner_id = $1",
      [String(user.id)],
    );
    expect(rows[0]).toEqual({ n: 1 });
    expect(await checkLedger(b.db)).toEqual([]);
  });
});
