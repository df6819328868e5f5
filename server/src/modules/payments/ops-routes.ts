// The ops API's payments: the support desk's search (paged; CSV streamed; ops-search.ts), inside the caller's scope;
// the daily reconciliation of each provider's settlements against the ledger (reconciliation.ts): its results, and a
// day run again now (platform-wide memberships only: a provider's settlements span every agent).
import { OpsError } from '#contract/ops/common.ts';
import { ReconciliationList, ReconciliationQuery, ReconciliationRun } from '#contract/ops/money.ts';
import { PaymentExportQuery, PaymentListQuery, PaymentPage } from '#contract/ops/search.ts';
import { sendCsv } from '../../lib/csv.ts';
import { AppError, badRequest } from '../../lib/errors.ts';
import type { App } from '../../lib/route.ts';
import { actorOf } from '../../plugins/ops-api.ts';
import type { AuditService } from '../audit/service.ts';
import type { PaymentSearchService } from './ops-search.ts';
import { dayOf, type Reconciliation } from './reconciliation.ts';

const platformOnly = (kind: string) => {
  if (kind !== 'all') throw new AppError(403, 'ops.error.forbidden');
};
const validDay = (d: string) => {
  if (Number.isNaN(Date.parse(`${d}T00:00:00Z`)) || dayOf(new Date(`${d}T00:00:00Z`)) !== d)
    throw badRequest('ops.error.day', { day: d });
  return d;
};

export function paymentOpsRoutes(o: {
  search: PaymentSearchService;
  reconciliation: Reconciliation;
  audit: AuditService;
}) {
  return async (ops: App) => {
    ops.get(
      '/payments',
      {
        config: { permission: 'orders.read' },
        schema: {
          description:
            'Payments newest first: a rental’s inside its venue’s agent, any other inside the agents the rider has an account with.',
          querystring: PaymentListQuery,
          response: { 200: PaymentPage, 400: OpsError },
        },
      },
      async (req) => o.search.list(req.opsScope, req.query),
    );

    ops.get(
      '/payments.csv',
      {
        config: { permission: 'orders.read' },
        schema: {
          description: 'The search as CSV (UTF-8, RFC 4180; amounts in minor units), streamed page by page: any size.',
          querystring: PaymentExportQuery,
        },
      },
      async (req, reply) => sendCsv(reply, 'payments', await o.search.csv(req.opsScope, req.query)),
    );

    ops.get(
      '/money/reconciliations',
      {
        config: { permission: 'money.read' },
        schema: {
          description:
            'Each provider’s daily reconciliation from `from` to `to` (default: the last 7 days), newest first, with every mismatch. Platform-wide memberships only (403 otherwise).',
          querystring: ReconciliationQuery,
          response: { 200: ReconciliationList, 400: OpsError, 403: OpsError },
        },
      },
      async (req) => {
        platformOnly(req.opsScope.kind);
        const to = validDay(req.query.to ?? dayOf(new Date()));
        const from = validDay(req.query.from ?? dayOf(new Date(Date.parse(`${to}T00:00:00Z`) - 6 * 86_400_000)));
        return { items: await o.reconciliation.list(from, to) };
      },
    );

    ops.post(
      '/money/reconciliations',
      {
        config: { permission: 'money.correct' },
        schema: {
          description:
            'Reconciles every provider’s `day` again now (the result replaces the day’s), audited with its reason. Platform-wide memberships only (403 otherwise). ' +
            '503: a provider’s settlement report could not be read (unreachable, its own error, refused credentials) or is not complete yet (PayPal’s reporting lags by hours): ' +
            'that provider’s day is not stored (an earlier result stays), the others are; the daily job tries that day again later.',
          body: ReconciliationRun,
          response: { 200: ReconciliationList, 400: OpsError, 403: OpsError, 503: OpsError },
        },
      },
      async (req) => {
        platformOnly(req.opsScope.kind);
        const day = validDay(req.body.day);
        const { items, unreadable } = await o.reconciliation.runAll(day);
        await o.audit.record(actorOf(req, req.body.reason), {
          action: 'money.reconcile',
          entity: 'reconciliation',
          entityId: day,
          after: items.map((i) => ({ provider: i.provider, status: i.status, mismatches: i.mismatches.length })),
        });
        if (unreadable) {
          req.log.warn(
            { provider: unreadable.provider, err: unreadable.cause },
            'a provider’s settlement report could not be read',
          );
          throw unreadable;
        }
        return { items };
      },
    );
  };
}
