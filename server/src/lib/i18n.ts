// Server-side messages in the user's language. One JSON per locale in locales/server/, same keys in all.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const LOCALES = ['en-US', 'zh-CN', 'lt-LT', 'pt-PT', 'es-ES'] as const;
export type Locale = (typeof LOCALES)[number];
export const DEFAULT_LOCALE: Locale = 'en-US';

const dir = fileURLToPath(new URL('../../../locales/server/', import.meta.url));
const catalogs = new Map<Locale, Record<string, string>>(
  LOCALES.map((l) => [l, JSON.parse(readFileSync(`${dir}${l}.json`, 'utf8')) as Record<string, string>]),
);

/** Header value → a supported locale. Accepts `pt-BR` → pt-PT, a bare `zh` → zh-CN, etc.; default en-US. */
export function pickLocale(header: string | string[] | undefined): Locale {
  const raw = (Array.isArray(header) ? header[0] : header)?.trim();
  if (!raw) return DEFAULT_LOCALE;
  const exact = LOCALES.find((l) => l.toLowerCase() === raw.toLowerCase());
  if (exact) return exact;
  const lang = raw.slice(0, 2).toLowerCase();
  return LOCALES.find((l) => l.startsWith(lang)) ?? DEFAULT_LOCALE;
}

export function t(locale: Locale, key: string, params: Record<string, string | number> = {}): string {
  const template = catalogs.get(locale)?.[key] ?? catalogs.get(DEFAULT_LOCALE)?.[key] ?? key;
  return template.replace(/\{(\w+)\}/g, (m, name: string) => (name in params ? String(params[name]) : m));
}

export function catalogKeys(locale: Locale): string[] {
  return Object.keys(catalogs.get(locale) ?? {}).sort();
}
