// Wallet rules. Pure: the screens and the unit tests use them.
import type { PayoutField, Remark } from '../contract/wallet.ts';
import { parseDecimal, toDecimalText, toMinor } from './money.ts';

/** Top-up presets and the default. */
export const TOPUP_PRESETS = [10, 30, 50, 100, 300, 500] as const;
export const DEFAULT_TOPUP = 10;

/**
 * Refund types the withdrawal apply call answers with (and the create call takes): 0 back to the top-up card
 * (auto-audited), 1 a payout channel, 2 manual bank transfer (with the legacy remark when the currency needs it).
 */
export const REFUND = { card: 0, channel: 1, manual: 2 } as const;
export type RefundType = (typeof REFUND)[keyof typeof REFUND];

export interface WalletCtx {
  hasWallet: boolean;
  qrcode?: string | null;
  mificode?: string | null;
  sn?: string | null;
}

/** The add-card button shows only when the currency is not NGN and a wallet, qrcode, mificode or sn is present. */
export function canAddCard(currency: string, ctx: WalletCtx): boolean {
  if (currency.toUpperCase() === 'NGN') return false;
  return ctx.hasWallet || Boolean(ctx.qrcode || ctx.mificode || ctx.sn);
}

export type AmountError = 'required' | 'notNumber' | 'notPositive' | 'aboveBalance';

/**
 * The amount is a number > 0 with at most the currency's decimals, and not above the balance (the wire's
 * major-unit balance). Compared in minor units. The server applies the same parse (parseDecimal) to the same text.
 */
export function validateWithdrawAmount(raw: string, balance: number, currency: string): AmountError | null {
  const s = raw.trim();
  if (!s) return 'required';
  const minor = parseDecimal(s, currency);
  if (minor === null) return 'notNumber';
  if (minor <= 0) return 'notPositive';
  if (minor > toMinor(balance, currency)) return 'aboveBalance';
  return null;
}

/** "Withdraw all" fills the whole balance, at the currency's decimals without trailing zeros ("10.5", "500"). */
export function withdrawAllAmount(balance: number, currency: string): string {
  const text = toDecimalText(toMinor(balance, currency), currency);
  return text.includes('.') ? text.replace(/\.?0+$/, '') : text;
}

/** A server error containing the Chinese for 'insufficient balance' maps to the balance message. */
export function isInsufficientBalance(message: string | undefined): boolean {
  return Boolean(message && message.includes('余额不足'));
}

export type WithdrawNext =
  { step: 'auto' } | { step: 'channel' } | { step: 'remark' } | { step: 'manual' } | { step: 'unsupported' };

/** RefundTypes including 0 is auto-audited; otherwise the payout-channel sheet (or the legacy remark). */
export function nextWithdrawStep(r: {
  refundTypes?: number[] | null;
  checkNeedRemark?: boolean;
  channels?: unknown[] | null;
}): WithdrawNext {
  const types = r.refundTypes ?? [];
  if (types.includes(REFUND.card)) return { step: 'auto' };
  if (types.includes(REFUND.channel) && (r.channels?.length ?? 0) > 0) return { step: 'channel' };
  if (types.includes(REFUND.manual)) return r.checkNeedRemark ? { step: 'remark' } : { step: 'manual' };
  return { step: 'unsupported' };
}

export type { PayoutField };

/** The sheet requires every payout field ("All information is required"). */
export function payoutComplete(
  fields: readonly Pick<PayoutField, 'fieldName'>[],
  values: Record<string, string>,
): boolean {
  return fields.every((f) => (values[f.fieldName] ?? '').trim() !== '');
}

/** The legacy remark's fields (src/contract/wallet.ts Remark). */
export type RemarkInput = Remark;

export type RemarkError = 'name' | 'bankCard' | 'phone';

/** The remark as sent and stored: name trimmed, spaces out of the bank card, spaces and dashes out of the phone. */
export function normalizeRemark(r: Partial<Record<keyof RemarkInput, unknown>>): RemarkInput {
  const text = (v: unknown) => (typeof v === 'string' ? v : '');
  return {
    name: text(r.name).trim(),
    bankCard: text(r.bankCard).replace(/\s/g, ''),
    phone: text(r.phone).replace(/[\s-]/g, ''),
  };
}

/** The legacy remark needs name, bank card (8–30 digits) and phone (5–20 digits, optional +). */
export function validateRemark(r: RemarkInput): RemarkError | null {
  const n = normalizeRemark(r);
  if (!n.name) return 'name';
  if (!/^\d{8,30}$/.test(n.bankCard)) return 'bankCard';
  if (!/^\+?\d{5,20}$/.test(n.phone)) return 'phone';
  return null;
}
