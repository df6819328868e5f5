// Input hygiene before any route: a NUL byte can never be stored (PostgreSQL refuses it in text) and has no
// meaning in any field of this API, and an infinite or NaN number is no page, amount or coordinate; a request
// carrying one — in the URL (%00), the query or anywhere in the parsed body — is refused with a clear 400 in the
// user's language before it reaches a service (no 500 from malformed input).
import fp from 'fastify-plugin';
import type { FastifyInstance } from 'fastify';
import { badRequest } from '../lib/errors.ts';

function hasNul(v: unknown, depth = 0): boolean {
  if (typeof v === 'string') return v.includes('\u0000');
  if (depth > 20 || v === null || typeof v !== 'object') return false;
  if (Array.isArray(v)) return v.some((x) => hasNul(x, depth + 1));
  return Object.entries(v as Record<string, unknown>).some(([k, x]) => k.includes('\u0000') || hasNul(x, depth + 1));
}

/** A number that is not finite (Infinity, NaN: coerced from query strings like `page=Infinity` or `lat=1e309`). */
function hasNonFinite(v: unknown, depth = 0): boolean {
  if (typeof v === 'number') return !Number.isFinite(v);
  if (depth > 20 || v === null || typeof v !== 'object') return false;
  return Object.values(v as Record<string, unknown>).some((x) => hasNonFinite(x, depth + 1));
}

/**
 * A subnormal number (below 2.2e-308, not 0: `lat=5e-324`) is 0 here: PostgreSQL refuses such a double as out of
 * range, and no coordinate, amount or page of this API is that small.
 */
function flushSubnormal(v: unknown, depth = 0): void {
  if (depth > 20 || v === null || typeof v !== 'object') return;
  const o = v as Record<string, unknown>;
  for (const [k, x] of Object.entries(o)) {
    if (typeof x === 'number' && x !== 0 && Math.abs(x) < Number.MIN_VALUE * 2 ** 52) o[k] = 0;
    else flushSubnormal(x, depth + 1);
  }
}

export default fp(
  async function input(app: FastifyInstance) {
    app.addHook('onRequest', async (req) => {
      if (/%00/i.test(req.url)) throw badRequest('error.validation');
    });
    app.addHook('preValidation', async (req) => {
      if (hasNul(req.body) || hasNul(req.params) || hasNul(req.query)) throw badRequest('error.validation');
    });
    // After the schemas coerced the values: no infinite or NaN number reaches a service (or SQL).
    app.addHook('preHandler', async (req) => {
      if (hasNonFinite(req.body) || hasNonFinite(req.params) || hasNonFinite(req.query))
        throw badRequest('error.validation');
      for (const part of [req.body, req.params, req.query]) flushSubnormal(part);
    });
  },
  { name: 'input-hygiene' },
);
