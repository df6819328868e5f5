// Where a payment may send its customer back (3-D Secure, a provider's page): the app's own origins or the agent's
// registered ones. Checked when a payment starts (400 naming returnUrl); the return redirect then keeps only the
// path (methods/routes.ts resumePath), never another host.
import { badRequest } from '../../lib/errors.ts';

export interface ReturnOrigins {
  /** The app's own origins (APP_ORIGINS, else PUBLIC_URL's). */
  appOrigins?: string[];
  /** Test mode: the app served from this machine (http://localhost:<any port>, 127.0.0.1) is the app's own too. */
  loopbackIsApp?: boolean;
  /** An agent's registered origins (the embed's agents). */
  agentOrigins?: (agent: string) => Promise<string[]>;
}

/** Throws a 400 naming returnUrl unless `url` is an http(s) URL, without credentials, on an allowed origin. */
export async function checkReturnUrl(url: string | undefined, agent: string, o: ReturnOrigins) {
  if (url === undefined) return;
  const bad = () => badRequest('error.validation.field', { field: 'returnUrl' });
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw bad();
  }
  if ((u.protocol !== 'https:' && u.protocol !== 'http:') || u.username || u.password) throw bad();
  if (o.appOrigins?.includes(u.origin)) return;
  if (o.loopbackIsApp && u.protocol === 'http:' && ['localhost', '127.0.0.1', '[::1]'].includes(u.hostname)) return;
  if ((await o.agentOrigins?.(agent))?.includes(u.origin)) return;
  throw bad();
}

/** Only a path of our own app is kept as the place to come back to (never another site: no open redirect). */
export function appPath(url: string | undefined): string | null {
  if (!url) return null;
  try {
    const u = new URL(url, 'http://app.invalid');
    // A path of our own origin only: leading slashes (and backslashes) collapse, so it never reads as another host.
    return `/${u.pathname.replace(/^[/\\]+/, '')}${u.search}${u.hash}`;
  } catch {
    return null;
  }
}
