// Per-request context: the language of messages (header `lang`) and the authenticated user.
import fp from 'fastify-plugin';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { pickLocale, type Locale } from '../lib/i18n.ts';
import type { UserRow } from '../modules/auth/repository.ts';
import type { AuthService } from '../modules/auth/service.ts';

declare module 'fastify' {
  interface FastifyRequest {
    locale: Locale;
    user: UserRow | null;
  }
  interface FastifyInstance {
    /** preHandler for routes that need a session (header `token`); 401 otherwise. */
    requireUser: (req: FastifyRequest) => Promise<void>;
  }
}

export default fp(
  async function context(app: FastifyInstance, opts: { auth: AuthService }) {
    app.decorateRequest('locale', 'en-US');
    app.decorateRequest('user', null);
    app.addHook('onRequest', async (req) => {
      req.locale = pickLocale(req.headers.lang);
    });
    app.decorate('requireUser', async (req: FastifyRequest) => {
      const token = req.headers.token;
      req.user = await opts.auth.authenticate(Array.isArray(token) ? token[0] : token);
    });
  },
  { name: 'context' },
);

export function currentUser(req: FastifyRequest): UserRow {
  if (!req.user) throw new Error('route is missing the requireUser preHandler');
  return req.user;
}
