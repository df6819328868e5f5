// The price plans of a venue or an agent, and the fee preview: what the ops API takes and answers.
import { Type, type Static } from 'typebox';
import { Currency, DeviceKind, Id, Minor } from './fields.ts';

export const PRICE_UNITS = ['minute', 'hour', 'day'] as const;
export const PlanFields = {
  deviceKind: DeviceKind,
  type: Type.Union([Type.Literal('unit'), Type.Literal('tiered')]),
  unitPrice: Minor,
  unitLength: Type.Integer({
    minimum: 1,
    maximum: 100_000,
    description: 'price units per charge unit (e.g. 30 minutes, 3 days)',
  }),
  priceUnit: Type.Union([Type.Literal('minute'), Type.Literal('hour'), Type.Literal('day')]),
  freeMinutes: Type.Integer({ minimum: 0, maximum: 100_000 }),
  dailyCap: Type.Integer({ minimum: 0, maximum: 1e12, description: 'minor units; 0: no cap' }),
  deposit: Minor,
  depositType: Type.Union([Type.Literal('preauth'), Type.Literal('wallet')], {
    description: 'card pre-authorisation, or a deposit in the wallet',
  }),
  overtimeAmount: Minor,
  overtimeDays: Type.Integer({ minimum: 1, maximum: 365 }),
  tiers: Type.Array(
    Type.Object(
      {
        startMinute: Type.Integer({ minimum: 0 }),
        endMinute: Type.Integer({ minimum: 1 }),
        totalFee: Minor,
      },
      { additionalProperties: false },
    ),
    { maxItems: 50, description: "rows of a 'tiered' plan: startMinute < minutes ≤ endMinute" },
  ),
};
export const PlanCreate = Type.Object(
  {
    venueId: Type.Optional(Id),
    agentId: Type.Optional(Id),
    currency: Type.Optional(Currency),
    ...PlanFields,
    tiers: Type.Optional(PlanFields.tiers),
    freeMinutes: Type.Optional(PlanFields.freeMinutes),
    effectiveFrom: Type.Optional(
      Type.String({
        pattern: '^\\d{4}-\\d{2}-\\d{2}T',
        description: 'ISO 8601 time from when it charges (default: now)',
      }),
    ),
  },
  {
    additionalProperties: false,
    description: 'exactly one of venueId and agentId; currency: the venue’s, required for an agent',
  },
);
export type PlanCreate = Static<typeof PlanCreate>;
export const PlanUpdate = Type.Object(
  {
    ...(Object.fromEntries(Object.entries(PlanFields).map(([k, s]) => [k, Type.Optional(s)])) as {
      [K in keyof typeof PlanFields]: ReturnType<typeof Type.Optional<(typeof PlanFields)[K]>>;
    }),
    effectiveFrom: Type.Optional(Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}T' })),
  },
  {
    additionalProperties: false,
    description: 'only a plan not yet in effect changes; one in effect is replaced by a new plan',
  },
);
export type PlanUpdate = Static<typeof PlanUpdate>;
export const Plan = Type.Object({
  id: Type.Integer(),
  venueId: Type.Union([Type.String(), Type.Null()]),
  agentId: Type.Union([Type.String(), Type.Null()]),
  currency: Currency,
  ...PlanFields,
  effectiveFrom: Type.String(),
});
export type Plan = Static<typeof Plan>;
export const FeePreviewRequest = Type.Object(
  {
    minutes: Type.Array(Type.Integer({ minimum: 0, maximum: 1_000_000 }), { minItems: 1, maxItems: 100 }),
  },
  { additionalProperties: false },
);
export const FeePreview = Type.Object({
  currency: Currency,
  fees: Type.Array(Type.Object({ minutes: Type.Integer(), fee: Minor })),
  buyOutAfterMinutes: Type.Integer(),
  buyOutFee: Minor,
});
export type FeePreview = Static<typeof FeePreview>;
