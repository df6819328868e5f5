// The sandbox provider's public tokenisation endpoint (what a card provider's JS SDK would call). Its responses
// are the provider's own shape, not the app envelope: {id, card} or {error: {code, message}} with HTTP 402.
import { SandboxToken, SandboxTokenBody } from '#contract/payments.ts';
import type { App } from '../../lib/route.ts';
import { SandboxError, type SandboxCardProvider } from './sandbox.ts';

export default async function sandboxRoutes(app: App, opts: { sandbox: SandboxCardProvider }) {
  app.setErrorHandler((err: Error & { validation?: unknown; statusCode?: number }, _req, reply) => {
    if (err instanceof SandboxError)
      return reply.status(err.status).send({ error: { code: err.code, message: err.message } });
    if (err.validation || (err.statusCode && err.statusCode < 500)) {
      return reply
        .status(400)
        .send({ error: { code: 'parameter_invalid', message: 'The request parameters are invalid.' } });
    }
    reply.log.error({ err }, 'sandbox error');
    return reply.status(500).send({ error: { code: 'api_error', message: 'An error occurred on the sandbox.' } });
  });

  app.post(
    '/tokens',
    {
      schema: {
        tags: ['sandbox-pay'],
        summary: 'Sandbox card tokenisation (test mode of the card provider); tokens are single-use',
        body: SandboxTokenBody,
        response: { 200: SandboxToken },
      },
    },
    async (req) => opts.sandbox.tokenize(req.body),
  );
}
