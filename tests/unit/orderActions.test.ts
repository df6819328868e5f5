// State 1 offers buying the power bank; a failed deduction offers paying again (payType=FK).
import { describe, expect, it } from 'vitest';
import { DEDUCTION_FAILED, orderActions } from '../../src/core/orders.ts';

describe('orderActions', () => {
  it.each([
    [
      { pZujie: 1, pJiesuanid: 0 },
      { buy: true, payAgain: false },
    ],
    [
      { pZujie: 1, pJiesuanid: 1 },
      { buy: false, payAgain: false },
    ], // bought out already
    [
      { pZujie: 4, pJiesuanid: 0 },
      { buy: false, payAgain: false },
    ], // fault: ongoing, but no buy button
    [
      { pZujie: 3, pJiesuanid: 1, palipayjsSm: DEDUCTION_FAILED },
      { buy: false, payAgain: true },
    ],
    [
      { pZujie: 3, pJiesuanid: 1, palipayjsSm: '' },
      { buy: false, payAgain: false },
    ],
    [
      { pZujie: 1, pJiesuanid: 0, pType: 'chargeNowMifi' },
      { buy: false, payAgain: false },
    ],
  ])('%o → %o', (o, expected) => expect(orderActions(o)).toEqual(expected));
});
