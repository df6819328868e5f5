// Rental order states (pZujie) and the only transitions allowed between them. Every state change goes through
// RentalsRepository.transition, which checks this table and compares-and-sets the current state.
export const Zujie = {
  pending: 0, // paid, eject commanded, cabinet has not answered
  renting: 1,
  cancelled: 2,
  returned: 3,
  fault: 4,
  overtimeReturn: 5,
} as const;
export type ZujieState = (typeof Zujie)[keyof typeof Zujie];

export const ORDER_TRANSITIONS: Record<ZujieState, readonly ZujieState[]> = {
  0: [Zujie.renting, Zujie.cancelled],
  // 1 → 3 / 5 also for a bought-out order (pZujie 1, settled) whose power bank comes back after all.
  1: [Zujie.returned, Zujie.overtimeReturn, Zujie.fault],
  4: [Zujie.returned, Zujie.overtimeReturn],
  2: [],
  3: [],
  5: [],
};

export function canTransition(from: number, to: number): boolean {
  return (ORDER_TRANSITIONS[from as ZujieState] ?? []).includes(to as ZujieState);
}

/** Open = counts against the one-rental-at-a-time rule (spec §5 'rent count'). */
export const OPEN_STATES: readonly ZujieState[] = [Zujie.pending, Zujie.renting, Zujie.fault];

/**
 * The overtime buy-out settles an order in place: pZujie stays (1 or 4), pJiesuanid becomes 1. It is the only
 * change of `settled` without a change of state, and only from these states (RentalsRepository.buyOut).
 */
export const BUY_OUT_FROM: readonly ZujieState[] = [Zujie.renting, Zujie.fault];
