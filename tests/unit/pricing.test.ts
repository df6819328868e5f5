// The fee rule used on the cabinet home (fee examples) and orders: worked examples, arithmetic in comments.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { MINUTE_MS, planFromWire, rentalFee, rentForMinutes, type PricePlan } from '../../src/core/pricing.ts';
import { formatPrice, toMajor } from '../../src/core/money.ts';

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
const noFree: PricePlan = { ...plan, freeMinutes: 0 };

describe('rentForMinutes: unit plan ¥2 / 30 min, cap ¥20 per day', () => {
  it.each([
    // minutes, fee (major), arithmetic
    [0, 0], //          nothing used
    [10, 0], //         within the 10 free minutes
    [11, 2], //         past the free period: ceil(11/30)=1 unit → 1 × 2 = 2
    [30, 2], //         ceil(30/30)=1 → 2
    [31, 4], //         ceil(31/30)=2 → 4
    [95, 8], //         ceil(95/30)=4 units → 4 × 2 = 8
    [300, 20], //       ceil(300/30)=10 → 20 = cap → 20
    [600, 20], //       ceil(600/30)=20 → 40, capped at 20
    [1440, 20], //      one full day → 1 × 20 + min(20, 0) = 20
    [1500, 24], //      1 day + 60 min → 20 + min(20, ceil(60/30) × 2 = 4) = 24
    [2 * 1440 + 95, 48], // 2 days + 95 min → 2 × 20 + min(20, 8) = 48
  ])('%i min → ¥%s', (minutes, fee) => {
    expect(toMajor(rentForMinutes(plan, minutes), 'CNY')).toBe(fee);
  });
});

describe('rentalFee: started minutes count, deposit is the ceiling', () => {
  it('94 min 1 s is billed as 95 min → ¥8', () => {
    // ceil(94.0167) = 95 min → ceil(95/30)=4 → 8
    expect(toMajor(rentalFee(noFree, 94 * MINUTE_MS + 1000), 'CNY')).toBe(8);
  });
  it('a week costs the deposit, not 7 × cap', () => {
    // 7 days → 7 × 20 = 140 > deposit 99 → 99
    expect(toMajor(rentalFee(noFree, 7 * 1440 * MINUTE_MS), 'CNY')).toBe(99);
  });
  it('hourly units: pPriceMinute 1 with priceUnit 1 (hour) → 60-minute units', () => {
    const hourly = planFromWire({ pPrice: 3, pPriceMinute: 1, priceUnit: 1, pDayAmount: 0, pDepositAmount: 50 }, 'EUR');
    expect(hourly.unitMinutes).toBe(60);
    // 61 min → ceil(61/60)=2 → 2 × 3 = 6; no cap (0)
    expect(toMajor(rentalFee(hourly, 61 * MINUTE_MS), 'EUR')).toBe(6);
  });
  it('tiered plan: the row with start < minutes ≤ end, else the overtime amount', () => {
    const tiered = planFromWire(
      {
        pType: 2,
        pOvertimeAmount: 25,
        pDepositAmount: 100,
        priceStrategyDetail: [
          { pStartMinute: 0, pEndMinute: 60, pTotalFee: 3 },
          { pStartMinute: 60, pEndMinute: 180, pTotalFee: 6.5 },
        ],
      },
      'EUR',
    );
    expect(toMajor(rentForMinutes(tiered, 60), 'EUR')).toBe(3); //  0 < 60 ≤ 60
    expect(toMajor(rentForMinutes(tiered, 61), 'EUR')).toBe(6.5); // 60 < 61 ≤ 180
    expect(toMajor(rentForMinutes(tiered, 200), 'EUR')).toBe(25); // no row → overtime 25
  });
  it('never exceeds the deposit and never decreases with time (property)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 20 * 1440 }), fc.integer({ min: 0, max: 600 }), (m, extra) => {
        const a = rentalFee(noFree, m * MINUTE_MS);
        const b = rentalFee(noFree, (m + extra) * MINUTE_MS);
        return a <= noFree.deposit && a <= b;
      }),
    );
  });
});

describe('formatPrice (2 decimals unless whole)', () => {
  it.each([
    [2, '2'],
    [2.5, '2.50'],
    [99.999, '100'],
    [0.1 + 0.2, '0.30'],
  ])('%s → %s', (v, s) => expect(formatPrice(v)).toBe(s));
});
