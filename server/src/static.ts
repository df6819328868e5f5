// Serves the built front end: dist/ at / (the SPA's index.html) and dist/demo/ at /demo/.
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance } from 'fastify';

export async function serveFrontEnd(app: FastifyInstance, distDir: string): Promise<boolean> {
  const root = resolve(distDir);
  if (!existsSync(resolve(root, 'index.html'))) {
    const msg = 'The front end is not built yet: run `npm run build` (or `npm start`), then restart the server.\n';
    app.get('/', { schema: { hide: true } }, async (_req, reply) => reply.type('text/plain; charset=utf-8').status(503).send(msg));
    app.get('/demo/', { schema: { hide: true } }, async (_req, reply) => reply.type('text/plain; charset=utf-8').status(503).send(msg));
    return false;
  }
  await app.register(fastifyStatic, {
    root,
    prefix: '/',
    index: ['index.html'],
    setHeaders(res, path) {
      if (path.endsWith('.html')) {
        res.header('Cache-Control', 'no-cache');
        // The app's own page may be framed by this origin's demo pages only.
        res.header('Content-Security-Policy', "frame-ancestors 'self'");
      } else if (path.includes('/assets/')) {
        res.header('Cache-Control', 'public, max-age=31536000, immutable');
      }
    },
  });
  return true;
}
