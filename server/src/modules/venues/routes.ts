import { Type } from 'typebox';
import { Envelope, ok } from '../../lib/envelope.ts';
import type { App } from '../../lib/route.ts';
import type { VenuesService } from './service.ts';

const Shop = Type.Object({
  shopid: Type.String(), newID: Type.String(), shopName: Type.String(), shopAddress1: Type.String(), shopTime: Type.String(),
  shopBanner: Type.String(), infoStatus: Type.Integer({ description: '1 when a cabinet of the venue is online' }),
  distance: Type.Integer({ description: 'metres from lat/lng' }), batteryNum: Type.Integer({ description: 'slots' }),
  freeNum: Type.Integer({ description: 'power banks ready to rent; returnable = batteryNum − freeNum' }),
  latitude: Type.Number(), longitude: Type.Number(), currency: Type.String(),
});

export default async function venueRoutes(app: App, opts: { venues: VenuesService }) {
  // Public: the map is visible before signing in (spec §6).
  app.post('/cdb/shop/listnear/trial', {
    schema: {
      tags: ['venues'],
      summary: 'Venues nearest to a point, with stock (the map)',
      security: [],
      body: Type.Object({
        lat: Type.Number({ minimum: -90, maximum: 90 }),
        lng: Type.Number({ minimum: -180, maximum: 180 }),
        coordType: Type.Optional(Type.String({ maxLength: 20 })),
        zoomLevel: Type.Optional(Type.Number()),
        mapType: Type.Optional(Type.String({ maxLength: 20 })),
      }),
      response: { 200: Envelope(Type.Array(Shop)) },
    },
  }, async (req) => ok(await opts.venues.nearby(req.body.lat, req.body.lng, 50)));
}
