// The cabinets' part of a rent, a return and a box handover, done by the modules built on the cabinets (rentals, the
// Wi-Fi line) inside their own unit of work: find a cabinet, lock and free its slots, record the eject command and
// its answer, move a device between slot and rental. Only these; everything else of the cabinets stays inside the
// module (the inbox, the reconcile, the fleet). The statements are the cabinets repository's (one place per table).
import type { CabinetsRepository } from './repository.ts';

export type { CabinetRow, CommandRow, PowerbankRow } from './repository.ts';

export type CabinetStock = Pick<
  CabinetsRepository,
  | 'find'
  | 'findWithFreeSlot'
  | 'lock'
  | 'freeSlot'
  | 'insertCommand'
  | 'ackCommand'
  | 'markRented'
  | 'placeInSlot'
  | 'powerbanks'
  | 'returnAfter'
>;
