// The sandbox sign-in issuer: what Google, Apple and Facebook are in their test modes, served by this server
// for the demo and browser tests (the real SDKs cannot load here). It holds an ES256 key pair made at start,
// publishes its JWKS at /sandbox-oauth/v1/jwks and mints tokens at /sandbox-oauth/v1/token. The server's
// verifiers are pointed at these keys only when the provider is configured as "sandbox".
import { exportJWK, generateKeyPair, SignJWT, type JSONWebKeySet, type CryptoKey } from 'jose';
import type { Clock } from '../../lib/clock.ts';

export const SANDBOX_ISSUER = 'https://sandbox-oauth.powerly.invalid';
export const SANDBOX_AUDIENCE = {
  google: 'powerly-google-sandbox',
  apple: 'powerly-apple-sandbox',
  facebook: 'powerly-facebook-sandbox',
} as const;
export type SandboxProvider = keyof typeof SANDBOX_AUDIENCE;

export class SandboxIssuer {
  private constructor(
    private readonly key: CryptoKey,
    readonly jwks: JSONWebKeySet,
    private readonly clock: Clock,
  ) {}

  static async create(clock: Clock): Promise<SandboxIssuer> {
    const { privateKey, publicKey } = await generateKeyPair('ES256');
    const jwk = { ...(await exportJWK(publicKey)), kid: 'sandbox-1', alg: 'ES256', use: 'sig' };
    return new SandboxIssuer(privateKey, { keys: [jwk] }, clock);
  }

  /** A token for `provider` (an ID token for Google/Apple; the access token stand-in for Facebook). */
  async mint(provider: SandboxProvider, subject: string, name?: string, ttlS = 600): Promise<string> {
    const now = Math.floor(this.clock.now().getTime() / 1000);
    return new SignJWT({ ...(name ? { name } : {}) })
      .setProtectedHeader({ alg: 'ES256', kid: 'sandbox-1' })
      .setIssuer(SANDBOX_ISSUER)
      .setAudience(SANDBOX_AUDIENCE[provider])
      .setSubject(subject)
      .setIssuedAt(now)
      .setExpirationTime(now + ttlS)
      .sign(this.key);
  }
}
