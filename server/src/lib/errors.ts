// Business errors carry a locale key (locales/server/*.json) and the envelope code; the central error
// handler translates them into the request's language. Anything else becomes a bare 500.
import { failure } from './envelope.ts';
import { t, type Locale } from './i18n.ts';

export type ErrorCode = 400 | 401 | 403 | 404 | 409 | 413 | 422 | 428 | 429 | 503;

export class AppError extends Error {
  constructor(
    readonly code: ErrorCode,
    readonly key: string,
    readonly params: Record<string, string | number> = {},
  ) {
    super(key);
    this.name = 'AppError';
  }

  /** The HTTP status, for error handlers of scopes that do not know AppError (e.g. the sandbox's own). */
  get statusCode(): number {
    return this.code;
  }
}

export const badRequest = (key: string, params?: Record<string, string | number>) => new AppError(400, key, params);
export const unauthorized = () => new AppError(401, 'error.unauthorized');
export const notFound = (key: string, params?: Record<string, string | number>) => new AppError(404, key, params);
export const conflict = (key: string, params?: Record<string, string | number>) => new AppError(409, key, params);
export const refused = (key: string, params?: Record<string, string | number>) => new AppError(422, key, params);

/**
 * An outside service the request needs (a sign-in provider, WeChat's API, an SMS gateway) could not be reached or
 * answered with an error of its own: 503, "try again in a moment". The cause is logged, never sent.
 */
export class UpstreamUnavailable extends AppError {
  constructor(
    readonly provider: string,
    cause?: unknown,
  ) {
    super(503, 'error.upstream', {});
    this.name = 'UpstreamUnavailable';
    this.cause = cause;
  }
}

/** fetch() to an outside service: a network failure or a timeout (10 s unless `init.signal` says) is UpstreamUnavailable. */
export async function upstreamFetch(
  provider: string,
  url: string,
  init: RequestInit = {},
  fetchFn: typeof fetch = fetch,
): Promise<Response> {
  try {
    return await fetchFn(url, { signal: AbortSignal.timeout(10_000), ...init });
  } catch (err) {
    throw new UpstreamUnavailable(provider, err);
  }
}

/** The envelope of a business error in `locale` (the error handler's reply; stored for idempotent replays). */
export const appErrorBody = (err: AppError, locale: Locale) => failure(err.code, t(locale, err.key, err.params));
