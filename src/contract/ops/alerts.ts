// The ops API's alerts (modules/alerts): rules with a threshold per agent, the alerts they raise, acknowledging and
// resolving them, and each alert's delivery log.
import { Type, type Static } from 'typebox';
import { Reason } from './common.ts';

export const AlertKind = Type.Union(
  [
    Type.Literal('cabinet_offline'),
    Type.Literal('low_stock'),
    Type.Literal('full'),
    Type.Literal('dead_jobs'),
    Type.Literal('low_charge'),
    Type.Literal('slot_faults'),
    Type.Literal('provider_errors'),
    Type.Literal('failed_payouts'),
  ],
  {
    description:
      'cabinet_offline: threshold in minutes; low_stock: fewer power banks than threshold; full: no free slot; dead_jobs: at least threshold (platform rules only); ' +
      'low_charge: no power bank in the cabinet charged to threshold percent; slot_faults: at least threshold slots reporting a fault; ' +
      'provider_errors: a payment provider declined at least threshold percent of its payments of the last hour (10 at least; platform rules only); ' +
      'failed_payouts: at least threshold payouts of the agent refused by the provider or bank in the last day',
  },
);
export const AlertRule = Type.Object({
  id: Type.String(),
  agentId: Type.String({ description: "an agent, or '*' (every agent: platform memberships only)" }),
  kind: AlertKind,
  threshold: Type.Integer({ minimum: 0 }),
  emails: Type.Array(Type.String()),
  phones: Type.Array(Type.String()),
  webhookUrl: Type.Optional(Type.String()),
});
export type AlertRule = Static<typeof AlertRule>;
export const AlertRuleCreate = Type.Object(
  {
    agentId: Type.String({ minLength: 1, maxLength: 64, pattern: '^(\\*|[A-Za-z0-9_.-]+)$' }),
    kind: AlertKind,
    threshold: Type.Integer({ minimum: 0, maximum: 100_000 }),
    emails: Type.Array(Type.String({ format: 'email', maxLength: 200 }), { maxItems: 10 }),
    phones: Type.Array(Type.String({ pattern: '^\\+[0-9]{6,15}$' }), { maxItems: 10 }),
    webhookUrl: Type.Optional(Type.String({ format: 'uri', pattern: '^https?://', maxLength: 500 })),
    webhookSecret: Type.Optional(
      Type.String({
        minLength: 16,
        maxLength: 200,
        description: 'the HMAC key of X-Powerly-Signature; needed with webhookUrl',
      }),
    ),
    reason: Reason,
  },
  { additionalProperties: false },
);
export type AlertRuleCreate = Static<typeof AlertRuleCreate>;
export const AlertRuleList = Type.Object({ items: Type.Array(AlertRule) });

export const AlertState = Type.Union([Type.Literal('open'), Type.Literal('acknowledged'), Type.Literal('resolved')]);
export const AlertShape = Type.Object({
  id: Type.String(),
  ruleId: Type.String(),
  kind: AlertKind,
  agentId: Type.String(),
  subject: Type.String(),
  detail: Type.Record(Type.String(), Type.Unknown()),
  state: AlertState,
  openedAt: Type.String({ format: 'date-time' }),
  acknowledgedAt: Type.Optional(Type.String({ format: 'date-time' })),
  resolvedAt: Type.Optional(Type.String({ format: 'date-time' })),
});
export type AlertShape = Static<typeof AlertShape>;
export const AlertList = Type.Object({ items: Type.Array(AlertShape) });
export const AlertsQuery = Type.Object({ state: Type.Optional(AlertState) });
export const AlertParams = Type.Object({ id: Type.String({ pattern: '^[0-9]{1,18}$' }) });
export const AlertAction = Type.Object({ reason: Reason }, { additionalProperties: false });
export const DeliveryList = Type.Object({
  items: Type.Array(
    Type.Object({
      id: Type.String(),
      event: Type.String(),
      channel: Type.String(),
      target: Type.String(),
      status: Type.String(),
      attempts: Type.Integer(),
      lastError: Type.Optional(Type.String()),
      deliveredAt: Type.Optional(Type.String({ format: 'date-time' })),
    }),
  ),
});
