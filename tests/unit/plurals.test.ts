// Counted words take the plural form of the user's language (Intl.PluralRules): "1 power bank", not "1 power banks",
// and each of the five locales its own forms (Lithuanian has three for whole numbers).
import { beforeAll, describe, expect, it } from 'vitest';
import { addMessages, translate } from '../../src/i18n/index.ts';
import type { Locale } from '../../src/core/lang.ts';
import es from '../../locales/es-ES.json';
import lt from '../../locales/lt-LT.json';
import pt from '../../locales/pt-PT.json';
import zh from '../../locales/zh-CN.json';

beforeAll(() => {
  for (const [lang, table] of [
    ['es-ES', es],
    ['lt-LT', lt],
    ['pt-PT', pt],
    ['zh-CN', zh],
  ] as const)
    addMessages(lang as Locale, table);
});

describe('plural forms', () => {
  it('English: one and other', () => {
    expect(translate('home.available', { n: 1 }, 'en-US')).toBe('1 power bank available');
    expect(translate('home.available', { n: 0 }, 'en-US')).toBe('0 power banks available');
    expect(translate('home.available', { n: 4 }, 'en-US')).toBe('4 power banks available');
    expect(translate('scan.openOrders', { n: 1 }, 'en-US')).toBe('Currently you have 1 order that is not closed');
    expect(translate('home.rentCount', { n: 1 }, 'en-US')).toMatch(/^You have 1 rental not closed yet\. Return it /);
    expect(translate('rentPricing.stock', { n: 1 }, 'en-US')).toBe('1 power bank to rent');
    expect(translate('rentPricing.slots', { n: 2 }, 'en-US')).toBe('2 free slots to return');
    expect(translate('map.markerLabel', { name: 'GO9', n: 1 }, 'en-US')).toBe('GO9: 1 power bank available');
  });
  it('Spanish and Portuguese: one, other', () => {
    expect(translate('rentPricing.stock', { n: 1 }, 'es-ES')).toBe('1 batería para alquilar');
    expect(translate('rentPricing.stock', { n: 3 }, 'es-ES')).toBe('3 baterías para alquilar');
    expect(translate('rentPricing.slots', { n: 1 }, 'pt-PT')).toBe('1 lugar livre para devolver');
    expect(translate('rentPricing.slots', { n: 5 }, 'pt-PT')).toBe('5 lugares livres para devolver');
  });
  it('Lithuanian: one (1, 21), few (2–9), other (0, 10–20)', () => {
    expect(translate('rentPricing.stock', { n: 1 }, 'lt-LT')).toBe('1 baterija nuomai');
    expect(translate('rentPricing.stock', { n: 21 }, 'lt-LT')).toBe('21 baterija nuomai');
    expect(translate('rentPricing.stock', { n: 3 }, 'lt-LT')).toBe('3 baterijos nuomai');
    expect(translate('rentPricing.stock', { n: 12 }, 'lt-LT')).toBe('12 baterijų nuomai');
  });
  it('Chinese: one form', () => {
    expect(translate('rentPricing.stock', { n: 1 }, 'zh-CN')).toBe('可租 1 个充电宝');
  });
  it('a key without plural forms is unchanged by a count', () => {
    expect(translate('price.unitMinutes', { n: 1 }, 'en-US')).toBe('1 min');
  });
});
