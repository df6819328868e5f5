// Rental order state rules (spec §4).

export interface OrderStateFields {
  pZujie: number;
  pJiesuanid: number;
}

/** Ongoing = pZujie 1 (renting) or 4 (fault) with pJiesuanid 0 (open); shown 'Under lease'. */
export function isOngoing(o: OrderStateFields): boolean {
  return (o.pZujie === 1 || o.pZujie === 4) && o.pJiesuanid === 0;
}

/** Ongoing orders first; otherwise the given order is kept (stable). */
export function ongoingFirst<T extends OrderStateFields>(orders: readonly T[]): T[] {
  return [...orders.filter(isOngoing), ...orders.filter((o) => !isOngoing(o))];
}

/** The settlement note of an order whose automatic deduction failed (spec §4: Chinese 'deduction payment failed'). */
export const DEDUCTION_FAILED = '扣款失败';

/** Which actions an order detail offers (spec §2 /orderDetail, §4). */
export function orderActions(o: OrderStateFields & { palipayjsSm?: string | null; pType?: string }) {
  return {
    /** State 1 and still open: buy the power bank instead of returning it. */
    buy: o.pZujie === 1 && o.pJiesuanid === 0 && o.pType !== 'chargeNowMifi',
    /** A failed deduction: pay again through /confirm with payType=FK. */
    payAgain: (o.palipayjsSm ?? '').trim() === DEDUCTION_FAILED,
  };
}
