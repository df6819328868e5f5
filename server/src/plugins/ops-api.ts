// The ops API (/ops-api/v1/, docs/api.md "Ops API"): JSON, its own OpenAPI document, errors in the operator's
// language, cookie sessions with CSRF protection, and ONE authorisation step before every handler: each route
// declares `config.permission` (a permission of core/opsAccess.ts, 'signed-in' or 'public'); the step answers 401
// without a session, 403 when no role of the caller grants it, and puts the permission's scope on the request
// (`req.opsScope`), which services use to answer 404 for objects outside it. A route without `permission` is
// refused at start-up.
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { timingSafeEqual } from 'node:crypto';
import { readCookie, setCookie } from '../lib/cookies.ts';
import { AppError } from '../lib/errors.ts';
import { pickLocale, t } from '../lib/i18n.ts';
import { randomToken, sha256 } from '../lib/ids.ts';
import type { App } from '../lib/route.ts';
import { scopeOf, type Permission, type Scope } from '#core/opsAccess.ts';
import type { Actor } from '../modules/audit/service.ts';
import type { StaffPrincipal, StaffService } from '../modules/staff/service.ts';
import type { LiveSession, StaffSessions } from '../modules/staff/sessions.ts';
import { fieldOf } from './errors.ts';
import { opsOpenApi, type OpsRouteDoc } from './ops-openapi.ts';

export const OPS_PREFIX = '/ops-api/v1';
export const SESSION_COOKIE = 'ops_session';
const CSRF_COOKIE = 'ops_csrf';
const SAFE = new Set(['GET', 'HEAD', 'OPTIONS']);
const NO_SCOPE: Scope = { kind: 'none' };

export type RouteAccess = Permission | 'signed-in' | 'public';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Ops API routes: what the caller needs (plugins/ops-api.ts). */
    permission?: RouteAccess;
  }
  interface FastifyRequest {
    staff: StaffPrincipal | null;
    opsSession: LiveSession | null;
    /** The scope of the route's permission for the caller (ops API routes). */
    opsScope: Scope;
  }
}

/** The session's CSRF token: derived from the session's secret, so only the cookie's holder can know it. */
export const csrfOfSession = (token: string) => sha256(`csrf:${token}`).slice(0, 43);

const same = (a: string | undefined, b: string | undefined) =>
  !!a && !!b && a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));

export function secure(req: FastifyRequest) {
  return req.protocol === 'https';
}

/** The pre-session CSRF token (double submit: the cookie and the header must agree); made when missing. */
export function preSessionCsrf(req: FastifyRequest, reply: FastifyReply): string {
  let v = readCookie(req, CSRF_COOKIE);
  if (!v || !/^[\w-]{20,64}$/.test(v)) {
    v = randomToken(24);
    setCookie(reply, CSRF_COOKIE, v, { path: OPS_PREFIX, sameSite: 'Strict', secure: secure(req) });
  }
  return v;
}

/** Starts a session: its cookie, and the CSRF token the console sends from now on. */
export function sendSessionCookie(req: FastifyRequest, reply: FastifyReply, token: string, maxMs: number) {
  setCookie(reply, SESSION_COOKIE, token, {
    path: '/',
    sameSite: 'Strict',
    secure: secure(req),
    maxAgeS: Math.floor(maxMs / 1000),
  });
  return csrfOfSession(token);
}

export function clearSessionCookie(req: FastifyRequest, reply: FastifyReply) {
  setCookie(reply, SESSION_COOKIE, '', { path: '/', sameSite: 'Strict', secure: secure(req), maxAgeS: 0 });
}

/** The request as an audit actor: who (the signed-in person), from where, and why. */
export function actorOf(req: FastifyRequest, reason: string | null): Actor {
  return {
    staffId: req.staff?.id ?? null,
    email: req.staff?.email ?? null,
    ip: req.ip,
    userAgent: String(req.headers['user-agent'] ?? ''),
    reason,
  };
}

/** The signed-in person (routes with a permission or 'signed-in'). */
export function staffOf(req: FastifyRequest): StaffPrincipal {
  if (!req.staff) throw new Error('route is missing its permission');
  return req.staff;
}

const ERROR_NAMES: Record<number, string> = {
  400: 'bad_request',
  401: 'unauthorized',
  403: 'forbidden',
  404: 'not_found',
  409: 'conflict',
  413: 'too_large',
  422: 'unprocessable',
  428: 'precondition_required',
  429: 'rate_limited',
  503: 'unavailable',
};

export interface OpsApiOptions {
  staff: StaffService;
  sessions: StaffSessions;
  /** The modules' ops routes, registered inside the scope (each module's ops-routes.ts). */
  routes: Array<(ops: App) => Promise<void>>;
}

export async function opsApi(ops: App, opts: OpsApiOptions) {
  const docs: OpsRouteDoc[] = [];
  ops.decorateRequest('staff', null);
  ops.decorateRequest('opsSession', null);
  ops.decorateRequest('opsScope', null as never);

  ops.addHook('onRoute', (route) => {
    const access = route.config?.permission;
    if (!access) throw new Error(`ops route ${route.method} ${route.url} declares no permission`);
    // A browser navigation (the single sign-on redirects) is described in docs/api.md, not in the document, as the
    // rider API's payment returns are.
    if (!route.schema?.hide)
      docs.push({
        method: route.method,
        url: route.url,
        access,
        schema: route.schema,
        sse: !!(route as { sse?: unknown }).sse,
      });
    // Not in the rider API's document: the ops API has its own.
    route.schema = { ...route.schema, hide: true };
  });

  // The operator's language: the `lang` header, else Accept-Language's first choice.
  ops.addHook('onRequest', async (req) => {
    if (!req.headers.lang) req.locale = pickLocale(req.headers['accept-language']?.split(',')[0]?.split(';')[0]);
  });

  // The authorisation step, before the request is parsed or validated (nothing of the API answers a caller who
  // may not call it): session → CSRF on unsafe methods → the route's permission → its scope.
  ops.addHook('onRequest', async (req, reply) => {
    const access = req.routeOptions.config.permission ?? 'signed-in';
    req.opsScope = NO_SCOPE;
    const session = await opts.sessions.find(readCookie(req, SESSION_COOKIE));
    const principal = session ? await opts.staff.principal(session.staffId) : undefined;
    if (session && principal) {
      req.opsSession = session;
      req.staff = principal;
    }
    if (!SAFE.has(req.method)) {
      const header = req.headers['x-csrf-token'];
      const given = Array.isArray(header) ? header[0] : header;
      const token = readCookie(req, SESSION_COOKIE);
      const expected = req.staff && token ? csrfOfSession(token) : readCookie(req, CSRF_COOKIE);
      if (!same(given, expected)) throw new AppError(403, 'ops.error.csrf');
    }
    if (access === 'public') return;
    if (!req.staff) {
      if (readCookie(req, SESSION_COOKIE)) clearSessionCookie(req, reply);
      throw new AppError(401, 'ops.error.signedOut');
    }
    if (access === 'signed-in') return;
    const scope = scopeOf(req.staff.memberships, access);
    if (scope.kind === 'none') throw new AppError(403, 'ops.error.forbidden');
    req.opsScope = scope;
  });

  ops.setErrorHandler((err: FastifyError, req, reply) => {
    const locale = req.locale;
    const e = err as unknown;
    let status: number;
    let message: string;
    if (e instanceof AppError) {
      status = e.code;
      message = t(locale, e.key, e.params);
    } else if (err.validation) {
      const field = fieldOf(err);
      status = 400;
      message = field ? t(locale, 'error.validation.field', { field }) : t(locale, 'error.validation');
    } else if (err.statusCode && err.statusCode >= 400 && err.statusCode < 500) {
      status = err.statusCode;
      message = t(
        locale,
        status === 404
          ? 'error.notFound'
          : status === 429
            ? 'error.rateLimited'
            : status === 413
              ? 'error.tooLarge'
              : 'error.badRequest',
      );
    } else {
      req.log.error({ err }, 'unhandled error');
      status = 500;
      message = t(locale, 'error.internal');
    }
    return reply.status(status).send({ statusCode: status, error: ERROR_NAMES[status] ?? 'internal', message });
  });
  ops.setNotFoundHandler((req, reply) =>
    reply.status(404).send({ statusCode: 404, error: 'not_found', message: t(req.locale, 'error.notFound') }),
  );

  for (const routes of opts.routes) await ops.register(routes);

  ops.get('/openapi.json', { config: { permission: 'public' }, schema: { hide: true } }, async () =>
    opsOpenApi(docs.filter((d) => d.url !== `${OPS_PREFIX}/openapi.json`)),
  );
}
