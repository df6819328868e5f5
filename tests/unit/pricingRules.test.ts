// Pricing, rule by rule: a worked-example table (each row's arithmetic written out) and properties.
// docs/pricing.md carries the same examples for people.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  buyOutAt,
  buyOutFee,
  DAY_MINUTES,
  DEFAULT_PLAN,
  MINUTE_MS,
  overtimeMinutes,
  planFromWire,
  refundAfterBuyOut,
  rentalFee,
  rentForMinutes,
  sliderMaxMinutes,
  type PricePlan,
} from '../../src/core/pricing.ts';
import { formatPrice, toMajor } from '../../src/core/money.ts';

const fee = (plan: PricePlan, minutes: number) => toMajor(rentalFee(plan, minutes * MINUTE_MS), plan.currency);

// A: spec defaults (no strategy, no flat fields): rate 1 per 30 min, cap 6 per day, deposit 25, overtime 25, CHF.
const A = planFromWire(undefined, 'CHF');
// B: €0.50 per 15 min, 5 free minutes, cap €3, deposit €10.
const B = planFromWire(
  {
    pType: 1,
    pPrice: 0.5,
    pPriceMinute: 15,
    priceUnit: 0,
    pFreeuseMinute: 5,
    pDayAmount: 3,
    pDepositAmount: 10,
    pOvertimeAmount: 10,
    pOvertimeDay: 3,
  },
  'EUR',
);
// C: $2 per hour (priceUnit 1, pPriceMinute 1), cap $10, deposit $30.
const C = planFromWire(
  { pType: 1, pPrice: 2, pPriceMinute: 1, priceUnit: 1, pDayAmount: 10, pDepositAmount: 30 },
  'USD',
);
// D: ¥5 per day (priceUnit 2), no cap given → fengding 8 from the cabinet, deposit ¥99.
const D = planFromWire({ pType: 1, pPrice: 5, pPriceMinute: 1, priceUnit: 2, pDepositAmount: 99 }, 'CNY', {
  fengding: 8,
});
// E: tiered (type 2): 0–60 → €1, 60–180 → €2.50, 180–1440 → €6; none matches → overtimeAmount €20; deposit €20.
const E = planFromWire(
  {
    pType: 2,
    pOvertimeAmount: 20,
    pDepositAmount: 20,
    priceStrategyDetail: [
      { pId: 1, pStartMinute: 0, pEndMinute: 60, pTotalFee: 1 },
      { pId: 2, pStartMinute: 60, pEndMinute: 180, pTotalFee: 2.5 },
      { pId: 3, pStartMinute: 180, pEndMinute: 1440, pTotalFee: 6 },
    ],
  },
  'EUR',
);
// F: an older cabinet with only the flat fields: jifei ¥3 per jifeiDanwei 60 min, mianfei 30 free, fengding ¥15, yajin ¥50.
const F = planFromWire(undefined, 'CNY', {
  jifei: 3,
  jifeiDanwei: 60,
  mianfei: 30,
  fengding: 15,
  yajin: 50,
  overtimeAmount: 50,
});

describe('worked examples (fee in major units)', () => {
  it.each<[string, PricePlan, number, number, string]>([
    ['A', A, 0, 0, 'nothing used'],
    ['A', A, 1, 1, 'ceil(1/30)=1 unit × 1 = 1'],
    ['A', A, 30, 1, 'ceil(30/30)=1 × 1 = 1'],
    ['A', A, 31, 2, 'ceil(31/30)=2 × 1 = 2'],
    ['A', A, 150, 5, 'ceil(150/30)=5 × 1 = 5'],
    ['A', A, 181, 6, 'ceil(181/30)=7 × 1 = 7 → capped at the daily cap 6'],
    ['A', A, 1440, 6, 'one full day = 1 × cap 6; rest 0'],
    ['A', A, 1441, 7, '1 day (6) + min(6, ceil(1/30)=1 × 1) = 7'],
    ['A', A, 2 * 1440 + 200, 18, '2 days (12) + min(6, ceil(200/30)=7) = 18'],
    ['A', A, 4 * 1440 + 30, 25, '4 days (24) + 1 = 25 = deposit → the deposit is taken'],
    ['A', A, 10 * 1440, 25, '10 × 6 = 60 > deposit 25 → 25'],
    ['B', B, 5, 0, 'within the 5 free minutes'],
    ['B', B, 6, 0.5, 'past the free minutes the whole time counts: ceil(6/15)=1 × 0.50'],
    ['B', B, 46, 2, 'ceil(46/15)=4 × 0.50 = 2 (under the cap 3)'],
    ['B', B, 100, 3, 'ceil(100/15)=7 × 0.50 = 3.50 → cap 3'],
    ['B', B, 1440 + 16, 4, '1 day (3) + min(3, ceil(16/15)=2 × 0.50 = 1) = 4'],
    ['B', B, 3 * 1440 + 1, 9.5, '3 days (9) + min(3, 1 × 0.50) = 9.50 (< deposit 10)'],
    ['B', B, 4 * 1440, 10, '4 × 3 = 12 > deposit 10 → 10'],
    ['C', C, 59, 2, 'hour units: ceil(59/60)=1 × 2 = 2'],
    ['C', C, 61, 4, 'ceil(61/60)=2 × 2 = 4'],
    ['C', C, 600, 10, 'ceil(600/60)=10 × 2 = 20 → cap 10'],
    ['C', C, 1440 + 120, 14, '1 day (10) + min(10, 2 × 2) = 14'],
    ['D', D, 1, 5, 'day units: ceil(1/1440)=1 × 5 = 5 (cap 8 from fengding)'],
    ['D', D, 1440 + 1, 13, '1 day (cap 8) + min(8, 1 × 5) = 13'],
    ['E', E, 30, 1, 'tier 0 < 30 ≤ 60 → 1'],
    ['E', E, 60, 1, 'tier 0 < 60 ≤ 60 → 1'],
    ['E', E, 61, 2.5, 'tier 60 < 61 ≤ 180 → 2.50'],
    ['E', E, 1440, 6, 'tier 180 < 1440 ≤ 1440 → 6'],
    ['E', E, 1441, 20, 'no tier → overtimeAmount 20 (= deposit 20)'],
    ['F', F, 30, 0, 'flat fields: mianfei 30 free minutes'],
    ['F', F, 31, 3, 'ceil(31/60)=1 × jifei 3 = 3'],
    ['F', F, 301, 15, 'ceil(301/60)=6 × 3 = 18 → fengding 15'],
  ])('%s: %s min → %s (%s)', (_name, plan, minutes, expected) => {
    expect(fee(plan, minutes)).toBe(expected);
  });

  it('a started minute counts: 30 min 1 s is 31 minutes → 2 units on A', () => {
    expect(toMajor(rentalFee(A, 30 * MINUTE_MS + 1000), 'CHF')).toBe(2);
  });
});

describe('defaults and wire parsing', () => {
  it('no strategy and no flat fields → the default prices (currency from the cabinet)', () => {
    expect(planFromWire(undefined, 'CHF')).toEqual(DEFAULT_PLAN);
  });
  it('the flat cabinet fields fill a strategy that lacks them', () => {
    const p = planFromWire({ pType: 1, pDepositAmount: 40 }, 'EUR', {
      jifei: 2,
      jifeiDanwei: 20,
      mianfei: 3,
      fengding: 9,
    });
    expect([p.unitPrice, p.unitMinutes, p.freeMinutes, p.dailyCap, p.deposit]).toEqual([200, 20, 3, 900, 4000]);
  });
  it('the strategy wins over the flat fields', () => {
    const p = planFromWire({ pPrice: 1, pPriceMinute: 10, pFreeuseMinute: 0 }, 'EUR', {
      jifei: 2,
      jifeiDanwei: 20,
      mianfei: 3,
    });
    expect([p.unitPrice, p.unitMinutes, p.freeMinutes]).toEqual([100, 10, 0]);
  });
  it('zero-decimal currencies: XAF 500 per 30 min → 500 minor units', () => {
    expect(planFromWire({ pPrice: 500 }, 'XAF').unitPrice).toBe(500);
  });
  it('priceUnit minute / hour / day multiply pPriceMinute by 1 / 60 / 1440', () => {
    expect([0, 1, 2].map((u) => planFromWire({ pPriceMinute: 2, priceUnit: u }, 'EUR').unitMinutes)).toEqual([
      2, 120, 2880,
    ]);
  });
});

describe('overtime buy-out', () => {
  it('after overtime days × 24 h (default 2 → 2880 min) the order is bought out for the overtime amount', () => {
    expect(overtimeMinutes(A)).toBe(2880);
    expect(buyOutAt(A, new Date('2026-01-01T00:00:00Z')).toISOString()).toBe('2026-01-03T00:00:00.000Z');
    expect(toMajor(buyOutFee(A), 'CHF')).toBe(25);
  });
  it('the buy-out never exceeds the deposit held: overtime 50 with deposit 30 → 30', () => {
    expect(toMajor(buyOutFee({ ...C, overtimeAmount: 5000 }), 'USD')).toBe(30);
  });
  it('a late return gives back the buy-out minus the rent for the real time: A, 3 days → 25 − 18 = 7', () => {
    // 3 days on A = 3 × 6 = 18; charged 25 at the buy-out → 7 back
    expect(toMajor(refundAfterBuyOut(A, buyOutFee(A), 3 * DAY_MINUTES * MINUTE_MS), 'CHF')).toBe(7);
    // 5 days = 30 → ceiling 25 → nothing back
    expect(refundAfterBuyOut(A, buyOutFee(A), 5 * DAY_MINUTES * MINUTE_MS)).toBe(0);
  });
  it('slider max = 2 × overtime days × 24 × 30 (2880 with the default of 2 days, 4320 with 3)', () => {
    expect(sliderMaxMinutes(A)).toBe(2880);
    expect(sliderMaxMinutes(B)).toBe(4320);
  });
});

describe('price display rounding', () => {
  it.each([
    [6, '6'],
    [0.5, '0.50'],
    [2.499, '2.50'],
    [9.999, '10'],
  ])('%s → %s', (v, s) => expect(formatPrice(v)).toBe(s));
});

// ---- properties --------------------------------------------------------------------------------------------

const currency = fc.constantFrom('EUR', 'CNY', 'USD', 'XAF', 'CHF');
const unitPlan: fc.Arbitrary<PricePlan> = fc
  .record({
    currency,
    unitPrice: fc.integer({ min: 0, max: 10_000 }),
    unitMinutes: fc.integer({ min: 1, max: 2 * DAY_MINUTES }),
    freeMinutes: fc.integer({ min: 0, max: 240 }),
    dailyCap: fc.integer({ min: 0, max: 100_000 }),
    deposit: fc.integer({ min: 0, max: 200_000 }),
    overtimeAmount: fc.integer({ min: 0, max: 200_000 }),
    overtimeDays: fc.integer({ min: 1, max: 30 }),
  })
  .map((r) => ({ ...r, kind: 'unit' as const, tiers: [] }));
// Tiered plans as operators configure them: contiguous rows with non-decreasing fees, overtime ≥ the last row.
const tieredPlan: fc.Arbitrary<PricePlan> = fc
  .record({
    base: unitPlan,
    rows: fc.array(fc.record({ len: fc.integer({ min: 1, max: 600 }), step: fc.integer({ min: 0, max: 5000 }) }), {
      minLength: 1,
      maxLength: 6,
    }),
    extra: fc.integer({ min: 0, max: 5000 }),
  })
  .map(({ base, rows, extra }) => {
    let start = 0;
    let fee = 0;
    const tiers = rows.map(({ len, step }) => {
      fee += step;
      const t = { startMinute: start, endMinute: start + len, totalFee: fee };
      start += len;
      return t;
    });
    return { ...base, kind: 'tiered' as const, tiers, overtimeAmount: fee + extra };
  });
const anyPlan = fc.oneof(unitPlan, tieredPlan);
const ms = fc.integer({ min: 0, max: 40 * DAY_MINUTES * MINUTE_MS });

describe('properties', () => {
  it('the fee is a non-negative integer', () => {
    fc.assert(fc.property(anyPlan, ms, (p, t) => Number.isSafeInteger(rentalFee(p, t)) && rentalFee(p, t) >= 0));
  });
  it('the fee never exceeds the deposit (when there is one), and reaching it takes exactly the deposit', () => {
    fc.assert(
      fc.property(anyPlan, ms, (p, t) => {
        const f = rentalFee(p, t);
        const rent = rentForMinutes(p, Math.ceil(t / MINUTE_MS));
        return p.deposit > 0 ? f <= p.deposit && (rent >= p.deposit ? f === p.deposit : f === rent) : f === rent;
      }),
    );
  });
  it('the fee is monotone in the duration', () => {
    fc.assert(fc.property(anyPlan, ms, ms, (p, a, b) => rentalFee(p, Math.min(a, b)) <= rentalFee(p, Math.max(a, b))));
  });
  it('the daily cap holds for each started day: rent ≤ started days × cap', () => {
    fc.assert(
      fc.property(
        unitPlan,
        fc.integer({ min: 1, max: 40 * DAY_MINUTES }),
        (p, m) => p.dailyCap <= 0 || rentForMinutes(p, m) <= Math.ceil(m / DAY_MINUTES) * p.dailyCap,
      ),
    );
  });
  it('each further full day adds exactly the cap', () => {
    fc.assert(
      fc.property(
        unitPlan,
        fc.integer({ min: 1, max: 10 * DAY_MINUTES }),
        (p, m) =>
          p.dailyCap <= 0 ||
          m <= p.freeMinutes ||
          rentForMinutes(p, m + DAY_MINUTES) === rentForMinutes(p, m) + p.dailyCap,
      ),
    );
  });
  it('nothing is charged within the free minutes', () => {
    fc.assert(fc.property(anyPlan, (p) => rentalFee(p, p.freeMinutes * MINUTE_MS) === 0));
  });
  it('after a buy-out, charge − refund equals the fee for the real time (capped at what was charged)', () => {
    fc.assert(
      fc.property(unitPlan, ms, (p, t) => {
        const charged = buyOutFee(p);
        return charged - refundAfterBuyOut(p, charged, t) === Math.min(charged, rentalFee(p, t));
      }),
    );
  });
});
