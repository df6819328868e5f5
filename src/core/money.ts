// Money is an integer amount in the currency's minor unit plus an ISO 4217 code. Floats appear only on the
// wire (the operator contract sends major-unit decimals) and are converted at the edge with toMinor/toMajor.

const SCALES: Record<string, number> = {
  BIF: 0, CLP: 0, DJF: 0, GNF: 0, ISK: 0, JPY: 0, KMF: 0, KRW: 0, PYG: 0, RWF: 0, UGX: 0, VND: 0,
  VUV: 0, XAF: 0, XOF: 0, XPF: 0,
  BHD: 3, IQD: 3, JOD: 3, KWD: 3, LYD: 3, OMR: 3, TND: 3,
};

/** Number of decimal places of a currency's minor unit (2 unless listed). */
export function currencyScale(currency: string): number {
  return SCALES[currency.toUpperCase()] ?? 2;
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

/** Spec §5: "Price display rounds to 2 decimals unless whole." */
export function formatPrice(major: number): string {
  const rounded = Math.round(major * 100) / 100;
  return Number.isInteger(rounded) ? String(rounded) : rounded.toFixed(2);
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
    return `${toMajor(minor, currency).toFixed(scale)} ${currency}`;
  }
}
