// The one HTTP client of the provider adapters (every method adapter and the payout rails). It sends a call with a
// time limit, encodes a JSON or form body, reads the answer once, and maps what went wrong to ProviderError kinds
// the services read the same way for every provider:
//
//   network       the provider could not be reached, or its answer was cut off (no status: retried by jobs)
//   timeout       no answer within the time limit (status 504: a server-side fault, never the payer's)
//   bad_response  an answer that is not what the provider documents (not JSON where JSON is due)
//   and, for an adapter with no better code from the provider's own error body (statusError):
//   unauthorized (401/403), not_found (404), rate_limited (429), provider_unavailable (5xx), invalid_request (4xx)
//
// Each call is logged (debug; a failure at warn) with the provider, method, URL, status and duration only: no body
// (card fields, payer data) and no secret. URL query values and headers that carry credentials or signatures
// (Authorization, keys, tokens, signatures, passwords) are redacted before a line is written.
import { ProviderError } from './adapter.ts';

export interface HttpRequest {
  method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  url: string;
  headers?: Record<string, string>;
  /** A JSON body (content-type application/json unless headers say otherwise). */
  json?: unknown;
  /** A form body (application/x-www-form-urlencoded). */
  form?: Record<string, string> | URLSearchParams;
  /** A body already encoded (XML, a signed string): sent as is, with the caller's content-type. */
  body?: string;
  /** Overrides the client's time limit for this call. */
  timeoutMs?: number;
}

export interface HttpAnswer {
  status: number;
  ok: boolean;
  text: string;
  headers: Headers;
}

/** The adapters' log: pino's (Fastify's) or any object with these two calls. */
export interface HttpLog {
  debug(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
}

export interface HttpDeps {
  fetch: typeof fetch;
  log?: HttpLog;
  /** The time limit of a call; default DEFAULT_TIMEOUT_MS. */
  timeoutMs?: number;
}

export interface HttpClient {
  /** Sends a call; throws ProviderError('network' | 'timeout') when no complete answer came. */
  send(req: HttpRequest): Promise<HttpAnswer>;
  /** send() and the body read as JSON (an empty body reads as {}); a body that is not JSON is a bad_response. */
  json<T = Record<string, unknown>>(req: HttpRequest): Promise<HttpAnswer & { body: T }>;
}

export const DEFAULT_TIMEOUT_MS = 20_000;

/** Header names whose values are never logged. */
const SECRET_HEADER =
  /authori[sz]ation|signature|secret|token|key|password|cookie|^sign$|^x-.*-sign|verif-hash|wechatpay-serial/i;
/** Query parameter names whose values are never logged. */
const SECRET_PARAM = /key|secret|token|sign|password|pass$|pwd|auth|hash|checksum|cvv|cvc|card|pan/i;
export const REDACTED = '[redacted]';

/** A URL as it may be logged: the values of credential-like query parameters replaced. */
export function redactUrl(url: string): string {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return url.split('?')[0] ?? '';
  }
  u.username = '';
  u.password = '';
  for (const k of [...u.searchParams.keys()]) if (SECRET_PARAM.test(k)) u.searchParams.set(k, REDACTED);
  return u.toString().replaceAll(encodeURIComponent(REDACTED), REDACTED);
}

/** Headers as they may be logged: credential and signature values replaced. */
export function redactHeaders(h: Record<string, string> | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(h ?? {})) out[k] = SECRET_HEADER.test(k) ? REDACTED : v;
  return out;
}

/** The ProviderError kind of an HTTP status, for an answer whose body names no better code. */
export function statusCode(status: number): string {
  if (status === 401 || status === 403) return 'unauthorized';
  if (status === 404) return 'not_found';
  if (status === 429) return 'rate_limited';
  if (status >= 500) return 'provider_unavailable';
  return 'invalid_request';
}

/** A failed answer as a ProviderError: the provider's own code when it gave one, else the status's kind. */
export function statusError(
  provider: string,
  answer: Pick<HttpAnswer, 'status'>,
  code?: string,
  message?: string,
): ProviderError {
  return new ProviderError(
    code || statusCode(answer.status),
    `${provider}: ${message || `HTTP ${answer.status}`}`,
    answer.status,
  );
}

/** An answer's body as JSON (an empty body reads as {}); a body that is not JSON is a bad_response. */
export function readJson<T = Record<string, unknown>>(
  provider: string,
  answer: Pick<HttpAnswer, 'status' | 'text'>,
): T {
  if (answer.text.trim() === '') return {} as T;
  try {
    return JSON.parse(answer.text) as T;
  } catch {
    throw new ProviderError(
      'bad_response',
      `${provider}: HTTP ${answer.status}, the answer is not JSON`,
      answer.status,
    );
  }
}

function encode(req: HttpRequest): { headers: Record<string, string>; body?: string } {
  const headers: Record<string, string> = { ...(req.headers ?? {}) };
  const has = (name: string) => Object.keys(headers).some((k) => k.toLowerCase() === name);
  if (req.json !== undefined) {
    if (!has('content-type')) headers['content-type'] = 'application/json';
    return { headers, body: JSON.stringify(req.json) };
  }
  if (req.form !== undefined) {
    if (!has('content-type')) headers['content-type'] = 'application/x-www-form-urlencoded';
    return { headers, body: new URLSearchParams(req.form).toString() };
  }
  return { headers, ...(req.body === undefined ? {} : { body: req.body }) };
}

/** The HTTP client of one provider (`provider` names it in errors and log lines). */
export function httpClient(provider: string, deps: HttpDeps): HttpClient {
  const limit = deps.timeoutMs ?? DEFAULT_TIMEOUT_MS;

  async function send(req: HttpRequest): Promise<HttpAnswer> {
    const method = req.method ?? 'GET';
    const { headers, body } = encode(req);
    const timeoutMs = req.timeoutMs ?? limit;
    const started = Date.now();
    const line = { provider, method, url: redactUrl(req.url) };
    const timer = new AbortController();
    const timeout = setTimeout(() => timer.abort(), timeoutMs);
    try {
      let res: Response;
      try {
        res = await deps.fetch(req.url, {
          method,
          headers,
          signal: timer.signal,
          ...(body === undefined ? {} : { body }),
        });
      } catch (err) {
        throw failure(err, 'unreachable');
      }
      let text: string;
      try {
        text = await res.text();
      } catch (err) {
        throw failure(err, 'answer cut off', res.status);
      }
      deps.log?.[res.status >= 500 ? 'warn' : 'debug'](
        { ...line, status: res.status, ms: Date.now() - started },
        'provider call',
      );
      return { status: res.status, ok: res.ok, text, headers: res.headers };
    } finally {
      clearTimeout(timeout);
    }

    function failure(err: unknown, what: string, status?: number): ProviderError {
      const timedOut = timer.signal.aborted;
      const e = timedOut
        ? new ProviderError('timeout', `${provider}: no answer within ${timeoutMs} ms`, 504)
        : new ProviderError('network', `${provider} ${what}: ${(err as Error).message}`, status);
      deps.log?.warn(
        { ...line, headers: redactHeaders(headers), error: e.code, ms: Date.now() - started },
        'provider call failed',
      );
      return e;
    }
  }

  return {
    send,
    async json<T>(req: HttpRequest) {
      const answer = await send(req);
      return { ...answer, body: readJson<T>(provider, answer) };
    },
  };
}
