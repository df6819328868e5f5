// Pure card-field rules for the card form (card validation; sandbox provider rules of docs/api.md).

export type CardFieldError = 'required' | 'luhn' | 'length' | 'expiryFormat' | 'expiryPast' | 'cvc';

export function digitsOnly(v: string): string {
  return v.replace(/\D+/g, '');
}

/** "4242424242424242" → "4242 4242 4242 4242" (groups of 4, at most 19 digits). */
export function formatCardNumber(v: string): string {
  return digitsOnly(v)
    .slice(0, 19)
    .replace(/(\d{4})(?=\d)/g, '$1 ');
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

/**
 * The card form whose fields go to our server (Flutterwave's direct card charge) "Card form
 * (Flutterwave)": cardNumber (at most 19 digits), expiryMonth and expiryYear (2 digits), cvv (3 digits), each
 * required. The card number also passes the length and Luhn checks of every card form, and the expiry must not be past.
 */
export type DirectCardField = 'cardNumber' | 'expiryMonth' | 'expiryYear' | 'cvv';
export type DirectCardError = 'required' | 'length' | 'luhn' | 'month' | 'year' | 'expiryPast' | 'cvv';
export const DIRECT_CARD_FIELDS: readonly DirectCardField[] = ['cardNumber', 'expiryMonth', 'expiryYear', 'cvv'];
export interface DirectCardInput {
  cardNumber?: string;
  expiryMonth?: string;
  expiryYear?: string;
  cvv?: string;
}

/** Each field's first fault (absent: valid), in the fields' order. */
export function validateDirectCard(
  c: DirectCardInput,
  now: Date = new Date(),
): Partial<Record<DirectCardField, DirectCardError>> {
  const out: Partial<Record<DirectCardField, DirectCardError>> = {};
  const number = (c.cardNumber ?? '').replace(/[\s-]/g, '');
  if (!number) out.cardNumber = 'required';
  else if (!/^\d+$/.test(number)) out.cardNumber = 'luhn';
  else if (number.length < 12 || number.length > 19) out.cardNumber = 'length';
  else if (!luhnValid(number)) out.cardNumber = 'luhn';
  const month = (c.expiryMonth ?? '').trim();
  if (!month) out.expiryMonth = 'required';
  else if (!/^\d{2}$/.test(month) || Number(month) < 1 || Number(month) > 12) out.expiryMonth = 'month';
  const year = (c.expiryYear ?? '').trim();
  if (!year) out.expiryYear = 'required';
  else if (!/^\d{2}$/.test(year)) out.expiryYear = 'year';
  else if (!out.expiryMonth) {
    // Valid through the last day of the expiry month.
    const y = 2000 + Number(year);
    const m = Number(month);
    if (y < now.getFullYear() || (y === now.getFullYear() && m < now.getMonth() + 1)) out.expiryYear = 'expiryPast';
  }
  const cvv = (c.cvv ?? '').trim();
  if (!cvv) out.cvv = 'required';
  else if (!/^\d{3}$/.test(cvv)) out.cvv = 'cvv';
  return out;
}

/** The one-time code an issuer sends for a card charge (Flutterwave's validate-charge flow): 4 to 8 digits. */
export const OTP_PATTERN = /^\d{4,8}$/;

/** What is wrong with an OTP as typed (spaces ignored), or null: the OTP screen and the server check the same. */
export function validateOtp(v: string): 'required' | 'format' | null {
  const s = v.replace(/\s+/g, '');
  if (!s) return 'required';
  return OTP_PATTERN.test(s) ? null : 'format';
}
