// The ops API's riders' Wi-Fi packages: the support desk's search (paged; CSV streamed) and one package's timeline
// (packages-desk.ts), inside the caller's scope (outside it: 404).
import { OpsError } from '#contract/ops/common.ts';
import {
  PackageExportQuery,
  PackageListQuery,
  PackagePage,
  PackageParams,
  PackageTimeline,
} from '#contract/ops/search.ts';
import { sendCsv } from '../../lib/csv.ts';
import type { App } from '../../lib/route.ts';
import type { PackagesDesk } from './packages-desk.ts';

export function packageOpsRoutes(o: { desk: PackagesDesk }) {
  return async (ops: App) => {
    ops.get(
      '/mifi/packages',
      {
        config: { permission: 'orders.read' },
        schema: {
          description:
            'Riders’ Wi-Fi packages newest first: inside the agent (or venue) of the order’s cabinet and the agents the rider has an account with.',
          querystring: PackageListQuery,
          response: { 200: PackagePage, 400: OpsError },
        },
      },
      async (req) => o.desk.list(req.opsScope, req.query),
    );

    ops.get(
      '/mifi/packages.csv',
      {
        config: { permission: 'orders.read' },
        schema: {
          description: 'The search as CSV (UTF-8, RFC 4180; amounts in minor units), streamed page by page: any size.',
          querystring: PackageExportQuery,
        },
      },
      async (req, reply) => sendCsv(reply, 'wifi-packages', await o.desk.csv(req.opsScope, req.query)),
    );

    ops.get(
      '/mifi/packages/:id',
      {
        config: { permission: 'orders.read' },
        schema: {
          description:
            'The package and its timeline: its own steps, the box’s cabinet command and events (the cabinet’s own times), its order’s payments, provider notifications, ledger entries, messages and staff actions, in order.',
          params: PackageParams,
          response: { 200: PackageTimeline, 404: OpsError },
        },
      },
      async (req) => o.desk.timeline(req.opsScope, req.params.id),
    );
  };
}
