// The ops API's disputes queue (dispute-desk.ts): the list (open first by default), one dispute with its evidence,
// and accept or reject (disputes.decide), each with the message the rider sees, an evidence note and a reason.
import type { App } from '../../lib/route.ts';
import {
  DisputeActionResponses,
  DisputeDecision,
  DisputeIdParams,
  DisputeItem,
  DisputeListQuery,
  DisputePage,
} from '#contract/ops/disputes.ts';
import { OpsError } from '#contract/ops/common.ts';
import { actorOf } from '../../plugins/ops-api.ts';
import type { DisputeDesk } from './dispute-desk.ts';

const DECIDE =
  'One unit of work under the dispute’s lock with its audit entry (in the rental’s timeline). Repeating your own decision answers ' +
  'it as it is; a dispute someone else decided first: 409.';

export function disputeOpsRoutes(o: { disputes: DisputeDesk }) {
  return async (ops: App) => {
    ops.get(
      '/disputes',
      {
        config: { permission: 'orders.read' },
        schema: {
          description: 'Riders’ “I returned it” claims, oldest first (open unless `state` says otherwise).',
          querystring: DisputeListQuery,
          response: { 200: DisputePage, 400: OpsError },
        },
      },
      async (req) => o.disputes.list(req.opsScope, req.query),
    );

    ops.get(
      '/disputes/:id',
      {
        config: { permission: 'orders.read' },
        schema: { params: DisputeIdParams, response: { 200: DisputeItem, 404: OpsError } },
      },
      async (req) => o.disputes.get(req.opsScope, req.params.id),
    );

    ops.post(
      '/disputes/:id/accept',
      {
        config: { permission: 'disputes.decide' },
        schema: {
          description:
            'The rider is right: an open rental ends at `at` (default: the time the rider gave), a bought-out one has its buy-out reversed, ' +
            `the fee by the rental’s plan (\`at\` outside the pop and now: 422). ${DECIDE}`,
          params: DisputeIdParams,
          body: DisputeDecision,
          response: DisputeActionResponses,
        },
      },
      async (req) => o.disputes.accept(req.opsScope, actorOf(req, req.body.reason), req.params.id, req.body),
    );

    ops.post(
      '/disputes/:id/reject',
      {
        config: { permission: 'disputes.decide' },
        schema: {
          description: `The records contradict the claim: nothing changes but the dispute, with the message the rider sees. ${DECIDE}`,
          params: DisputeIdParams,
          body: DisputeDecision,
          response: DisputeActionResponses,
        },
      },
      async (req) => o.disputes.reject(req.opsScope, actorOf(req, req.body.reason), req.params.id, req.body),
    );
  };
}
