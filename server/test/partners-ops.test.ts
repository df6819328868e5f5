// The ops API's partners, as a role × scope table (an object outside the caller's scope is a 404, an operation
// their role lacks a 403, no session a 401), what a venue partner sees of them, and the audit of every write.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { build, venueFixture, type Built } from './helper.ts';
import { accessTable, callerConsoles, type Caller } from './ops/callers.ts';
import type { OpsConsole } from './ops/console.ts';

type Op =
  | 'list rules'
  | 'add a rule of V001'
  | "add a rule of agent B's venue"
  | 'set a tax rate'
  | 'read rates'
  | 'read a statement of V001'
  | 'read a statement of V002'
  | 'its PDF'
  | 'issue a statement of V002'
  | 'earnings';
//                 none platformOwner adminA adminB supportA financeA technicianA readOnlyA partnerA
const TABLE: Record<Op, number[]> = {
  'list rules': [401, 200, 200, 200, 200, 200, 403, 200, 200],
  'add a rule of V001': [401, 201, 201, 404, 403, 201, 403, 403, 403],
  "add a rule of agent B's venue": [401, 201, 404, 201, 403, 404, 403, 403, 403],
  'set a tax rate': [401, 200, 404, 404, 403, 404, 403, 403, 403],
  'read rates': [401, 200, 404, 404, 404, 404, 403, 404, 404],
  'read a statement of V001': [401, 200, 200, 404, 200, 200, 403, 200, 200],
  'read a statement of V002': [401, 200, 200, 404, 200, 200, 403, 200, 404],
  'its PDF': [401, 200, 200, 404, 200, 200, 403, 200, 200],
  'issue a statement of V002': [401, 201, 201, 404, 403, 201, 403, 403, 403],
  earnings: [401, 200, 200, 200, 200, 200, 403, 200, 200],
};

describe("the ops API's partners", () => {
  let b: Built;
  let consoles = new Map<Caller, OpsConsole>();
  const statements: Record<string, string> = {};
  let minutes = 0;
  let month = 0;

  beforeAll(async () => {
    b = await build({ simulator: false });
    consoles = await callerConsoles(b);
    const fleet = b.app.powerly.fleet;
    await fleet.venues.create(venueFixture('V001', 54.7, 25.3, { agentId: 'agent-a' }));
    await fleet.venues.create(venueFixture('V002', 54.7, 25.3, { agentId: 'agent-a' }));
    await fleet.venues.create(venueFixture('V003', 54.7, 25.3, { agentId: 'agent-b' }));
    const owner = consoles.get('platformOwner')!;
    for (const v of ['V001', 'V002']) {
      // A contract in force since January (a rule through the API starts now or later).
      await b.app.powerly.partners.d.repo.insertRule({
        partner_type: 'venue',
        partner_id: v,
        currency: 'EUR',
        percent_bps: 1200,
        monthly_fee: 2000,
        effective_from: new Date('2026-01-01T00:00:00Z'),
        created_at: b.clock.now(),
      });
      const r = await owner.call('POST', '/partners/rules', {
        partnerType: 'venue',
        partnerId: v,
        currency: 'EUR',
        percentBps: 1200,
        monthlyFee: 2000,
        reason: 'contract signed',
      });
      expect(r.statusCode, r.body).toBe(201);
      const s = await owner.call('POST', '/partners/statements', {
        partnerType: 'venue',
        partnerId: v,
        currency: 'EUR',
        period: '2026-10',
        reason: 'month end',
      });
      expect(s.statusCode, s.body).toBe(201);
      statements[v] = s.json().id;
    }
  });
  afterAll(() => b.close());

  const later = () => new Date(b.clock.now().getTime() + ++minutes * 60_000).toISOString();
  const rule = (c: OpsConsole, v: string) =>
    c.call('POST', '/partners/rules', {
      partnerType: 'venue',
      partnerId: v,
      currency: 'EUR',
      percentBps: 1000,
      monthlyFee: 0,
      effectiveFrom: later(),
      reason: 'renegotiated',
    });
  const run: Record<Op, (c: OpsConsole) => Promise<{ statusCode: number }>> = {
    'list rules': (c) => c.call('GET', '/partners/rules'),
    'add a rule of V001': (c) => rule(c, 'V001'),
    "add a rule of agent B's venue": (c) => rule(c, 'V003'),
    'set a tax rate': (c) => c.call('POST', '/partners/tax-rates', { country: 'LT', rateBps: 2100, reason: 'VAT' }),
    'read rates': (c) => c.call('GET', '/partners/rates'),
    'read a statement of V001': (c) => c.call('GET', `/partners/statements/${statements.V001}`),
    'read a statement of V002': (c) => c.call('GET', `/partners/statements/${statements.V002}/csv`),
    'its PDF': (c) => c.call('GET', `/partners/statements/${statements.V001}/pdf`),
    'issue a statement of V002': (c) =>
      c.call('POST', '/partners/statements', {
        partnerType: 'venue',
        partnerId: 'V002',
        currency: 'EUR',
        period: `2025-${String(++month).padStart(2, '0')}`,
        reason: 'month end',
      }),
    earnings: (c) => c.call('GET', '/partners/earnings'),
  };

  accessTable(TABLE, () => consoles, run);

  it("a venue partner sees only its own venue's rules, statements and earnings", async () => {
    const partner = consoles.get('partnerA')!;
    const rules = (await partner.call('GET', '/partners/rules')).json<{ items: { partnerId: string }[] }>().items;
    expect(rules.length).toBeGreaterThan(0);
    expect(new Set(rules.map((r) => r.partnerId))).toEqual(new Set(['V001']));
    const list = (await partner.call('GET', '/partners/statements')).json<{ items: { partnerId: string }[] }>().items;
    expect(list.map((s) => s.partnerId)).toEqual(['V001']);
    const earnings = (await partner.call('GET', '/partners/earnings')).json<{
      items: { partnerId: string; balance: number }[];
    }>().items;
    expect(earnings).toEqual([expect.objectContaining({ partnerId: 'V001', balance: 2000 })]);
    const all = (await consoles.get('adminA')!.call('GET', '/partners/earnings')).json<{
      items: { partnerId: string }[];
    }>().items;
    expect(all.map((e) => e.partnerId).sort()).toEqual(['V001', 'V002']);
  });

  it("every write is audited with its reason, and bad input is a 400 in the operator's language", async () => {
    const owner = consoles.get('platformOwner')!;
    const audit = (await owner.call('GET', '/audit?entity=revenue_share_rule')).json<{
      items: { action: string; reason: string; agentId: string }[];
    }>().items;
    expect(audit).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ action: 'share_rule.create', reason: 'contract signed', agentId: 'agent-a' }),
      ]),
    );
    const issued = (await owner.call('GET', '/audit?entity=partner_statement')).json<{
      items: { action: string; reason: string }[];
    }>().items;
    expect(issued[0]).toMatchObject({ action: 'statement.issue', reason: 'month end' });
    const bad = await owner.call(
      'POST',
      '/partners/rules',
      { partnerType: 'venue', partnerId: 'V001', currency: 'EUR', percentBps: 10_001, monthlyFee: 0, reason: 'x' },
      { 'accept-language': 'lt-LT' },
    );
    expect(bad.statusCode).toBe(400);
    const past = await owner.call('POST', '/partners/rules', {
      partnerType: 'venue',
      partnerId: 'V001',
      currency: 'EUR',
      percentBps: 100,
      monthlyFee: 0,
      effectiveFrom: '2020-01-01T00:00:00Z',
      reason: 'backdated',
    });
    expect(past.statusCode).toBe(409);
    const open = await owner.call('POST', '/partners/statements', {
      partnerType: 'venue',
      partnerId: 'V001',
      currency: 'EUR',
      period: '2026-11',
      reason: 'too early',
    });
    expect(open.statusCode).toBe(409);
  });
});
