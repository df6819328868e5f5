// Retention sweeps (server/src/jobs/retention.ts): old rows of the growing cabinet tables go, rows still needed
// (pending or dead inbox events, recent ones) stay, and the sweep is one recurring job however often it is scheduled.
import { afterAll, describe, expect, it } from 'vitest';
import { JOB_RETENTION } from '../src/jobs/retention.ts';
import { build, type Built } from './helper.ts';

const DAY = 24 * 3600_000;
let b: Built;
afterAll(async () => {
  await b?.close();
});

describe('retention', () => {
  it('sweeps processed cabinet events, old commands and reject counters after their periods, keeps the rest', async () => {
    b = await build({ simulator: false });
    const now = b.clock.now().getTime();
    const at = (days: number) => new Date(now - days * DAY);
    const ev = (id: string, state: string, days: number) =>
      b.db.query(
        `insert into cabinet_events (id, cabinet_id, type, cabinet_ts, payload, received_at, state, processed_at, next_attempt_at)
         values ($1, 'PWL-LIS-001', 'returned', $2, '{}', $2, $3, case when $3 = 'done' then $2::timestamptz end, $2)`,
        [id, at(days), state],
      );
    await ev('old-done', 'done', 100);
    await ev('new-done', 'done', 10);
    await ev('old-dead', 'dead', 400);
    await ev('old-pending', 'pending', 400);
    await b.db.query(
      `insert into cabinet_commands (id, cabinet_id, order_id, type, payload, created_at, expires_at) values
        ('c-old', 'PWL-LIS-001', null, 'eject', '{}', $1, $1), ('c-new', 'PWL-LIS-001', null, 'eject', '{}', $2, $2)`,
      [at(200), at(1)],
    );
    await b.db.query(
      `insert into cabinet_rejects (cabinet_id, reason, count, first_at, last_at) values ('X', 'malformed', 3, $1, $1), ('Y', 'malformed', 1, $2, $2)`,
      [at(40), at(2)],
    );
    // One recurring sweep for every growing table: the cabinet tables' and the platform's (docs/operations.md).
    expect(b.app.powerly.retention.periods()).toEqual({
      cabinet_events: 90,
      cabinet_commands: 180,
      cabinet_rejects: 30,
      jobs: 30,
      idempotency_keys: 7,
      web_vitals: 90,
      otp_sends: 2,
      captchas: 1,
      rate_limits: 1,
      // Payer tokens with a sealed card: gone with the first sweep after their expiry (docs/payments.md "Card data").
      external_method_tokens: 0,
      // The back office's passkey and sign-in ceremonies, and staff sessions: gone once expired.
      staff_ceremonies: 0,
      staff_sessions: 0,
    });

    // The recurring job: scheduled once however often, runs when due and schedules its next run.
    await b.app.powerly.retention.schedule();
    await b.app.powerly.retention.schedule();
    const pending = async () =>
      Number(
        (
          await b.db.query<{ n: number }>('select count(*)::int as n from jobs where kind = $1 and done_at is null', [
            JOB_RETENTION,
          ])
        ).rows[0]!.n,
      );
    expect(await pending()).toBe(1);
    await b.app.powerly.jobs.runDue();
    expect(await pending()).toBe(1);

    const ids = async (table: string, col = 'id') =>
      (await b.db.query<{ id: string }>(`select ${col} as id from ${table} order by 1`)).rows.map((r) => r.id);
    expect(await ids('cabinet_events')).toEqual(['new-done', 'old-dead', 'old-pending']);
    expect(await ids('cabinet_commands')).toEqual(['c-new']);
    expect(await ids('cabinet_rejects', 'cabinet_id')).toEqual(['Y']);
  });
});
