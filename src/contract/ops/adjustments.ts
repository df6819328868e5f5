// The ops API's wallet adjustments under four eyes (modules/wallet/adjustments.ts): one member of staff requests a
// credit or a debit of a rider's wallet with one agent (amount, currency, reason); a different member of staff
// approves it (only then it moves in the ledger, once) or rejects it. Money in integer minor units with its currency.
import { Type, type Static } from 'typebox';
import { OpsError, Page, PageQuery, Reason } from './common.ts';

export const ADJUSTMENT_STATES = ['pending', 'approved', 'rejected'] as const;
export type AdjustmentState = (typeof ADJUSTMENT_STATES)[number];
const State = Type.Unsafe<AdjustmentState>(Type.String({ enum: [...ADJUSTMENT_STATES] }));
export const ADJUSTMENT_DIRECTIONS = ['credit', 'debit'] as const;
const Direction = Type.Unsafe<(typeof ADJUSTMENT_DIRECTIONS)[number]>(
  Type.String({ enum: [...ADJUSTMENT_DIRECTIONS] }),
);

export const AdjustmentItem = Type.Object({
  id: Type.String(),
  riderId: Type.String(),
  agentId: Type.String(),
  direction: Direction,
  amount: Type.Integer({ description: 'integer minor units of currency' }),
  currency: Type.String(),
  reason: Type.String(),
  state: State,
  requestedBy: Type.String({ description: "the requester's e-mail" }),
  createdAt: Type.String(),
  decidedBy: Type.Optional(Type.String()),
  decidedAt: Type.Optional(Type.String()),
  decisionNote: Type.Optional(Type.String({ description: "the approver's or rejecter's reason" })),
  transferId: Type.Optional(Type.String({ description: 'the ledger transfer an approval made' })),
});
export type AdjustmentItem = Static<typeof AdjustmentItem>;
export const AdjustmentPage = Page(AdjustmentItem);
export type AdjustmentPage = Static<typeof AdjustmentPage>;

export const AdjustmentListQuery = Type.Object({
  ...PageQuery,
  state: Type.Optional(
    Type.Union([State, Type.Literal('all')], { default: 'pending', description: 'pending by default' }),
  ),
  riderId: Type.Optional(Type.String({ pattern: '^[0-9]{1,18}$' })),
});
export type AdjustmentListQuery = Static<typeof AdjustmentListQuery>;
export const AdjustmentIdParams = Type.Object({ id: Type.String({ pattern: '^[0-9]{1,18}$' }) });

export const AdjustmentRequest = Type.Object(
  {
    riderId: Type.String({ pattern: '^[0-9]{1,18}$' }),
    agentId: Type.String({
      minLength: 1,
      maxLength: 64,
      description: 'the agent of the wallet (the rider has an account with it)',
    }),
    currency: Type.String({ pattern: '^[A-Z]{3}$' }),
    direction: Direction,
    amount: Type.Integer({ minimum: 1, maximum: 100_000_000, description: 'integer minor units' }),
    reason: Reason,
  },
  { additionalProperties: false },
);
export type AdjustmentRequest = Static<typeof AdjustmentRequest>;
export const AdjustmentDecision = Type.Object({ reason: Reason }, { additionalProperties: false });
export const AdjustmentHeaders = Type.Object({
  'idempotency-key': Type.Optional(
    Type.String({
      description: 'a new random key per request (8 to 100 of A-Z a-z 0-9 _ -); its retry sends the same',
    }),
  ),
});
export const AdjustmentActionResponses = {
  200: AdjustmentItem,
  400: OpsError,
  403: OpsError,
  404: OpsError,
  409: OpsError,
  422: OpsError,
};
