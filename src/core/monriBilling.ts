// Monri billing ("Monri billing": address, fullName, city, zip, phone, country, email, orderInfo), kept per
// user as JSON text under user/more's key `monriBilling` so /MonriPay fills it in again. One rule for the
// server (POST user/more validates with it) and the screen (reads the stored text with it).
import { EMAIL } from './email.ts';

/** The fields and the longest value Monri takes for each (Monri Components' transaction parameters). */
export const MONRI_BILLING_FIELDS = {
  address: 100,
  fullName: 30,
  city: 30,
  zip: 9,
  phone: 30,
  country: 3,
  email: 100,
  orderInfo: 100,
} as const;

export type MonriBillingField = keyof typeof MONRI_BILLING_FIELDS;
export type MonriBilling = Partial<Record<MonriBillingField, string>>;

/** The longest JSON text accepted (all fields at their longest, with room for escapes). */
export const MONRI_BILLING_MAX_TEXT = 1000;

export type MonriBillingFault =
  | { fault: 'tooLong' }
  | { fault: 'notJson' }
  | { fault: 'notObject' }
  | { fault: 'unknownField'; field: string }
  | { fault: 'fieldNotText'; field: MonriBillingField }
  | { fault: 'fieldTooLong'; field: MonriBillingField; max: number }
  | { fault: 'email' };

/**
 * Reads a monriBilling JSON text: the billing fields it holds (trimmed), or what is wrong with it. An object of the
 * fields above only, each a string within Monri's length; the e-mail, when given, an e-mail; the country 2–3 letters.
 */
export function parseMonriBilling(text: string): { billing: MonriBilling } | MonriBillingFault {
  if (text.length > MONRI_BILLING_MAX_TEXT) return { fault: 'tooLong' };
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return { fault: 'notJson' };
  }
  if (!v || typeof v !== 'object' || Array.isArray(v)) return { fault: 'notObject' };
  const billing: MonriBilling = {};
  for (const [k, raw] of Object.entries(v as Record<string, unknown>)) {
    if (!(k in MONRI_BILLING_FIELDS)) return { fault: 'unknownField', field: k.slice(0, 40) };
    const field = k as MonriBillingField;
    if (typeof raw !== 'string') return { fault: 'fieldNotText', field };
    const value = raw.trim();
    const max = MONRI_BILLING_FIELDS[field];
    if (value.length > max) return { fault: 'fieldTooLong', field, max };
    if (field === 'email' && value && !EMAIL.test(value)) return { fault: 'email' };
    if (field === 'country' && value && !/^[A-Za-z]{2,3}$/.test(value)) return { fault: 'fieldNotText', field };
    billing[field] = value;
  }
  return { billing };
}

/** The stored form of billing fields: JSON text of the known fields, in a fixed order. */
export function monriBillingText(b: MonriBilling): string {
  const out: MonriBilling = {};
  for (const f of Object.keys(MONRI_BILLING_FIELDS) as MonriBillingField[]) if (b[f] !== undefined) out[f] = b[f];
  return JSON.stringify(out);
}
