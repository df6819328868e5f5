// The rules of wallet requests that need no database: amounts and currencies on the wire, refund types, and
// the payout details a withdrawal carries (checked against the payout configuration, server/src/config/payouts.ts).
import { parseDecimal } from '#core/money.ts';
import { normalizeRemark, REFUND, validateRemark } from '#core/wallet.ts';
import type { PayoutChannel, Remark } from '#contract/wallet.ts';
import { badRequest } from '../../lib/errors.ts';
import { METHOD_CURRENCIES } from '../payments/service.ts';

/**
 * Currencies a wallet can be topped up in: those the card provider settles, and those of the other payment methods
 * (payments' METHOD_CURRENCIES; Espees' ESP is left out: it is no ISO currency, and Intl reads it as the peseta).
 */
export const WALLET_CURRENCIES: readonly string[] = [
  ...new Set(['CNY', 'EUR', 'USD', 'XAF', 'NGN', ...METHOD_CURRENCIES.filter((c) => c !== 'ESP')]),
];
/** Upper bound of one top-up, major units (fraud limit of the sandbox acquirer). */
export const MAX_TOPUP_MAJOR = 10_000;

/** Refund types (src/core/wallet.ts): 0 back to the top-up card (auto-audited), 1 a payout channel, 2 manual bank transfer (remark). */
export { REFUND };
export type { Remark };

/** Parses a wire amount (major units, a number > 0 with at most the currency's decimals) to minor units. */
export function parseAmount(raw: string | number, currency: string): number {
  const minor = parseDecimal(String(raw), currency);
  if (minor === null || minor <= 0) throw badRequest('error.wallet.amountInvalid');
  return minor;
}

export function parseCurrency(raw: string): string {
  const c = raw.trim().toUpperCase();
  if (!WALLET_CURRENCIES.includes(c)) throw badRequest('error.wallet.currency');
  return c;
}

export function parseReceiver(raw: string | undefined): { paymentId: string; accountData: Record<string, unknown> } {
  try {
    const v = JSON.parse(raw ?? '') as { paymentId?: unknown; accountData?: unknown };
    const data = typeof v.accountData === 'string' ? (JSON.parse(v.accountData) as unknown) : v.accountData;
    if (typeof v.paymentId === 'string' && data && typeof data === 'object') {
      return { paymentId: v.paymentId, accountData: data as Record<string, unknown> };
    }
  } catch {
    /* falls through */
  }
  throw badRequest('error.wallet.allInfoRequired');
}

/** Every payout field is required ("All information is required"); pickers take one of their values. */
export function validateAccount(channel: PayoutChannel, data: Record<string, unknown>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const f of channel.payoutConfig) {
    const v = typeof data[f.fieldName] === 'string' ? (data[f.fieldName] as string).trim() : '';
    if (!v || v.length > 100) throw badRequest('error.wallet.allInfoRequired');
    if (f.fieldType === 'picker' && !f.fieldDefauldValues.some((o) => o.value === v))
      throw badRequest('error.wallet.allInfoRequired');
    out[f.fieldName] = v;
  }
  return out;
}

/** The legacy remark: the payee's name, bank card and phone, all required. */
export function parseRemark(raw: string | undefined): Remark {
  let v: Partial<Remark> = {};
  try {
    v = JSON.parse(raw ?? '') as Partial<Remark>;
  } catch {
    /* empty */
  }
  const { name, bankCard, phone } = normalizeRemark(v ?? {});
  if (!name || !bankCard || !phone) throw badRequest('error.wallet.remarkRequired');
  const problem = validateRemark({ name, bankCard, phone });
  if (problem === 'bankCard') throw badRequest('error.wallet.bankCardInvalid');
  if (problem === 'phone') throw badRequest('error.wallet.phoneInvalid');
  return { name: name.slice(0, 100), bankCard, phone };
}
