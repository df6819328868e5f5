import { describe, expect, it } from 'vitest';
import { LOCALES, mapRouteLang } from '../../src/core/lang.ts';

describe('route lang mapping', () => {
  it.each([
    ['zh-CN', 'zh-CN'],
    ['en-US', 'en-US'],
    ['lt-LT', 'lt-LT'],
    ['pt-BR', 'pt-PT'],
    ['ru-RU', 'en-US'],
    ['es-ES', 'en-US'],
    ['fr-FR', 'en-US'],
    ['ar-SA', 'en-US'],
    ['et-EE', 'en-US'],
    ['it-IT', 'en-US'],
  ])('%s → %s', (from, to) => {
    expect(mapRouteLang(from)).toBe(to);
  });
  it('unknown or missing parameters change nothing', () => {
    expect(mapRouteLang('de-DE')).toBeUndefined();
    expect(mapRouteLang('')).toBeUndefined();
    expect(mapRouteLang(null)).toBeUndefined();
  });
  it('the selector still offers all five locales, es-ES included', () => {
    expect([...LOCALES].sort()).toEqual(['en-US', 'es-ES', 'lt-LT', 'pt-PT', 'zh-CN']);
  });
});
