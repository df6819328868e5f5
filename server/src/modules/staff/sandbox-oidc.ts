// The sandbox's OpenID Connect issuer (SANDBOX=on only; buildApp never registers it otherwise): what a company's
// identity provider is to the back office's single sign-on, served by this server at /sandbox-oidc for the demo
// and tests. Discovery, JWKS, an authorization endpoint with a sign-in form (any e-mail: it is a test identity
// provider), and a token endpoint that checks the client's secret, the redirect URI and PKCE (S256). The code is
// a short-lived token signed by the issuer's key, so any process holding the key can redeem it.
import { createHash } from 'node:crypto';
import { exportJWK, generateKeyPair, jwtVerify, SignJWT, type CryptoKey, type JSONWebKeySet } from 'jose';
import { Type } from 'typebox';
import type { FastifyRequest } from 'fastify';
import type { Clock } from '../../lib/clock.ts';
import type { App } from '../../lib/route.ts';

export const SANDBOX_OIDC_PATH = '/sandbox-oidc';
export const SANDBOX_OIDC_CLIENT = 'powerly-ops-sandbox';

const esc = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

export class SandboxOidc {
  private constructor(
    private readonly key: CryptoKey,
    private readonly pub: CryptoKey,
    private readonly jwks: JSONWebKeySet,
    readonly clientSecret: string,
    private readonly clock: Clock,
  ) {}

  static async create(clock: Clock, clientSecret: string) {
    const { privateKey, publicKey } = await generateKeyPair('ES256');
    return new SandboxOidc(
      privateKey,
      publicKey,
      { keys: [{ ...(await exportJWK(publicKey)), kid: 'ops-sandbox-1', alg: 'ES256', use: 'sig' }] },
      clientSecret,
      clock,
    );
  }

  private now() {
    return Math.floor(this.clock.now().getTime() / 1000);
  }

  private sign(claims: Record<string, unknown>, aud: string, ttlS: number, issuer: string) {
    return new SignJWT(claims)
      .setProtectedHeader({ alg: 'ES256', kid: 'ops-sandbox-1' })
      .setIssuer(issuer)
      .setAudience(aud)
      .setIssuedAt(this.now())
      .setExpirationTime(this.now() + ttlS)
      .sign(this.key);
  }

  routes() {
    // The server reaches its own issuer in process (injectFetch), saying which scheme the browser uses.
    const issuerOf = (req: FastifyRequest) =>
      `${String(req.headers['x-forwarded-proto'] ?? req.protocol)}://${req.host}${SANDBOX_OIDC_PATH}`;
    const AuthQuery = Type.Object({
      client_id: Type.String(),
      redirect_uri: Type.String(),
      state: Type.String(),
      nonce: Type.Optional(Type.String()),
      code_challenge: Type.String(),
      code_challenge_method: Type.Literal('S256'),
      response_type: Type.Literal('code'),
      scope: Type.String(),
    });
    return async (app: App) => {
      app.get('/.well-known/openid-configuration', { schema: { hide: true } }, async (req) => {
        const iss = issuerOf(req);
        return {
          issuer: iss,
          authorization_endpoint: `${iss}/authorize`,
          token_endpoint: `${iss}/token`,
          jwks_uri: `${iss}/jwks`,
          response_types_supported: ['code'],
          subject_types_supported: ['public'],
          id_token_signing_alg_values_supported: ['ES256'],
          code_challenge_methods_supported: ['S256'],
          token_endpoint_auth_methods_supported: ['client_secret_basic'],
          scopes_supported: ['openid', 'email', 'profile'],
        };
      });
      app.get('/jwks', { schema: { hide: true } }, async () => this.jwks);

      // The sign-in form: an e-mail and a button (the demo's owner is pre-filled by the login_hint).
      app.get(
        '/authorize',
        {
          schema: {
            hide: true,
            querystring: Type.Intersect([AuthQuery, Type.Object({ login_hint: Type.Optional(Type.String()) })]),
          },
        },
        async (req, reply) => {
          const q = req.query;
          if (q.client_id !== SANDBOX_OIDC_CLIENT) return reply.status(400).send({ error: 'unauthorized_client' });
          const hidden = Object.entries(q)
            .filter(([k]) => k !== 'login_hint')
            .map(([k, v]) => `<input type="hidden" name="${esc(k)}" value="${esc(String(v))}">`)
            .join('');
          return reply.type('text/html; charset=utf-8')
            .send(`<!doctype html><html lang="en"><meta charset="utf-8"><title>Sandbox identity provider</title>
<main><h1>Sandbox identity provider</h1><form method="post" action="authorize">${hidden}
<label>E-mail <input name="email" type="email" required autocomplete="username" value="${esc(q.login_hint ?? '')}"></label>
<button type="submit">Sign in</button></form></main></html>`);
        },
      );

      app.post(
        '/authorize',
        {
          schema: {
            hide: true,
            body: Type.Intersect([AuthQuery, Type.Object({ email: Type.String({ format: 'email' }) })]),
          },
        },
        async (req, reply) => {
          const b = req.body;
          if (b.client_id !== SANDBOX_OIDC_CLIENT) return reply.status(400).send({ error: 'unauthorized_client' });
          const code = await this.sign(
            { email: b.email, redirect_uri: b.redirect_uri, cc: b.code_challenge, nonce: b.nonce ?? null, use: 'code' },
            SANDBOX_OIDC_CLIENT,
            60,
            issuerOf(req),
          );
          const to = new URL(b.redirect_uri);
          to.searchParams.set('code', code);
          to.searchParams.set('state', b.state);
          to.searchParams.set('iss', issuerOf(req));
          return reply.redirect(to.href);
        },
      );

      app.post(
        '/token',
        {
          schema: {
            hide: true,
            body: Type.Object({
              grant_type: Type.Literal('authorization_code'),
              code: Type.String(),
              redirect_uri: Type.String(),
              code_verifier: Type.String(),
            }),
          },
        },
        async (req, reply) => {
          const [id, secret] = Buffer.from((req.headers.authorization ?? '').replace(/^Basic /, ''), 'base64')
            .toString()
            .split(':')
            .map((s) => decodeURIComponent(s));
          if (id !== SANDBOX_OIDC_CLIENT || secret !== this.clientSecret)
            return reply.status(401).send({ error: 'invalid_client' });
          const iss = issuerOf(req);
          const claims = await jwtVerify(req.body.code, this.pub, {
            issuer: iss,
            audience: SANDBOX_OIDC_CLIENT,
            currentDate: this.clock.now(),
          })
            .then(
              (r) => r.payload,
              () => undefined,
            )
            .catch(() => undefined);
          const challenge = createHash('sha256').update(req.body.code_verifier).digest('base64url');
          if (
            !claims ||
            claims.use !== 'code' ||
            claims.redirect_uri !== req.body.redirect_uri ||
            claims.cc !== challenge
          ) {
            return reply.status(400).send({ error: 'invalid_grant' });
          }
          const email = String(claims.email);
          const idToken = await this.sign(
            {
              sub: `sandbox:${email.toLowerCase()}`,
              email,
              email_verified: true,
              ...(claims.nonce ? { nonce: claims.nonce } : {}),
            },
            SANDBOX_OIDC_CLIENT,
            300,
            iss,
          );
          return {
            access_token: await this.sign({ sub: email, use: 'access' }, iss, 300, iss),
            token_type: 'Bearer',
            expires_in: 300,
            id_token: idToken,
          };
        },
      );
    };
  }
}

/** A fetch that answers from this app's own routes (the server reaching its sandbox issuer without a socket). */
export function injectFetch(app: { inject: App['inject'] }): typeof fetch {
  return (async (input: string | URL | Request, init?: RequestInit) => {
    const u = new URL(input instanceof Request ? input.url : String(input));
    const headers = Object.fromEntries(new Headers(init?.headers).entries());
    const res = await app.inject({
      method: (init?.method ?? 'GET') as 'GET',
      url: u.pathname + u.search,
      headers: { ...headers, host: u.host, 'x-forwarded-proto': u.protocol.replace(':', '') },
      payload: init?.body == null ? undefined : String(init.body as string),
    });
    const out = new Headers();
    for (const [k, v] of Object.entries(res.headers)) for (const x of [v ?? []].flat()) out.append(k, String(x));
    return new Response(res.statusCode === 204 || res.statusCode === 304 ? null : new Uint8Array(res.rawPayload), {
      status: res.statusCode,
      headers: out,
    });
  }) as typeof fetch;
}
