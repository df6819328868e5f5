// "I returned it" (claims.ts): the rider's claim and its state.
import { Type } from 'typebox';
import { Envelope } from '#contract/envelope.ts';
import { OrderIdQuery } from '#contract/rentals.ts';
import { ReturnClaim, ReturnClaimBody } from '#contract/returns.ts';
import { ok } from '../../lib/envelope.ts';
import type { App } from '../../lib/route.ts';
import { currentUser } from '../../plugins/context.ts';
import type { DisputeRow } from './claims-repository.ts';
import type { ClaimsService } from './claims.ts';
import type { GraceService } from './grace.ts';
import graceRoutes from './grace-routes.ts';

const wire = (d: DisputeRow): ReturnClaim => ({
  id: d.id,
  orderId: d.order_id,
  cabinetId: d.cabinet_id,
  claimedAt: new Date(d.claimed_at).toISOString(),
  state: d.state,
  message: d.message,
  createdAt: new Date(d.created_at).toISOString(),
  decidedAt: d.decided_at ? new Date(d.decided_at).toISOString() : null,
});

/** "I returned it", and the grace period for a rider with nowhere to return (grace-routes.ts). */
export default async function claimRoutes(app: App, opts: { claims: ClaimsService; grace: GraceService }) {
  await app.register(graceRoutes, { grace: opts.grace });
  app.post(
    '/cdb/mine/order/claimReturn',
    {
      schema: {
        tags: ['rentals'],
        summary:
          '"I returned it": checked against the cabinets\' records; a match settles the order at the cabinet\'s time (state matched), none opens a dispute (state open)',
        body: ReturnClaimBody,
        response: { 200: Envelope(ReturnClaim) },
      },
      preHandler: app.requireUser,
    },
    async (req) => ok(wire(await opts.claims.claim(currentUser(req), req.body))),
  );

  app.get(
    '/cdb/mine/order/claim',
    {
      schema: {
        tags: ['rentals'],
        summary: "The order's latest return claim and its state (null: none)",
        querystring: OrderIdQuery,
        response: { 200: Envelope(Type.Union([ReturnClaim, Type.Null()])) },
      },
      preHandler: app.requireUser,
    },
    async (req) => {
      const d = await opts.claims.latest(currentUser(req), req.query.orderId);
      return ok(d ? wire(d) : null);
    },
  );
}
