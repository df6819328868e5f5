// The ops API's payments: the support desk's search (paged; CSV streamed; ops-search.ts), inside the caller's scope.
import { OpsError } from '#contract/ops/common.ts';
import { PaymentExportQuery, PaymentListQuery, PaymentPage } from '#contract/ops/search.ts';
import { sendCsv } from '../../lib/csv.ts';
import type { App } from '../../lib/route.ts';
import type { PaymentSearchService } from './ops-search.ts';

export function paymentOpsRoutes(o: { search: PaymentSearchService }) {
  return async (ops: App) => {
    ops.get('/payments', {
      config: { permission: 'orders.read' },
      schema: {
        description: 'Payments newest first: a rental’s inside its venue’s agent, any other inside the agents the rider has an account with.',
        querystring: PaymentListQuery, response: { 200: PaymentPage, 400: OpsError },
      },
    }, async (req) => o.search.list(req.opsScope, req.query));

    ops.get('/payments.csv', {
      config: { permission: 'orders.read' },
      schema: { description: 'The search as CSV (UTF-8, RFC 4180; amounts in minor units), streamed page by page: any size.', querystring: PaymentExportQuery },
    }, async (req, reply) => sendCsv(reply, 'payments', await o.search.csv(req.opsScope, req.query)));
  };
}
