// The console's remote commands for cabinets of a vendor family: a slot lock or unlock is refused with a clear
// 422 in the caller's language (the 0xA8 and TCP families have no slot lock), before anything is stored or sent.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { build, markHeardFrom, venueFixture, type Built } from './helper.ts';
import { callerConsoles, type Caller } from './ops/callers.ts';
import type { OpsConsole } from './ops/console.ts';

let b: Built;
let consoles = new Map<Caller, OpsConsole>();
const as = (c: Caller) => consoles.get(c)!;

beforeAll(async () => {
  b = await build({ simulator: false });
  consoles = await callerConsoles(b);
  await b.app.powerly.fleet.venues.create(venueFixture('V001', 54.68, 25.28, { agentId: 'agent-a' }));
  for (const [id, vendor] of [
    ['VEN-A8', 'a8'],
    ['VEN-TCP', 'tcp60'],
  ]) {
    const r = await as('platformOwner').call('POST', '/cabinets', {
      id,
      vendor,
      slots: 6,
      venueId: 'V001',
      reason: 'new stock',
    });
    expect(r.statusCode, r.body).toBe(200);
  }
  await markHeardFrom(b, ['VEN-A8', 'VEN-TCP']);
}, 60_000);
afterAll(async () => b?.close());

describe('slot lock on a vendor cabinet', () => {
  it("lock and unlock are refused with 422 naming the family, in the caller's language; nothing is stored", async () => {
    const tech = as('technicianA');
    for (const [id, vendor] of [
      ['VEN-A8', 'a8'],
      ['VEN-TCP', 'tcp60'],
    ] as const) {
      for (const type of ['lock', 'unlock'] as const) {
        const r = await tech.call('POST', `/cabinets/${id}/commands`, { type, slot: 2, reason: 'broken latch' });
        expect(r.statusCode, r.body).toBe(422);
        expect(r.json<{ message: string }>().message).toBe(
          `Cabinets of the ${vendor} family do not take this command.`,
        );
      }
    }
    const pt = await tech.call(
      'POST',
      '/cabinets/VEN-A8/commands',
      { type: 'lock', slot: 1, reason: 'trinco partido' },
      { 'accept-language': 'pt-PT,pt;q=0.9' },
    );
    expect(pt.statusCode).toBe(422);
    expect(pt.json<{ message: string }>().message).toBe('Os armários da família a8 não aceitam este comando.');
    const { rows } = await b.db.query(`select id from cabinet_commands where cabinet_id = any($1::text[])`, [
      ['VEN-A8', 'VEN-TCP'],
    ]);
    expect(rows).toEqual([]);
    const audit = await b.db.query(
      `select id from audit_log where entity_id = any($1::text[]) and action like 'cabinet.%lock'`,
      [['VEN-A8', 'VEN-TCP']],
    );
    expect(audit.rows).toEqual([]);
  });
});
