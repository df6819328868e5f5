// A command the link re-published while its cabinet was not yet subscribed (the server's link back first after a
// broker restart) reaches the cabinet when it announces itself online, not at the command's TTL.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uuid } from '../src/lib/ids.ts';
import { build, waitFor, type Built } from './helper.ts';

let b: Built;
beforeAll(async () => {
  b = await build({ simulator: false });
}, 120_000);
afterAll(async () => b?.close());

const command = async (id: string, expiresInMs: number) => {
  const now = b.clock.now();
  await b.db.query(
    `insert into cabinet_commands (id, cabinet_id, type, payload, created_at, expires_at) values ($1, 'PWL-LIS-001', 'eject', $2, $3, $4)`,
    [
      id,
      JSON.stringify({ v: 2, id, type: 'eject', slot: 1, ts: now.toISOString(), ttlMs: expiresInMs }),
      now,
      new Date(now.getTime() + expiresInMs),
    ],
  );
};

describe('a cabinet coming online', () => {
  it('gets its unanswered commands again, not the expired ones', async () => {
    await command('cmd-waiting-1', 30_000);
    await command('cmd-expired-1', -1_000);
    const cabinet = b.connector.connect({ clientId: `cab-${uuid().slice(0, 8)}`, clean: true });
    await new Promise<void>((r) => cabinet.once('connect', () => r()));
    const got: string[] = [];
    cabinet.on('message', (_t, p) => got.push(String((JSON.parse(p.toString()) as { id: string }).id)));
    // As the protocol asks: subscribe to its commands, then announce itself online.
    await cabinet.subscribeAsync(`${b.prefix}/cabinets/PWL-LIS-001/commands`, { qos: 1 });
    await cabinet.publishAsync(
      `${b.prefix}/cabinets/PWL-LIS-001/status`,
      JSON.stringify({ v: 2, online: true, ts: b.clock.now().toISOString() }),
      { qos: 1 },
    );
    await waitFor(async () => got.includes('cmd-waiting-1'), 'the waiting command re-published to the cabinet');
    expect(got).not.toContain('cmd-expired-1');
    await cabinet.endAsync();
  });
});
