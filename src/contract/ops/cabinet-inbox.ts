// The ops API's cabinet inbox (modules/cabinets/inbox-routes.ts; the same as `npm run cabinet:inbox`): events the
// server could not process (dead, or still pending), messages refused before the inbox (unknown protocol version,
// malformed, unknown cabinet) and power banks no one registered (quarantined: never lent until released).
// Platform-wide: refused messages and unknown power banks belong to no agent yet.
import { Type, type Static } from 'typebox';
import { OpsError, Reason } from './common.ts';

export const InboxQuery = Type.Object({
  state: Type.Optional(
    Type.Union([Type.Literal('dead'), Type.Literal('pending')], {
      default: 'dead',
      description: 'which events to list',
    }),
  ),
});
export const InboxEvent = Type.Object({
  id: Type.String({ description: '<cabinet id>:<event id>, unique per cabinet' }),
  cabinetId: Type.String(),
  type: Type.String(),
  payload: Type.Unknown(),
  state: Type.String(),
  attempts: Type.Integer(),
  receivedAt: Type.String(),
  lastError: Type.Optional(Type.String()),
});
export type InboxEvent = Static<typeof InboxEvent>;
export const InboxReject = Type.Object({
  cabinetId: Type.String(),
  reason: Type.String({ description: 'why it was refused: unknown protocol version, malformed, unknown cabinet, …' }),
  count: Type.Integer(),
  lastAt: Type.String(),
  lastPayload: Type.Optional(Type.String()),
});
export type InboxReject = Static<typeof InboxReject>;
export const QuarantinedPowerbank = Type.Object({
  id: Type.String(),
  cabinetId: Type.Optional(Type.String()),
  slot: Type.Optional(Type.Integer()),
  seenAt: Type.Optional(Type.String()),
});
export type QuarantinedPowerbank = Static<typeof QuarantinedPowerbank>;
export const CabinetInbox = Type.Object({
  counts: Type.Array(Type.Object({ state: Type.String(), n: Type.Integer() }), {
    description: 'the inbox’s events by state',
  }),
  events: Type.Array(InboxEvent, { description: 'the oldest 100 of the state asked for' }),
  rejects: Type.Array(InboxReject, { description: 'per cabinet and reason, the latest first' }),
  quarantined: Type.Array(QuarantinedPowerbank),
});
export type CabinetInbox = Static<typeof CabinetInbox>;
export const InboxEventParams = Type.Object({
  id: Type.String({ minLength: 3, maxLength: 200, pattern: '^[^/]+:[^/]+$' }),
});
export const PowerbankParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64, pattern: '^[^/]+$' }) });
export const InboxAction = Type.Object({ reason: Reason }, { additionalProperties: false });
export const InboxActionResponses = {
  200: Type.Object({ ok: Type.Literal(true) }),
  400: OpsError,
  403: OpsError,
  404: OpsError,
};
