// Languages of the app and the mapping of a `lang` route parameter on load.

export const LOCALES = ['en-US', 'zh-CN', 'lt-LT', 'pt-PT', 'es-ES'] as const;
export type Locale = (typeof LOCALES)[number];
export const DEFAULT_LOCALE: Locale = 'en-US';

/** Names of the languages in themselves, for the selector. */
export const LOCALE_NAMES: Record<Locale, string> = {
  'en-US': 'English',
  'zh-CN': '简体中文',
  'lt-LT': 'Lietuvių',
  'pt-PT': 'Português',
  'es-ES': 'Español',
};

export function isLocale(v: unknown): v is Locale {
  return typeof v === 'string' && (LOCALES as readonly string[]).includes(v);
}

export const ROUTE_LANG_MAP: Record<string, Locale> = {
  'zh-CN': 'zh-CN',
  'en-US': 'en-US',
  'lt-LT': 'lt-LT',
  'pt-BR': 'pt-PT',
  'ru-RU': 'en-US',
  'es-ES': 'en-US',
  'fr-FR': 'en-US',
  'ar-SA': 'en-US',
  'et-EE': 'en-US',
  'it-IT': 'en-US',
};

/**
 * A `lang` route parameter maps on load — zh-CN, en-US and lt-LT stay; pt-BR becomes pt-PT;
 * ru-RU, es-ES, fr-FR, ar-SA, et-EE, it-IT become en-US. Anything else is ignored (undefined), so the
 * stored language stays. This applies to the route parameter only; the selector offers all five locales.
 */
export function mapRouteLang(param: string | null | undefined): Locale | undefined {
  if (!param) return undefined;
  return ROUTE_LANG_MAP[param];
}

/**
 * Currencies per language — yuan, dollar, LTL, EUR (zh-CN, en-US, lt-LT, pt-PT). Lithuania replaced the
 * litas with the euro in 2015, so lt-LT shows euro amounts (LTL is obsolete). Spanish, the fifth
 * language, uses the euro like Portuguese. Amounts the app formats by language use this currency and the
 * language's number format.
 */
export const LOCALE_CURRENCY: Record<Locale, string> = {
  'zh-CN': 'CNY',
  'en-US': 'USD',
  'lt-LT': 'EUR',
  'pt-PT': 'EUR',
  'es-ES': 'EUR',
};

export function currencyOf(lang: Locale): string {
  return LOCALE_CURRENCY[lang];
}
