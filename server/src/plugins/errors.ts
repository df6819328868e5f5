// The one error handler: every error becomes the envelope {code, msg, data: null} with the HTTP status
// mirroring the code. 4xx messages are clear and in the request's language; 5xx never carry internals.
import fp from 'fastify-plugin';
import type { FastifyError, FastifyInstance } from 'fastify';
import { failure } from '../lib/envelope.ts';
import { AppError, appErrorBody, UpstreamUnavailable } from '../lib/errors.ts';
import { t } from '../lib/i18n.ts';

interface ValidationIssue {
  instancePath?: string;
  message?: string;
  params?: Record<string, unknown>;
}

/** The field a failed validation names (a missing or undeclared one included), as `path.to.field`. */
export function fieldOf(err: FastifyError): string {
  const v = (err.validation as ValidationIssue[] | undefined)?.[0];
  if (!v) return '';
  const named = v.params?.missingProperty ?? v.params?.additionalProperty;
  const path = (v.instancePath ?? '').replace(/^\//, '').replace(/\//g, '.');
  if (typeof named === 'string') return path ? `${path}.${named}` : named;
  return path || String(err.validationContext ?? '');
}

export default fp(
  async function errors(app: FastifyInstance) {
    app.setErrorHandler((err: FastifyError, req, reply) => {
      const locale = req.locale;
      const app = err as unknown;
      if (app instanceof UpstreamUnavailable)
        req.log.warn({ provider: app.provider, err: app.cause }, 'an outside service failed');
      if (app instanceof AppError) {
        return reply.status(app.code).send(appErrorBody(app, locale));
      }
      if (err.validation) {
        const field = fieldOf(err);
        const msg = field ? t(locale, 'error.validation.field', { field }) : t(locale, 'error.validation');
        return reply.status(400).send(failure(400, msg));
      }
      const status = err.statusCode ?? 500;
      if (status === 429) return reply.status(429).send(failure(429, t(locale, 'error.rateLimited'))); // plugins/rate-limit.ts
      if (status >= 400 && status < 500) {
        const code =
          status === 401 || status === 403 || status === 404 || status === 409 || status === 422 ? status : 400;
        const key = code === 404 ? 'error.notFound' : status === 413 ? 'error.tooLarge' : 'error.badRequest';
        return reply.status(code).send(failure(code, t(locale, key)));
      }
      req.log.error({ err }, 'unhandled error');
      return reply.status(500).send(failure(500, t(locale, 'error.internal')));
    });

    // A known path asked with another method: 405 with the methods it has (Allow), not 404.
    const routes: { pattern: RegExp; methods: Set<string> }[] = [];
    app.addHook('onRoute', (route) => {
      if (route.url.includes('*')) return; // a catch-all (the front end's files) says nothing of a method
      const source = `^${route.url
        .split('/')
        .map((part) => (part.startsWith(':') ? '[^/]+' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
        .join('/')}/?$`;
      let entry = routes.find((r) => r.pattern.source === source);
      if (!entry) routes.push((entry = { pattern: new RegExp(source), methods: new Set() }));
      for (const m of [route.method].flat()) entry.methods.add(m);
    });
    app.setNotFoundHandler((req, reply) => {
      const path = req.url.split('?')[0] ?? '';
      const allowed = new Set(routes.filter((r) => r.pattern.test(path)).flatMap((r) => [...r.methods]));
      if (allowed.size && !allowed.has(req.method)) {
        return reply
          .status(405)
          .header('allow', [...allowed].sort().join(', '))
          .send(failure(405, t(req.locale, 'error.methodNotAllowed')));
      }
      return reply.status(404).send(failure(404, t(req.locale, 'error.notFound')));
    });
  },
  { name: 'errors' },
);
