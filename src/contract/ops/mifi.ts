// The ops API's Wi-Fi line (modules/mifi/ops.ts): regions with their countries, packages and plans (SKUs) with a
// price per currency, boxes (serial, SSID, password rotation, cabinet). The catalogue is the platform's; boxes are
// in scope by the agent of the cabinet they sit in. Every write carries its reason.
import { Type, type Static } from 'typebox';
import { MifiBoxCreate, MifiRegionCreate, MifiSkuChange, MifiSkuCreate } from '../ops-fleet.ts';
import { Page, PageQuery, Reason } from './common.ts';

export const MifiRegionShape = Type.Object({
  id: Type.String(),
  name: Type.String(),
  flagUrl: Type.String(),
  countries: Type.Array(
    Type.Object({ code: Type.String(), name: Type.String(), timeZone: Type.String(), flagUrl: Type.String() }),
  ),
  version: Type.Integer(),
});
export type MifiRegionShape = Static<typeof MifiRegionShape>;
export const MifiRegionList = Type.Object({ items: Type.Array(MifiRegionShape) });

export const MifiSkuShape = Type.Object({
  id: Type.String(),
  regionId: Type.String(),
  countryCode: Type.Union([Type.String(), Type.Null()]),
  name: Type.String(),
  planKind: Type.String({ description: 'days, unlimited or mb' }),
  planValue: Type.Integer(),
  isPackage: Type.Boolean(),
  days: Type.Integer(),
  prices: Type.Array(Type.Object({ currency: Type.String(), price: Type.Integer({ description: 'minor units' }) })),
  names: Type.Record(Type.String(), Type.String(), { description: 'the name per language' }),
  enabled: Type.Boolean({ description: 'false: off sale' }),
  version: Type.Integer(),
});
export type MifiSkuShape = Static<typeof MifiSkuShape>;
export const MifiSkuPage = Page(MifiSkuShape);
export type MifiSkuPage = Static<typeof MifiSkuPage>;
export const MifiSkuListQuery = Type.Object({
  ...PageQuery,
  regionId: Type.Optional(Type.String({ maxLength: 64 })),
  q: Type.Optional(Type.String({ maxLength: 80, description: 'part of the id or name' })),
  sort: Type.Optional(Type.Union(['id', '-id', 'name', '-name'].map((s) => Type.Literal(s)))),
});
export type MifiSkuListQuery = Static<typeof MifiSkuListQuery>;

export const MifiBoxShape = Type.Object({
  sn: Type.String(),
  ssid: Type.String(),
  cabinetId: Type.Union([Type.String(), Type.Null()]),
  slot: Type.Union([Type.Integer(), Type.Null()]),
  state: Type.Union([Type.String(), Type.Null()], {
    description: 'in_cabinet, rented, missing, quarantined (null: never put in a cabinet)',
  }),
  password: Type.Union([Type.Literal('set'), Type.Literal('rotating')], {
    description: 'rotating: a new password waits for the box to confirm it',
  }),
  passwordChangedAt: Type.Union([Type.String(), Type.Null()]),
});
export type MifiBoxShape = Static<typeof MifiBoxShape>;
export const MifiBoxPage = Page(MifiBoxShape);
export type MifiBoxPage = Static<typeof MifiBoxPage>;
export const MifiBoxListQuery = Type.Object({
  ...PageQuery,
  q: Type.Optional(Type.String({ maxLength: 64, description: 'part of the serial or SSID' })),
  cabinetId: Type.Optional(Type.String({ maxLength: 64 })),
  sort: Type.Optional(Type.Union(['sn', '-sn', 'ssid', '-ssid'].map((s) => Type.Literal(s)))),
});
export type MifiBoxListQuery = Static<typeof MifiBoxListQuery>;
export const MifiBoxParams = Type.Object({ sn: Type.String({ pattern: '^[A-Za-z0-9._-]{1,64}$' }) });

export const MifiRegionBody = Type.Object(
  { ...MifiRegionCreate.properties, reason: Reason },
  { additionalProperties: false },
);
export type MifiRegionBody = Static<typeof MifiRegionBody>;
/** A region's changes: its name and its countries (replaced whole; a country a package is sold for cannot go). */
export const MifiRegionChangeBody = Type.Object(
  {
    name: MifiRegionCreate.properties.name,
    countries: MifiRegionCreate.properties.countries,
    reason: Reason,
  },
  { additionalProperties: false },
);
export type MifiRegionChangeBody = Static<typeof MifiRegionChangeBody>;
export const MifiRegionParams = Type.Object({ id: Type.String({ pattern: '^[A-Za-z0-9._-]{1,64}$' }) });
export const MifiSkuBody = Type.Object(
  { ...MifiSkuCreate.properties, reason: Reason },
  { additionalProperties: false },
);
export type MifiSkuBody = Static<typeof MifiSkuBody>;
export const MifiSkuChangeBody = Type.Object(
  { ...MifiSkuChange.properties, reason: Reason },
  { additionalProperties: false },
);
export type MifiSkuChangeBody = Static<typeof MifiSkuChangeBody>;
export const MifiSkuParams = Type.Object({ id: Type.String({ pattern: '^[A-Za-z0-9._-]{1,64}$' }) });
export const MifiBoxBody = Type.Object(
  { ...MifiBoxCreate.properties, reason: Reason },
  { additionalProperties: false },
);
export type MifiBoxBody = Static<typeof MifiBoxBody>;

/** A device put in a cabinet's slot: a power bank (cdb) or a power station (Wi-Fi boxes: POST mifi/boxes). */
export const DevicePlaceBody = Type.Object(
  {
    id: Type.String({ pattern: '^[A-Za-z0-9._-]{1,64}$' }),
    kind: Type.Union([Type.Literal('cdb'), Type.Literal('station')]),
    slot: Type.Integer({ minimum: 1, maximum: 200 }),
    reason: Reason,
  },
  { additionalProperties: false },
);
export type DevicePlaceBody = Static<typeof DevicePlaceBody>;

/** The Wi-Fi box deposit of a currency (minor units), with the version its save names in If-Match. */
export const BoxDepositShape = Type.Object({
  currency: Type.String({ description: 'ISO 4217' }),
  amount: Type.Integer({ description: 'minor units' }),
  version: Type.Integer(),
  updatedAt: Type.String(),
});
export type BoxDepositShape = Static<typeof BoxDepositShape>;
export const BoxDepositList = Type.Object({ items: Type.Array(BoxDepositShape) });
export const BoxDepositParams = Type.Object({
  currency: Type.String({ pattern: '^[A-Z]{3}$', description: 'ISO 4217, upper case' }),
});
export const BoxDepositBody = Type.Object(
  {
    amount: Type.Integer({ minimum: 1, maximum: 100_000_000, description: 'minor units of the currency' }),
    reason: Reason,
  },
  { additionalProperties: false },
);
export type BoxDepositBody = Static<typeof BoxDepositBody>;
