// Client adapters of the sign-in providers. Each real SDK (Google Identity Services, Sign in with Apple JS,
// the Facebook JS SDK, reCAPTCHA) loads lazily, only on the login screens, and only when this server runs
// the provider for real; in sandbox mode the server's sandbox issuer stands in (demo, tests).
import { loginConfig } from '../api/auth.ts';
import { siblingUrl } from '../api/client.ts';
import { randomId } from '../stores/session.ts';
import { persistentAtom } from '@nanostores/persistent';

export type OAuthProvider = 'google' | 'apple' | 'facebook';

/** Public client settings of the real providers (build-time; empty means the server decides: sandbox). */
const ENV = import.meta.env as Record<string, string | undefined>;
const CLIENT = {
  google: ENV.VITE_GOOGLE_CLIENT_ID ?? '',
  apple: ENV.VITE_APPLE_CLIENT_ID ?? '',
  facebook: ENV.VITE_FACEBOOK_APP_ID ?? '',
  recaptcha: ENV.VITE_RECAPTCHA_SITE_KEY ?? '',
};

let config: Promise<{ sandbox: string[] }> | null = null;
export function sandboxProviders(): Promise<string[]> {
  config ??= loginConfig().catch((e: unknown) => {
    config = null;
    throw e;
  });
  return config.then((c) => c.sandbox);
}

/** One shared promise per script (a failed load may be retried). */
const scripts = new Map<string, Promise<void>>();
export function loadScript(src: string): Promise<void> {
  let p = scripts.get(src);
  if (!p) {
    p = new Promise<void>((resolve, reject) => {
      const s = document.createElement('script');
      s.src = src;
      s.async = true;
      s.onload = () => resolve();
      s.onerror = () => {
        scripts.delete(src);
        reject(new Error(`failed to load ${src}`));
      };
      document.head.appendChild(s);
    });
    scripts.set(src, p);
  }
  return p;
}

/** A stable sandbox identity per device, so signing in again finds the same user. */
const $sandboxSubject = persistentAtom<string>('sandboxSubject', '');
function sandboxSubject(): string {
  if (!$sandboxSubject.get()) $sandboxSubject.set(randomId().slice(0, 18));
  return $sandboxSubject.get();
}

async function sandboxToken(provider: OAuthProvider): Promise<string> {
  const res = await fetch(siblingUrl('/sandbox-oauth/v1/token'), {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ provider, sub: `${provider}-${sandboxSubject()}` }),
  });
  if (!res.ok) throw new Error('sandbox issuer refused');
  return ((await res.json()) as { token: string }).token;
}

interface GoogleId {
  accounts: {
    id: { initialize(o: { client_id: string; callback: (r: { credential: string }) => void }): void; prompt(): void };
  };
}
interface AppleId {
  auth: { init(o: Record<string, unknown>): void; signIn(): Promise<{ authorization: { id_token: string } }> };
}
interface FacebookSdk {
  init(o: Record<string, unknown>): void;
  login(cb: (r: { authResponse?: { accessToken: string } }) => void, o?: Record<string, unknown>): void;
}

async function realToken(provider: OAuthProvider): Promise<string> {
  const w = window as unknown as { google?: GoogleId; AppleID?: AppleId; FB?: FacebookSdk };
  if (provider === 'google') {
    await loadScript('https://accounts.google.com/gsi/client');
    return new Promise((resolve) => {
      w.google!.accounts.id.initialize({ client_id: CLIENT.google, callback: (r) => resolve(r.credential) });
      w.google!.accounts.id.prompt();
    });
  }
  if (provider === 'apple') {
    await loadScript('https://appleid.cdn-apple.com/appleauth/static/jsapi/appleid/1/en_US/appleid.auth.js');
    w.AppleID!.auth.init({
      clientId: CLIENT.apple,
      scope: 'name email',
      redirectURI: location.origin + location.pathname,
      usePopup: true,
    });
    return (await w.AppleID!.auth.signIn()).authorization.id_token;
  }
  await loadScript('https://connect.facebook.net/en_US/sdk.js');
  w.FB!.init({ appId: CLIENT.facebook, version: 'v19.0', cookie: false, xfbml: false });
  return new Promise((resolve, reject) => {
    w.FB!.login((r) => (r.authResponse ? resolve(r.authResponse.accessToken) : reject(new Error('cancelled'))), {
      scope: 'public_profile',
    });
  });
}

/** The provider's token for the server to verify: the real SDK, or the sandbox issuer when the server says so. */
export async function providerToken(provider: OAuthProvider): Promise<string> {
  const sandbox = await sandboxProviders();
  return sandbox.includes(provider) ? sandboxToken(provider) : realToken(provider);
}

/** The reCAPTCHA token for sendVerifyCode (v3, action 'sms'); in sandbox mode the test-mode token. */
export async function botToken(): Promise<string> {
  const sandbox = await sandboxProviders();
  if (sandbox.includes('recaptcha') || !CLIENT.recaptcha) return 'sandbox-web-token';
  await loadScript(`https://www.google.com/recaptcha/api.js?render=${encodeURIComponent(CLIENT.recaptcha)}`);
  const g = (
    window as unknown as {
      grecaptcha: { ready(cb: () => void): void; execute(k: string, o: { action: string }): Promise<string> };
    }
  ).grecaptcha;
  await new Promise<void>((r) => g.ready(r));
  return g.execute(CLIENT.recaptcha, { action: 'sms' });
}

/** SHA-256 hex (WebCrypto) of the sign material. */
export async function sha256Hex(s: string): Promise<string> {
  const d = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(s));
  return [...new Uint8Array(d)].map((b) => b.toString(16).padStart(2, '0')).join('');
}
