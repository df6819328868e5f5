// Grace periods in the one fee rule (src/core/pricing.ts) and the opening hours they wait for
// (server/src/modules/venues/hours.ts): worked examples and properties.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  buyOutAt,
  countedMs,
  DEFAULT_PLAN,
  MINUTE_MS,
  momentAt,
  pausesOf,
  type Pause,
} from '../../src/core/pricing.ts';
import { nextOpening, openAt } from '../../src/core/hours.ts';

const T0 = Date.parse('2026-11-27T18:00:00Z');
const m = (n: number) => T0 + n * MINUTE_MS;

describe('countedMs and momentAt', () => {
  const pauses: Pause[] = [{ from: m(30), until: m(180) }];
  it.each([
    // at (minutes after the start), counted minutes
    [20, 20], //  before the pause
    [30, 30], //  at its start
    [100, 30], // inside it: counts up to its start
    [180, 30], // at its end
    [200, 50], // after it: 200 − 150 paused
  ])('at %i min: %i min counted', (at, counted) => {
    expect(countedMs(T0, m(at), pauses)).toBe(counted * MINUTE_MS);
  });

  it('a pause before the start, or overlapping pauses, count once', () => {
    expect(countedMs(T0, m(60), [{ from: m(-60), until: m(10) }])).toBe(50 * MINUTE_MS);
    expect(
      countedMs(T0, m(100), [
        { from: m(10), until: m(40) },
        { from: m(20), until: m(50) },
      ]),
    ).toBe(60 * MINUTE_MS);
  });

  it("momentAt is countedMs's inverse; the buy-out moves by the pause", () => {
    expect(momentAt(T0, 50 * MINUTE_MS, pauses)).toBe(m(200));
    expect(momentAt(T0, 20 * MINUTE_MS, pauses)).toBe(m(20));
    const plain = buyOutAt(DEFAULT_PLAN, new Date(T0)).getTime();
    expect(buyOutAt(DEFAULT_PLAN, new Date(T0), pauses).getTime() - plain).toBe(150 * MINUTE_MS);
  });

  it('property: counting the moment a time is reached gives that time back', () => {
    const pause = fc
      .tuple(fc.integer({ min: -100, max: 5000 }), fc.integer({ min: 1, max: 2000 }))
      .map(([a, len]) => ({ from: m(a), until: m(a + len) }));
    fc.assert(
      fc.property(fc.array(pause, { maxLength: 4 }), fc.integer({ min: 0, max: 10_000 }), (ps, minutes) => {
        const sorted = pausesOf(
          ps.map((p) => ({ from: new Date(p.from).toISOString(), until: new Date(p.until).toISOString() })),
        );
        expect(countedMs(T0, momentAt(T0, minutes * MINUTE_MS, sorted), sorted)).toBe(minutes * MINUTE_MS);
      }),
    );
  });
});

describe("opening hours in the venue's time zone", () => {
  const every = (open: string, close: string) => ({
    weekly: Object.fromEntries(
      ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'].map((d) => [d, [{ open, close }]]),
    ) as never,
    exceptions: [] as { date: string; ranges: { open: string; close: string }[] }[],
  });
  // 2026-11-27 is a Friday; Vilnius is UTC+2 in winter.
  it('open and the next opening, local to Vilnius', () => {
    const oh = every('08:00', '22:00');
    expect(openAt(oh, 'Europe/Vilnius', Date.parse('2026-11-27T19:59:00Z'))).toBe(true); // 21:59 local
    expect(openAt(oh, 'Europe/Vilnius', Date.parse('2026-11-27T20:00:00Z'))).toBe(false); // 22:00 local
    expect(nextOpening(oh, 'Europe/Vilnius', Date.parse('2026-11-27T20:00:00Z'))).toBe(
      Date.parse('2026-11-28T06:00:00Z'),
    );
  });
  it('past midnight, an exception day closed, and no hours at all', () => {
    const late = every('18:00', '02:00');
    expect(openAt(late, 'UTC', Date.parse('2026-11-28T01:30:00Z'))).toBe(true);
    expect(openAt(late, 'UTC', Date.parse('2026-11-28T02:00:00Z'))).toBe(false);
    const closedSaturday = { ...every('08:00', '20:00'), exceptions: [{ date: '2026-11-28', ranges: [] }] };
    expect(nextOpening(closedSaturday, 'UTC', Date.parse('2026-11-27T21:00:00Z'))).toBe(
      Date.parse('2026-11-29T08:00:00Z'),
    );
    expect(openAt(null, 'UTC', T0)).toBe(true);
    expect(nextOpening(null, 'UTC', T0)).toBeNull();
  });
});
