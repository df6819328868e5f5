// Prices of the Wi-Fi catalogue as operators type them: one a line, a currency and an amount in its major unit.
import { OpsApiError } from '../api.ts';

/** Minor units per major unit of a currency (Intl knows each currency's digits). */
export function minorDigits(currency: string): number {
  try {
    return new Intl.NumberFormat('en-US', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ?? 2;
  } catch {
    return 2;
  }
}

/** Price lines, one a line: CURRENCY amount (in the currency's major unit, e.g. "EUR 15.00"); `bad`: the message for a bad line. */
export function parsePrices(text: string, bad: string): { currency: string; price: number }[] {
  const prices = text
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean)
    .map((l) => {
      const [currency = '', amount = ''] = l.split(/\s+/);
      const c = currency.toUpperCase();
      return { currency: c, price: Math.round(Number(amount.replace(',', '.')) * 10 ** minorDigits(c)) };
    });
  if (!prices.length || prices.some((p) => !/^[A-Z]{3}$/.test(p.currency) || !Number.isFinite(p.price) || p.price < 0))
    throw new OpsApiError(400, bad);
  return prices;
}

/** Prices as the lines parsePrices reads. */
export const priceLines = (prices: { currency: string; price: number }[]) =>
  prices
    .map((p) => `${p.currency} ${(p.price / 10 ** minorDigits(p.currency)).toFixed(minorDigits(p.currency))}`)
    .join('\n');
