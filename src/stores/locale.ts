// Current language (lang persists). Default en-US.
import { persistentAtom } from '@nanostores/persistent';
import { DEFAULT_LOCALE, isLocale, type Locale } from '../core/lang.ts';

export const $lang = persistentAtom<Locale>('lang', DEFAULT_LOCALE, {
  encode: (v) => v,
  decode: (v) => (isLocale(v) ? v : DEFAULT_LOCALE),
});
