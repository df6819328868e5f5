// Formats by locale: one money format and one duration format, both through Intl in the user's language.
import { describe, expect, it } from 'vitest';
import { formatDuration } from '../../src/core/duration.ts';
import { formatAmount } from '../../src/core/money.ts';
import { LOCALES } from '../../src/core/lang.ts';

describe('formatDuration', () => {
  it('has no zero parts', () => {
    expect(formatDuration(60 * 60_000, 'en-US')).toBe('1 hr');
    expect(formatDuration(24 * 60 * 60_000, 'en-US')).toBe('1 day');
    expect(formatDuration(5 * 60_000, 'en-US')).toBe('5 min');
    expect(formatDuration(5 * 60_000, 'en-US', { seconds: true })).toBe('5 min');
    expect(formatDuration(0, 'en-US')).toBe('0 min');
    for (const l of LOCALES) {
      expect(formatDuration(3600_000, l)).not.toMatch(/\b0\b/);
      expect(formatDuration(86_400_000 + 5 * 60_000, l)).not.toMatch(/\b0\b/);
    }
  });
  it('speaks the language', () => {
    expect(formatDuration(65 * 60_000, 'zh-CN')).toBe('1小时5分钟');
    expect(formatDuration(65 * 60_000, 'pt-PT')).toMatch(/^1 h.*5 min$/);
  });
});

describe('formatAmount', () => {
  it("uses the language and the currency's own decimals; whole amounts without decimals", () => {
    expect(formatAmount(1.5, 'EUR', 'en-US')).toBe('€1.50');
    expect(formatAmount(1.5, 'EUR', 'pt-PT')).toBe('1,50\u00a0€');
    expect(formatAmount(30, 'EUR', 'es-ES')).toBe('30\u00a0€');
    expect(formatAmount(30, 'USD', 'en-US')).toBe('$30');
    expect(formatAmount(1.125, 'KWD', 'en-US')).toMatch(/1\.125/);
    expect(formatAmount(1500, 'XAF', 'en-US')).toMatch(/1,500/);
    expect(formatAmount(2, 'CNY', 'zh-CN')).toBe('¥2');
  });
  it('never throws on a bad currency', () => {
    expect(formatAmount(2, '€', 'en-US')).toBe('€2');
  });
});
