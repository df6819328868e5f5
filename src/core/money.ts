// Money is an integer amount in the currency's minor unit plus an ISO 4217 code. Floats appear only on the
// wire (the operator contract sends major-unit decimals) and are converted at the edge with toMinor/toMajor
// (numbers) or parseDecimal/toDecimalText (decimal text such as a typed amount). The server and the flows both
// use this module: no other place knows a currency's scale or symbol.

/** The one currency table: the minor unit's decimal places (2 unless listed) and the display symbol (the code unless listed). */
const CURRENCIES: Record<string, { scale?: 0 | 3; symbol?: string }> = {
  BIF: { scale: 0 },
  CLP: { scale: 0 },
  DJF: { scale: 0 },
  GNF: { scale: 0 },
  ISK: { scale: 0 },
  JPY: { scale: 0, symbol: '¥' },
  KMF: { scale: 0 },
  KRW: { scale: 0 },
  PYG: { scale: 0 },
  RWF: { scale: 0 },
  UGX: { scale: 0 },
  VND: { scale: 0 },
  VUV: { scale: 0 },
  XAF: { scale: 0 },
  XOF: { scale: 0 },
  XPF: { scale: 0 },
  BHD: { scale: 3 },
  IQD: { scale: 3 },
  JOD: { scale: 3 },
  KWD: { scale: 3 },
  LYD: { scale: 3 },
  OMR: { scale: 3 },
  TND: { scale: 3 },
  CNY: { symbol: '¥' },
  EUR: { symbol: '€' },
  USD: { symbol: '$' },
  GBP: { symbol: '£' },
  CHF: { symbol: 'CHF' },
};

/** Number of decimal places of a currency's minor unit (2 unless listed). */
export function currencyScale(currency: string): number {
  return CURRENCIES[currency.toUpperCase()]?.scale ?? 2;
}

/** The symbol shown for a currency (the wire's currencyName / pCurrencySymbol): '€', '¥', or the code itself. */
export function currencySymbol(currency: string): string {
  return CURRENCIES[currency]?.symbol ?? currency;
}

/**
 * Decimal text in major units (e.g. a typed amount: "10", "10.5") → integer minor units, or null when it is not a
 * plain non-negative decimal with at most the currency's decimals (so "10.5" is refused for XAF, "1.125" accepted
 * for KWD). Exact: digits are shifted, not multiplied.
 */
export function parseDecimal(raw: string, currency: string): number | null {
  const m = /^(\d+)(?:\.(\d+))?$/.exec(raw.trim());
  if (!m) return null;
  const scale = currencyScale(currency);
  const fraction = m[2] ?? '';
  if (fraction.length > scale) return null;
  const minor = Number(m[1] + fraction.padEnd(scale, '0'));
  return Number.isSafeInteger(minor) ? minor : null;
}

/** Integer minor units → decimal text with the currency's decimals (1050 EUR → "10.50", 500 XAF → "500", 1125 KWD → "1.125"). */
export function toDecimalText(minor: number, currency: string): string {
  if (!Number.isSafeInteger(minor)) throw new RangeError(`not an integer minor amount: ${minor}`);
  const scale = currencyScale(currency);
  const digits = String(Math.abs(minor)).padStart(scale + 1, '0');
  const text = scale === 0 ? digits : `${digits.slice(0, -scale)}.${digits.slice(-scale)}`;
  return minor < 0 ? `-${text}` : text;
}

/** Major-unit decimal (wire) → integer minor units. Rounds half away from zero at the currency's scale. */
export function toMinor(major: number, currency: string): number {
  if (!Number.isFinite(major)) throw new RangeError(`not a finite amount: ${major}`);
  const factor = 10 ** currencyScale(currency);
  const scaled = Math.round(Math.abs(major) * factor + 1e-9);
  return major < 0 ? -scaled : scaled;
}

/** Integer minor units → major-unit decimal for the wire. */
export function toMajor(minor: number, currency: string): number {
  if (!Number.isSafeInteger(minor)) throw new RangeError(`not an integer minor amount: ${minor}`);
  return minor / 10 ** currencyScale(currency);
}

/**
 * "Price display rounds to 2 decimals unless whole" — the currency's decimals when it is given (none for
 * XAF, 3 for KWD); 2 without one. Rounded once into minor units, then written exactly.
 */
export function formatPrice(major: number, currency = ''): string {
  const minor = toMinor(major, currency);
  const unit = 10 ** currencyScale(currency);
  return minor % unit === 0 ? String(minor / unit) : toDecimalText(minor, currency);
}

/**
 * THE display of an amount to a user: `Intl.NumberFormat` in the user's language with the currency's own symbol and
 * decimals (whole amounts without decimals, "€30", otherwise all of the currency's decimals, "€1.50",
 * "1,50 €" in pt-PT, "1.125 KWD"). Every screen goes through this (src/ui/format.ts money()); an unknown currency
 * code falls back to "<code><decimal>".
 */
export function formatAmount(major: number, currency: string, locale = 'en-US'): string {
  const code = currency.toUpperCase();
  let minor: number;
  try {
    minor = toMinor(major, code);
  } catch {
    return `${currency}${String(major)}`;
  }
  const scale = currencyScale(code);
  const whole = minor % 10 ** scale === 0;
  try {
    return new Intl.NumberFormat(locale, {
      style: 'currency',
      currency: code,
      currencyDisplay: 'narrowSymbol',
      minimumFractionDigits: whole ? 0 : scale,
      maximumFractionDigits: scale,
    }).format(toMajor(minor, code));
  } catch {
    return `${currency}${formatPrice(major, /^[A-Z]{3}$/.test(code) ? code : '')}`;
  }
}

/** A localised amount with its currency, e.g. "€2.50" / "2,50 €". */
export function formatMoney(minor: number, currency: string, locale = 'en-US'): string {
  const scale = currencyScale(currency);
  try {
    return new Intl.NumberFormat(locale, {
      style: 'currency',
      currency,
      minimumFractionDigits: scale,
      maximumFractionDigits: scale,
    }).format(toMajor(minor, currency));
  } catch {
    return `${toDecimalText(minor, currency)} ${currency}`;
  }
}
