// The money views of the back office: balances per currency, agent and account kind (of the caller's agents) that sum
// to zero per currency platform-wide, and the ledger check, which finds a balance changed outside the ledger.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { build, type Built } from './helper.ts';
import { accessTable, callerConsoles, type Caller } from './ops/callers.ts';
import type { OpsConsole } from './ops/console.ts';
import { fundedRider } from './ops/withdrawals.ts';

type Op = 'read balances' | 'run the ledger check';
//                               none platformOwner adminA adminB supportA financeA technicianA readOnlyA partnerA
const TABLE: Record<Op, number[]> = {
  'read balances': [401, 200, 200, 200, 403, 200, 403, 403, 403],
  'run the ledger check': [401, 200, 403, 403, 403, 403, 403, 403, 403],
};

describe('money views', () => {
  let b: Built;
  let consoles = new Map<Caller, OpsConsole>();
  beforeAll(async () => {
    b = await build({ simulator: false });
    consoles = await callerConsoles(b);
    await fundedRider(b.app, b.clock, 'agent-a', 4200);
  });
  afterAll(() => b.close());

  accessTable(TABLE, () => consoles, {
    'read balances': (c) => c.call('GET', '/money/balances'),
    'run the ledger check': (c) => c.call('GET', '/money/ledger-check'),
  });

  it('balances per currency and kind: an agent sees its own; platform-wide each currency sums to zero', async () => {
    type Row = { currency: string; agentId: string; ownerType: string; kind: string; posted: number };
    const a = (await consoles.get('financeA')!.call('GET', '/money/balances')).json<{ items: Row[] }>().items;
    expect(a.every((r) => r.agentId === 'agent-a')).toBe(true);
    expect(a).toContainEqual(
      expect.objectContaining({ currency: 'EUR', ownerType: 'user', kind: 'wallet', posted: 4200 }),
    );
    expect(
      (await consoles.get('adminB')!.call('GET', '/money/balances'))
        .json<{ items: Row[] }>()
        .items.some((r) => r.agentId === 'agent-a'),
    ).toBe(false);
    const all = (await consoles.get('platformOwner')!.call('GET', '/money/balances')).json<{ items: Row[] }>().items;
    const sums = new Map<string, number>();
    for (const r of all) sums.set(r.currency, (sums.get(r.currency) ?? 0) + r.posted);
    for (const [currency, sum] of sums) expect(sum, currency).toBe(0);
  });

  it('the ledger check holds, then finds a balance changed outside the ledger', async () => {
    const owner = consoles.get('platformOwner')!;
    expect((await owner.call('GET', '/money/ledger-check')).json()).toEqual({ ok: true, violations: [] });
    await b.db.query(
      "update ledger_accounts set credits_posted = credits_posted + 1 where owner_type = 'user' and kind = 'wallet' and agent_id = 'agent-a'",
    );
    const check = (await owner.call('GET', '/money/ledger-check')).json<{
      ok: boolean;
      violations: Array<{ invariant: string }>;
    }>();
    expect(check.ok).toBe(false);
    expect(check.violations.map((v) => v.invariant)).toEqual(
      expect.arrayContaining(['currency sums to zero', 'account balances match transfers']),
    );
    await b.db.query(
      "update ledger_accounts set credits_posted = credits_posted - 1 where owner_type = 'user' and kind = 'wallet' and agent_id = 'agent-a'",
    );
  });
});
