// One currency table for the server and the flows (src/core/money.ts): minor units inside, decimals only at the edge,
// zero-decimal (XAF, JPY) and three-decimal (KWD, BHD) currencies right everywhere.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  currencyScale,
  currencySymbol,
  formatMoney,
  formatPrice,
  parseDecimal,
  toDecimalText,
  toMajor,
  toMinor,
} from '../../src/core/money.ts';
import { depositDue, rentAction } from '../../src/core/cabinet.ts';
import { validateWithdrawAmount, withdrawAllAmount } from '../../src/core/wallet.ts';

describe('currency table', () => {
  it('knows the scale and symbol of a currency', () => {
    expect([
      currencyScale('XAF'),
      currencyScale('jpy'),
      currencyScale('EUR'),
      currencyScale('KWD'),
      currencyScale('BHD'),
    ]).toEqual([0, 0, 2, 3, 3]);
    expect(currencyScale('ZZZ')).toBe(2);
    expect([currencySymbol('EUR'), currencySymbol('CNY'), currencySymbol('XAF')]).toEqual(['€', '¥', 'XAF']);
  });
});

describe('decimal text ↔ minor units', () => {
  it.each([
    ['10', 'EUR', 1000],
    ['10.5', 'EUR', 1050],
    ['0.01', 'EUR', 1],
    ['10.50', 'EUR', 1050],
    ['5000', 'XAF', 5000],
    ['500', 'JPY', 500],
    ['1.125', 'KWD', 1125],
    ['0.001', 'BHD', 1],
    ['2', 'KWD', 2000],
  ])('parseDecimal(%s, %s) = %s', (raw, cur, minor) => expect(parseDecimal(raw, cur)).toBe(minor));

  it.each([
    ['10.5', 'XAF'],
    ['1.0', 'JPY'],
    ['10.123', 'EUR'],
    ['1.1234', 'KWD'],
    ['-1', 'EUR'],
    ['1e3', 'EUR'],
    ['abc', 'EUR'],
    ['10.', 'EUR'],
    ['', 'EUR'],
  ])('parseDecimal(%s, %s) refuses', (raw, cur) => expect(parseDecimal(raw, cur)).toBeNull());

  it.each([
    [1050, 'EUR', '10.50'],
    [5, 'EUR', '0.05'],
    [5000, 'XAF', '5000'],
    [1125, 'KWD', '1.125'],
    [1, 'BHD', '0.001'],
    [-250, 'EUR', '-2.50'],
  ])('toDecimalText(%s, %s) = %s', (minor, cur, text) => expect(toDecimalText(minor, cur)).toBe(text));

  it('round-trips every amount at every scale', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 1e12 }),
        fc.constantFrom('EUR', 'XAF', 'JPY', 'KWD', 'BHD'),
        (minor, cur) => {
          expect(parseDecimal(toDecimalText(minor, cur), cur)).toBe(minor);
          expect(toMinor(toMajor(minor, cur), cur)).toBe(minor);
        },
      ),
    );
  });
});

describe('display and rules at the currency scale', () => {
  it('formatPrice keeps the currency decimals; formatMoney localises', () => {
    expect(formatPrice(5000, 'XAF')).toBe('5000');
    expect(formatPrice(1.125, 'KWD')).toBe('1.125');
    expect(formatPrice(2.5, 'EUR')).toBe('2.50');
    expect(formatMoney(5000, 'XAF')).toMatch(/5,000/);
    expect(formatMoney(1125, 'KWD')).toMatch(/1\.125/);
  });

  it('the deposit due is subtracted in minor units', () => {
    expect(depositDue(0.3, 0.1, 'EUR')).toBe('0.20');
    expect(depositDue(5000, 1200, 'XAF')).toBe('3800');
    expect(depositDue(1.5, 0.125, 'KWD')).toBe('1.375');
    expect(depositDue(10, 20, 'EUR')).toBe('0.00');
    expect(rentAction({ chongzhi: 'Y', currency: 'XAF', yajin: 5000, myyue: 0, yajintype: 0 })).toEqual({
      kind: 'pay',
      label: 'preAuth',
      amount: '5000',
    });
  });

  it('withdrawal amounts follow the currency scale', () => {
    expect(validateWithdrawAmount('10.5', 100, 'XAF')).toBe('notNumber');
    expect(validateWithdrawAmount('100', 100, 'XAF')).toBeNull();
    expect(validateWithdrawAmount('1.125', 1.125, 'KWD')).toBeNull();
    expect(validateWithdrawAmount('1.126', 1.125, 'KWD')).toBe('aboveBalance');
    expect(validateWithdrawAmount('10.001', 100, 'EUR')).toBe('notNumber');
    expect(withdrawAllAmount(5000, 'XAF')).toBe('5000');
    expect(withdrawAllAmount(1.125, 'KWD')).toBe('1.125');
    expect(withdrawAllAmount(1.1, 'KWD')).toBe('1.1');
    expect(withdrawAllAmount(10.5, 'EUR')).toBe('10.5');
  });
});
