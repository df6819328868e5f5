// A command's "accepted" answer (presence.ts): the ones that reach a process together are recorded in one
// statement, each only for a command of the cabinet that sent it; any other answer is recorded at once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CommandAck } from '../src/modules/cabinets/protocol.ts';
import { build, waitFor, type Built } from './helper.ts';

let b: Built;
beforeAll(async () => {
  b = await build({ simulator: false });
});
afterAll(async () => b?.close());

const command = async (id: string, cabinetId: string) => {
  const at = b.clock.now();
  await b.db.query(
    `insert into cabinet_commands (id, cabinet_id, type, payload, created_at, expires_at)
     values ($1, $2, 'restart', '{}'::jsonb, $3, $4)`,
    [id, cabinetId, at, new Date(at.getTime() + 60_000)],
  );
};
const answer = async (id: string) =>
  (
    await b.db.query<{ acked_at: Date | null; result: string | null }>(
      'select acked_at, result from cabinet_commands where id = $1',
      [id],
    )
  ).rows[0]!;
const ack = (commandId: string, status: CommandAck['status']): CommandAck => ({
  v: 2,
  commandId,
  ts: b.clock.now().toISOString(),
  status,
});

describe('"accepted" answers', () => {
  it('arriving together are one statement; a command of another cabinet is left alone; other answers at once', async () => {
    await command('cmd-vno', 'PWL-VNO-001');
    await command('cmd-lis', 'PWL-LIS-001');
    await command('cmd-not-yours', 'PWL-VNO-001');
    const sent: string[] = [];
    const query = b.db.query;
    b.db.query = ((sql: string, params?: unknown[], opts?: { name?: string }) => {
      if (/cabinet_commands/.test(sql)) sent.push(sql.replace(/\s+/g, ' ').trim().split(' ')[0]!);
      return query(sql, params, opts);
    }) as typeof query;
    try {
      const cabinets = b.app.powerly.cabinets;
      await Promise.all([
        cabinets.ack('PWL-VNO-001', ack('cmd-vno', 'accepted')),
        cabinets.ack('PWL-LIS-001', ack('cmd-lis', 'accepted')),
        cabinets.ack('PWL-LIS-001', ack('cmd-not-yours', 'accepted')),
      ]);
      await waitFor(
        async () => (await answer('cmd-vno')).acked_at && (await answer('cmd-lis')).acked_at,
        'both accepted answers recorded',
      );
    } finally {
      b.db.query = query;
    }
    expect(sent.filter((s) => s === 'update')).toHaveLength(1);
    expect(await answer('cmd-not-yours')).toEqual({ acked_at: null, result: null });

    await b.app.powerly.cabinets.ack('PWL-VNO-001', ack('cmd-not-yours', 'expired'));
    expect(await answer('cmd-not-yours')).toMatchObject({ result: 'expired', acked_at: expect.any(Date) });
  });
});
