// The inbox poller and the link of one process: an event this process stored is processed by its link, and its
// poller leaves it alone meanwhile (claiming it again would only find it busy or done); the event is never lost for
// that: the poller of another process takes it, and this process's own after IN_HAND_MS (a processing that never
// came). On PGlite or DATABASE_URL.
import { describe, expect, it } from 'vitest';
import { IN_HAND_MS } from '../src/modules/cabinets/in-hand.ts';
import { markHeardFrom } from './helper.ts';
import { bank, closeAfterEach, server } from './cabinet-delivery-helpers.ts';

closeAfterEach();

const returned = (id: string, slot: number, powerbankId: string, ts: string) => ({
  v: 2 as const,
  id,
  ts,
  type: 'returned' as const,
  slot,
  powerbankId,
});

const state = async (b: Awaited<ReturnType<typeof server>>, key: string) =>
  (await b.db.query<{ state: string }>('select state from cabinet_events where id = $1', [key])).rows[0]?.state;

describe('the inbox poller and the events a process has in hand', () => {
  it('leaves a stored event to the process that stored it; another process takes it if that one never processes it', async () => {
    const a = await server({ simulator: false });
    await markHeardFrom(a, ['PWL-LIS-001']);
    const cabinets = a.app.powerly.cabinets;
    // Stored, and so in hand, but not processed (as if the process died before processing it).
    expect(
      await cabinets.receive('PWL-LIS-001', returned('ev-hand-1', 6, 'PB-LIS-0002', a.clock.now().toISOString())),
    ).toBe(true);
    expect(await cabinets.processInbox()).toBe(0);
    expect(await state(a, 'PWL-LIS-001:ev-hand-1')).toBe('pending');
    // Another process (its own poller, nothing in hand) takes it.
    const b = await server({ shareDb: a, simulator: false });
    expect(await b.app.powerly.cabinets.processInbox()).toBe(1);
    expect(await state(a, 'PWL-LIS-001:ev-hand-1')).toBe('done');
    expect(await bank(a, 'PB-LIS-0002')).toMatchObject({ cabinet_id: 'PWL-LIS-001', slot: 6 });
  });

  it("is the process's own poller's again after IN_HAND_MS, and once processed here nothing is left for it", async () => {
    const a = await server({ simulator: false });
    await markHeardFrom(a, ['PWL-LIS-001']);
    const cabinets = a.app.powerly.cabinets;
    const at = () => a.clock.now().toISOString();
    expect(await cabinets.receive('PWL-LIS-001', returned('ev-hand-2', 6, 'PB-LIS-0002', at()))).toBe(true);
    expect(await cabinets.processInbox()).toBe(0);
    a.clock.advance(IN_HAND_MS + 1);
    expect(await cabinets.processInbox()).toBe(1);
    expect(await state(a, 'PWL-LIS-001:ev-hand-2')).toBe('done');
    // Stored and processed here (what the link does): done, and the poller finds nothing due.
    expect(await cabinets.receive('PWL-LIS-001', returned('ev-hand-3', 6, 'PB-LIS-0002', at()))).toBe(true);
    await cabinets.process('PWL-LIS-001', 'ev-hand-3');
    expect(await state(a, 'PWL-LIS-001:ev-hand-3')).toBe('done');
    expect(await cabinets.processInbox()).toBe(0);
  });
});
