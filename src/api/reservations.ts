// Return slot reservations: keep an empty slot for the rider's power bank for 15 minutes (docs/api.md).
import { api } from './client.ts';
import type { ReturnReservation, ReturnReserveBody } from '../contract/returns.ts';

export type { ReturnReservation };

/** POST cdb/return/reserve {cabinetId | shopId}: the same place again answers the same reservation. */
export function reserveReturnSlot(body: ReturnReserveBody): Promise<ReturnReservation> {
  return api.post<ReturnReservation>('cdb/return/reserve', { body });
}

/** GET cdb/return/reservation: the held reservation, else the latest, else null. */
export function currentReservation(): Promise<ReturnReservation | null> {
  return api.get<ReturnReservation | null>('cdb/return/reservation');
}

/** POST cdb/return/reservation/cancel: gives the slot back. */
export function cancelReservation(): Promise<ReturnReservation> {
  return api.post<ReturnReservation>('cdb/return/reservation/cancel', {});
}
