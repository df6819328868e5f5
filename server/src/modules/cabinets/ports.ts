// What the cabinets module calls back into the modules built on it, given at wiring (src/services.ts): the rentals
// module and the Wi-Fi line use the cabinets (their slots, commands, link), so the cabinets module never imports them.
// A cabinet's event is stored and processed here (service.ts); what it means to a rental or a box is theirs.
import type { CabinetEvent } from './protocol.ts';
import type { CommandRow } from './repository.ts';

type EventOf<T extends CabinetEvent['type']> = Extract<CabinetEvent, { type: T }>;

/** A power bank seen back in a slot: by its own event, or listed by a heartbeat's inventory (the reconcile). */
export interface Returned {
  slot: number;
  powerbankId: string;
  ts: string;
  fault?: string;
  kind?: unknown;
}

/** The rentals module (its service): ejects answered, power banks back, faults, and which ones a return closes. */
export interface RentalEvents {
  onPopped(cabinetId: string, e: EventOf<'popped'>, cmd: CommandRow | undefined): Promise<unknown>;
  onPopFailed(cabinetId: string, e: EventOf<'pop-failed'>, cmd: CommandRow | undefined): Promise<unknown>;
  onReturned(cabinetId: string, e: Returned): Promise<unknown>;
  onFault(e: EventOf<'powerbank-fault'>): Promise<unknown>;
  /** Of `ids`, the power banks on an order that their coming back closes. */
  openPowerbanks(ids: string[]): Promise<string[]>;
}

/** The Wi-Fi line (its service): a box's eject answered, the box back, its telemetry, password and code. */
export interface BoxEvents {
  onPopped(e: EventOf<'popped'>): Promise<unknown>;
  onPopFailed(e: EventOf<'pop-failed'>): Promise<unknown>;
  onReturned(sn: string): Promise<unknown>;
  onTelemetry(e: EventOf<'box-telemetry'>): Promise<unknown>;
  onPasswordSet(e: EventOf<'box-password'>): Promise<unknown>;
  onCodeRead(e: EventOf<'box-code-read'>): Promise<unknown>;
}

/**
 * The rentals module's rules on its orders that the cabinets' one-round-trip reads apply (the scan's open rentals,
 * the heartbeat's fast path): the states of an open rental, and the SQL condition on an order row `o` that a power
 * bank's coming back closes. Rentals own both (its order-state.ts and repository.ts); they are handed in, not copied.
 */
export interface OrderRules {
  open: readonly number[];
  closedByReturn: (o: string) => string;
}
