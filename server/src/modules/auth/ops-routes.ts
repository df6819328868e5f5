// The ops API's riders: one rider (orders.read), block and unblock with a reason (riders.block; rider-blocks.ts).
import type { App } from '../../lib/route.ts';
import { RiderActionResponses, RiderBlockBody, RiderIdParams, RiderShape } from '#contract/ops/riders.ts';
import { OpsError } from '#contract/ops/common.ts';
import { actorOf } from '../../plugins/ops-api.ts';
import type { RiderBlocks } from './rider-blocks.ts';

export function riderOpsRoutes(o: { blocks: RiderBlocks }) {
  return async (ops: App) => {
    ops.get('/riders/:id', { config: { permission: 'orders.read' }, schema: { params: RiderIdParams, response: { 200: RiderShape, 404: OpsError } } }, async (req) =>
      o.blocks.get(req.opsScope, req.params.id));

    ops.post('/riders/:id/block', {
      config: { permission: 'riders.block' },
      schema: {
        description: 'The rider cannot rent nor buy a Wi-Fi package; the rider API refuses those calls with this reason. A rider someone else blocked: 409.',
        params: RiderIdParams, body: RiderBlockBody, response: RiderActionResponses,
      },
    }, async (req) => o.blocks.block(req.opsScope, actorOf(req, req.body.reason), req.params.id));

    ops.post('/riders/:id/unblock', {
      config: { permission: 'riders.block' },
      schema: { description: 'The rider may rent again.', params: RiderIdParams, body: RiderBlockBody, response: RiderActionResponses },
    }, async (req) => o.blocks.unblock(req.opsScope, actorOf(req, req.body.reason), req.params.id));
  };
}
