// The ops API's dead jobs (server/src/jobs/dead.ts): the jobs that exhausted their attempts (a compensation,
// capture or payout that needs a person), retried or abandoned with a reason. Platform-wide: jobs belong to no agent.
import { Type, type Static } from 'typebox';
import { OpsError, Reason } from './common.ts';

export const DeadJobShape = Type.Object({
  id: Type.String(),
  kind: Type.String(),
  payload: Type.Record(Type.String(), Type.Unknown()),
  attempts: Type.Integer(),
  lastError: Type.Optional(Type.String()),
  deadAt: Type.String(),
});
export type DeadJobShape = Static<typeof DeadJobShape>;
export const DeadJobList = Type.Object({ items: Type.Array(DeadJobShape) });
export type DeadJobList = Static<typeof DeadJobList>;
export const DeadJobParams = Type.Object({ id: Type.String({ pattern: '^[0-9]{1,15}$' }) });
export const DeadJobAction = Type.Object({ reason: Reason }, { additionalProperties: false });
export const DeadJobActionResponses = { 200: Type.Object({ ok: Type.Literal(true) }), 403: OpsError, 404: OpsError };
