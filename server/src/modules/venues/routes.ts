import { Type } from 'typebox';
import { Envelope } from '#contract/envelope.ts';
import { NearbyBody, Shop, ShopDetail, ShopDetailQuery, ShopSearchQuery } from '#contract/venues.ts';
import { ok } from '../../lib/envelope.ts';
import type { App } from '../../lib/route.ts';
import type { VenuesService } from './service.ts';

/** At most this many venues per answer (the nearest ones of the view). */
export const NEARBY_LIMIT = 100;

export default async function venueRoutes(app: App, opts: { venues: VenuesService }) {
  const nearby = (body: NearbyBody) => opts.venues.nearby(body.lat, body.lng, body.zoomLevel, NEARBY_LIMIT, body.filter);
  // Public: the map is visible before signing in.
  app.post('/cdb/shop/listnear/trial', {
    schema: {
      tags: ['venues'],
      summary: 'Venues inside the map view, nearest first, with live stock (the map before sign-in); filter=rent|return keeps those with a power bank or a free slot',
      security: [],
      body: NearbyBody,
      response: { 200: Envelope(Type.Array(Shop)) },
    },
  }, async (req) => ok(await nearby(req.body)));

  // The home map's variant (adds mapType); same answer, a token is optional.
  app.post('/cdb/shop/listnear', {
    schema: {
      tags: ['venues'],
      summary: 'Venues inside the map view, nearest first, with live stock (home map); filter=rent|return as above',
      security: [],
      body: NearbyBody,
      response: { 200: Envelope(Type.Array(Shop)) },
    },
  }, async (req) => ok(await nearby(req.body)));

  // Public like the map: search every venue by name, address or city, nearest first; filter by stock or free slots.
  app.get('/cdb/shop/search', {
    schema: {
      tags: ['venues'],
      summary: 'Search all venues by name, address or city (nearest first with lat/lng); filter=rent|return keeps those with a power bank or a free slot',
      security: [],
      querystring: ShopSearchQuery,
      response: { 200: Envelope(Type.Array(Shop)) },
    },
  }, async (req) => ok(await opts.venues.search(req.query)));

  app.get('/cdb/shop/listnear/dtl', {
    schema: {
      tags: ['venues'],
      summary: 'One venue: address, hours, banner, stock, its cabinets online or not, distance from lat/lng',
      security: [],
      querystring: ShopDetailQuery,
      response: { 200: Envelope(ShopDetail) },
    },
  }, async (req) => {
    const { shopId, lat, lng } = req.query;
    return ok(await opts.venues.detail(shopId, lat !== undefined && lng !== undefined ? { lat, lng } : undefined));
  });
}
