// The one HTTP client: the spec §7 envelope rules, implemented once.
//   { code, msg, data } — code 0 success (POST also 9); 1 'Processing' (poll again); 401 (status or code)
//   clears the session; 403 'insufficient permission'; otherwise msg. Network error and 10 s timeout get
//   their own kinds. Error responses carry the envelope in the body with a non-2xx status.
import { $token, $agentOpenId, clearSession } from '../stores/session.ts';
import { $lang } from '../stores/locale.ts';
import type { EnvelopeOf } from '../contract/envelope.ts';

export const DEFAULT_API_BASE = '/cdb-app-api/v1/app/';
export const REQUEST_TIMEOUT_MS = 10_000;

export type ApiErrorKind = 'processing' | 'unauthorized' | 'forbidden' | 'business' | 'network' | 'timeout';

export class ApiError extends Error {
  override name = 'ApiError';
  constructor(
    readonly kind: ApiErrorKind,
    message: string,
    /** The envelope code (or HTTP status when the body had none). */
    readonly code: number,
    readonly status = 0,
    readonly data: unknown = undefined,
  ) {
    super(message);
  }
}

export function isProcessing(e: unknown): boolean {
  return e instanceof ApiError && e.kind === 'processing';
}

/** The wire envelope (src/contract/envelope.ts). */
export type Envelope<T = unknown> = EnvelopeOf<T>;

export interface ClientConfig {
  /** Base URL of the app API; relative (same origin) or absolute for the embed. */
  baseURL?: string;
  timeout?: number;
  /** Injected fetch (tests, embed). */
  fetch?: typeof globalThis.fetch;
  /** Current header values. */
  headers: () => { token?: string; lang?: string; agentOpenId?: string };
  /** Called once per 401 after which the request rejects. */
  onUnauthorized?: () => void;
}

/** A JSON body's values (nested objects and arrays only with `json`). */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [k: string]: JsonValue | undefined };

export interface RequestOptions {
  query?: Record<string, string | number | undefined>;
  /** Form-encoded by default (flat values, as text); with `json`, sent as JSON with its values as they are. */
  body?: Record<string, JsonValue | undefined>;
  json?: boolean;
  /** Omit token and lang (login calls). */
  noToken?: boolean;
  /** Money-moving POSTs: one key per user action, reused across retries of that action. */
  idempotencyKey?: string;
  signal?: AbortSignal;
  /** Send an empty agentOpenId header (the nearby-shops call, spec §7). */
  noAgent?: boolean;
}

/** English fallbacks; the UI translates by kind (see i18n errorText). */
const DEFAULT_MESSAGES: Record<ApiErrorKind, string> = {
  processing: 'Processing',
  unauthorized: 'Please log in again',
  forbidden: 'insufficient permission, contact administrator',
  business: 'Request failed',
  network: 'server error, please retry',
  timeout: 'server error, please retry',
};

function clean<T extends Record<string, unknown>>(o: T | undefined): Record<string, string> | undefined {
  if (!o) return undefined;
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(o)) if (v !== undefined && v !== null) out[k] = String(v);
  return out;
}

function isTimeout(e: unknown): boolean {
  for (let c: unknown = e, i = 0; c && i < 5; c = (c as { cause?: unknown }).cause, i++) {
    const name = (c as { name?: string }).name;
    if (name === 'TimeoutError') return true;
  }
  return false;
}

export interface ApiClient {
  get<T>(path: string, opts?: RequestOptions): Promise<T>;
  post<T>(path: string, opts?: RequestOptions): Promise<T>;
  config: ClientConfig;
}

/** base + path, one slash between; the query from `query` (undefined fields already dropped). */
function requestUrl(base: string, path: string, query: Record<string, string> | undefined): string {
  const url = base.endsWith('/') ? base + path : `${base}/${path}`;
  const q = query ? new URLSearchParams(query).toString() : '';
  return q ? `${url}${url.includes('?') ? '&' : '?'}${q}` : url;
}

/** The body as JSON, or undefined (an empty body, a proxy's HTML page). */
function parseJson(text: string): unknown {
  try {
    return text ? (JSON.parse(text) as unknown) : undefined;
  } catch {
    return undefined;
  }
}

// Plain fetch (no HTTP library: every byte counts in the embed's first load), with a timeout of its own that
// also follows the caller's signal.
export function createClient(config: ClientConfig): ApiClient {
  const doFetch: typeof globalThis.fetch = config.fetch ?? ((...a) => globalThis.fetch(...a));

  async function request<T>(method: 'GET' | 'POST', path: string, opts: RequestOptions = {}): Promise<T> {
    const h = config.headers();
    const headers: Record<string, string> = { accept: 'application/json' };
    if (!opts.noToken) {
      if (h.token) headers.token = h.token;
      if (h.lang) headers.lang = h.lang;
    }
    if (opts.noAgent) headers.agentOpenId = '';
    else if (h.agentOpenId) headers.agentOpenId = h.agentOpenId;
    if (opts.idempotencyKey) headers['Idempotency-Key'] = opts.idempotencyKey;
    let body: string | undefined;
    if (method === 'POST' && opts.body) {
      if (opts.json) {
        headers['content-type'] = 'application/json';
        body = JSON.stringify(opts.body); // undefined values are left out
      } else {
        headers['content-type'] = 'application/x-www-form-urlencoded';
        body = new URLSearchParams(clean(opts.body)).toString();
      }
    }
    const timeout = new AbortController();
    const timer = setTimeout(() => timeout.abort(new DOMException('The request timed out', 'TimeoutError')), config.timeout ?? REQUEST_TIMEOUT_MS);
    const follow = () => timeout.abort(opts.signal?.reason);
    opts.signal?.addEventListener('abort', follow, { once: true });
    if (opts.signal?.aborted) follow();
    let res: Response;
    let data: unknown;
    try {
      res = await doFetch(requestUrl(config.baseURL ?? DEFAULT_API_BASE, path.replace(/^\//, ''), clean(opts.query)), {
        method, headers, body, signal: timeout.signal,
      });
      data = parseJson(await res.text());
    } catch (e) {
      if (opts.signal?.aborted) throw e;
      const kind = isTimeout(e) || isTimeout(timeout.signal.reason) ? 'timeout' : 'network';
      throw new ApiError(kind, DEFAULT_MESSAGES[kind], 0);
    } finally {
      clearTimeout(timer);
      opts.signal?.removeEventListener('abort', follow);
    }
    const env = data as Partial<Envelope<T>> | undefined;
    const code = typeof env?.code === 'number' ? env.code : -1;
    const msg = typeof env?.msg === 'string' && env.msg ? env.msg : undefined;
    if (res.status === 401 || code === 401) {
      config.onUnauthorized?.();
      throw new ApiError('unauthorized', msg ?? DEFAULT_MESSAGES.unauthorized, 401, res.status);
    }
    if (res.status === 403 || code === 403) {
      throw new ApiError('forbidden', DEFAULT_MESSAGES.forbidden, 403, res.status);
    }
    if (res.ok && (code === 0 || (method === 'POST' && code === 9))) return env!.data as T;
    if (code === 1) throw new ApiError('processing', msg ?? DEFAULT_MESSAGES.processing, 1, res.status);
    if (code === -1) {
      // No envelope (a proxy's error page, an empty body): a server error for the user.
      const kind = res.status >= 500 || res.ok ? 'network' : 'business';
      throw new ApiError(kind, DEFAULT_MESSAGES[kind], res.status, res.status);
    }
    throw new ApiError('business', msg ?? DEFAULT_MESSAGES.business, code, res.status, env?.data);
  }

  return {
    config,
    get: (path, opts) => request('GET', path, opts),
    post: (path, opts) => request('POST', path, opts),
  };
}

// ---- The app's instance, bound to the stores ----

let unauthorizedHandler: () => void = () => clearSession();

/** The app decides where a 401 goes (login, or the code-link entry for tourists). */
export function onUnauthorized(fn: () => void): void {
  unauthorizedHandler = fn;
}

export const api = createClient({
  baseURL: DEFAULT_API_BASE,
  headers: () => ({ token: $token.get(), lang: $lang.get(), agentOpenId: $agentOpenId.get() }),
  onUnauthorized: () => unauthorizedHandler(),
});

/** For the embed: point the app at another origin's API. */
export function setApiBase(baseURL: string): void {
  api.config.baseURL = baseURL;
}

/** The origin-relative URL of a path outside the app API (e.g. the sandbox card provider). */
export function siblingUrl(path: string): string {
  const base = api.config.baseURL ?? DEFAULT_API_BASE;
  if (/^https?:\/\//.test(base)) return new URL(path, base).href;
  return path;
}
