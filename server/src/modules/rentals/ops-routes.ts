// The ops API's support desk over rentals: search (paged; CSV streamed), one rental's timeline (ETag: its number of
// corrections), and a refund (Idempotency-Key, If-Match, a reason). Each route declares its permission; a rental
// outside the caller's agents and venues is a 404.
import { Readable } from 'node:stream';
import type { App } from '../../lib/route.ts';
import { expectedVersion, sendVersion } from '../../lib/ops-concurrency.ts';
import { Type } from 'typebox';
import { OpsError } from '#contract/ops/common.ts';
import { RefundBody, RefundResult, RentalExportQuery, RentalListQuery, RentalPage, RentalParams, RentalTimeline } from '#contract/ops/rentals.ts';
import { scopeOf } from '#core/opsAccess.ts';
import { actorOf, staffOf } from '../../plugins/ops-api.ts';
import type { RentalsDesk } from './ops-desk.ts';
import type { RentalRefunds } from './ops-refund.ts';

const errors = (...codes: number[]) => Object.fromEntries(codes.map((c) => [c, OpsError]));
/** The correction's headers: both are checked by the service (a missing If-Match is a 428, not a 400). */
const CorrectionHeaders = Type.Object({
  'idempotency-key': Type.Optional(Type.String({ description: 'a new random key per correction (8 to 100 of A-Z a-z 0-9 _ -); the retry of a correction sends the same' })),
  'if-match': Type.Optional(Type.String({ description: 'the ETag of GET /rentals/{id}' })),
});

export function rentalOpsRoutes(o: { desk: RentalsDesk; refunds: RentalRefunds }) {
  return async (ops: App) => {
    ops.get('/rentals', { config: { permission: 'orders.read' }, schema: { querystring: RentalListQuery, response: { 200: RentalPage, ...errors(400, 401, 403) } } }, async (req) =>
      o.desk.list(req.opsScope, req.query));

    ops.get('/rentals.csv', {
      config: { permission: 'orders.read' },
      schema: { description: 'The search as CSV (UTF-8, RFC 4180), streamed page by page: any size.', querystring: RentalExportQuery },
    }, async (req, reply) => {
      const stamp = new Date().toISOString().slice(0, 10);
      return reply
        .header('Content-Type', 'text/csv; charset=utf-8')
        .header('Content-Disposition', `attachment; filename="rentals-${stamp}.csv"`)
        .header('Cache-Control', 'no-store')
        .send(Readable.from(o.desk.csv(req.opsScope, req.query)));
    });

    ops.get('/rentals/:id', {
      config: { permission: 'orders.read' },
      schema: { description: 'The rental, its fee worked out step by step, its money and its timeline; ETag for a correction’s If-Match.', params: RentalParams, response: { 200: RentalTimeline, ...errors(401, 403, 404) } },
    }, async (req, reply) => {
      const t = await o.desk.timeline(req.opsScope, req.params.id);
      sendVersion(reply, t.version);
      return t;
    });

    ops.post('/rentals/:id/refund', {
      config: { permission: 'rentals.refund' },
      schema: {
        description: 'Refunds part or all of the fee: to the card the rental was paid with, the rest to the rider’s wallet. Needs Idempotency-Key '
          + '(a replay answers the same refund; the key with another amount is a 422) and If-Match with the rental’s ETag (409 when someone '
          + 'corrected it meanwhile). More than what was charged minus what was refunded is a 422. Without money.correct for the '
          + 'rental (support), more than the desk’s support limit (DESK_SUPPORT_REFUND_LIMIT) is a 403.',
        headers: CorrectionHeaders, params: RentalParams, body: RefundBody, response: { 200: RefundResult, ...errors(400, 401, 403, 404, 409, 422, 428) },
      },
    }, async (req) => {
      const key = req.headers['idempotency-key'];
      const finance = scopeOf(staffOf(req).memberships, 'money.correct');
      return o.refunds.refund(req.opsScope, finance, actorOf(req, req.body.reason), req.params.id, {
        amount: req.body.amount, key: Array.isArray(key) ? key[0] : key, version: expectedVersion(req),
      });
    });
  };
}
