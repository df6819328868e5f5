// The ops API's wallet adjustments under four eyes (adjustments.ts): the list (pending first), one request, and a
// request (wallet.adjust), approve and reject (wallet.approve, never one's own), each with its reason (audited).
import type { App } from '../../lib/route.ts';
import {
  AdjustmentActionResponses,
  AdjustmentDecision,
  AdjustmentHeaders,
  AdjustmentIdParams,
  AdjustmentItem,
  AdjustmentListQuery,
  AdjustmentPage,
  AdjustmentRequest,
} from '#contract/ops/adjustments.ts';
import { OpsError } from '#contract/ops/common.ts';
import { actorOf } from '../../plugins/ops-api.ts';
import type { WalletAdjustments } from './adjustments.ts';

const DECIDE =
  "One unit of work under the request's lock with its audit entry. Your own request: 403. Repeating your own decision answers it as it is; " +
  'a request someone else decided first answers 409.';

export function adjustmentOpsRoutes(o: { adjustments: WalletAdjustments }) {
  return async (ops: App) => {
    ops.get(
      '/wallet-adjustments',
      {
        config: { permission: 'wallet.adjust' },
        schema: {
          description: 'Wallet credits and debits, oldest first (pending unless `state` says otherwise).',
          querystring: AdjustmentListQuery,
          response: { 200: AdjustmentPage, 400: OpsError },
        },
      },
      async (req) => o.adjustments.list(req.opsScope, req.query),
    );

    ops.get(
      '/wallet-adjustments/:id',
      {
        config: { permission: 'wallet.adjust' },
        schema: { params: AdjustmentIdParams, response: { 200: AdjustmentItem, 404: OpsError } },
      },
      async (req) => o.adjustments.get(req.opsScope, req.params.id),
    );

    ops.post(
      '/wallet-adjustments',
      {
        config: { permission: 'wallet.adjust' },
        schema: {
          description:
            "Requests a credit or a debit of the rider's wallet with the agent; nothing moves until a different person approves it. " +
            'Needs Idempotency-Key (a retry answers the same request; the key with other values is a 422). A rider without an account with the agent, ' +
            'or an agent outside yours: 404.',
          headers: AdjustmentHeaders,
          body: AdjustmentRequest,
          response: AdjustmentActionResponses,
        },
      },
      async (req) => {
        const key = req.headers['idempotency-key'];
        return o.adjustments.request(
          req.opsScope,
          actorOf(req, req.body.reason),
          req.body,
          Array.isArray(key) ? key[0] : key,
        );
      },
    );

    ops.post(
      '/wallet-adjustments/:id/approve',
      {
        config: { permission: 'wallet.approve' },
        schema: {
          description: `Moves the money in the ledger (a debit larger than the wallet's balance: 422). ${DECIDE}`,
          params: AdjustmentIdParams,
          body: AdjustmentDecision,
          response: AdjustmentActionResponses,
        },
      },
      async (req) => o.adjustments.approve(req.opsScope, actorOf(req, req.body.reason), req.params.id),
    );

    ops.post(
      '/wallet-adjustments/:id/reject',
      {
        config: { permission: 'wallet.approve' },
        schema: {
          description: `Refuses the request; nothing moves. ${DECIDE}`,
          params: AdjustmentIdParams,
          body: AdjustmentDecision,
          response: AdjustmentActionResponses,
        },
      },
      async (req) => o.adjustments.reject(req.opsScope, actorOf(req, req.body.reason), req.params.id),
    );
  };
}
