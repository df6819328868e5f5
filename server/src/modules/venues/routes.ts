import { Type } from 'typebox';
import { Envelope, ok } from '../../lib/envelope.ts';
import type { App } from '../../lib/route.ts';
import type { VenuesService } from './service.ts';

const ShopFields = {
  shopid: Type.String(), newID: Type.String(), shopName: Type.String(), shopAddress1: Type.String(), shopTime: Type.String(),
  shopBanner: Type.String(), infoStatus: Type.Integer({ description: '1 when a cabinet of the venue is online (heard from within the last 3 min), 0 offline' }),
  distance: Type.Integer({ description: 'metres from lat/lng (−1 when no position was given)' }),
  cabinetNum: Type.Integer({ description: 'cabinets at the venue, online or not' }),
  batteryNum: Type.Integer({ description: 'slots of the online cabinets' }),
  freeNum: Type.Integer({ description: 'power banks ready to rent in the online cabinets; returnable = batteryNum − freeNum' }),
  latitude: Type.Number(), longitude: Type.Number(), currency: Type.String(),
};
const Shop = Type.Object(ShopFields);
const ShopDetail = Type.Object({
  ...ShopFields,
  shopContent: Type.String(), city: Type.String(),
  cabinets: Type.Array(Type.Object({
    cabinetID: Type.String(), online: Type.Boolean(), freeNum: Type.Integer(), batteryNum: Type.Integer(),
  })),
});

const NearbyBody = Type.Object({
  lat: Type.Number({ minimum: -90, maximum: 90 }),
  lng: Type.Number({ minimum: -180, maximum: 180 }),
  coordType: Type.Optional(Type.String({ maxLength: 20 })),
  zoomLevel: Type.Optional(Type.Number({ description: 'round(map zoom / 2 − 2), minimum 4; sets the view radius' })),
  mapType: Type.Optional(Type.String({ maxLength: 20 })),
});

/** At most this many venues per answer (the nearest ones of the view). */
export const NEARBY_LIMIT = 100;

export default async function venueRoutes(app: App, opts: { venues: VenuesService }) {
  const nearby = (body: { lat: number; lng: number; zoomLevel?: number }) =>
    opts.venues.nearby(body.lat, body.lng, body.zoomLevel, NEARBY_LIMIT);
  // Public: the map is visible before signing in (spec §6).
  app.post('/cdb/shop/listnear/trial', {
    schema: {
      tags: ['venues'],
      summary: 'Venues inside the map view, nearest first, with live stock (the map before sign-in)',
      security: [],
      body: NearbyBody,
      response: { 200: Envelope(Type.Array(Shop)) },
    },
  }, async (req) => ok(await nearby(req.body)));

  // The home map's variant (adds mapType); same answer, a token is optional.
  app.post('/cdb/shop/listnear', {
    schema: {
      tags: ['venues'],
      summary: 'Venues inside the map view, nearest first, with live stock (home map)',
      security: [],
      body: NearbyBody,
      response: { 200: Envelope(Type.Array(Shop)) },
    },
  }, async (req) => ok(await nearby(req.body)));

  app.get('/cdb/shop/listnear/dtl', {
    schema: {
      tags: ['venues'],
      summary: 'One venue: address, hours, banner, stock, its cabinets online or not, distance from lat/lng',
      security: [],
      querystring: Type.Object({
        shopId: Type.String({ minLength: 1, maxLength: 64 }),
        lat: Type.Optional(Type.Number({ minimum: -90, maximum: 90 })),
        lng: Type.Optional(Type.Number({ minimum: -180, maximum: 180 })),
        coordType: Type.Optional(Type.String({ maxLength: 20 })),
        mapType: Type.Optional(Type.String({ maxLength: 20 })),
      }),
      response: { 200: Envelope(ShopDetail) },
    },
  }, async (req) => {
    const { shopId, lat, lng } = req.query;
    return ok(await opts.venues.detail(shopId, lat !== undefined && lng !== undefined ? { lat, lng } : undefined));
  });
}
