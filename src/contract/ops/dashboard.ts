// The ops API's dashboard (modules/dashboard): the business's figures per UTC day over a range, read from the
// summaries, within the caller's scope and narrowed to an agent and a venue.
import { Type, type Static } from 'typebox';

const Day = Type.String({
  pattern: '^[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])$',
  description: 'YYYY-MM-DD (UTC)',
});
const Id = Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_.:-]+$' });
const Money = Type.Object({
  currency: Type.String({ pattern: '^[A-Z]{3}$' }),
  amount: Type.Integer({ description: 'minor units' }),
});

export const DashboardQuery = Type.Object(
  {
    from: Type.Optional(Day),
    to: Type.Optional({
      ...Day,
      description: 'YYYY-MM-DD (UTC), default today; from defaults to 29 days before; at most 366 days',
    }),
    agentId: Type.Optional(Id),
    venueId: Type.Optional(Id),
  },
  { additionalProperties: false },
);
export type DashboardQuery = Static<typeof DashboardQuery>;

export const DashboardDay = Type.Object({
  day: Day,
  rentals: Type.Integer({ description: 'rentals started this day whose power bank left the cabinet' }),
  failedEjects: Type.Integer({
    description: 'rentals started this day and cancelled because the eject failed or timed out',
  }),
  returns: Type.Integer({ description: 'rentals that ended this day (returned or bought out)' }),
  returnsElsewhere: Type.Integer({ description: "of those, returned at another venue's cabinet" }),
  rentedMinutes: Type.Integer({ description: 'billed minutes of the rentals that ended this day' }),
  powerbanks: Type.Integer({ description: "power banks in the venues' cabinets (the day's last count)" }),
  utilisation: Type.Union([Type.Number(), Type.Null()], {
    description: 'rented minutes / power-bank minutes of the day; null without power banks',
  }),
});
export type DashboardDay = Static<typeof DashboardDay>;

export const DashboardShape = Type.Object({
  from: Day,
  to: Day,
  refreshedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
    description: 'when the summaries were last recomputed',
  }),
  pending: Type.Integer({ description: 'rental changes not in the figures yet (recomputed within a minute)' }),
  days: Type.Array(DashboardDay, { description: 'every day of the range, in order' }),
  revenue: Type.Array(Type.Object({ day: Day, currency: Type.String(), amount: Type.Integer() }), {
    description: 'rent of the rentals ended per day and currency',
  }),
  totals: Type.Object({
    rentals: Type.Integer(),
    failedEjects: Type.Integer(),
    returns: Type.Integer(),
    returnsElsewhere: Type.Integer(),
    rentedMinutes: Type.Integer(),
    averageMinutes: Type.Union([Type.Integer(), Type.Null()]),
    utilisation: Type.Union([Type.Number(), Type.Null()]),
    revenue: Type.Array(Money),
  }),
  topVenues: Type.Array(
    Type.Object({
      venueId: Type.String(),
      agentId: Type.String(),
      rentals: Type.Integer(),
      rentedMinutes: Type.Integer(),
      revenue: Type.Array(Money),
    }),
    { description: 'the ten venues with the most rentals' },
  ),
});
export type DashboardShape = Static<typeof DashboardShape>;

export const DashboardCabinetsQuery = Type.Object(
  { agentId: Type.Optional(Id), venueId: Type.Optional(Id) },
  { additionalProperties: false },
);
export const DashboardCabinet = Type.Object({
  id: Type.String(),
  agentId: Type.String(),
  venueId: Type.String(),
  lat: Type.Number(),
  lng: Type.Number(),
  slots: Type.Integer(),
  powerbanks: Type.Integer({ description: 'in the cabinet now' }),
  online: Type.Boolean({ description: 'heard from within the liveness window' }),
});
export type DashboardCabinet = Static<typeof DashboardCabinet>;
export const DashboardCabinets = Type.Object({
  items: Type.Array(DashboardCabinet, { description: 'every cabinet of the scope at a venue, by id' }),
});
