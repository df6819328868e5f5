// Pure card-field rules for the card form (spec §5 card validation; sandbox provider rules of docs/api.md).

export type CardFieldError = 'required' | 'luhn' | 'length' | 'expiryFormat' | 'expiryPast' | 'cvc';

export function digitsOnly(v: string): string {
  return v.replace(/\D+/g, '');
}

/** "4242424242424242" → "4242 4242 4242 4242" (groups of 4, at most 19 digits). */
export function formatCardNumber(v: string): string {
  return digitsOnly(v).slice(0, 19).replace(/(\d{4})(?=\d)/g, '$1 ');
}

/** "1228" / "12/28" → "12/28" while typing. */
export function formatExpiry(v: string): string {
  const d = digitsOnly(v).slice(0, 4);
  return d.length > 2 ? `${d.slice(0, 2)}/${d.slice(2)}` : d;
}

export function luhnValid(number: string): boolean {
  const d = digitsOnly(number);
  if (d.length < 12) return false;
  let sum = 0;
  for (let i = 0; i < d.length; i++) {
    let n = Number(d[d.length - 1 - i]);
    if (i % 2 === 1) {
      n *= 2;
      if (n > 9) n -= 9;
    }
    sum += n;
  }
  return sum % 10 === 0;
}

export function validateCardNumber(v: string): CardFieldError | null {
  const d = digitsOnly(v);
  if (!d) return 'required';
  if (d.length < 12 || d.length > 19) return 'length';
  return luhnValid(d) ? null : 'luhn';
}

/** Parses "MM/YY" into month and four-digit year, or null. */
export function parseExpiry(v: string): { month: number; year: number } | null {
  const m = /^\s*(\d{2})\s*\/\s*(\d{2})\s*$/.exec(v);
  if (!m) return null;
  const month = Number(m[1]);
  if (month < 1 || month > 12) return null;
  return { month, year: 2000 + Number(m[2]) };
}

/** A card is valid through the last day of its expiry month. */
export function validateExpiry(v: string, now: Date = new Date()): CardFieldError | null {
  if (!v.trim()) return 'required';
  const e = parseExpiry(v);
  if (!e) return 'expiryFormat';
  const y = now.getFullYear();
  const mo = now.getMonth() + 1;
  return e.year > y || (e.year === y && e.month >= mo) ? null : 'expiryPast';
}

export function validateCvc(v: string): CardFieldError | null {
  if (!v) return 'required';
  return /^\d{3,4}$/.test(v) ? null : 'cvc';
}
