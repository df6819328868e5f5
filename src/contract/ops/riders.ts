// The ops API's riders (modules/auth/rider-blocks.ts): one rider as support sees them, and blocking (a blocked rider
// cannot rent nor buy a Wi-Fi package, and is told why) and unblocking, each with its reason.
import { Type, type Static } from 'typebox';
import { OpsError, Reason } from './common.ts';

export const RiderShape = Type.Object({
  id: Type.String(),
  kind: Type.String({ description: 'tourist or user' }),
  name: Type.String(),
  email: Type.Optional(Type.String()),
  mobile: Type.Optional(Type.String()),
  createdAt: Type.String(),
  agents: Type.Array(Type.String(), {
    description: 'the agents the rider is a customer of: an account with, a rental at its venues (the scope)',
  }),
  blocked: Type.Boolean(),
  blockedAt: Type.Optional(Type.String()),
  blockedReason: Type.Optional(Type.String({ description: 'told to the rider when a rental or a package is refused' })),
  blockedBy: Type.Optional(Type.String()),
});
export type RiderShape = Static<typeof RiderShape>;
export const RiderIdParams = Type.Object({ id: Type.String({ pattern: '^[0-9]{1,18}$' }) });
export const RiderBlockBody = Type.Object({ reason: Reason }, { additionalProperties: false });
export const RiderActionResponses = { 200: RiderShape, 404: OpsError, 409: OpsError };
