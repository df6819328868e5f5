// Single sign-on (OpenID Connect, authorization code with PKCE) through openid-client. The issuer, client id and
// secret come from the configuration (OPS_OIDC_ISSUER, OPS_OIDC_CLIENT_ID, OPS_OIDC_CLIENT_SECRET); in the sandbox,
// the local issuer of sandbox-oidc.ts. The identity provider's verified e-mail signs in the staff member with
// that e-mail; nobody joins by signing in alone: a person joins by invitation (a single sign-on invitation of that
// e-mail is accepted at this sign-in, StaffService.signInBySso).
import * as oidc from 'openid-client';
import type { Clock } from '../../lib/clock.ts';
import { AppError, badRequest } from '../../lib/errors.ts';
import { randomToken } from '../../lib/ids.ts';
import type { StaffRepository } from './repository.ts';

export interface SsoSettings {
  /** The issuer's URL, or (the sandbox's own issuer) the URL for the console's origin. */
  issuer: string | ((origin: string) => string);
  clientId: string;
  clientSecret: string;
  /** Plain-HTTP issuers are allowed only for the sandbox's own. */
  insecure?: boolean;
  /** How the server reaches the issuer (the sandbox: its own routes, in process). */
  fetch?: typeof fetch;
}

const STATE_MS = 10 * 60_000;

export const ssoRefused = () => new AppError(401, 'ops.error.sso');

export function ssoSettingsFromEnv(env: NodeJS.ProcessEnv): SsoSettings | undefined {
  const { OPS_OIDC_ISSUER: issuer, OPS_OIDC_CLIENT_ID: clientId, OPS_OIDC_CLIENT_SECRET: clientSecret } = env;
  return issuer && clientId && clientSecret ? { issuer, clientId, clientSecret } : undefined;
}

export class SingleSignOn {
  private readonly configs = new Map<string, Promise<oidc.Configuration>>();

  constructor(
    private readonly settings: SsoSettings,
    private readonly repo: StaffRepository,
    private readonly clock: Clock,
  ) {}

  private configuration(origin: string): Promise<oidc.Configuration> {
    const issuer = typeof this.settings.issuer === 'string' ? this.settings.issuer : this.settings.issuer(origin);
    let config = this.configs.get(issuer);
    // The ID token's times are judged by the injected clock, as everything else is.
    const skew = Math.round((this.clock.now().getTime() - Date.now()) / 1000);
    config ??= oidc
      .discovery(
        new URL(issuer),
        this.settings.clientId,
        { [oidc.clockSkew]: skew },
        oidc.ClientSecretBasic(this.settings.clientSecret),
        {
          ...(this.settings.fetch ? { [oidc.customFetch]: this.settings.fetch as never } : {}),
          ...(this.settings.insecure ? { execute: [oidc.allowInsecureRequests] } : {}),
        },
      )
      .catch((err: unknown) => {
        this.configs.delete(issuer);
        throw err;
      });
    this.configs.set(issuer, config);
    return config;
  }

  /** Where to send the browser, and the ceremony's id (kept in a cookie until the callback). */
  async start(redirectUri: string): Promise<{ url: string; ceremony: string }> {
    const config = await this.configuration(new URL(redirectUri).origin);
    const verifier = oidc.randomPKCECodeVerifier();
    const state = oidc.randomState();
    const nonce = oidc.randomNonce();
    const ceremony = randomToken();
    await this.repo.insertCeremony(ceremony, {
      kind: 'oidc',
      challenge: state,
      staff_id: null,
      verifier,
      nonce,
      expires_at: new Date(this.clock.now().getTime() + STATE_MS),
    });
    const url = oidc.buildAuthorizationUrl(config, {
      redirect_uri: redirectUri,
      scope: 'openid email profile',
      state,
      nonce,
      code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
    });
    return { url: url.href, ceremony };
  }

  /** The e-mail the identity provider vouches for (verified), from the callback's URL. */
  async finish(callbackUrl: URL, redirectUri: string, ceremony: string | undefined): Promise<string> {
    const c = ceremony ? await this.repo.takeCeremony(ceremony, 'oidc') : undefined;
    if (!c || new Date(c.expires_at) <= this.clock.now() || !c.verifier) throw badRequest('ops.error.ceremony');
    const config = await this.configuration(new URL(redirectUri).origin);
    // The callback URL as the provider redirected to it (the redirect URI's origin and path, this request's query).
    const current = new URL(redirectUri);
    current.search = callbackUrl.search;
    const tokens = await oidc
      .authorizationCodeGrant(config, current, {
        pkceCodeVerifier: c.verifier,
        expectedState: c.challenge,
        expectedNonce: c.nonce ?? undefined,
        idTokenExpected: true,
      })
      .catch(() => undefined);
    const claims = tokens?.claims();
    const email = typeof claims?.email === 'string' && claims.email_verified !== false ? claims.email : undefined;
    if (!email) throw ssoRefused();
    return email;
  }
}
