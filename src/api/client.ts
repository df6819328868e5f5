// The one HTTP client, ofetch with the API's rules in its options and hooks:
//   { code, msg, data } — code 0 success (POST also 9); 1 'Processing' (poll again); 401 (status or code)
//   clears the session; 403 'insufficient permission'; otherwise msg. Network error and 10 s timeout get
//   their own kinds. Error responses carry the envelope in the body with a non-2xx status.
import { ofetch, type FetchContext, type FetchOptions } from 'ofetch';
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
  /** Send an empty agentOpenId header (the nearby-shops call). */
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

/** What a request carries to the hooks beside ofetch's own options. */
interface CallOptions {
  call: Pick<RequestOptions, 'noToken' | 'noAgent' | 'idempotencyKey' | 'json'> & {
    /** The caller's signal, if any: the request's own signal follows it. */
    signal?: AbortSignal;
    /** Ends the request's timeout. */
    done?: () => void;
  };
}
type Ctx = FetchContext<unknown, 'json'> & { options: CallOptions };

/**
 * A signal that aborts with `signal` (if any) or, with a TimeoutError, after `ms`; `done` ends the timer. (Not
 * ofetch's `timeout` option: it needs AbortSignal.any and AbortSignal.timeout, which older in-app browsers lack.)
 */
function withTimeout(signal: AbortSignal | undefined, ms: number): { signal: AbortSignal; done: () => void } {
  const ctrl = new AbortController();
  const follow = () => ctrl.abort(signal?.reason);
  const timer = setTimeout(() => ctrl.abort(new DOMException('The request timed out', 'TimeoutError')), ms);
  signal?.addEventListener('abort', follow, { once: true });
  if (signal?.aborted) follow();
  return {
    signal: ctrl.signal,
    done: () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', follow);
    },
  };
}

/** The body as JSON, or undefined (an empty body, a proxy's HTML page): the envelope rules decide what it means. */
function parseJson(text: string): unknown {
  try {
    return text ? (JSON.parse(text) as unknown) : undefined;
  } catch {
    return undefined;
  }
}

/** The envelope's verdict on a response: its data, or the ApiError to reject with. */
function envelopeResult(
  method: string,
  status: number,
  ok: boolean,
  body: unknown,
  onUnauthorized?: () => void,
): { data: unknown } | ApiError {
  const env = (body && typeof body === 'object' ? body : undefined) as Partial<Envelope> | undefined;
  const code = typeof env?.code === 'number' ? env.code : -1;
  const msg = typeof env?.msg === 'string' && env.msg ? env.msg : undefined;
  if (status === 401 || code === 401) {
    onUnauthorized?.();
    return new ApiError('unauthorized', msg ?? DEFAULT_MESSAGES.unauthorized, 401, status);
  }
  if (status === 403 || code === 403) return new ApiError('forbidden', DEFAULT_MESSAGES.forbidden, 403, status);
  if (ok && (code === 0 || (method === 'POST' && code === 9))) return { data: env!.data };
  // 1, or an operator back end's Chinese 'requesting' (请求中) under any code: pollers retry.
  if (code === 1 || msg === '请求中') return new ApiError('processing', msg ?? DEFAULT_MESSAGES.processing, 1, status);
  if (code === -1) {
    // No envelope (a proxy's error page, an empty body): a server error for the user.
    const kind = status >= 500 || ok ? 'network' : 'business';
    return new ApiError(kind, DEFAULT_MESSAGES[kind], status, status);
  }
  return new ApiError('business', msg ?? DEFAULT_MESSAGES.business, code, status, env?.data);
}

export function createClient(config: ClientConfig): ApiClient {
  const timeout = config.timeout ?? REQUEST_TIMEOUT_MS;
  const $fetch = ofetch.create(
    {
      // One attempt: money-moving calls retry with their idempotency key, pollers poll; the envelope decides.
      retry: false,
      ignoreResponseError: true,
      parseResponse: parseJson,
      onRequest(ctx) {
        const { options } = ctx as Ctx;
        const call = options.call;
        // The base may change after creation (the embed points the app at its own origin).
        options.baseURL = config.baseURL ?? DEFAULT_API_BASE;
        const headers = options.headers;
        const h = config.headers();
        headers.set('accept', 'application/json');
        if (!call.noToken) {
          if (h.token) headers.set('token', h.token);
          if (h.lang) headers.set('lang', h.lang);
        }
        if (call.noAgent) headers.set('agentOpenId', '');
        else if (h.agentOpenId) headers.set('agentOpenId', h.agentOpenId);
        if (call.idempotencyKey) headers.set('Idempotency-Key', call.idempotencyKey);
        // Form-encoded unless JSON (ofetch encodes a body object by its content-type).
        if (options.body)
          headers.set('content-type', call.json ? 'application/json' : 'application/x-www-form-urlencoded');
        const t = withTimeout(call.signal, timeout);
        options.signal = t.signal;
        call.done = t.done;
      },
      onRequestError(ctx) {
        const { options, error } = ctx as Ctx;
        options.call.done?.();
        if (options.call.signal?.aborted) throw error; // the caller gave up: its own abort, as it is
        const kind = isTimeout(error) || isTimeout(options.signal?.reason) ? 'timeout' : 'network';
        throw new ApiError(kind, DEFAULT_MESSAGES[kind], 0);
      },
      onResponse(ctx) {
        const { options } = ctx as Ctx;
        const { response } = ctx;
        options.call.done?.();
        const result = envelopeResult(
          options.method ?? 'GET',
          response.status,
          response.ok,
          response._data,
          config.onUnauthorized,
        );
        if (result instanceof ApiError) throw result;
        response._data = result.data;
      },
    },
    { fetch: config.fetch ?? ((...a) => globalThis.fetch(...a)) },
  );

  function request<T>(method: 'GET' | 'POST', path: string, opts: RequestOptions = {}): Promise<T> {
    const { noToken, noAgent, idempotencyKey, json, signal } = opts;
    const options: FetchOptions<'json'> & CallOptions = {
      method,
      query: clean(opts.query),
      // JSON keeps its values (JSON.stringify leaves out the undefined ones); a form sends flat values as text.
      body: method === 'POST' && opts.body ? (json ? opts.body : clean(opts.body)) : undefined,
      call: { noToken, noAgent, idempotencyKey, json, signal },
    };
    return $fetch<T>(path.replace(/^\//, ''), options);
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
