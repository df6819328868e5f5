// Sandbox sign-in peers served by this server: the OAuth issuer (JWKS and token minting for Google, Apple and
// Facebook in sandbox mode) and the SMS outbox (read by tests and the demo page). Registered only for the
// providers that run in sandbox mode.
import { Type } from 'typebox';
import type { App } from '../../lib/route.ts';
import type { SignInRepository } from './repository.ts';
import type { SandboxIssuer } from './sandbox-issuer.ts';

export default async function sandboxSignInRoutes(
  app: App,
  opts: { issuer: SandboxIssuer; outbox: SignInRepository; sandbox: string[] },
) {
  app.get('/sandbox-oauth/v1/jwks', { schema: { hide: true } }, async () => opts.issuer.jwks);
  app.post(
    '/sandbox-oauth/v1/token',
    {
      schema: {
        hide: true,
        body: Type.Object({
          provider: Type.Union([Type.Literal('google'), Type.Literal('apple'), Type.Literal('facebook')]),
          sub: Type.String({ minLength: 1, maxLength: 64 }),
          name: Type.Optional(Type.String({ maxLength: 64 })),
        }),
      },
    },
    async (req, reply) => {
      if (!opts.sandbox.includes(req.body.provider)) return reply.code(404).send({ error: 'not in sandbox mode' });
      return { token: await opts.issuer.mint(req.body.provider, req.body.sub, req.body.name) };
    },
  );
  if (opts.sandbox.includes('sms')) {
    app.get(
      '/sandbox-sms/v1/messages',
      {
        schema: { hide: true, querystring: Type.Object({ to: Type.Optional(Type.String({ maxLength: 20 })) }) },
      },
      async (req) => {
        const rows = await opts.outbox.smsOutbox(req.query.to ?? null);
        return rows.map((r) => ({
          id: Number(r.id),
          to: r.to_number,
          body: r.body,
          at: new Date(r.created_at).toISOString(),
        }));
      },
    );
  }
}
