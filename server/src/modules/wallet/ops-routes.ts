// The ops API's withdrawals queue (payout-queue.ts): the list by state, one withdrawal, and a person's approve,
// manual payout record and reject, each with its reason (audited). Finance, admins and owners (payouts.approve).
import { sendCsv } from '../../lib/csv.ts';
import type { App } from '../../lib/route.ts';
import {
  WithdrawalActionResponses,
  WithdrawalApprove,
  WithdrawalExportQuery,
  WithdrawalIdParams,
  WithdrawalItem,
  WithdrawalListQuery,
  WithdrawalManual,
  WithdrawalPage,
  WithdrawalReject,
} from '#contract/ops/withdrawals.ts';
import { OpsError } from '#contract/ops/common.ts';
import { actorOf } from '../../plugins/ops-api.ts';
import type { PayoutQueue } from './payout-queue.ts';

const ACTION =
  'One unit of work with its audit entry. Repeating your own action answers it as it is; a withdrawal someone else handled first answers 409.';

export function withdrawalOpsRoutes(o: { queue: PayoutQueue }) {
  return async (ops: App) => {
    ops.get(
      '/withdrawals',
      {
        config: { permission: 'payouts.read' },
        schema: {
          description:
            'Bank withdrawals, oldest first (awaiting payout unless `state` says otherwise), found by id, rider and date.',
          querystring: WithdrawalListQuery,
          response: { 200: WithdrawalPage, 400: OpsError },
        },
      },
      async (req) => o.queue.list(req.opsScope, req.query),
    );

    ops.get(
      '/withdrawals.csv',
      {
        config: { permission: 'payouts.read' },
        schema: {
          description: 'The search as CSV (UTF-8, RFC 4180; amounts in minor units), streamed page by page: any size.',
          querystring: WithdrawalExportQuery,
        },
      },
      async (req, reply) => sendCsv(reply, 'withdrawals', await o.queue.csv(req.opsScope, req.query)),
    );

    ops.get(
      '/withdrawals/:id',
      {
        config: { permission: 'payouts.read' },
        schema: { params: WithdrawalIdParams, response: { 200: WithdrawalItem, 404: OpsError } },
      },
      async (req) => o.queue.get(req.opsScope, req.params.id),
    );

    ops.post(
      '/withdrawals/:id/approve',
      {
        config: { permission: 'payouts.approve' },
        schema: {
          description: `Pays an awaiting payout through the payout adapter that pays its channel (422 when none does: record the bank transfer instead). ${ACTION}`,
          params: WithdrawalIdParams,
          body: WithdrawalApprove,
          response: WithdrawalActionResponses,
        },
      },
      async (req) => o.queue.approve(req.opsScope, actorOf(req, req.body.reason), req.params.id),
    );

    ops.post(
      '/withdrawals/:id/manual',
      {
        config: { permission: 'payouts.approve' },
        schema: {
          description: `Records the bank transfer a person made for an awaiting payout: paid. ${ACTION}`,
          params: WithdrawalIdParams,
          body: WithdrawalManual,
          response: WithdrawalActionResponses,
        },
      },
      async (req) =>
        o.queue.recordManual(req.opsScope, actorOf(req, req.body.reason), req.params.id, req.body.bankReference),
    );

    ops.post(
      '/withdrawals/:id/reject',
      {
        config: { permission: 'payouts.approve' },
        schema: {
          description: `Refuses an awaiting payout: the money goes back to the rider's wallet through the ledger. ${ACTION}`,
          params: WithdrawalIdParams,
          body: WithdrawalReject,
          response: WithdrawalActionResponses,
        },
      },
      async (req) => o.queue.reject(req.opsScope, actorOf(req, req.body.reason), req.params.id),
    );
  };
}
