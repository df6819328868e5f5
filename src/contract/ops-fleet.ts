// The fleet's operations (agents, venues, price plans, cabinets, the Wi-Fi catalogue and boxes): the shapes the
// ops API takes and answers, and what the services validate every call against (server/src/lib/validate.ts).
// JSON; money in integer minor units with its currency; times ISO 8601.
import { Type, type Static } from 'typebox';

const Id = Type.String({ pattern: '^[A-Za-z0-9._-]{1,64}$', description: 'letters, digits, dot, dash, underscore' });
const Currency = Type.String({ pattern: '^[A-Z]{3}$', description: 'ISO 4217 code' });
const Country = Type.String({ pattern: '^[A-Z]{2}$', description: 'ISO 3166-1 alpha-2 code' });
const Minor = Type.Integer({ minimum: 0, maximum: 1e12, description: 'integer minor units of the currency' });
const Text = (max: number) => Type.String({ minLength: 1, maxLength: max });
const Version = Type.Integer({ minimum: 1, description: 'the version read; a stale one is refused with 409' });
/** The five languages of the product (locales/*.json). */
export const FLEET_LANGS = ['en-US', 'zh-CN', 'lt-LT', 'pt-PT', 'es-ES'] as const;

// ---- agents -------------------------------------------------------------------------------------------------

export const AgentFields = {
  name: Text(120),
  country: Type.Optional(Country),
  currencies: Type.Array(Currency, { maxItems: 20, description: 'currencies the agent sells in' }),
  origins: Type.Array(Type.String({ maxLength: 200 }), {
    maxItems: 50,
    description: 'exact origins allowed to frame the embed (https://host[:port])',
  }),
  depositByPayment: Type.Optional(
    Type.Boolean({
      description:
        "every deposit at the agent's cabinets is paid (card or top-up) unless the wallet covers the deposit and the overtime fee; default false",
    }),
  ),
};
export const AgentCreate = Type.Object({ id: Id, ...AgentFields }, { additionalProperties: false });
export type AgentCreate = Static<typeof AgentCreate>;
export const AgentUpdate = Type.Object(
  {
    version: Version,
    name: Type.Optional(AgentFields.name),
    country: Type.Optional(Country),
    currencies: Type.Optional(AgentFields.currencies),
    origins: Type.Optional(AgentFields.origins),
    depositByPayment: AgentFields.depositByPayment,
  },
  { additionalProperties: false },
);
export type AgentUpdate = Static<typeof AgentUpdate>;
export const Agent = Type.Object({
  id: Type.String(),
  ...AgentFields,
  country: Type.Union([Country, Type.Null()]),
  depositByPayment: Type.Boolean(),
  version: Type.Integer(),
});
export type Agent = Static<typeof Agent>;

// ---- venues -------------------------------------------------------------------------------------------------

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

// ---- price plans ---------------------------------------------------------------------------------------------

export const DEVICE_KINDS = ['cdb', 'station', 'mifi'] as const;
const DeviceKind = Type.Union([Type.Literal('cdb'), Type.Literal('station'), Type.Literal('mifi')], {
  description: 'power bank, power station, Wi-Fi box',
});
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

// ---- cabinets ------------------------------------------------------------------------------------------------

export const CabinetRegister = Type.Object(
  {
    id: Type.String({
      pattern: '^[A-Za-z0-9._-]{1,64}$',
      description: 'the serial printed on the cabinet (its QR code and broker username)',
    }),
    vendor: Type.Optional(
      Type.String({
        pattern: '^[a-z0-9-]{1,40}$',
        description: "the vendor family whose protocol it speaks (default 'powerly')",
      }),
    ),
    slots: Type.Integer({ minimum: 1, maximum: 200 }),
    venueId: Type.Optional(Type.Union([Id, Type.Null()])),
  },
  { additionalProperties: false },
);
export type CabinetRegister = Static<typeof CabinetRegister>;
export const CabinetAssign = Type.Object({ venueId: Type.Union([Id, Type.Null()]) }, { additionalProperties: false });
export const DeviceRegister = Type.Object(
  {
    id: Type.String({ pattern: '^[A-Za-z0-9._-]{1,64}$' }),
    kind: Type.Optional(DeviceKind),
    cabinetId: Type.String({ minLength: 1, maxLength: 64 }),
    slot: Type.Integer({ minimum: 1, maximum: 200 }),
  },
  { additionalProperties: false },
);
export type DeviceRegister = Static<typeof DeviceRegister>;
export const CabinetSlot = Type.Object({
  slot: Type.Integer(),
  deviceId: Type.Union([Type.String(), Type.Null()]),
  kind: Type.Union([DeviceKind, Type.Null()]),
  state: Type.Union([Type.String(), Type.Null()], { description: 'in_cabinet, quarantined (null: empty)' }),
  charge: Type.Union([Type.Integer(), Type.Null()], { description: 'battery in percent, as last reported' }),
});
export const CabinetLive = Type.Object({
  id: Type.String(),
  vendor: Type.String(),
  venueId: Type.Union([Type.String(), Type.Null()]),
  venueName: Type.Union([Type.String(), Type.Null()]),
  slotCount: Type.Integer(),
  online: Type.Boolean({ description: 'online by its status and heard from recently' }),
  lastHeartbeatAt: Type.Union([Type.String(), Type.Null()]),
  hasCredentials: Type.Boolean(),
  slots: Type.Array(CabinetSlot),
});
export type CabinetLive = Static<typeof CabinetLive>;
export const CabinetCredentials = Type.Object({
  username: Type.String(),
  password: Type.String({ description: 'shown once; only a hash is stored' }),
});
/** A refused field: where, which field, a message key (locales/server `error.field.<code>`) and its English text. */
export const FieldIssue = Type.Object({
  row: Type.Optional(Type.Integer({ description: 'CSV line number (1 = the header)' })),
  field: Type.String(),
  code: Type.String(),
  message: Type.String(),
});
export type FieldIssue = Static<typeof FieldIssue>;
export const CabinetImportRequest = Type.Object(
  {
    csv: Type.String({
      maxLength: 2_000_000,
      description: 'header id,vendor,slots,venueId (vendor and venueId may be empty)',
    }),
    dryRun: Type.Boolean(),
  },
  { additionalProperties: false },
);
export const CabinetImportReport = Type.Object({
  rows: Type.Integer(),
  imported: Type.Integer({ description: '0 on a dry run or when any row is bad' }),
  issues: Type.Array(FieldIssue),
});
export type CabinetImportReport = Static<typeof CabinetImportReport>;

// ---- the Wi-Fi line's catalogue and boxes --------------------------------------------------------------------

export const MifiRegionCreate = Type.Object(
  {
    id: Id,
    name: Text(80),
    flagUrl: Type.String({ maxLength: 100_000 }),
    sort: Type.Optional(Type.Integer({ minimum: 0, maximum: 10_000 })),
    countries: Type.Array(
      Type.Object(
        { code: Country, name: Text(80), timeZone: Text(60), flagUrl: Type.String({ maxLength: 100_000 }) },
        { additionalProperties: false },
      ),
      { maxItems: 300 },
    ),
  },
  { additionalProperties: false },
);
export type MifiRegionCreate = Static<typeof MifiRegionCreate>;
export const MifiSkuCreate = Type.Object(
  {
    id: Id,
    regionId: Id,
    countryCode: Type.Union([Country, Type.Null()]),
    name: Text(80),
    planKind: Type.Union([Type.Literal('days'), Type.Literal('unlimited'), Type.Literal('mb')]),
    planValue: Type.Integer({ minimum: 0, maximum: 1_000_000 }),
    isPackage: Type.Boolean(),
    days: Type.Integer({ minimum: 1, maximum: 365 }),
    prices: Type.Array(Type.Object({ currency: Currency, price: Minor }, { additionalProperties: false }), {
      minItems: 1,
      maxItems: 20,
    }),
  },
  { additionalProperties: false },
);
export type MifiSkuCreate = Static<typeof MifiSkuCreate>;
/** A package's changes (each field optional); prices, when sent, replace all of them. */
export const MifiSkuChange = Type.Object(
  {
    name: Type.Optional(Text(80)),
    names: Type.Optional(
      Type.Object(
        {
          'en-US': Type.Optional(Text(80)),
          'zh-CN': Type.Optional(Text(80)),
          'lt-LT': Type.Optional(Text(80)),
          'pt-PT': Type.Optional(Text(80)),
          'es-ES': Type.Optional(Text(80)),
        },
        { additionalProperties: false, description: 'the name per language; name is the default' },
      ),
    ),
    planKind: Type.Optional(MifiSkuCreate.properties.planKind),
    planValue: Type.Optional(MifiSkuCreate.properties.planValue),
    isPackage: Type.Optional(Type.Boolean()),
    days: Type.Optional(MifiSkuCreate.properties.days),
    prices: Type.Optional(MifiSkuCreate.properties.prices),
    enabled: Type.Optional(Type.Boolean({ description: 'false: off sale (neither listed nor sold)' })),
  },
  { additionalProperties: false },
);
export type MifiSkuChange = Static<typeof MifiSkuChange>;
export const MifiBoxCreate = Type.Object(
  {
    sn: Type.String({ pattern: '^[A-Za-z0-9._-]{1,64}$' }),
    ssid: Text(32),
    password: Type.String({ minLength: 8, maxLength: 63 }),
    cabinetId: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
    slot: Type.Optional(Type.Integer({ minimum: 1, maximum: 200 })),
  },
  { additionalProperties: false, description: 'cabinetId and slot together: the box is in that slot' },
);
export type MifiBoxCreate = Static<typeof MifiBoxCreate>;
