// The stored images served back at /media/<key>, whatever the store: public (a venue's logo is on the rider map),
// immutable (a key names its content), never sniffed into another type by the browser.
import type { FastifyInstance } from 'fastify';
import { MEDIA_KEY, type MediaStore } from './store.ts';

export async function mediaRoutes(app: FastifyInstance, opts: { store: MediaStore }) {
  app.get<{ Params: { '*': string } }>('/media/*', { schema: { hide: true } }, async (req, reply) => {
    const key = req.params['*'];
    const found = MEDIA_KEY.test(key) ? await opts.store.get(key) : undefined;
    if (!found) return reply.status(404).type('text/plain; charset=utf-8').send('Not found\n');
    return reply
      .header('Cache-Control', 'public, max-age=31536000, immutable')
      .header('X-Content-Type-Options', 'nosniff')
      .header('Content-Security-Policy', "default-src 'none'; sandbox")
      .type(found.contentType)
      .send(Buffer.from(found.bytes));
  });
}
