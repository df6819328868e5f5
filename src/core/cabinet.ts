// The cabinet home's pay / borrow rule (Home).
import type { ScanResult } from '../contract/cabinets.ts';
import { toDecimalText, toMinor } from './money.ts';

/** The scan fields the rule reads (an operator back end may leave some out). */
export type CabinetRuleInput = Partial<
  Pick<
    ScanResult,
    'chongzhi' | 'currency' | 'yajin' | 'myyue' | 'yajintype' | 'zujieNum' | 'haveBatteryCount' | 'online'
  >
>;

export type RentAction = { kind: 'pay'; label: 'preAuth' | 'topUp'; amount: string } | { kind: 'borrow' };

export type RentBlock = 'rentCount' | 'offline' | 'noBattery' | null;

/**
 * chongzhi 'Y' → a pay button. Its amount: the full deposit for a pre-authorisation (yajintype 0, held on
 * the card), else deposit − balance ("Deposit due for yajintype other than 0 = yajin − myyue"),
 * at the currency's decimals. Otherwise the Borrow button (the wallet covers the deposit).
 */
export function rentAction(c: CabinetRuleInput): RentAction {
  if (c.chongzhi === 'Y') {
    const preAuth = c.yajintype === 0;
    const amount = depositDue(c.yajin ?? 0, preAuth ? 0 : (c.myyue ?? 0), c.currency);
    return { kind: 'pay', label: preAuth ? 'preAuth' : 'topUp', amount };
  }
  return { kind: 'borrow' };
}

/**
 * Deposit − balance, not below 0, as the decimal text the pay screens take (wire major units at the currency's
 * decimals; 2 when the currency is unknown). Subtracted in integer minor units.
 */
export function depositDue(deposit: number, balance: number, currency = ''): string {
  return toDecimalText(Math.max(0, toMinor(deposit, currency) - toMinor(balance, currency)), currency);
}

/** Why renting is blocked now, if it is: open rentals ('rent count'), offline cabinet, none ready. */
export function rentBlock(c: CabinetRuleInput): RentBlock {
  if ((c.zujieNum ?? 0) > 0) return 'rentCount';
  if (c.online === false) return 'offline';
  if ((c.haveBatteryCount ?? 0) <= 0) return 'noBattery';
  return null;
}

export type DepositRouteInput = Partial<
  Pick<ScanResult, 'currency' | 'yajin' | 'overtimeAmount' | 'myyue' | 'yajinChongzhi'>
> & {
  userWallet?: Partial<Pick<ScanResult['userWallet'], 'pBalance' | 'pDailiId'>>;
};

export type DepositRoute = 'borrow' | 'confirm' | 'paymentFail' | 'balanceLow';

/**
 * What Borrow does ("Deposit routing", the BGN rule):
 * - BGN with a deposit ≤ 0: the payment-fail message.
 * - A wallet balance covering the deposit and the overtime amount (XAF wallets included): borrow directly.
 * - Otherwise the deposit is paid through /confirm when yajinChongzhi is Y, or for NGN with the balance below the
 *   deposit. The agents whose deposits are always paid are a setting of each agent, applied by the server: for them
 *   the scan answers yajinChongzhi Y whenever the balance does not cover the deposit and the overtime amount.
 * - Otherwise: the balance is too low (the home screen offers the pay button when chongzhi is Y).
 * The balance is the cabinet's wallet (userWallet.pBalance), else myyue.
 */
export function depositRoute(c: DepositRouteInput): DepositRoute {
  const currency = (c.currency ?? '').toUpperCase();
  const deposit = c.yajin ?? 0;
  const overtime = c.overtimeAmount ?? 0;
  const balance = c.userWallet?.pBalance ?? c.myyue ?? 0;
  if (currency === 'BGN' && deposit <= 0) return 'paymentFail';
  if (balance >= deposit && balance >= overtime) return 'borrow';
  if (c.yajinChongzhi === 'Y') return 'confirm';
  if (currency === 'NGN' && balance < deposit) return 'confirm';
  return 'balanceLow';
}
