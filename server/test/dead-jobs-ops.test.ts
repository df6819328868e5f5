// Dead jobs in the back office: platform owners and admins only (jobs belong to no agent), retry makes one due
// again, abandon ends it without running; each audited, and a job someone already handled is a 404.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { build, type Built } from './helper.ts';
import { accessTable, callerConsoles, type Caller } from './ops/callers.ts';
import type { OpsConsole } from './ops/console.ts';

type Op = 'list dead jobs' | 'retry a dead job' | 'abandon a dead job';
//                             none platformOwner adminA adminB supportA financeA technicianA readOnlyA partnerA
const TABLE: Record<Op, number[]> = {
  'list dead jobs': [401, 200, 403, 403, 403, 403, 403, 403, 403],
  'retry a dead job': [401, 200, 403, 403, 403, 403, 403, 403, 403],
  'abandon a dead job': [401, 200, 403, 403, 403, 403, 403, 403, 403],
};

describe('dead jobs in the back office', () => {
  let b: Built;
  let consoles = new Map<Caller, OpsConsole>();
  /** A job that exhausted its attempts, as the runner leaves one. */
  const deadJob = async () => {
    const { rows } = await b.db.query<{ id: string }>(
      `insert into jobs (kind, payload, run_at, attempts, last_error, dead_at) values ('test.dead', '{"orderId":"PO1"}', $1, 8, 'provider timeout', $1) returning id`,
      [b.clock.now()],
    );
    return String(rows[0]!.id);
  };

  beforeAll(async () => {
    b = await build({ simulator: false });
    consoles = await callerConsoles(b);
  });
  afterAll(() => b.close());

  accessTable(TABLE, () => consoles, {
    'list dead jobs': (c) => c.call('GET', '/jobs/dead'),
    'retry a dead job': async (c) => c.call('POST', `/jobs/dead/${await deadJob()}/retry`, { reason: 'table test' }),
    'abandon a dead job': async (c) =>
      c.call('POST', `/jobs/dead/${await deadJob()}/abandon`, { reason: 'table test' }),
  });

  it('retries one (due again, fresh attempts) and abandons another (no longer dead); each once, audited', async () => {
    const owner = consoles.get('platformOwner')!;
    const [a, c] = [await deadJob(), await deadJob()];
    const listed = (await owner.call('GET', '/jobs/dead')).json<{
      items: Array<{ id: string; kind: string; lastError?: string; attempts: number }>;
    }>().items;
    expect(listed.find((j) => j.id === a)).toMatchObject({
      kind: 'test.dead',
      lastError: 'provider timeout',
      attempts: 8,
    });

    expect((await owner.call('POST', `/jobs/dead/${a}/retry`, { reason: 'the provider is back' })).statusCode).toBe(
      200,
    );
    expect((await b.db.query('select attempts, dead_at, done_at from jobs where id = $1', [a])).rows[0]).toMatchObject({
      attempts: 0,
      dead_at: null,
      done_at: null,
    });
    expect((await owner.call('POST', `/jobs/dead/${a}/retry`, { reason: 'again' })).statusCode).toBe(404);

    const deadBefore = await b.app.powerly.fleet.deadJobs.list(1000);
    expect(
      (await owner.call('POST', `/jobs/dead/${c}/abandon`, { reason: 'refunded by hand at the provider' })).statusCode,
    ).toBe(200);
    expect((await b.db.query('select abandoned_by, dead_at from jobs where id = $1', [c])).rows[0]).toMatchObject({
      abandoned_by: 'platformOwner@example.com',
      dead_at: null,
    });
    expect((await b.app.powerly.fleet.deadJobs.list(1000)).length).toBe(deadBefore.length - 1);
    expect((await owner.call('POST', `/jobs/dead/${c}/retry`, { reason: 'too late' })).statusCode).toBe(404);
    expect((await owner.call('POST', '/jobs/dead/abc/retry', { reason: 'bad id' })).statusCode).toBe(400);

    const audit = (await owner.call('GET', '/audit?entity=job')).json<{
      items: Array<{ action: string; entityId: string; reason: string }>;
    }>().items;
    expect(
      audit.filter((e) => e.entityId === a || e.entityId === c).map((e) => [e.action, e.entityId, e.reason]),
    ).toEqual([
      ['job.abandon', c, 'refunded by hand at the provider'],
      ['job.retry', a, 'the provider is back'],
    ]);
  });
});
