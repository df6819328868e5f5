// Display helpers shared by the screens (money via src/core/money.ts).
import { formatPrice } from '../core/money.ts';

/** "¥2", "€2.50": currency symbol + spec price rounding. */
export function money(symbol: string | undefined, major: number | undefined | null): string {
  return `${symbol ?? ''}${formatPrice(major ?? 0)}`;
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
