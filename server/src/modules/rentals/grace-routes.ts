// Grace periods (grace.ts): whether one applies where the rider is, and asking for one.
import { Envelope } from '#contract/envelope.ts';
import { GraceAnswer, GraceBody, GraceCheckQuery, GracePeriod } from '#contract/returns.ts';
import { ok } from '../../lib/envelope.ts';
import type { App } from '../../lib/route.ts';
import { currentUser } from '../../plugins/context.ts';
import type { GraceService } from './grace.ts';

export default async function graceRoutes(app: App, opts: { grace: GraceService }) {
  app.get(
    '/cdb/mine/order/grace',
    {
      schema: {
        tags: ['rentals'],
        summary:
          'Whether a grace period applies where the rider is (no cabinet within the radius open with a free slot), and the one running',
        querystring: GraceCheckQuery,
        response: { 200: Envelope(GraceAnswer) },
      },
      preHandler: app.requireUser,
    },
    async (req) => ok(await opts.grace.check(currentUser(req), req.query)),
  );

  app.post(
    '/cdb/mine/order/grace',
    {
      schema: {
        tags: ['rentals'],
        summary:
          'Ask for a grace period: granted by rule, it pauses the rental (fee, buy-out, reminders) until the next opening nearby; refused with 409 where a place is open with a free slot',
        body: GraceBody,
        response: { 200: Envelope(GracePeriod) },
      },
      preHandler: app.requireUser,
    },
    async (req) => ok(await opts.grace.request(currentUser(req), req.body)),
  );
}
