// The ops API's venues, price plans and agents (modules/venues/ops-routes.ts, modules/embed/ops-routes.ts): the
// fields are the fleet's shapes (src/contract/ops-fleet.ts, what the services validate every call against); here
// are the lists, the reason every write carries, and the version that travels as ETag / If-Match instead.
import { Type, type Static } from 'typebox';
import {
  Agent,
  AgentCreate,
  AgentFields,
  FeePreviewRequest,
  OpeningHours,
  Plan,
  PlanCreate,
  PlanFields,
  Venue,
  VenueCreate,
  VenueFields,
} from '../ops-fleet.ts';
import { Page, PageQuery, Reason } from './common.ts';

const IdParam = Type.String({ pattern: '^[A-Za-z0-9._-]{1,64}$' });
export const FleetIdParams = Type.Object({ id: IdParam });
export const PlanIdParams = Type.Object({ id: Type.String({ pattern: '^[0-9]{1,18}$' }) });

// ---- venues ----

export const VenuePage = Page(Venue);
export type VenuePage = Static<typeof VenuePage>;
export const VenueListQuery = Type.Object({
  ...PageQuery,
  q: Type.Optional(Type.String({ maxLength: 100, description: 'part of the name, city or id' })),
  state: Type.Optional(Type.Union([Type.Literal('draft'), Type.Literal('live'), Type.Literal('closed')])),
  agentId: Type.Optional(IdParam),
  sort: Type.Optional(
    Type.Union(['name', '-name', 'city', '-city', 'state', '-state', 'id', '-id'].map((s) => Type.Literal(s))),
  ),
});
export type VenueListQuery = Static<typeof VenueListQuery>;
/** A new venue and why it is made. */
export const VenueCreateBody = Type.Object(
  { ...VenueCreate.properties, reason: Reason },
  { additionalProperties: false },
);
/** Changed fields of a venue (If-Match: the ETag read) and why. The currency never changes. */
export const VenueChangeBody = Type.Object(
  {
    ...(Object.fromEntries(
      Object.entries(VenueFields)
        .filter(([k]) => k !== 'currency')
        .map(([k, s]) => [k, Type.Optional(s)]),
    ) as {
      [K in Exclude<keyof typeof VenueFields, 'currency'>]: ReturnType<typeof Type.Optional<(typeof VenueFields)[K]>>;
    }),
    reason: Reason,
  },
  { additionalProperties: false },
);
export type VenueChangeBody = Static<typeof VenueChangeBody>;
export { OpeningHours, Venue };

// ---- price plans ----

export const PlanList = Type.Object({ items: Type.Array(Plan) });
export const PlanListQuery = Type.Object(
  {
    venueId: Type.Optional(IdParam),
    agentId: Type.Optional(IdParam),
  },
  { description: 'exactly one of venueId and agentId' },
);
export const PlanCreateBody = Type.Object(
  { ...PlanCreate.properties, reason: Reason },
  { additionalProperties: false },
);
export const PlanChangeBody = Type.Object(
  {
    ...(Object.fromEntries(Object.entries(PlanFields).map(([k, s]) => [k, Type.Optional(s)])) as {
      [K in keyof typeof PlanFields]: ReturnType<typeof Type.Optional<(typeof PlanFields)[K]>>;
    }),
    effectiveFrom: Type.Optional(Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}T' })),
    reason: Reason,
  },
  {
    additionalProperties: false,
    description: 'only a plan not yet in effect changes; one in effect is replaced by a new plan',
  },
);
/** The fees of a plan being edited (not saved yet) for the durations asked. */
export const PlanDraftPreview = Type.Object(
  {
    plan: Type.Object({ ...PlanCreate.properties }, { additionalProperties: false }),
    minutes: FeePreviewRequest.properties.minutes,
  },
  { additionalProperties: false, description: "the currency is the venue's, or the plan's for an agent" },
);
export type PlanDraftPreview = Static<typeof PlanDraftPreview>;
export { FeePreview, FeePreviewRequest, Plan } from '../ops-fleet.ts';

// ---- agents ----

export const AgentPage = Page(Agent);
export type AgentPage = Static<typeof AgentPage>;
export const AgentListQuery = Type.Object({
  ...PageQuery,
  q: Type.Optional(Type.String({ maxLength: 100, description: 'part of the name or id' })),
  sort: Type.Optional(Type.Union(['name', '-name', 'id', '-id'].map((s) => Type.Literal(s)))),
});
export type AgentListQuery = Static<typeof AgentListQuery>;
export const AgentCreateBody = Type.Object(
  { ...AgentCreate.properties, reason: Reason },
  { additionalProperties: false },
);
export const AgentChangeBody = Type.Object(
  {
    name: Type.Optional(AgentFields.name),
    country: AgentFields.country,
    currencies: Type.Optional(AgentFields.currencies),
    origins: Type.Optional(AgentFields.origins),
    depositByPayment: AgentFields.depositByPayment,
    reason: Reason,
  },
  { additionalProperties: false },
);
export type AgentChangeBody = Static<typeof AgentChangeBody>;
export { Agent };
