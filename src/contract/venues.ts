// The map: nearby venues (shops) and one venue's detail.
import { Type, type Static } from 'typebox';

const ShopFields = {
  shopid: Type.String(),
  newID: Type.String(),
  shopName: Type.String(),
  shopAddress1: Type.String(),
  shopTime: Type.String(),
  shopBanner: Type.String(),
  infoStatus: Type.Integer({
    description: '1 when a cabinet of the venue is online (heard from within the last 3 min), 0 offline',
  }),
  distance: Type.Integer({ description: 'metres from lat/lng (−1 when no position was given)' }),
  cabinetNum: Type.Integer({ description: 'cabinets at the venue, online or not' }),
  batteryNum: Type.Integer({ description: 'slots of the online cabinets' }),
  freeNum: Type.Integer({
    description: 'power banks ready to rent in the online cabinets; returnable = batteryNum − freeNum',
  }),
  returnNum: Type.Optional(
    Type.Integer({
      description:
        'slots a power bank can be returned into now in the online cabinets: empty, not locked, not reserved for another rider (more exact than batteryNum − freeNum)',
    }),
  ),
  latitude: Type.Number(),
  longitude: Type.Number(),
  currency: Type.String(),
};
export const Shop = Type.Object(ShopFields);
export type Shop = Static<typeof Shop>;
export const ShopDetail = Type.Object({
  ...ShopFields,
  shopContent: Type.String(),
  city: Type.String(),
  cabinets: Type.Array(
    Type.Object({
      cabinetID: Type.String(),
      online: Type.Boolean(),
      freeNum: Type.Integer(),
      batteryNum: Type.Integer(),
      returnNum: Type.Optional(Type.Integer({ description: 'slots to return a power bank into now (0 when offline)' })),
    }),
  ),
});
export type ShopDetail = Static<typeof ShopDetail>;

export const NearbyBody = Type.Object({
  lat: Type.Number({ minimum: -90, maximum: 90 }),
  lng: Type.Number({ minimum: -180, maximum: 180 }),
  coordType: Type.Optional(Type.String({ maxLength: 20 })),
  zoomLevel: Type.Optional(Type.Number({ description: 'round(map zoom / 2 − 2), minimum 4; sets the view radius' })),
  mapType: Type.Optional(Type.String({ maxLength: 20 })),
  filter: Type.Optional(
    Type.Union([Type.Literal('rent'), Type.Literal('return')], {
      description:
        'rent: only venues with a power bank to rent; return: only venues with a slot to return one into now (returnNum > 0)',
    }),
  ),
});
export type NearbyBody = Static<typeof NearbyBody>;

export const ShopDetailQuery = Type.Object({
  shopId: Type.String({ minLength: 1, maxLength: 64 }),
  lat: Type.Optional(Type.Number({ minimum: -90, maximum: 90 })),
  lng: Type.Optional(Type.Number({ minimum: -180, maximum: 180 })),
  coordType: Type.Optional(Type.String({ maxLength: 20 })),
  mapType: Type.Optional(Type.String({ maxLength: 20 })),
});
export type ShopDetailQuery = Static<typeof ShopDetailQuery>;

/**
 * Venue search over every venue (not only those in the map view): by name, address or city (case-insensitive, any
 * part), nearest first when a position is given; `filter` keeps venues with a power bank to rent ('rent') or a free
 * slot to return one ('return'), counting online cabinets only. No `q`: the nearest venues (with the filter).
 */
export const ShopSearchQuery = Type.Object({
  q: Type.Optional(Type.String({ maxLength: 100 })),
  lat: Type.Optional(Type.Number({ minimum: -90, maximum: 90 })),
  lng: Type.Optional(Type.Number({ minimum: -180, maximum: 180 })),
  filter: Type.Optional(Type.Union([Type.Literal('rent'), Type.Literal('return')])),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 50, default: 20 })),
});
export type ShopSearchQuery = Static<typeof ShopSearchQuery>;
