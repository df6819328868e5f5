// Display helpers shared by the screens: money and durations through Intl in the user's language (one place each:
// src/core/money.ts formatAmount, src/core/duration.ts formatDuration).
import { formatAmount } from '../core/money.ts';
import { $activeLang } from '../i18n/index.ts';

/** An amount in major units of `currency` (ISO code) in the current language: "€2.50", "2,50 €", "¥2". */
export function money(currency: string | undefined, major: number | undefined | null): string {
  return formatAmount(major ?? 0, currency ?? '', $activeLang.get());
}

export function dateTime(iso: string | null | undefined, lang: string): string {
  if (!iso) return '';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  try {
    return new Intl.DateTimeFormat(lang, { dateStyle: 'medium', timeStyle: 'short' }).format(d);
  } catch {
    return d.toLocaleString();
  }
}
