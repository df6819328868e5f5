// The demo partner website on its own origin (another port): serves the built front end's files so that
// /demo/partner/ is a host page on a different origin from the Powerly server (npm start, browser tests).
import Fastify from 'fastify';
import fastifyStatic from '@fastify/static';
import { resolve } from 'node:path';

/**
 * `api`: the Powerly server the partner page loads its loader from, served to the page as /demo/partner/api.json
 * (never taken from the page's URL: a link with ?api=<attacker> would run the attacker's script on an origin the
 * demo agent allows to frame the widget). Default: the same host, one port down.
 */
export async function startPartnerSite(distDir: string, port: number, host: string, api?: string) {
  const site = Fastify({ logger: false });
  site.get('/demo/partner/api.json', async (_req, reply) => reply.header('cache-control', 'no-store').send({ api: api ?? null }));
  await site.register(fastifyStatic, { root: resolve(distDir), prefix: '/', index: ['index.html'] });
  const url = await site.listen({ port, host });
  return { site, url };
}
