// The ops API's disputes queue (modules/rentals/dispute-desk.ts): riders' "I returned it" claims the cabinets' records
// did not confirm, with the evidence gathered when the claim was made; the desk accepts (the rental ends at the time
// given, or its buy-out is reversed) or rejects, each with a message the rider sees and an evidence note.
import { Type, type Static } from 'typebox';
import { OpsError, Page, PageQuery, Reason } from './common.ts';

export const DISPUTE_STATES = ['open', 'matched', 'accepted', 'rejected'] as const;
export type DisputeState = (typeof DISPUTE_STATES)[number];
const State = Type.Unsafe<DisputeState>(Type.String({ enum: [...DISPUTE_STATES] }));

export const DisputeItem = Type.Object({
  id: Type.String(),
  orderId: Type.String(),
  riderId: Type.String(),
  cabinetId: Type.String({ description: 'where the rider says the power bank went back' }),
  claimedAt: Type.String({ description: 'when the rider says it went back' }),
  state: State,
  rentalState: Type.Integer({ description: 'the order’s state now (pZujie)' }),
  powerbankId: Type.Optional(Type.String()),
  evidence: Type.Record(Type.String(), Type.Unknown(), {
    description: 'what the cabinets’ records said when the claim was made',
  }),
  message: Type.Optional(Type.String({ description: 'the message the rider sees' })),
  note: Type.Optional(Type.String({ description: 'the desk’s evidence note' })),
  decidedBy: Type.Optional(Type.String()),
  createdAt: Type.String(),
  decidedAt: Type.Optional(Type.String()),
});
export type DisputeItem = Static<typeof DisputeItem>;
export const DisputePage = Page(DisputeItem);
export type DisputePage = Static<typeof DisputePage>;

export const DisputeListQuery = Type.Object({
  ...PageQuery,
  state: Type.Optional(Type.Union([State, Type.Literal('all')], { default: 'open', description: 'open by default' })),
  cabinetId: Type.Optional(Type.String({ maxLength: 64 })),
  riderId: Type.Optional(Type.String({ pattern: '^[0-9]{1,18}$' })),
});
export type DisputeListQuery = Static<typeof DisputeListQuery>;
export const DisputeIdParams = Type.Object({ id: Type.String({ pattern: '^[0-9]{1,18}$' }) });
export const DisputeDecision = Type.Object(
  {
    message: Type.String({ minLength: 3, maxLength: 500, description: 'shown to the rider' }),
    note: Type.String({
      minLength: 3,
      maxLength: 2000,
      description: 'the evidence the decision rests on (for the desk)',
    }),
    at: Type.Optional(
      Type.String({
        format: 'date-time',
        description: 'accept: when the power bank went back (default: the time the rider gave)',
      }),
    ),
    reason: Reason,
  },
  { additionalProperties: false },
);
export type DisputeDecision = Static<typeof DisputeDecision>;
export const DisputeActionResponses = { 200: DisputeItem, 400: OpsError, 404: OpsError, 409: OpsError, 422: OpsError };
