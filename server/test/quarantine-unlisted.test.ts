// A quarantined power bank that the cabinet's heartbeats stop listing: it stays quarantined (an operator still
// decides about it) with no slot; released, it is registered as missing, and lendable once a cabinet lists it.
import { afterEach, describe, expect, it } from 'vitest';
import { uuid } from '../src/lib/ids.ts';
import type { CabinetEvent } from '../src/modules/cabinets/protocol.ts';
import { build, markHeardFrom, type Built } from './helper.ts';

const open: Built[] = [];
afterEach(async () => {
  for (const b of open.splice(0).reverse()) await b.close().catch(() => undefined);
});
const event = (b: Built, cabinetId: string, e: Record<string, unknown>) =>
  b.app.powerly.cabinets.event(cabinetId, { v: 2, id: uuid(), ...e } as unknown as CabinetEvent);
const bank = async (b: Built, id: string) =>
  (
    await b.db.query<{ state: string; cabinet_id: string | null; slot: number | null }>(
      'select state, cabinet_id, slot from powerbanks where id = $1',
      [id],
    )
  ).rows[0];
const inventory = async (b: Built, cabinetId: string) =>
  (
    await b.db.query<{ id: string; slot: number }>(
      `select id, slot from powerbanks where cabinet_id = $1 and state = 'in_cabinet' order by slot, id`,
      [cabinetId],
    )
  ).rows;

describe('a quarantined power bank no longer listed', () => {
  it('stays quarantined without a slot; released, it is missing until a cabinet lists it again', async () => {
    const b = await build({ simulator: false });
    open.push(b);
    await markHeardFrom(b, ['PWL-LIS-001']);
    const known = await inventory(b, 'PWL-LIS-001');
    const slots = (extra: { slot: number; id: string } | null) =>
      [1, 2, 3, 4, 5, 6].map((slot) => {
        const k = known.find((x) => x.slot === slot);
        const id = k?.id ?? (extra?.slot === slot ? extra.id : null);
        return { slot, powerbankId: id, battery: id ? 90 : null };
      });
    const free = [1, 2, 3, 4, 5, 6].find((s) => !known.some((k) => k.slot === s))!;
    let t = b.clock.now().getTime();
    await event(b, 'PWL-LIS-001', {
      ts: new Date(t).toISOString(),
      type: 'heartbeat',
      slots: slots({ slot: free, id: 'PB-STRANGER-9' }),
    });
    expect(await bank(b, 'PB-STRANGER-9')).toEqual({ state: 'quarantined', cabinet_id: 'PWL-LIS-001', slot: free });

    // Taken out by hand: the next heartbeat no longer lists it.
    b.clock.advance(30_000);
    t += 30_000;
    await event(b, 'PWL-LIS-001', { ts: new Date(t).toISOString(), type: 'heartbeat', slots: slots(null) });
    expect(await bank(b, 'PB-STRANGER-9')).toEqual({ state: 'quarantined', cabinet_id: null, slot: null });
    expect((await b.app.powerly.cabinets.operatorView()).quarantined.map((q) => q.id)).toContain('PB-STRANGER-9');

    // Released where it is (nowhere): registered but not in a slot, so never aimed at by an eject.
    expect(await b.app.powerly.cabinets.releaseQuarantined('PB-STRANGER-9')).toBe(true);
    expect(await bank(b, 'PB-STRANGER-9')).toEqual({ state: 'missing', cabinet_id: null, slot: null });

    // Put back into a slot: the cabinet's report places it, lendable.
    b.clock.advance(30_000);
    t += 30_000;
    await event(b, 'PWL-LIS-001', {
      ts: new Date(t).toISOString(),
      type: 'heartbeat',
      slots: slots({ slot: free, id: 'PB-STRANGER-9' }),
    });
    expect(await bank(b, 'PB-STRANGER-9')).toEqual({ state: 'in_cabinet', cabinet_id: 'PWL-LIS-001', slot: free });
  });
});
