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
