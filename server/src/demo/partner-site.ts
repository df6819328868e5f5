// The demo partner website on its own origin (another port): serves the built front end's files so that
// /demo/partner/ is a host page on a different origin from the Powerly server (npm start, browser tests).
// It sends the app's security headers (plugins/security.ts), its pages' policy allowing the Powerly server's
// origin, where the page loads the loader from and frames the widget.
import Fastify, { type FastifyRequest } from 'fastify';
import fastifyStatic from '@fastify/static';
import { resolve } from 'node:path';
import securityHeaders, { pageCsp } from '../plugins/security.ts';

/**
 * The Powerly server's origin for this request: `api`'s when configured, else the page's own host one port down
 * (what demo/partner/partner.ts falls back to). Undefined when the Host header names no plain host.
 */
function apiOrigin(req: FastifyRequest, api: string | undefined): string | undefined {
  if (api) return new URL(api).origin;
  const host = /^([a-z0-9.-]+|\[[0-9a-f:.]+\]):(\d{1,5})$/i.exec(req.host);
  if (!host || Number(host[2]) < 2) return undefined;
  return `${req.protocol}://${host[1]}:${Number(host[2]) - 1}`;
}

/**
 * `api`: the Powerly server the partner page loads its loader from, served to the page as /demo/partner/api.json
 * (never taken from the page's URL: a link with ?api=<attacker> would run the attacker's script on an origin the
 * demo agent allows to frame the widget). Default: the same host, one port down.
 */
export async function partnerSite(distDir: string, api?: string) {
  const site = Fastify({ logger: false });
  await site.register(securityHeaders);
  site.get('/demo/partner/api.json', async (_req, reply) =>
    reply.header('cache-control', 'no-store').send({ api: api ?? null }),
  );
  await site.register(fastifyStatic, { root: resolve(distDir), prefix: '/', index: ['index.html'] });
  site.addHook('onSend', async (req, reply) => {
    const type = String(reply.getHeader('content-type') ?? '');
    const origin = apiOrigin(req, api);
    // A 304 (a reload) has no content type, yet the browser takes its policy for the cached page: it gets the page's.
    if ((type.startsWith('text/html') || reply.statusCode === 304) && origin) {
      reply.header(
        'content-security-policy',
        pageCsp("'none'", { script: [origin], frame: [origin], connect: [origin] }),
      );
    }
  });
  return site;
}

export async function startPartnerSite(distDir: string, port: number, host: string, api?: string) {
  const site = await partnerSite(distDir, api);
  const url = await site.listen({ port, host });
  return { site, url };
}
