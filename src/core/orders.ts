// Rental order state rules. The states by name are shared with the server (its transition table,
// server/src/modules/rentals/order-state.ts, is written with these names).
import type { Order } from '../contract/rentals.ts';

/** Order states (pZujie on the wire). */
export const ORDER_STATE = {
  pending: 0, // paid, eject commanded, cabinet has not answered
  renting: 1,
  cancelled: 2,
  returned: 3,
  fault: 4,
  overtimeReturn: 5,
} as const;
export type OrderState = (typeof ORDER_STATE)[keyof typeof ORDER_STATE];

/** Settlement (pJiesuanid on the wire): open until the fee is charged. */
export const SETTLEMENT = { open: 0, settled: 1 } as const;

/** What the state rules read of an order (src/contract/rentals.ts). */
export type OrderStateFields = Pick<Order, 'pZujie' | 'pJiesuanid'>;

/** Ongoing = renting or fault, and open (not settled); shown 'Under lease'. */
export function isOngoing(o: OrderStateFields): boolean {
  return (o.pZujie === ORDER_STATE.renting || o.pZujie === ORDER_STATE.fault) && o.pJiesuanid === SETTLEMENT.open;
}

/** Ongoing orders first; otherwise the given order is kept (stable). */
export function ongoingFirst<T extends OrderStateFields>(orders: readonly T[]): T[] {
  return [...orders.filter(isOngoing), ...orders.filter((o) => !isOngoing(o))];
}

/** The settlement note of an order whose automatic deduction failed (Chinese 'deduction payment failed'). */
export const DEDUCTION_FAILED = '扣款失败';

/** Which actions an order detail offers (/orderDetail). */
export function orderActions(o: OrderStateFields & { palipayjsSm?: string | null; pType?: string }) {
  return {
    /** Renting and still open: buy the power bank instead of returning it. */
    buy: o.pZujie === ORDER_STATE.renting && o.pJiesuanid === SETTLEMENT.open && o.pType !== 'chargeNowMifi',
    /** A failed deduction: pay again through /confirm with payType=FK. */
    payAgain: (o.palipayjsSm ?? '').trim() === DEDUCTION_FAILED,
  };
}
