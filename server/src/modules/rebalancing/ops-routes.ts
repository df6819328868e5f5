// The ops API's rebalancing (docs/api.md "Ops API"): rebalancing.read, the stock out of balance and the suggested
// moves; rebalancing.move, marking a move done (with a reason, audited).
import type { App } from '../../lib/route.ts';
import { actorOf } from '../../plugins/ops-api.ts';
import { MoveDone, MoveDoneCreate, RebalancingQuery, RebalancingShape } from '#contract/ops/rebalancing.ts';
import type { Rebalancing } from './service.ts';

export function rebalancingOpsRoutes(o: { rebalancing: Rebalancing }) {
  return async (ops: App) => {
    ops.get(
      '/rebalancing',
      {
        config: { permission: 'rebalancing.read' },
        schema: {
          description: "400: lowPct not below highPct. 404: the agent is outside the caller's scope.",
          querystring: RebalancingQuery,
          errors: [404],
          response: { 200: RebalancingShape },
        },
      },
      async (req) => o.rebalancing.view(req.opsScope, req.query),
    );
    ops.post(
      '/rebalancing/moves',
      {
        config: { permission: 'rebalancing.move' },
        schema: {
          description:
            'Records a move done. 400: the same cabinet, cabinets of two agents, or more power banks than slots. 404: a cabinet outside the scope.',
          body: MoveDoneCreate,
          response: { 201: MoveDone },
        },
      },
      async (req, reply) => {
        const { reason, ...input } = req.body;
        return reply.code(201).send(await o.rebalancing.markDone(req.opsScope, actorOf(req, reason), input));
      },
    );
  };
}
