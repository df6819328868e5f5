// The cabinet inbox in the back office (the same operations as `npm run cabinet:inbox`): platform owners and admins
// only (refused messages and unknown power banks belong to no agent); the list shows dead events with their last
// error, refused messages and quarantined power banks; retrying a dead event makes it pending, releasing a
// quarantined power bank makes it lendable where it is; each once (two at once or a repeat: 404), audited.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { build, type Built } from './helper.ts';
import { accessTable, callerConsoles, type Caller } from './ops/callers.ts';
import type { OpsConsole } from './ops/console.ts';

type Op = 'read the inbox' | 'retry a dead event' | 'release a quarantined power bank';
//                             none platformOwner adminA adminB supportA financeA technicianA readOnlyA partnerA
const TABLE: Record<Op, number[]> = {
  'read the inbox': [401, 200, 403, 403, 403, 403, 403, 403, 403],
  'retry a dead event': [401, 200, 403, 403, 403, 403, 403, 403, 403],
  'release a quarantined power bank': [401, 200, 403, 403, 403, 403, 403, 403, 403],
};

describe('the cabinet inbox in the back office', () => {
  let b: Built;
  let consoles = new Map<Caller, OpsConsole>();
  let n = 0;
  /** An event that exhausted its attempts, as the inbox poller leaves one. */
  const deadEvent = async () => {
    const id = `PWL-VNO-001:ev-dead-${++n}`;
    await b.db.query(
      `insert into cabinet_events (id, cabinet_id, type, payload, received_at, state, attempts, last_error) values ($1, 'PWL-VNO-001', 'returned', '{"slot":3}', $2, 'dead', 20, 'database says no')`,
      [id, b.clock.now()],
    );
    return id;
  };
  /** A power bank a cabinet reported that nobody registered. */
  const quarantined = async () => {
    const id = `PB-UNKNOWN-${++n}`;
    await b.db.query(
      `insert into powerbanks (id, state, cabinet_id, slot, seen_at) values ($1, 'quarantined', 'PWL-VNO-001', $2, $3)`,
      [id, 20 + n, b.clock.now()],
    );
    return id;
  };

  beforeAll(async () => {
    b = await build({ simulator: false });
    consoles = await callerConsoles(b);
  });
  afterAll(() => b.close());

  accessTable(TABLE, () => consoles, {
    'read the inbox': (c) => c.call('GET', '/cabinet-inbox'),
    'retry a dead event': async (c) =>
      c.call('POST', `/cabinet-inbox/events/${encodeURIComponent(await deadEvent())}/retry`, { reason: 'table test' }),
    'release a quarantined power bank': async (c) =>
      c.call('POST', `/cabinet-inbox/powerbanks/${await quarantined()}/release`, { reason: 'table test' }),
  });

  it('lists dead events, refused messages and quarantined power banks; retry and release act once, audited', async () => {
    const owner = consoles.get('platformOwner')!;
    const [event, bank] = [await deadEvent(), await quarantined()];
    await b.app.powerly.cabinets.reject('PWL-NOBODY', 'unknown-cabinet', '{"v":2}');
    const inbox = (await owner.call('GET', '/cabinet-inbox')).json<{
      counts: Array<{ state: string; n: number }>;
      events: Array<{ id: string }>;
      rejects: Array<{ cabinetId: string }>;
      quarantined: Array<{ id: string }>;
    }>();
    expect(inbox.events.find((e) => e.id === event)).toMatchObject({
      cabinetId: 'PWL-VNO-001',
      type: 'returned',
      attempts: 20,
      lastError: 'database says no',
      payload: { slot: 3 },
    });
    expect(inbox.counts.find((c) => c.state === 'dead')?.n).toBeGreaterThan(0);
    expect(inbox.rejects.find((r) => r.cabinetId === 'PWL-NOBODY')).toMatchObject({
      reason: 'unknown-cabinet',
      count: 1,
      lastPayload: '{"v":2}',
    });
    expect(inbox.quarantined.find((q) => q.id === bank)).toMatchObject({ cabinetId: 'PWL-VNO-001' });
    expect((await owner.call('GET', '/cabinet-inbox?state=done')).statusCode).toBe(400);

    // Two people retry the same event at once: one makes it pending, the other is told there is nothing to retry.
    const retries = await Promise.all(
      [1, 2].map(() =>
        owner.call('POST', `/cabinet-inbox/events/${encodeURIComponent(event)}/retry`, {
          reason: 'the database is back',
        }),
      ),
    );
    expect(retries.map((r) => r.statusCode).sort()).toEqual([200, 404]);
    expect(
      (await b.db.query('select state, attempts from cabinet_events where id = $1', [event])).rows[0],
    ).toMatchObject({ state: 'pending', attempts: 0 });

    expect(
      (await owner.call('POST', `/cabinet-inbox/powerbanks/${bank}/release`, { reason: 'our bank, label lost' }))
        .statusCode,
    ).toBe(200);
    expect((await b.db.query('select state, cabinet_id from powerbanks where id = $1', [bank])).rows[0]).toMatchObject({
      state: 'in_cabinet',
      cabinet_id: 'PWL-VNO-001',
    });
    expect(
      (await owner.call('POST', `/cabinet-inbox/powerbanks/${bank}/release`, { reason: 'again' })).statusCode,
    ).toBe(404);
    expect((await owner.call('POST', `/cabinet-inbox/powerbanks/${bank}/release`, { reason: '' })).statusCode).toBe(
      400,
    );

    const audit = (await owner.call('GET', '/audit')).json<{
      items: Array<{ action: string; entityId: string; reason: string }>;
    }>().items;
    expect(
      audit.filter((e) => e.entityId === event || e.entityId === bank).map((e) => [e.action, e.entityId, e.reason]),
    ).toEqual([
      ['powerbank.release', bank, 'our bank, label lost'],
      ['cabinet.event.retry', event, 'the database is back'],
    ]);
  });
});
