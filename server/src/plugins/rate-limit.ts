// Rate limits on every public endpoint (@fastify/rate-limit), counted in the database so that every API process
// shares one budget per client (plugins/rate-limit-repository.ts; no Redis). The client is `req.ip`: the socket's
// address, or — behind a load balancer — the address its trusted proxies report (TRUST_PROXY → Fastify's
// trustProxy; docs/operations.md). Without TRUST_PROXY behind a proxy every user would share the proxy's budget.
//
// One table of budgets: a default for every API call, tighter ones for the endpoints that create things for
// anonymous callers (guest accounts, captchas, leads, vitals, one-time codes). The built front end's static files
// are not counted (cheap, cached; not an API).
import fp from 'fastify-plugin';
import rateLimit, { type FastifyRateLimitStore, type FastifyRateLimitStoreCtor } from '@fastify/rate-limit';
import type { FastifyInstance } from 'fastify';
import type { Db } from '../db/db.ts';
import { API_PREFIX } from '../lib/route.ts';
import { RateLimitRepository } from './rate-limit-repository.ts';

const MINUTE = 60_000;
/** Requests per client address per minute on any endpoint without its own budget. */
export const DEFAULT_BUDGET = { max: 300, timeWindow: MINUTE };
/** `METHOD path` (as routed) → budget per client address. */
export const BUDGETS: Record<string, { max: number; timeWindow: number }> = {
  [`POST ${API_PREFIX}/saas/tourist/login`]: { max: 10, timeWindow: MINUTE },
  [`GET ${API_PREFIX}/captcha.webp`]: { max: 20, timeWindow: MINUTE },
  [`GET ${API_PREFIX}/captcha/question`]: { max: 20, timeWindow: MINUTE },
  [`POST ${API_PREFIX}/embed/vitals`]: { max: 60, timeWindow: MINUTE },
  [`POST ${API_PREFIX}/embed/code`]: { max: 20, timeWindow: MINUTE },
  [`POST ${API_PREFIX}/embed/code/redeem`]: { max: 20, timeWindow: MINUTE },
  ['POST /crmLeads/add/public']: { max: 5, timeWindow: MINUTE },
};

/** The store over the database: @fastify/rate-limit calls incr() once per request. */
function databaseStore(repo: RateLimitRepository): FastifyRateLimitStoreCtor {
  class DatabaseStore implements FastifyRateLimitStore {
    constructor(
      _opts: unknown,
      private readonly ns = '',
    ) {}
    incr(key: string, cb: (err: Error | null, result?: { current: number; ttl: number }) => void, timeWindow: number) {
      const now = new Date();
      repo.hit(`${this.ns}${key}`, now, timeWindow).then(
        ({ hits, endsAt }) => cb(null, { current: hits, ttl: Math.max(0, endsAt.getTime() - now.getTime()) }),
        (err: unknown) => cb(err instanceof Error ? err : new Error(String(err))),
      );
    }
    child(routeOptions: unknown) {
      const r = (routeOptions as { routeInfo?: { method?: string | string[]; url?: string } }).routeInfo ?? {};
      return new DatabaseStore(undefined, `${[r.method].flat().join(',')} ${r.url ?? ''}|`);
    }
  }
  return DatabaseStore as unknown as FastifyRateLimitStoreCtor;
}

/** Whether a request is for the built front end's files (not counted). */
function isStaticFile(method: string, url: string) {
  if (method !== 'GET' && method !== 'HEAD') return false;
  return (
    !url.startsWith(API_PREFIX) &&
    !url.startsWith('/demo-api') &&
    !url.startsWith('/sandbox-') &&
    !url.startsWith('/webhooks')
  );
}

export default fp(
  async function limits(app: FastifyInstance, opts: { db: Db }) {
    // Before the plugin's own onRoute hook: each route with a budget in the table gets it as its rateLimit config.
    app.addHook('onRoute', (route) => {
      for (const m of [route.method].flat()) {
        const budget = BUDGETS[`${m} ${route.url}`];
        if (budget) route.config = { ...(route.config as object), rateLimit: budget } as typeof route.config;
      }
    });
    await app.register(rateLimit, {
      global: true,
      ...DEFAULT_BUDGET,
      store: databaseStore(new RateLimitRepository(opts.db)),
      keyGenerator: (req) => req.ip,
      allowList: (req) => isStaticFile(req.method, req.url),
      // The error handler answers in the envelope and the user's language (plugins/errors.ts).
      errorResponseBuilder: (_req, ctx) =>
        Object.assign(new Error('rate limited'), { statusCode: ctx.statusCode, rateLimited: true }),
    });
  },
  { name: 'rate-limits' },
);
