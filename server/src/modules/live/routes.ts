import { createRequire } from 'node:module';
import type { FastifyPluginAsync } from 'fastify';
import type { SSEPluginOptions } from '@fastify/sse';
import { Envelope } from '#contract/envelope.ts';
import { LiveEventsQuery, LiveShopQuery, LiveTicket, type LiveEvent } from '#contract/live.ts';
import { ok } from '../../lib/envelope.ts';
import type { App } from '../../lib/route.ts';
import { currentUser } from '../../plugins/context.ts';
import type { LiveService } from './service.ts';
import { followShop, type ShopStreamDeps } from './shop-stream.ts';

// The package's module.exports is the fastify-plugin-wrapped plugin (it decorates this context); its `default` and
// `fastifySSE` are the bare function, and the two tsconfigs resolve its default import differently: require it.
const sse = createRequire(import.meta.url)('@fastify/sse') as FastifyPluginAsync<SSEPluginOptions>;

/** A comment line this often keeps proxies from closing an idle stream. */
export const LIVE_HEARTBEAT_MS = 20_000;

export default async function liveRoutes(app: App, opts: { live: LiveService; shops?: ShopStreamDeps }) {
  await app.register(sse, { heartbeatInterval: LIVE_HEARTBEAT_MS });
  // Open streams end when the server closes (a client reconnects to another process), or close() would wait on them.
  const open = new Set<() => void>();
  app.addHook('preClose', async () => {
    for (const end of open) end();
  });

  app.post(
    '/live/ticket',
    {
      schema: {
        tags: ['live'],
        summary: 'A one-use ticket (60 s) to open the live event stream (EventSource cannot send the token header)',
        response: { 200: Envelope(LiveTicket) },
      },
      preHandler: app.requireUser,
    },
    async (req) => ok(await opts.live.ticket(currentUser(req).id)),
  );

  app.get(
    '/live/events',
    {
      sse: 'only',
      schema: {
        tags: ['live'],
        summary:
          'Server-sent events: {kind:"order"|"wallet"|"resync", orderId?, state?} whenever the user\'s orders or wallet change; "resync" first',
        security: [],
        querystring: LiveEventsQuery,
      },
    },
    async (req, reply) => {
      const userId = await opts.live.redeem(req.query.ticket);
      reply.header('cache-control', 'no-cache, no-transform');
      reply.header('x-accel-buffering', 'no');
      reply.sse.keepAlive();
      const off = opts.live.subscribe(userId, (e) => {
        if (reply.sse.isConnected) void reply.sse.send({ event: 'change', data: e }).catch(() => undefined);
      });
      const end = () => reply.sse.close();
      open.add(end);
      reply.sse.onClose(() => {
        off();
        open.delete(end);
      });
      await reply.sse.send({ event: 'change', data: { kind: 'resync' } satisfies LiveEvent, retry: 3000 });
    },
  );

  const shops = opts.shops;
  if (!shops) return;
  app.get(
    '/live/shop',
    {
      sse: 'only',
      schema: {
        tags: ['live'],
        summary:
          'Server-sent events of one venue: {kind:"shop", shopId} whenever its cabinets\' free slots, power banks or online state change (read them again with cdb/shop/listnear/dtl); "resync" first. 404 for an unknown venue',
        security: [],
        querystring: LiveShopQuery,
      },
    },
    async (req, reply) => {
      const userId = await opts.live.redeem(req.query.ticket);
      const { shopId } = req.query;
      const first = await shops.stock(shopId, userId); // an unknown venue: 404 (error.shopNotFound)
      reply.header('cache-control', 'no-cache, no-transform');
      reply.header('x-accel-buffering', 'no');
      reply.sse.keepAlive();
      const stop = followShop(
        shops,
        shopId,
        userId,
        (e) => {
          if (reply.sse.isConnected) void reply.sse.send({ event: 'change', data: e }).catch(() => undefined);
        },
        first,
      );
      const end = () => reply.sse.close();
      open.add(end);
      reply.sse.onClose(() => {
        stop();
        open.delete(end);
      });
      await reply.sse.send({ event: 'change', data: { kind: 'resync' } satisfies LiveEvent, retry: 3000 });
    },
  );
}
