// Rental order states (pZujie) and the only transitions allowed between them. Every state change goes through
// RentalsRepository.transition, which checks this table and compares-and-sets the current state.
// The states by name are the flows' (src/core/orders.ts ORDER_STATE).
import { ORDER_STATE, type OrderState } from '#core/orders.ts';

export const Zujie = ORDER_STATE;
export type ZujieState = OrderState;

export const ORDER_TRANSITIONS: Record<ZujieState, readonly ZujieState[]> = {
  [Zujie.pending]: [Zujie.renting, Zujie.cancelled],
  // renting → returned / overtimeReturn also for a bought-out order (renting, settled) whose power bank comes back after all.
  [Zujie.renting]: [Zujie.returned, Zujie.overtimeReturn, Zujie.fault],
  [Zujie.fault]: [Zujie.returned, Zujie.overtimeReturn],
  [Zujie.cancelled]: [],
  [Zujie.returned]: [],
  [Zujie.overtimeReturn]: [],
};

export function canTransition(from: number, to: number): boolean {
  return (ORDER_TRANSITIONS[from as ZujieState] ?? []).includes(to as ZujieState);
}

/** Open = counts against the one-rental-at-a-time rule ('rent count'). */
export const OPEN_STATES: readonly ZujieState[] = [Zujie.pending, Zujie.renting, Zujie.fault];

/** Ongoing = the power bank is out with the user (pZujie 1 or 4, not settled): listed first. */
export const ONGOING_STATES: readonly ZujieState[] = [Zujie.renting, Zujie.fault];

/**
 * The overtime buy-out settles an order in place: pZujie stays (1 or 4), pJiesuanid becomes 1. It is the only
 * change of `settled` without a change of state, and only from these states (RentalsRepository.buyOut).
 */
export const BUY_OUT_FROM: readonly ZujieState[] = ONGOING_STATES;
