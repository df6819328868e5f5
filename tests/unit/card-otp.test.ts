// The OTP screen's check (src/pay/CardOtp.tsx), the same one the server makes (POST cdb/payment/method/otp).
import { describe, expect, it } from 'vitest';
import { OTP_PATTERN, validateOtp } from '../../src/core/card.ts';

describe('card OTP entry', () => {
  it('asks for the code when empty (spaces only count as empty)', () => {
    expect(validateOtp('')).toBe('required');
    expect(validateOtp('   ')).toBe('required');
  });

  it('takes 4 to 8 digits, spaces ignored (a code pasted as "123 45")', () => {
    expect(validateOtp('12345')).toBeNull();
    expect(validateOtp(' 123 45 ')).toBeNull();
    expect(validateOtp('1234')).toBeNull();
    expect(validateOtp('12345678')).toBeNull();
  });

  it('refuses letters, too short or too long a code', () => {
    expect(validateOtp('12a45')).toBe('format');
    expect(validateOtp('123')).toBe('format');
    expect(validateOtp('123456789')).toBe('format');
    expect(validateOtp('12-345')).toBe('format');
    expect(OTP_PATTERN.test('１２３４５')).toBe(false); // full-width digits are not sent as they are
  });
});
