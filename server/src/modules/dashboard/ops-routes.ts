// The ops API's dashboard (docs/api.md "Ops API"): dashboard.read, the figures of the caller's scope; an agent or
// venue outside it is a 404.
import type { App } from '../../lib/route.ts';
import { DashboardQuery, DashboardShape } from '#contract/ops/dashboard.ts';
import type { DashboardService } from './service.ts';

export function dashboardOpsRoutes(o: { dashboard: DashboardService }) {
  return async (ops: App) => {
    ops.get('/dashboard', {
      config: { permission: 'dashboard.read' },
      schema: { description: 'Figures per UTC day from the summaries. 404: the agent or venue is outside the caller\'s scope.', querystring: DashboardQuery, response: { 200: DashboardShape } },
    }, async (req) => o.dashboard.read(req.opsScope, req.query));
  };
}
