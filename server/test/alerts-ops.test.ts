// The ops API's alerts as a role × scope table (an alert or rule outside the caller's agents is a 404, an
// operation their role lacks a 403, no session a 401; platform rules ('*') only for platform memberships).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { build, type Built } from './helper.ts';
import { accessTable, callerConsoles, type Caller } from './ops/callers.ts';
import type { OpsConsole } from './ops/console.ts';

type Op =
  | 'list alerts'
  | 'list rules'
  | 'add a rule of A'
  | 'add a platform rule'
  | 'acknowledge an alert of A'
  | 'its deliveries';
//                 none platformOwner adminA adminB supportA financeA technicianA readOnlyA partnerA
const TABLE: Record<Op, number[]> = {
  'list alerts': [401, 200, 200, 200, 200, 200, 200, 200, 403],
  'list rules': [401, 200, 200, 200, 200, 200, 200, 200, 403],
  'add a rule of A': [401, 201, 201, 404, 201, 403, 201, 403, 403],
  'add a platform rule': [401, 201, 404, 404, 404, 403, 404, 403, 403],
  'acknowledge an alert of A': [401, 200, 200, 404, 200, 403, 200, 403, 403],
  'its deliveries': [401, 200, 200, 404, 200, 200, 200, 200, 403],
};

describe("the ops API's alerts", () => {
  let b: Built;
  let consoles = new Map<Caller, OpsConsole>();
  const alertIds: string[] = [];

  beforeAll(async () => {
    b = await build({ simulator: false });
    consoles = await callerConsoles(b);
    const repo = b.app.powerly.alerts.repo;
    const rule = await repo.insertRule({
      agent_id: 'agent-a',
      kind: 'low_stock',
      threshold: 2,
      emails: [],
      phones: [],
      webhook_url: null,
      webhook_secret: null,
      created_at: b.clock.now(),
    });
    for (let i = 0; i < 9; i++)
      alertIds.push(
        (await repo.open(
          rule.id,
          'low_stock',
          { subject: `CAB-${i}`, agent_id: 'agent-a', detail: {} },
          b.clock.now(),
        ))!.id,
      );
  });
  afterAll(() => b.close());

  let next = 0;
  const rule = (c: OpsConsole, agentId: string) =>
    c.call('POST', '/alerts/rules', {
      agentId,
      kind: 'cabinet_offline',
      threshold: 10,
      emails: ['ops@example.com'],
      phones: ['+37060000000'],
      reason: 'night watch',
    });
  const run: Record<Op, (c: OpsConsole) => Promise<{ statusCode: number }>> = {
    'list alerts': (c) => c.call('GET', '/alerts?state=open'),
    'list rules': (c) => c.call('GET', '/alerts/rules'),
    'add a rule of A': (c) => rule(c, 'agent-a'),
    'add a platform rule': (c) => rule(c, '*'),
    'acknowledge an alert of A': (c) => c.call('POST', `/alerts/${alertIds[next++]}/acknowledge`, { reason: 'on it' }),
    'its deliveries': (c) => c.call('GET', `/alerts/${alertIds[0]}/deliveries`),
  };

  accessTable(TABLE, () => consoles, run);

  it('a webhook needs its secret; acknowledging twice is a 409; the writes are audited', async () => {
    const owner = consoles.get('platformOwner')!;
    const bad = await owner.call('POST', '/alerts/rules', {
      agentId: 'agent-a',
      kind: 'full',
      threshold: 0,
      emails: [],
      phones: [],
      webhookUrl: 'https://hooks.example.com/x',
      reason: 'hook',
    });
    expect(bad.statusCode).toBe(400);
    expect((await owner.call('POST', `/alerts/${alertIds[1]}/acknowledge`, { reason: 'again' })).statusCode).toBe(409); // the owner acknowledged it in the table
    const audit = (await owner.call('GET', '/audit?entity=alert')).json<{
      items: { action: string; reason: string }[];
    }>().items;
    expect(audit[0]).toMatchObject({ action: 'alert.acknowledge', reason: 'on it' });
  });
});
