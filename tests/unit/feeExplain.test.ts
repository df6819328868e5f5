// The fee worked out step by step (the back office's rental timeline): every explanation ends at the fee charged.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  buyOutFee,
  DAY_MINUTES,
  explainFee,
  MINUTE_MS,
  planFromWire,
  rentalFee,
  type PricePlan,
} from '../../src/core/pricing.ts';

// ¥2.00 per 30 min, daily cap ¥20, deposit ¥99, 10 free minutes (amounts in fen).
const plan: PricePlan = planFromWire(
  {
    pType: 1,
    pPrice: 2,
    pPriceMinute: 30,
    priceUnit: 0,
    pFreeuseMinute: 10,
    pDayAmount: 20,
    pDepositAmount: 99,
    pOvertimeAmount: 99,
    pOvertimeDay: 2,
  },
  'CNY',
);

describe('explainFee', () => {
  it('within the free period: the minutes, then free', () => {
    expect(explainFee(plan, 10 * MINUTE_MS)).toEqual({
      steps: [
        { kind: 'elapsed', minutes: 10 },
        { kind: 'free', freeMinutes: 10 },
      ],
      total: 0,
    });
  });

  it('95 minutes: 4 units of 30 min at ¥2', () => {
    expect(explainFee(plan, 95 * MINUTE_MS)).toEqual({
      steps: [
        { kind: 'elapsed', minutes: 95 },
        { kind: 'units', minutes: 95, units: 4, unitMinutes: 30, unitPrice: 200, amount: 800 },
      ],
      total: 800,
    });
  });

  it('1 day + 10 hours: a full day at the cap, then the last day capped too', () => {
    const { steps, total } = explainFee(plan, (DAY_MINUTES + 600) * MINUTE_MS);
    expect(steps).toEqual([
      { kind: 'elapsed', minutes: DAY_MINUTES + 600 },
      { kind: 'fullDays', days: 1, dailyCap: 2000, amount: 2000 },
      { kind: 'units', minutes: 600, units: 20, unitMinutes: 30, unitPrice: 200, amount: 4000 },
      { kind: 'dailyCap', dailyCap: 2000, amount: 2000 },
    ]);
    expect(total).toBe(4000);
  });

  it('a week: the deposit is the ceiling', () => {
    const { steps, total } = explainFee(plan, 7 * DAY_MINUTES * MINUTE_MS);
    expect(steps.at(-1)).toEqual({ kind: 'depositCeiling', deposit: 9900, amount: 9900 });
    expect(total).toBe(9900);
  });

  it('a tiered plan names its row, or the overtime amount past the table', () => {
    const tiered: PricePlan = {
      ...plan,
      kind: 'tiered',
      freeMinutes: 0,
      tiers: [{ startMinute: 0, endMinute: 60, totalFee: 300 }],
    };
    expect(explainFee(tiered, 30 * MINUTE_MS).steps[1]).toEqual({
      kind: 'tier',
      startMinute: 0,
      endMinute: 60,
      amount: 300,
    });
    expect(explainFee(tiered, 61 * MINUTE_MS).steps[1]).toEqual({ kind: 'noTier', overtimeAmount: 9900 });
  });

  it('always ends at the fee charged (rentalFee, and the buy-out ceiling past the overtime period)', () => {
    const plans = fc.record({
      kind: fc.constantFrom<'unit' | 'tiered'>('unit', 'tiered'),
      unitPrice: fc.integer({ min: 0, max: 10_000 }),
      unitMinutes: fc.integer({ min: 1, max: 1440 }),
      freeMinutes: fc.integer({ min: 0, max: 120 }),
      dailyCap: fc.integer({ min: 0, max: 50_000 }),
      deposit: fc.integer({ min: 0, max: 100_000 }),
      overtimeAmount: fc.integer({ min: 0, max: 100_000 }),
      tiers: fc.array(
        fc.record({
          startMinute: fc.integer({ min: 0, max: 500 }),
          endMinute: fc.integer({ min: 0, max: 5000 }),
          totalFee: fc.integer({ min: 0, max: 10_000 }),
        }),
        { maxLength: 4 },
      ),
    });
    fc.assert(
      fc.property(plans, fc.integer({ min: 0, max: 10 * DAY_MINUTES * MINUTE_MS }), fc.boolean(), (p, ms, overtime) => {
        const full: PricePlan = { ...p, currency: 'EUR', overtimeDays: 2 };
        const want = overtime ? Math.min(rentalFee(full, ms), buyOutFee(full)) : rentalFee(full, ms);
        expect(explainFee(full, ms, { overtime }).total).toBe(want);
      }),
    );
  });
});
