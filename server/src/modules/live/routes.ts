import { createRequire } from 'node:module';
import type { FastifyPluginAsync } from 'fastify';
import type { SSEPluginOptions } from '@fastify/sse';
import { Envelope } from '#contract/envelope.ts';
import { LiveEventsQuery, LiveTicket, type LiveEvent } from '#contract/live.ts';
import { ok } from '../../lib/envelope.ts';
import type { App } from '../../lib/route.ts';
import { currentUser } from '../../plugins/context.ts';
import type { LiveService } from './service.ts';

// The package's module.exports is the fastify-plugin-wrapped plugin (it decorates this context); its `default` and
// `fastifySSE` are the bare function, and the two tsconfigs resolve its default import differently: require it.
const sse = createRequire(import.meta.url)('@fastify/sse') as FastifyPluginAsync<SSEPluginOptions>;

/** A comment line this often keeps proxies from closing an idle stream. */
export const LIVE_HEARTBEAT_MS = 20_000;

export default async function liveRoutes(app: App, opts: { live: LiveService }) {
  await app.register(sse, { heartbeatInterval: LIVE_HEARTBEAT_MS });
  // Open streams end when the server closes (a client reconnects to another process), or close() would wait on them.
  const open = new Set<() => void>();
  app.addHook('preClose', async () => {
    for (const end of open) end();
  });

  app.post('/live/ticket', {
    schema: {
      tags: ['live'],
      summary: 'A one-use ticket (60 s) to open the live event stream (EventSource cannot send the token header)',
      response: { 200: Envelope(LiveTicket) },
    },
    preHandler: app.requireUser,
  }, async (req) => ok(await opts.live.ticket(currentUser(req).id)));

  app.get('/live/events', {
    sse: 'only',
    schema: {
      tags: ['live'],
      summary: 'Server-sent events: {kind:"order"|"wallet"|"resync", orderId?, state?} whenever the user\'s orders or wallet change; "resync" first',
      security: [],
      querystring: LiveEventsQuery,
    },
  }, async (req, reply) => {
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
  });
}
