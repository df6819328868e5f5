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
