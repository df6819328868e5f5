// An ops console over app.inject: a cookie jar, the CSRF header, the origin a browser would have.
import type { PowerlyApp } from '../../src/app.ts';
import { SoftAuthenticator } from './authenticator.ts';

export const HOST = 'localhost:8080';
export const ORIGIN = `http://${HOST}`;

export class OpsConsole {
  readonly jar = new Map<string, string>();
  csrf = '';
  constructor(
    readonly app: PowerlyApp,
    readonly headers: Record<string, string> = {},
  ) {}

  cookie() {
    return [...this.jar].map(([k, v]) => `${k}=${v}`).join('; ');
  }

  async call(
    method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE',
    url: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ) {
    const res = await this.app.inject({
      method,
      url:
        url.startsWith('/') && !url.startsWith('/ops-api') && !url.startsWith('/sandbox') ? `/ops-api/v1${url}` : url,
      headers: {
        host: HOST,
        cookie: this.cookie(),
        ...(this.csrf ? { 'x-csrf-token': this.csrf } : {}),
        ...this.headers,
        ...headers,
      },
      ...(body === undefined ? {} : typeof body === 'string' ? { payload: body } : { payload: body as object }),
    });
    for (const c of [res.headers['set-cookie'] ?? []].flat()) {
      const [pair, ...attrs] = c.split(';');
      const [k, v] = pair!.split('=') as [string, string];
      if (attrs.some((a) => a.trim() === 'Max-Age=0')) this.jar.delete(k);
      else this.jar.set(k, v);
    }
    return res;
  }

  /** GET /session: the CSRF token (before and after signing in). */
  async session() {
    const res = await this.call('GET', '/session');
    const body = res.json<{ csrf: string; me?: { id: string; email: string; permissions: string[] } }>();
    this.csrf = body.csrf;
    return body;
  }

  /** Accepts an invitation with a new passkey; signed in afterwards. */
  async accept(token: string, key = new SoftAuthenticator(ORIGIN)) {
    await this.session();
    const options = (await this.call('POST', '/invitation/options', { token })).json<{ challenge: string }>();
    const res = await this.call('POST', '/invitation/accept', { token, credential: key.register(options) });
    if (res.statusCode !== 200) throw new Error(`accept: ${res.statusCode} ${res.body}`);
    this.csrf = res.json<{ csrf: string }>().csrf;
    return key;
  }

  async signInWith(key: SoftAuthenticator) {
    await this.session();
    const options = (await this.call('POST', '/session/passkey/options')).json<{ challenge: string }>();
    const res = await this.call('POST', '/session/passkey', { credential: key.assert(options) });
    if (res.statusCode === 200) this.csrf = res.json<{ csrf: string }>().csrf;
    return res;
  }
}
