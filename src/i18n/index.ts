// i18n with rosetta: en-US bundled, the other locales loaded lazily (one JSON each under locales/).
import rosetta from 'rosetta';
import { atom } from 'nanostores';
import { useStore } from '@nanostores/react';
import { useMemo } from 'react';
import en from '../../locales/en-US.json';
import { DEFAULT_LOCALE, type Locale } from '../core/lang.ts';
import { $lang } from '../stores/locale.ts';
import { ApiError } from '../api/client.ts';

type Messages = typeof en;
const i18n = rosetta<Messages>({ [DEFAULT_LOCALE]: en });
i18n.locale(DEFAULT_LOCALE);

const loaders = import.meta.glob<{ default: Messages }>(['../../locales/*.json', '!../../locales/en-US.json']);
/** Locales whose main table is loaded (a screen's own strings may arrive before it: see addMessages). */
const loadedMain = new Set<string>([DEFAULT_LOCALE]);

/** Bumped whenever strings are added to a loaded locale: useT re-renders with them. */
const $tables = atom(0);

/**
 * Adds a screen group's strings (new top-level namespaces, e.g. locales/pay/) to a locale, so that strings only
 * payment screens use stay out of the first load.
 */
export function addMessages(lang: Locale, table: Record<string, unknown>): void {
  i18n.set(lang, table as unknown as Messages);
  $tables.set($tables.get() + 1);
}

/** The locale whose table is loaded and in use (follows $lang once its file has arrived). */
export const $activeLang = atom<Locale>(DEFAULT_LOCALE);

export async function loadLocale(lang: Locale): Promise<void> {
  if (!loadedMain.has(lang)) {
    const load = loaders[`../../locales/${lang}.json`];
    if (!load) return;
    try {
      i18n.set(lang, (await load()).default);
      loadedMain.add(lang);
    } catch (e) {
      console.error('locale load failed', lang, e);
      return;
    }
  }
  if ($lang.get() !== lang) return; // a later choice won
  i18n.locale(lang);
  $activeLang.set(lang);
  // Only a change: setting <html lang> even to its own value restyles and lays out the whole page again (its
  // :lang() rules and font fallback), a long task over server-rendered markup that is already in this language.
  if (typeof document !== 'undefined' && document.documentElement.lang !== lang) document.documentElement.lang = lang;
}

export type Params = Record<string, string | number>;
export type T = (key: string, params?: Params) => string;

/**
 * A string of `lang`; a count (`n`) picks the plural form its language needs: a key whose value is an object of
 * Intl.PluralRules categories ({one, few, many, other}) gives the category of `n`, or `other`.
 */
function pick(key: string, params: Params | undefined, lang: Locale): string {
  const n = params?.n;
  if (typeof n === 'number' && typeof (i18n.t(key, undefined, lang) as unknown) === 'object') {
    return (
      i18n.t(`${key}.${new Intl.PluralRules(lang).select(n)}`, params, lang) || i18n.t(`${key}.other`, params, lang)
    );
  }
  return i18n.t(key, params, lang);
}

export function translate(key: string, params?: Params, lang: Locale = $activeLang.get()): string {
  return pick(key, params, lang) || pick(key, params, DEFAULT_LOCALE) || key;
}

/** The translate function of the active locale; components re-render when it changes. */
export function useT(): T {
  const lang = useStore($activeLang);
  const tables = useStore($tables);
  // A new function when the locale or its tables change (strings arrived), so its users render again.
  return useMemo(() => {
    void tables;
    return (key: string, params?: Params) => translate(key, params, lang);
  }, [lang, tables]);
}

/** A user-facing message for an error of the API client (server messages come localised already). */
export function errorText(e: unknown, t: T): string {
  if (e instanceof ApiError) {
    switch (e.kind) {
      case 'network':
      case 'timeout':
        return t('errors.network');
      case 'forbidden':
        return t('errors.forbidden');
      case 'processing':
        return t('errors.processing');
      case 'unauthorized':
        return t('errors.unauthorized');
      default:
        return e.message && e.message !== 'Request failed' ? e.message : t('errors.requestFailed');
    }
  }
  return t('errors.unknown');
}

export function startI18n(): void {
  $lang.subscribe((l) => void loadLocale(l));
}
