// Web-view pages: the language comes from the path through the route-language mapping; vitals carry no query.
import { describe, expect, it } from 'vitest';
import { pathLang } from '../../src/core/firstScreen.ts';
import { mapRouteLang } from '../../src/core/lang.ts';
import { routePath } from '../../src/platform/vitals.ts';

describe('web-view language from the path', () => {
  it.each([
    ['/aboutUsApp/zh-CN', 'zh-CN'],
    ['/aboutUsApp/en-US', 'en-US'],
    ['/contactUsApp/lt-LT', 'lt-LT'],
    ['/aboutUsApp/pt-BR', 'pt-PT'],
    ['/contactUsApp/es-ES', 'en-US'],
    ['/aboutUsApp/ru-RU', 'en-US'],
    ['/aboutUsApp/fr-FR', 'en-US'],
    ['/aboutUsApp/ar-SA', 'en-US'],
    ['/aboutUsApp/et-EE', 'en-US'],
    ['/aboutUsApp/it-IT', 'en-US'],
  ])('%s → %s', (path, lang) => expect(mapRouteLang(pathLang(path))).toBe(lang));
  it('no segment or an unknown one keeps the stored language', () => {
    expect(mapRouteLang(pathLang('/aboutUsApp'))).toBeUndefined();
    expect(mapRouteLang(pathLang('/aboutUsApp/xx-YY'))).toBeUndefined();
  });
});

describe('vitals routes carry no query or id', () => {
  it.each([
    ['#/result?token=abc&tradeNo=1', '/result'],
    ['#/aboutUsApp/pt-BR', '/aboutUsApp'],
    ['', '/'],
    ['#/?qrcode=PWL-LIS-001', '/'],
  ])('%s → %s', (hash, path) => expect(routePath(hash)).toBe(path));
});
