// The console's one client of the ops API (docs/api.md "Ops API"): JSON, the session cookie, X-CSRF-Token on
// every unsafe method, the operator's language; an error carries the server's message in that language.
import { atom } from 'nanostores';
import type { SessionState } from '../contract/ops/staff.ts';
import { $activeLang } from '../i18n/index.ts';

export const OPS_API = '/ops-api/v1';

export class OpsApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** The session as the server last said (undefined until the first answer). */
export const $session = atom<SessionState | undefined>(undefined);

export async function opsCall<T>(
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE',
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<T> {
  return (await opsCallTagged<T>(method, path, body, headers)).data;
}

/** The same, with the ETag of the answer (what a later save sends as If-Match). */
export async function opsCallTagged<T>(
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE',
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<{ data: T; etag: string }> {
  const res = await fetch(`${OPS_API}${path}`, {
    method,
    credentials: 'same-origin',
    headers: {
      accept: 'application/json',
      lang: $activeLang.get(),
      ...(body === undefined
        ? {}
        : { 'content-type': body instanceof Blob ? body.type || 'application/octet-stream' : 'application/json' }),
      ...(method === 'GET' ? {} : { 'x-csrf-token': $session.get()?.csrf ?? '' }),
      ...headers,
    },
    // A file goes as it is (an image upload); anything else as JSON.
    body: body === undefined ? undefined : body instanceof Blob ? body : JSON.stringify(body),
  });
  const data = (await res.json().catch(() => null)) as (T & { message?: string }) | null;
  if (!res.ok) {
    // A session that ended (idle timeout, signed out elsewhere): back to the sign-in screen.
    if (res.status === 401 && $session.get()?.me) void loadSession();
    throw new OpsApiError(res.status, data?.message ?? res.statusText);
  }
  return { data: data as T, etag: res.headers.get('etag') ?? '' };
}

export async function loadSession(): Promise<SessionState> {
  const s = await opsCall<SessionState>('GET', '/session');
  $session.set(s);
  return s;
}

/** The URL of a GET with these query parameters (empty ones left out). */
export function withQuery(path: string, q: Record<string, string | number | undefined>): string {
  const p = new URLSearchParams();
  for (const [k, v] of Object.entries(q)) if (v !== undefined && v !== '') p.set(k, String(v));
  const s = p.toString();
  return s ? `${path}?${s}` : path;
}
