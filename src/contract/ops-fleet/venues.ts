// The fleet's venues (names, address, opening hours, contacts, state): what the ops API takes and answers.
import { Type, type Static } from 'typebox';
import { Country, Currency, Id, Text, Version } from './fields.ts';

const Clock = Type.String({
  pattern: '^([01][0-9]|2[0-3]):[0-5][0-9]$|^24:00$',
  description: 'HH:MM (24:00 = midnight at the end)',
});
export const TimeRange = Type.Object(
  { open: Clock, close: Clock },
  { description: 'close before open: past midnight', additionalProperties: false },
);
const DayRanges = Type.Array(TimeRange, { maxItems: 4, description: 'empty: closed' });
export const WEEKDAYS = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] as const;
export const OpeningHours = Type.Object(
  {
    weekly: Type.Object(
      Object.fromEntries(WEEKDAYS.map((d) => [d, DayRanges])) as Record<(typeof WEEKDAYS)[number], typeof DayRanges>,
      { additionalProperties: false },
    ),
    exceptions: Type.Array(
      Type.Object(
        {
          date: Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$', description: 'YYYY-MM-DD, local to the venue' }),
          ranges: DayRanges,
          note: Type.Optional(Type.String({ maxLength: 120 })),
        },
        { additionalProperties: false },
      ),
      { maxItems: 366 },
    ),
  },
  { additionalProperties: false },
);
export type OpeningHours = Static<typeof OpeningHours>;
export const Contacts = Type.Object(
  {
    phone: Type.Optional(Type.String({ pattern: '^\\+?[0-9 ()-]{5,30}$' })),
    email: Type.Optional(Type.String({ pattern: '^[^@\\s]+@[^@\\s]+\\.[^@\\s]+$', maxLength: 200 })),
    website: Type.Optional(Type.String({ pattern: '^https?://', maxLength: 200 })),
  },
  { additionalProperties: false },
);
export const VENUE_STATES = ['draft', 'live', 'closed'] as const;
const VenueState = Type.Union([Type.Literal('draft'), Type.Literal('live'), Type.Literal('closed')], {
  description: "only 'live' venues are on the map",
});
export const VenueFields = {
  name: Text(120),
  names: Type.Object(
    {
      'en-US': Type.Optional(Text(120)),
      'zh-CN': Type.Optional(Text(120)),
      'lt-LT': Type.Optional(Text(120)),
      'pt-PT': Type.Optional(Text(120)),
      'es-ES': Type.Optional(Text(120)),
    },
    { additionalProperties: false, description: 'the name per language; name is the default' },
  ),
  city: Text(80),
  country: Type.Union([Country, Type.Null()], {
    description: 'the country the venue is in (the Wi-Fi mall opens on it); null: not set',
  }),
  address: Text(240),
  description: Type.String({ maxLength: 500 }),
  logoUrl: Type.String({
    maxLength: 100_000,
    description: 'https://, data:image/ or an uploaded /media/ URL; empty: none',
  }),
  lat: Type.Number({ minimum: -90, maximum: 90 }),
  lng: Type.Number({ minimum: -180, maximum: 180 }),
  currency: Currency,
  openingHours: OpeningHours,
  contacts: Contacts,
  agentId: Type.Union([Id, Type.Null()]),
  state: VenueState,
};
export const VenueCreate = Type.Object(
  {
    id: Id,
    name: VenueFields.name,
    names: Type.Optional(VenueFields.names),
    city: VenueFields.city,
    country: Type.Optional(VenueFields.country),
    address: VenueFields.address,
    description: Type.Optional(VenueFields.description),
    logoUrl: Type.Optional(VenueFields.logoUrl),
    lat: VenueFields.lat,
    lng: VenueFields.lng,
    currency: Currency,
    openingHours: OpeningHours,
    contacts: Type.Optional(Contacts),
    agentId: Type.Optional(VenueFields.agentId),
    state: Type.Optional(VenueState),
  },
  { additionalProperties: false },
);
export type VenueCreate = Static<typeof VenueCreate>;
export const VenueUpdate = Type.Object(
  {
    version: Version,
    ...(Object.fromEntries(
      Object.entries(VenueFields)
        .filter(([k]) => k !== 'currency')
        .map(([k, s]) => [k, Type.Optional(s)]),
    ) as {
      [K in Exclude<keyof typeof VenueFields, 'currency'>]: ReturnType<typeof Type.Optional<(typeof VenueFields)[K]>>;
    }),
  },
  {
    additionalProperties: false,
    description: 'the currency of a venue never changes (its orders and plans are in it)',
  },
);
export type VenueUpdate = Static<typeof VenueUpdate>;
export const Venue = Type.Object({
  id: Type.String(),
  ...VenueFields,
  openingHours: Type.Union([OpeningHours, Type.Null()]),
  hours: Type.String({ description: 'the opening hours as the map shows them' }),
  version: Type.Integer(),
  bannerUrl: Type.Optional(
    Type.String({ description: 'the banner image (/media/…, uploaded through the ops API); empty: none' }),
  ),
});
export type Venue = Static<typeof Venue>;
