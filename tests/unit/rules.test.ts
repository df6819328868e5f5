import { describe, expect, it } from 'vitest';
import { rentAction, rentBlock } from '../../src/core/cabinet.ts';
import { isOngoing, ongoingFirst } from '../../src/core/orders.ts';
import {
  formatCardNumber,
  formatExpiry,
  luhnValid,
  validateCardNumber,
  validateCvc,
  validateExpiry,
} from '../../src/core/card.ts';

describe('cabinet home pay / borrow rule', () => {
  it("chongzhi 'Y', yajintype 0: pre-authorization of the whole deposit", () => {
    expect(rentAction({ chongzhi: 'Y', yajin: 99, myyue: 0, yajintype: 0 })).toEqual({
      kind: 'pay',
      label: 'preAuth',
      amount: '99.00',
    });
  });
  it("chongzhi 'Y', yajintype 1: top up deposit − balance, two decimals", () => {
    // 99 − 12.5 = 86.5 → "86.50"
    expect(rentAction({ chongzhi: 'Y', yajin: 99, myyue: 12.5, yajintype: 1 })).toEqual({
      kind: 'pay',
      label: 'topUp',
      amount: '86.50',
    });
    // 0.3 − 0.1 = 0.19999… → "0.20"
    expect(rentAction({ chongzhi: 'Y', yajin: 0.3, myyue: 0.1, yajintype: 1 })).toMatchObject({ amount: '0.20' });
  });
  it("chongzhi 'N': Borrow", () => {
    expect(rentAction({ chongzhi: 'N', yajin: 99, myyue: 120 })).toEqual({ kind: 'borrow' });
  });
  it('blocks: open rentals first, then offline, then no power bank', () => {
    expect(rentBlock({ zujieNum: 1, online: false, haveBatteryCount: 0 })).toBe('rentCount');
    expect(rentBlock({ zujieNum: 0, online: false, haveBatteryCount: 3 })).toBe('offline');
    expect(rentBlock({ zujieNum: 0, online: true, haveBatteryCount: 0 })).toBe('noBattery');
    expect(rentBlock({ zujieNum: 0, online: true, haveBatteryCount: 2 })).toBeNull();
  });
});

describe('order state', () => {
  it('ongoing = pZujie 1 or 4 with pJiesuanid 0', () => {
    expect(isOngoing({ pZujie: 1, pJiesuanid: 0 })).toBe(true);
    expect(isOngoing({ pZujie: 4, pJiesuanid: 0 })).toBe(true);
    expect(isOngoing({ pZujie: 1, pJiesuanid: 1 })).toBe(false);
    for (const z of [0, 2, 3, 5]) expect(isOngoing({ pZujie: z, pJiesuanid: 0 })).toBe(false);
  });
  it('lists ongoing orders first, keeping the order otherwise', () => {
    const a = { id: 'a', pZujie: 3, pJiesuanid: 1 };
    const b = { id: 'b', pZujie: 1, pJiesuanid: 0 };
    const c = { id: 'c', pZujie: 5, pJiesuanid: 1 };
    const d = { id: 'd', pZujie: 4, pJiesuanid: 0 };
    expect(ongoingFirst([a, b, c, d]).map((o) => o.id)).toEqual(['b', 'd', 'a', 'c']);
  });
});

describe('card fields', () => {
  it('Luhn', () => {
    expect(luhnValid('4242 4242 4242 4242')).toBe(true);
    expect(luhnValid('4000000000000002')).toBe(true);
    expect(luhnValid('4000000000009995')).toBe(true);
    expect(luhnValid('4242424242424241')).toBe(false);
    expect(validateCardNumber('')).toBe('required');
    expect(validateCardNumber('4242')).toBe('length');
    expect(validateCardNumber('4242 4242 4242 4241')).toBe('luhn');
  });
  it('formats while typing', () => {
    expect(formatCardNumber('4242424242424242')).toBe('4242 4242 4242 4242');
    expect(formatCardNumber('42a42 4')).toBe('4242 4');
    expect(formatExpiry('1228')).toBe('12/28');
    expect(formatExpiry('1')).toBe('1');
  });
  it('expiry must be MM/YY and not in the past (valid through its month)', () => {
    const now = new Date(2026, 10, 21); // November 2026
    expect(validateExpiry('11/26', now)).toBeNull();
    expect(validateExpiry('10/26', now)).toBe('expiryPast');
    expect(validateExpiry('01/27', now)).toBeNull();
    expect(validateExpiry('13/27', now)).toBe('expiryFormat');
    expect(validateExpiry('', now)).toBe('required');
  });
  it('CVC has 3–4 digits', () => {
    expect(validateCvc('123')).toBeNull();
    expect(validateCvc('1234')).toBeNull();
    expect(validateCvc('12')).toBe('cvc');
    expect(validateCvc('')).toBe('required');
  });
});
