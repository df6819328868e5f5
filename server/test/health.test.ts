// GET /healthz: ok while the database answers and the cabinet link is up; "attention" with the counts an operator
// must handle (dead jobs, dead cabinet events); 503 "down" when the link to the broker is lost.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { build, waitFor, type Built } from './helper.ts';

let b: Built;
beforeAll(async () => {
  b = await build({ simulator: false });
});
afterAll(async () => b?.close());

const health = async () => {
  const r = await b.app.inject({ method: 'GET', url: '/healthz' });
  return { code: r.statusCode, body: r.json() as Record<string, unknown> };
};

describe('health', () => {
  it('ok, then attention with the dead counts, then down when the broker link is lost', async () => {
    await waitFor(async () => (await health()).body.broker === 'up', 'link up');
    expect(await health()).toEqual({
      code: 200,
      body: { status: 'ok', database: 'up', broker: 'up', deadJobs: 0, deadCabinetEvents: 0 },
    });

    const jobs = b.app.powerly.jobs;
    jobs.register('test.alwaysFails', () => Promise.reject(new Error('provider unreachable')));
    jobs.maxAttempts = 1;
    const id = await jobs.enqueue('test.alwaysFails', {}, b.clock.now());
    expect(await jobs.runNow(id)).toBe(false);
    jobs.maxAttempts = 20;
    await b.db.query(`update cabinet_events set state = 'dead' where id = (select id from cabinet_events limit 1)`);
    const { rows } = await b.db.query<{ n: number }>(
      `select count(*)::int as n from cabinet_events where state = 'dead'`,
    );
    expect(await health()).toEqual({
      code: 200,
      body: { status: 'attention', database: 'up', broker: 'up', deadJobs: 1, deadCabinetEvents: Number(rows[0]!.n) },
    });

    await b.clients[0]!.endAsync(true); // the process loses its broker connection
    await waitFor(async () => (await health()).code === 503, 'reported down');
    expect((await health()).body).toMatchObject({ status: 'down', broker: 'down', database: 'up' });
  });
});
