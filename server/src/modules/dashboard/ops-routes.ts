// The ops API's dashboard (docs/api.md "Ops API"): dashboard.read, the figures of the caller's scope and the map of
// its cabinets; an agent or venue outside it is a 404.
import type { App } from '../../lib/route.ts';
import { DashboardCabinets, DashboardCabinetsQuery, DashboardQuery, DashboardShape } from '#contract/ops/dashboard.ts';
import type { Rebalancing } from '../rebalancing/service.ts';
import type { DashboardService } from './service.ts';

export function dashboardOpsRoutes(o: { dashboard: DashboardService; stock: Pick<Rebalancing, 'stock'> }) {
  return async (ops: App) => {
    ops.get(
      '/dashboard',
      {
        config: { permission: 'dashboard.read' },
        schema: {
          description: "Figures per UTC day from the summaries. 404: the agent or venue is outside the caller's scope.",
          querystring: DashboardQuery,
          errors: [404],
          response: { 200: DashboardShape },
        },
      },
      async (req) => o.dashboard.read(req.opsScope, req.query),
    );
    ops.get(
      '/dashboard/cabinets',
      {
        config: { permission: 'dashboard.read' },
        schema: {
          description:
            "The map: each cabinet's position, stock and state now. 404: the agent or venue is outside the caller's scope.",
          querystring: DashboardCabinetsQuery,
          errors: [404],
          response: { 200: DashboardCabinets },
        },
      },
      async (req) => {
        await o.dashboard.narrow(req.opsScope, { from: '', to: '' }, req.query);
        const all = await o.stock.stock(req.opsScope, req.query.agentId ?? null);
        return { items: req.query.venueId ? all.filter((c) => c.venueId === req.query.venueId) : all };
      },
    );
  };
}
