import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  DEFAULT_TOPUP,
  TOPUP_PRESETS,
  canAddCard,
  isInsufficientBalance,
  nextWithdrawStep,
  payoutComplete,
  validateRemark,
  validateWithdrawAmount,
  withdrawAllAmount,
} from '../../src/core/wallet.ts';

describe('wallet rules', () => {
  it('top-up presets and default', () => {
    expect(TOPUP_PRESETS).toEqual([10, 30, 50, 100, 300, 500]);
    expect(DEFAULT_TOPUP).toBe(10);
  });

  it('add-card shows only when not NGN and a wallet, qrcode, mificode or sn is present', () => {
    expect(canAddCard('EUR', { hasWallet: true })).toBe(true);
    expect(canAddCard('NGN', { hasWallet: true, qrcode: 'x' })).toBe(false);
    expect(canAddCard('EUR', { hasWallet: false })).toBe(false);
    expect(canAddCard('EUR', { hasWallet: false, qrcode: 'PWL' })).toBe(true);
    expect(canAddCard('EUR', { hasWallet: false, mificode: 'm' })).toBe(true);
    expect(canAddCard('EUR', { hasWallet: false, sn: 's' })).toBe(true);
  });

  it('withdrawal amount: a number > 0, not above the balance', () => {
    expect(validateWithdrawAmount('', 10, 'EUR')).toBe('required');
    expect(validateWithdrawAmount('abc', 10, 'EUR')).toBe('notNumber');
    expect(validateWithdrawAmount('-1', 10, 'EUR')).toBe('notNumber');
    expect(validateWithdrawAmount('0', 10, 'EUR')).toBe('notPositive');
    expect(validateWithdrawAmount('10.01', 10, 'EUR')).toBe('aboveBalance');
    expect(validateWithdrawAmount('10', 10, 'EUR')).toBeNull();
    expect(validateWithdrawAmount(' 2.5 ', 10, 'EUR')).toBeNull();
  });

  it('"Withdraw all" fills the whole balance, which is always a valid amount', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 10_000_000 }), (minor) => {
        const balance = minor / 100;
        const all = withdrawAllAmount(balance, 'EUR');
        expect(Number(all)).toBeCloseTo(balance, 9);
        expect(validateWithdrawAmount(all, balance, 'EUR')).toBeNull();
      }),
    );
  });

  it('refundTypes decide the next step: 0 auto-audits, channels open the sheet, remark, XAF, none → contact us', () => {
    expect(nextWithdrawStep({ refundTypes: [0, 1], channels: [{}] })).toEqual({ step: 'auto' });
    expect(nextWithdrawStep({ refundTypes: [1], channels: [{}] })).toEqual({ step: 'channel' });
    expect(nextWithdrawStep({ refundTypes: [2], checkNeedRemark: true, channels: [] })).toEqual({ step: 'remark' });
    expect(nextWithdrawStep({ refundTypes: [2], checkNeedRemark: false, channels: [] })).toEqual({ step: 'manual' });
    expect(nextWithdrawStep({ refundTypes: [], channels: [] })).toEqual({ step: 'unsupported' });
    expect(nextWithdrawStep({})).toEqual({ step: 'unsupported' });
  });

  it('the payout sheet needs every field; the remark needs name, bank card and phone', () => {
    const fields = [
      { fieldName: 'iban', fieldType: 'input' as const },
      { fieldName: 'country', fieldType: 'picker' as const },
    ];
    expect(payoutComplete(fields, { iban: 'LT1', country: '' })).toBe(false);
    expect(payoutComplete(fields, { iban: ' ', country: 'LT' })).toBe(false);
    expect(payoutComplete(fields, { iban: 'LT1', country: 'LT' })).toBe(true);
    expect(validateRemark({ name: '', bankCard: '62220212345678', phone: '13800138000' })).toBe('name');
    expect(validateRemark({ name: 'Li', bankCard: '123', phone: '13800138000' })).toBe('bankCard');
    expect(validateRemark({ name: 'Li', bankCard: '6222 0212 3456 78', phone: 'x' })).toBe('phone');
    expect(validateRemark({ name: 'Li', bankCard: '6222 0212 3456 78', phone: '+86 138 0013 8000' })).toBeNull();
  });

  it('maps the Chinese insufficient-balance message', () => {
    expect(isInsufficientBalance('提现失败：余额不足')).toBe(true);
    expect(isInsufficientBalance('Request failed')).toBe(false);
    expect(isInsufficientBalance(undefined)).toBe(false);
  });
});
