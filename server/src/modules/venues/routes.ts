import { Type } from 'typebox';
import { Envelope } from '#contract/envelope.ts';
import { NearbyBody, Shop, ShopDetail, ShopDetailQuery, ShopSearchQuery } from '#contract/venues.ts';
import { ok } from '../../lib/envelope.ts';
import type { App } from '../../lib/route.ts';
import type { VenuesService } from './service.ts';

/** At most this many venues per answer (the nearest ones of the view). */
export const NEARBY_LIMIT = 100;

/** The optional `token` header of the home map and the search: a signed-in rider's own return reservation is free for them. */
const OptionalToken = Type.Object({ token: Type.Optional(Type.String()) });

export default async function venueRoutes(
  app: App,
  opts: {
    venues: VenuesService;
    /** The rider of a session token (401 when the token is sent but is no live session); undefined without one. */
    rider: (token: string | undefined) => Promise<number | undefined>;
  },
) {
  const nearby = (body: NearbyBody, userId?: number) =>
    opts.venues.nearby(body.lat, body.lng, body.zoomLevel, NEARBY_LIMIT, body.filter, { userId });
  const asker = (token: string | string[] | undefined) => opts.rider(Array.isArray(token) ? token[0] : token);
  // Public: the map is visible before signing in.
  app.post(
    '/cdb/shop/listnear/trial',
    {
      schema: {
        tags: ['venues'],
        summary:
          'Venues inside the map view, nearest first, with live stock (the map before sign-in); filter=rent keeps those with a power bank, filter=return those open now with a free slot',
        security: [],
        body: NearbyBody,
        response: { 200: Envelope(Type.Array(Shop)) },
      },
    },
    async (req) => ok(await nearby(req.body)),
  );

  // The home map's variant (adds mapType); same answer, a token is optional (the rider's own return slot).
  app.post(
    '/cdb/shop/listnear',
    {
      schema: {
        tags: ['venues'],
        summary:
          "Venues inside the map view, nearest first, with live stock (home map); filter=rent|return as above; with a token the rider's own held return slot counts as free",
        headers: OptionalToken,
        body: NearbyBody,
        response: { 200: Envelope(Type.Array(Shop)) },
      },
    },
    async (req) => ok(await nearby(req.body, await asker(req.headers.token))),
  );

  // Public like the map (a token optional): search every venue by name, address or city, nearest first; filter by
  // stock or by a free slot in a venue open now.
  app.get(
    '/cdb/shop/search',
    {
      schema: {
        tags: ['venues'],
        summary:
          "Search all venues by name, address or city (nearest first with lat/lng); filter=rent keeps those with a power bank, filter=return those open now with a free slot (the rider's own held one counts)",
        headers: OptionalToken,
        querystring: ShopSearchQuery,
        response: { 200: Envelope(Type.Array(Shop)) },
      },
    },
    async (req) => ok(await opts.venues.search(req.query, { userId: await asker(req.headers.token) })),
  );

  app.get(
    '/cdb/shop/listnear/dtl',
    {
      schema: {
        tags: ['venues'],
        summary:
          "One venue: address, hours, banner, stock, its cabinets online or not, distance from lat/lng; with a token the rider's own held return slot counts as free",
        headers: OptionalToken,
        querystring: ShopDetailQuery,
        response: { 200: Envelope(ShopDetail) },
      },
    },
    async (req) => {
      const { shopId, lat, lng } = req.query;
      const at = lat !== undefined && lng !== undefined ? { lat, lng } : undefined;
      return ok(await opts.venues.detail(shopId, at, { userId: await asker(req.headers.token) }));
    },
  );
}
