// Return slot reservations (reservations.ts): reserve, read, cancel, for the signed-in rider.
import { Type } from 'typebox';
import { Envelope } from '#contract/envelope.ts';
import { ReturnReservation, ReturnReserveBody } from '#contract/returns.ts';
import { ok } from '../../lib/envelope.ts';
import type { App } from '../../lib/route.ts';
import { currentUser } from '../../plugins/context.ts';
import type { ReservationRow } from './reservations-repository.ts';
import type { ReturnReservations } from './reservations.ts';

const iso = (d: Date | string) => new Date(d).toISOString();
const wire = (r: ReservationRow): ReturnReservation => ({
  id: r.id,
  cabinetId: r.cabinet_id,
  shopId: r.venue_id,
  shopName: r.venue_name,
  slot: r.slot,
  state: r.state,
  confirmed: Boolean(r.confirmed) && r.state === 'held',
  createdAt: iso(r.created_at),
  expiresAt: iso(r.expires_at),
  endedAt: r.ended_at ? iso(r.ended_at) : null,
});

export default async function reservationRoutes(app: App, opts: { reservations: ReturnReservations }) {
  app.post(
    '/cdb/return/reserve',
    {
      schema: {
        tags: ['rentals'],
        summary:
          "Keep an empty slot for the return of the rider's power bank for 15 minutes (stored and sent to the cabinet); the same place again answers the same reservation",
        body: ReturnReserveBody,
        response: { 200: Envelope(ReturnReservation) },
      },
      preHandler: app.requireUser,
    },
    async (req) => ok(wire(await opts.reservations.reserve(currentUser(req).id, req.body))),
  );

  app.get(
    '/cdb/return/reservation',
    {
      schema: {
        tags: ['rentals'],
        summary: "The rider's held return slot reservation, else the latest one (null: never)",
        response: { 200: Envelope(Type.Union([ReturnReservation, Type.Null()])) },
      },
      preHandler: app.requireUser,
    },
    async (req) => {
      const r = await opts.reservations.current(currentUser(req).id);
      return ok(r ? wire(r) : null);
    },
  );

  app.post(
    '/cdb/return/reservation/cancel',
    {
      schema: {
        tags: ['rentals'],
        summary: 'Give the reserved slot back (the cabinet is told to release it)',
        response: { 200: Envelope(ReturnReservation) },
      },
      preHandler: app.requireUser,
    },
    async (req) => ok(wire(await opts.reservations.cancel(currentUser(req).id))),
  );
}
