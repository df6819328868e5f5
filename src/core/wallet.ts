// Wallet rules (spec §2, §4, §5, §9). Pure: the screens and the unit tests use them.

/** Spec §9: top-up presets and the default. */
export const TOPUP_PRESETS = [10, 30, 50, 100, 300, 500] as const;
export const DEFAULT_TOPUP = 10;

/** Refund types the withdrawal apply call answers with. */
export const REFUND_CARD = 0;
export const REFUND_CHANNEL = 1;
export const REFUND_MANUAL = 2;

export interface WalletCtx {
  hasWallet: boolean;
  qrcode?: string | null;
  mificode?: string | null;
  sn?: string | null;
}

/** Spec §2: the add-card button shows only when the currency is not NGN and a wallet, qrcode, mificode or sn is present. */
export function canAddCard(currency: string, ctx: WalletCtx): boolean {
  if (currency.toUpperCase() === 'NGN') return false;
  return ctx.hasWallet || Boolean(ctx.qrcode || ctx.mificode || ctx.sn);
}

export type AmountError = 'required' | 'notNumber' | 'notPositive' | 'aboveBalance';

/** Spec §5: the amount is a number > 0 and not above the balance. */
export function validateWithdrawAmount(raw: string, balance: number): AmountError | null {
  const s = raw.trim();
  if (!s) return 'required';
  if (!/^\d+(\.\d+)?$/.test(s)) return 'notNumber';
  const n = Number(s);
  if (!(n > 0)) return 'notPositive';
  if (n > balance + 1e-9) return 'aboveBalance';
  return null;
}

/** "Withdraw all" fills the whole balance (at most two decimals, as the wire sends it). */
export function withdrawAllAmount(balance: number): string {
  const r = Math.round(balance * 100) / 100;
  return Number.isInteger(r) ? String(r) : r.toFixed(2).replace(/0$/, '');
}

/** Spec §8: a server error containing the Chinese for 'insufficient balance' maps to the balance message. */
export function isInsufficientBalance(message: string | undefined): boolean {
  return Boolean(message && message.includes('余额不足'));
}

export type WithdrawNext =
  | { step: 'auto' }
  | { step: 'channel' }
  | { step: 'remark' }
  | { step: 'manual' }
  | { step: 'unsupported' };

/** Spec §4: refundTypes including 0 is auto-audited; otherwise the payout-channel sheet (or the legacy remark). */
export function nextWithdrawStep(r: { refundTypes?: number[] | null; checkNeedRemark?: boolean; channels?: unknown[] | null }): WithdrawNext {
  const types = r.refundTypes ?? [];
  if (types.includes(REFUND_CARD)) return { step: 'auto' };
  if (types.includes(REFUND_CHANNEL) && (r.channels?.length ?? 0) > 0) return { step: 'channel' };
  if (types.includes(REFUND_MANUAL)) return r.checkNeedRemark ? { step: 'remark' } : { step: 'manual' };
  return { step: 'unsupported' };
}

export interface PayoutField {
  fieldName: string;
  fieldType: 'picker' | 'input';
  fieldDefauldValues?: { desc: string; value: string }[];
}

/** Spec §5: the sheet requires every payout field ("All information is required"). */
export function payoutComplete(fields: readonly PayoutField[], values: Record<string, string>): boolean {
  return fields.every((f) => (values[f.fieldName] ?? '').trim() !== '');
}

export interface RemarkInput {
  name: string;
  bankCard: string;
  phone: string;
}

export type RemarkError = 'name' | 'bankCard' | 'phone';

/** Spec §5: the legacy remark needs name, bank card and phone. */
export function validateRemark(r: RemarkInput): RemarkError | null {
  if (!r.name.trim()) return 'name';
  if (!/^\d{8,30}$/.test(r.bankCard.replace(/\s/g, ''))) return 'bankCard';
  if (!/^\+?\d{5,20}$/.test(r.phone.replace(/[\s-]/g, ''))) return 'phone';
  return null;
}
