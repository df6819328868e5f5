// The ops API's alerts (docs/api.md "Ops API"): alerts.read lists alerts, rules and deliveries; alerts.manage adds
// rules, acknowledges and resolves (with a reason, audited).
import type { App } from '../../lib/route.ts';
import { actorOf } from '../../plugins/ops-api.ts';
import {
  AlertAction,
  AlertList,
  AlertParams,
  AlertRule,
  AlertRuleCreate,
  AlertRuleList,
  AlertShape,
  AlertsQuery,
  DeliveryList,
} from '#contract/ops/alerts.ts';
import type { AlertsAdmin } from './admin.ts';

export function alertsOpsRoutes(o: { admin: AlertsAdmin }) {
  return async (ops: App) => {
    const read = { permission: 'alerts.read' as const };
    const manage = { permission: 'alerts.manage' as const };
    ops.get(
      '/alerts',
      { config: read, schema: { querystring: AlertsQuery, response: { 200: AlertList } } },
      async (req) => ({ items: await o.admin.list(req.opsScope, req.query.state) }),
    );
    ops.get('/alerts/rules', { config: read, schema: { response: { 200: AlertRuleList } } }, async (req) => ({
      items: await o.admin.rules(req.opsScope),
    }));
    ops.post(
      '/alerts/rules',
      { config: manage, schema: { body: AlertRuleCreate, response: { 201: AlertRule } } },
      async (req, reply) => {
        const { reason, ...input } = req.body;
        return reply.code(201).send(await o.admin.addRule(req.opsScope, actorOf(req, reason), input));
      },
    );
    ops.post(
      '/alerts/:id/acknowledge',
      {
        config: manage,
        schema: {
          description: '409 unless open.',
          params: AlertParams,
          body: AlertAction,
          response: { 200: AlertShape },
        },
      },
      async (req) => o.admin.acknowledge(req.opsScope, actorOf(req, req.body.reason), req.params.id),
    );
    ops.post(
      '/alerts/:id/resolve',
      {
        config: manage,
        schema: {
          description: '409 when resolved already.',
          params: AlertParams,
          body: AlertAction,
          response: { 200: AlertShape },
        },
      },
      async (req) => o.admin.resolve(req.opsScope, actorOf(req, req.body.reason), req.params.id),
    );
    ops.get(
      '/alerts/:id/deliveries',
      { config: read, schema: { params: AlertParams, response: { 200: DeliveryList } } },
      async (req) => ({ items: await o.admin.deliveries(req.opsScope, req.params.id) }),
    );
  };
}
