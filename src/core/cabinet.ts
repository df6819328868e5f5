// The cabinet home's pay / borrow rule (spec §2 Home, §5, §9).

export interface CabinetRuleInput {
  chongzhi?: string;
  yajin?: number;
  myyue?: number;
  yajintype?: number;
  zujieNum?: number;
  haveBatteryCount?: number;
  online?: boolean;
}

export type RentAction =
  | { kind: 'pay'; label: 'preAuth' | 'topUp'; amount: string }
  | { kind: 'borrow' };

export type RentBlock = 'rentCount' | 'offline' | 'noBattery' | null;

/**
 * chongzhi 'Y' → a pay button. Its amount: the full deposit for a pre-authorisation (yajintype 0, held on
 * the card), else deposit − balance (spec §9 "Deposit due for yajintype other than 0 = yajin − myyue"),
 * two decimals. Otherwise the Borrow button (the wallet covers the deposit).
 */
export function rentAction(c: CabinetRuleInput): RentAction {
  if (c.chongzhi === 'Y') {
    const deposit = c.yajin ?? 0;
    const balance = c.myyue ?? 0;
    const preAuth = c.yajintype === 0;
    const due = preAuth ? deposit : Math.max(0, deposit - balance);
    return { kind: 'pay', label: preAuth ? 'preAuth' : 'topUp', amount: (Math.round(due * 100) / 100).toFixed(2) };
  }
  return { kind: 'borrow' };
}

/** Why renting is blocked now, if it is: open rentals (spec §5 'rent count'), offline cabinet, none ready. */
export function rentBlock(c: CabinetRuleInput): RentBlock {
  if ((c.zujieNum ?? 0) > 0) return 'rentCount';
  if (c.online === false) return 'offline';
  if ((c.haveBatteryCount ?? 0) <= 0) return 'noBattery';
  return null;
}

export interface DepositRouteInput {
  currency?: string;
  yajin?: number;
  overtimeAmount?: number;
  myyue?: number;
  yajinChongzhi?: string;
  userWallet?: { pBalance?: number; pDailiId?: string | number };
}

export type DepositRoute = 'borrow' | 'confirm' | 'paymentFail' | 'balanceLow';

/**
 * What Borrow does (spec §4 "Deposit routing", §5 BGN rule):
 * - BGN with a deposit ≤ 0: the payment-fail message.
 * - A wallet balance covering the deposit and the overtime amount (XAF wallets included): borrow directly.
 * - Otherwise the deposit is paid through /confirm when yajinChongzhi is Y, for one of the agent ids that
 *   always take the deposit payment (`depositAgentIds`), or for NGN with the balance below the deposit.
 * - Otherwise: the balance is too low (the home screen offers the pay button when chongzhi is Y).
 * The balance is the cabinet's wallet (userWallet.pBalance), else myyue.
 */
export function depositRoute(c: DepositRouteInput, depositAgentIds: readonly string[] = []): DepositRoute {
  const currency = (c.currency ?? '').toUpperCase();
  const deposit = c.yajin ?? 0;
  const overtime = c.overtimeAmount ?? 0;
  const balance = c.userWallet?.pBalance ?? c.myyue ?? 0;
  if (currency === 'BGN' && deposit <= 0) return 'paymentFail';
  if (balance >= deposit && balance >= overtime) return 'borrow';
  const agent = c.userWallet?.pDailiId;
  if (c.yajinChongzhi === 'Y') return 'confirm';
  if (agent != null && depositAgentIds.includes(String(agent))) return 'confirm';
  if (currency === 'NGN' && balance < deposit) return 'confirm';
  return 'balanceLow';
}
