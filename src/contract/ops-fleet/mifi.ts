// The Wi-Fi line's catalogue (regions, packages and their prices) and its boxes: what the ops API takes.
import { Type, type Static } from 'typebox';
import { Country, Currency, Id, Minor, Text } from './fields.ts';

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
