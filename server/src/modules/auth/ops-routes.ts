// The ops API's riders: the search (paged; CSV streamed; rider-search.ts), one rider (orders.read), block and unblock with a reason (riders.block; rider-blocks.ts).
import { sendCsv } from '../../lib/csv.ts';
import type { App } from '../../lib/route.ts';
import { RiderExportQuery, RiderListQuery, RiderPage } from '#contract/ops/search.ts';
import { RiderActionResponses, RiderBlockBody, RiderIdParams, RiderShape } from '#contract/ops/riders.ts';
import { OpsError } from '#contract/ops/common.ts';
import { actorOf } from '../../plugins/ops-api.ts';
import type { RiderBlocks } from './rider-blocks.ts';
import type { RiderSearchService } from './rider-search.ts';

export function riderOpsRoutes(o: { blocks: RiderBlocks; search: RiderSearchService }) {
  return async (ops: App) => {
    ops.get(
      '/riders',
      {
        config: { permission: 'orders.read' },
        schema: {
          description:
            'Riders with an account with the caller’s agents (platform-wide: every rider), newest first, by id, phone, e-mail, card last 4, state and sign-up date.',
          querystring: RiderListQuery,
          response: { 200: RiderPage, 400: OpsError },
        },
      },
      async (req) => o.search.list(req.opsScope, req.query),
    );

    ops.get(
      '/riders.csv',
      {
        config: { permission: 'orders.read' },
        schema: {
          description: 'The search as CSV (UTF-8, RFC 4180), streamed page by page: any size.',
          querystring: RiderExportQuery,
        },
      },
      async (req, reply) => sendCsv(reply, 'riders', await o.search.csv(req.opsScope, req.query)),
    );

    ops.get(
      '/riders/:id',
      {
        config: { permission: 'orders.read' },
        schema: { params: RiderIdParams, response: { 200: RiderShape, 404: OpsError } },
      },
      async (req) => o.blocks.get(req.opsScope, req.params.id),
    );

    ops.post(
      '/riders/:id/block',
      {
        config: { permission: 'riders.block' },
        schema: {
          description:
            'The rider cannot rent nor buy a Wi-Fi package; the rider API refuses those calls with this reason. A rider someone else blocked: 409.',
          params: RiderIdParams,
          body: RiderBlockBody,
          response: RiderActionResponses,
        },
      },
      async (req) => o.blocks.block(req.opsScope, actorOf(req, req.body.reason), req.params.id),
    );

    ops.post(
      '/riders/:id/unblock',
      {
        config: { permission: 'riders.block' },
        schema: {
          description: 'The rider may rent again.',
          params: RiderIdParams,
          body: RiderBlockBody,
          response: RiderActionResponses,
        },
      },
      async (req) => o.blocks.unblock(req.opsScope, actorOf(req, req.body.reason), req.params.id),
    );
  };
}
