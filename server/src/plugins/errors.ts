// The one error handler: every error becomes the envelope {code, msg, data: null} with the HTTP status
// mirroring the code. 4xx messages are clear and in the request's language; 5xx never carry internals.
import fp from 'fastify-plugin';
import type { FastifyError, FastifyInstance } from 'fastify';
import { failure } from '../lib/envelope.ts';
import { AppError, appErrorBody } from '../lib/errors.ts';
import { t } from '../lib/i18n.ts';

interface ValidationIssue {
  instancePath?: string;
  message?: string;
  params?: Record<string, unknown>;
}

function fieldOf(err: FastifyError): string {
  const v = (err.validation as ValidationIssue[] | undefined)?.[0];
  if (!v) return '';
  const missing = v.params?.missingProperty;
  const path = (v.instancePath ?? '').replace(/^\//, '').replace(/\//g, '.');
  return typeof missing === 'string' ? missing : path || String(err.validationContext ?? '');
}

export default fp(async function errors(app: FastifyInstance) {
  app.setErrorHandler((err: FastifyError, req, reply) => {
    const locale = req.locale;
    const app = err as unknown;
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
      const code = status === 401 || status === 403 || status === 404 || status === 409 || status === 422 ? status : 400;
      const key = code === 404 ? 'error.notFound' : status === 413 ? 'error.tooLarge' : 'error.badRequest';
      return reply.status(code).send(failure(code, t(locale, key)));
    }
    req.log.error({ err }, 'unhandled error');
    return reply.status(500).send(failure(500, t(locale, 'error.internal')));
  });

  app.setNotFoundHandler((req, reply) => {
    reply.status(404).send(failure(404, t(req.locale, 'error.notFound')));
  });
}, { name: 'errors' });
