// The demo partner website on its own origin (another port): serves the built front end's files so that
// /demo/partner/ is a host page on a different origin from the Powerly server (npm start, browser tests).
import Fastify from 'fastify';
import fastifyStatic from '@fastify/static';
import { resolve } from 'node:path';

export async function startPartnerSite(distDir: string, port: number, host: string) {
  const site = Fastify({ logger: false });
  await site.register(fastifyStatic, { root: resolve(distDir), prefix: '/', index: ['index.html'] });
  const url = await site.listen({ port, host });
  return { site, url };
}
