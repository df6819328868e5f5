// The ops API's support desk over rentals: search (paged; CSV streamed), one rental's timeline (ETag: its number of
// corrections), and a refund (Idempotency-Key, If-Match, a reason). Each route declares its permission; a rental
// outside the caller's agents and venues is a 404.
import { sendCsv } from '../../lib/csv.ts';
import type { App } from '../../lib/route.ts';
import { expectedVersion, sendVersion } from '../../lib/ops-concurrency.ts';
import { Type, type TSchema } from 'typebox';
import { OpsError } from '#contract/ops/common.ts';
import {
  RefundBody,
  RefundResult,
  RentalActionResult,
  RentalEndBody,
  RentalExportQuery,
  RentalListQuery,
  RentalPage,
  RentalParams,
  RentalReasonBody,
  RentalTimeline,
} from '#contract/ops/rentals.ts';
import { scopeOf } from '#core/opsAccess.ts';
import { actorOf, staffOf } from '../../plugins/ops-api.ts';
import type { RentalActions } from './ops-actions.ts';
import type { RentalsDesk } from './ops-desk.ts';
import type { RentalRefunds } from './ops-refund.ts';

const errors = (...codes: number[]) => Object.fromEntries(codes.map((c) => [c, OpsError]));
/** The correction's headers: both are checked by the service (a missing If-Match is a 428, not a 400). */
const CorrectionHeaders = Type.Object({
  'idempotency-key': Type.Optional(
    Type.String({
      description:
        'a new random key per correction (8 to 100 of A-Z a-z 0-9 _ -); the retry of a correction sends the same',
    }),
  ),
  'if-match': Type.Optional(Type.String({ description: 'the ETag of GET /rentals/{id}' })),
});

const headerOf = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v);
const CORRECTION =
  'Needs Idempotency-Key (a replay answers the same correction; the key with other values is a 422) and If-Match with the rental’s ETag ' +
  '(409 when someone corrected it meanwhile). Audited with its reason; in the rental’s timeline.';
const actionSchema = <B extends TSchema>(description: string, body: B) => ({
  description: `${description} ${CORRECTION}`,
  headers: CorrectionHeaders,
  params: RentalParams,
  body,
  response: { 200: RentalActionResult, ...errors(400, 401, 403, 404, 409, 422, 428) },
});

export function rentalOpsRoutes(o: { desk: RentalsDesk; refunds: RentalRefunds; actions: RentalActions }) {
  return async (ops: App) => {
    ops.get(
      '/rentals',
      {
        config: { permission: 'orders.read' },
        schema: { querystring: RentalListQuery, response: { 200: RentalPage, ...errors(400, 401, 403) } },
      },
      async (req) => o.desk.list(req.opsScope, req.query),
    );

    ops.get(
      '/rentals.csv',
      {
        config: { permission: 'orders.read' },
        schema: {
          description: 'The search as CSV (UTF-8, RFC 4180), streamed page by page: any size.',
          querystring: RentalExportQuery,
        },
      },
      async (req, reply) => sendCsv(reply, 'rentals', await o.desk.csv(req.opsScope, req.query)),
    );

    ops.get(
      '/rentals/:id',
      {
        config: { permission: 'orders.read' },
        schema: {
          description:
            'The rental, its fee worked out step by step, its money and its timeline; ETag for a correction’s If-Match.',
          params: RentalParams,
          response: { 200: RentalTimeline, ...errors(401, 403, 404) },
        },
      },
      async (req, reply) => {
        const t = await o.desk.timeline(req.opsScope, req.params.id);
        sendVersion(reply, t.version);
        return t;
      },
    );

    ops.post(
      '/rentals/:id/refund',
      {
        config: { permission: 'rentals.refund' },
        schema: {
          description:
            'Refunds part or all of the fee: to the card the rental was paid with, the rest to the rider’s wallet. Needs Idempotency-Key ' +
            '(a replay answers the same refund; the key with another amount is a 422) and If-Match with the rental’s ETag (409 when someone ' +
            'corrected it meanwhile). More than what was charged minus what was refunded is a 422. Without money.correct for the ' +
            'rental (support), more than the desk’s support limit (DESK_SUPPORT_REFUND_LIMIT) is a 403.',
          headers: CorrectionHeaders,
          params: RentalParams,
          body: RefundBody,
          response: { 200: RefundResult, ...errors(400, 401, 403, 404, 409, 422, 428) },
        },
      },
      async (req) => {
        const key = req.headers['idempotency-key'];
        const finance = scopeOf(staffOf(req).memberships, 'money.correct');
        return o.refunds.refund(req.opsScope, finance, actorOf(req, req.body.reason), req.params.id, {
          amount: req.body.amount,
          key: Array.isArray(key) ? key[0] : key,
          version: expectedVersion(req),
        });
      },
    );

    ops.post(
      '/rentals/:id/end',
      {
        config: { permission: 'rentals.end' },
        schema: actionSchema(
          'Ends a rental the cabinets never closed at `at` (within the pop and now: else 422), as a return without a cabinet: the fee by the ' +
            'rental’s own plan, charged as at a return. A rental not open (or bought out: reverse the buy-out instead): 409.',
          RentalEndBody,
        ),
      },
      async (req) =>
        o.actions.end(req.opsScope, actorOf(req, req.body.reason), req.params.id, new Date(req.body.at), handles(req)),
    );

    ops.post(
      '/rentals/:id/waive-debt',
      {
        config: { permission: 'rentals.waive' },
        schema: actionSchema(
          'Waives what a failed deduction left the rental owing: the pay button goes, the fee is what was paid. No debt: 409.',
          RentalReasonBody,
        ),
      },
      async (req) => o.actions.waiveDebt(req.opsScope, actorOf(req, req.body.reason), req.params.id, handles(req)),
    );

    ops.post(
      '/rentals/:id/release-hold',
      {
        config: { permission: 'rentals.release' },
        schema: actionSchema(
          'Releases a closed rental’s deposit still held: the ledger’s hold voided, a card authorisation settled for what the rental ' +
            'charged and the rest released. An open rental, or nothing held: 409.',
          RentalReasonBody,
        ),
      },
      async (req) => o.actions.releaseHold(req.opsScope, actorOf(req, req.body.reason), req.params.id, handles(req)),
    );

    ops.post(
      '/rentals/:id/reverse-buy-out',
      {
        config: { permission: 'rentals.reverse' },
        schema: actionSchema(
          'Reverses a buy-out whose power bank is back at `at`: the buy-out fee less the rent until then goes back, to the card it was ' +
            'taken from, else to the wallet (whatever the agent’s window). Not bought out: 409.',
          RentalEndBody,
        ),
      },
      async (req) =>
        o.actions.reverseBuyOut(
          req.opsScope,
          actorOf(req, req.body.reason),
          req.params.id,
          new Date(req.body.at),
          handles(req),
        ),
    );
  };
}

/** A correction's idempotency key and the version the person read. */
function handles(
  req: { headers: Record<string, string | string[] | undefined> } & Parameters<typeof expectedVersion>[0],
) {
  return { key: headerOf(req.headers['idempotency-key']), version: expectedVersion(req) };
}
