// The ops API's own OpenAPI 3.1 document, made from its routes' TypeBox schemas (JSON Schema, which OpenAPI 3.1
// takes as it is). The rider API's document (@fastify/swagger) does not list these routes. As there, what every
// route answers is derived here, so that a route declares only its success shape (and its business errors when it
// knows better than the default):
// - security: a public route needs nothing; any other the session cookie; every unsafe method the CSRF header;
// - every error status, each with the one error shape (OpsError): 400 (validation, a bad cursor or sort), 401
//   (no session), 403 (the role lacks the permission; a missing or wrong CSRF token), the business errors
//   (`errors` in the schema; default: 404, 409 and 422 for writes, 404 for a read whose path names an object), 413 (a body
//   too large), 428 (a PATCH without If-Match), 429, 500;
// - a JSON body's number or boolean field may come as its text, declared as such (lib/scalar-text.ts);
// - content types as served (`produces` in the schema: a CSV export; a server-sent events stream);
// - an operationId and a summary for every operation, `servers`.
import type { FastifySchema } from 'fastify';
import { OpsError } from '#contract/ops/common.ts';
import type { BusinessStatus } from '../lib/openapi.ts';
import { acceptScalarText } from '../lib/scalar-text.ts';

export interface OpsRouteDoc {
  method: string | string[];
  url: string;
  access: string;
  schema?: FastifySchema;
  /** A stream of server-sent events (@fastify/sse): its 200 is `text/event-stream`. */
  sse?: boolean;
}

type Json = Record<string, unknown>;
const SAFE = new Set(['GET', 'HEAD', 'OPTIONS']);

const REASONS: Record<number, string> = {
  400: 'The request is invalid (a missing, malformed or extra field, a cursor or sort not made here); `message` names the field',
  401: 'Not signed in, or the session ended',
  403: 'The role does not allow it, or the CSRF token is missing or wrong',
  404: "No such object inside the caller's scope",
  409: 'Changed by someone else since it was read, or a state that does not allow it now',
  413: 'The body (or an uploaded file) is too large',
  422: 'A business rule refused it; `message` says why',
  428: 'If-Match is required: send the ETag of the object as read',
  429: 'Too many requests: try again later',
  500: 'Internal error (never for input the schema allows)',
};

function parameters(schema: unknown, where: 'query' | 'path' | 'header'): Json[] {
  const props = (schema as { properties?: Record<string, Json> } | undefined)?.properties ?? {};
  const required = new Set((schema as { required?: string[] } | undefined)?.required ?? []);
  return Object.entries(props).map(([name, s]) => ({
    name,
    in: where,
    required: where === 'path' || required.has(name),
    schema: s,
  }));
}

/** `get /ops-api/v1/staff/{id}` → `getStaffById`; `get …/audit.csv` → `getAuditCsv`. */
export function opsOperationId(method: string, path: string): string {
  const cap = (w: string) => w[0]!.toUpperCase() + w.slice(1);
  const words = path
    .split('/')
    .filter((w) => w && w !== 'ops-api' && w !== 'v1')
    .flatMap((w) =>
      w.startsWith('{')
        ? [`By${cap(w.slice(1, -1))}`]
        : w
            .split(/[^A-Za-z0-9]+/)
            .filter(Boolean)
            .map(cap),
    );
  return method.toLowerCase() + words.join('');
}

/** A summary where the route gives none: its operation id in words ("Get staff by id"). */
const summaryOf = (id: string) => {
  const words = id
    .replace(/([A-Z])/g, ' $1')
    .trim()
    .toLowerCase();
  return words[0]!.toUpperCase() + words.slice(1);
};

const errorResponse = (status: number) => ({
  description: REASONS[status] ?? 'Error',
  content: { 'application/json': { schema: OpsError } },
});

function statusesOf(method: string, access: string, s: FastifySchema, hasPathId: boolean): number[] {
  const unsafe = !SAFE.has(method);
  const out = new Set<number>([400]);
  if (access !== 'public') out.add(401);
  if (unsafe || (access !== 'public' && access !== 'signed-in')) out.add(403);
  const business: readonly BusinessStatus[] = s.errors ?? (unsafe ? [404, 409, 422] : hasPathId ? [404] : []);
  for (const st of business) out.add(st);
  if (unsafe) out.add(413);
  if (method === 'PATCH' || method === 'PUT' || s.ifMatch) out.add(428);
  out.add(429).add(500);
  return [...out].sort();
}

export function opsOpenApi(routes: OpsRouteDoc[]) {
  const paths: Record<string, Record<string, Json>> = {};
  for (const r of routes) {
    const path = r.url.replace(/:(\w+)/g, '{$1}');
    const s = (r.schema ?? {}) as FastifySchema & {
      description?: string;
      summary?: string;
      produces?: readonly string[];
    };
    for (const method of [r.method].flat()) {
      if (method === 'HEAD') continue;
      const responses: Record<string, Json> = {};
      for (const [status, body] of Object.entries((s.response ?? {}) as Record<string, unknown>)) {
        responses[status] = {
          description: status === '200' ? 'OK' : status,
          content: { 'application/json': { schema: body } },
        };
      }
      if (r.sse)
        responses['200'] = {
          description: 'Server-sent events',
          content: { 'text/event-stream': { schema: { type: 'string' } } },
        };
      else if (s.produces?.length)
        responses['200'] = {
          description: 'OK',
          content: Object.fromEntries(s.produces.map((t) => [t, { schema: { type: 'string' } }])),
        };
      else if (!Object.keys(responses).length) responses['200'] = { description: 'OK' };
      for (const st of statusesOf(method, r.access, s, path.includes('{'))) responses[String(st)] ??= errorResponse(st);
      const security =
        r.access === 'public'
          ? SAFE.has(method)
            ? []
            : [{ csrf: [] }]
          : [{ session: [], ...(SAFE.has(method) ? {} : { csrf: [] }) }];
      const operationId = opsOperationId(method, path);
      (paths[path] ??= {})[method.toLowerCase()] = {
        operationId,
        summary: s.summary ?? summaryOf(operationId),
        description: `${s.description ?? ''}${s.description ? '\n\n' : ''}Needs: ${r.access}.`,
        parameters: [
          ...parameters(s.params, 'path'),
          ...parameters(s.querystring, 'query'),
          ...parameters(s.headers, 'header'),
          ...(method === 'PATCH' || method === 'PUT'
            ? [
                {
                  name: 'If-Match',
                  in: 'header',
                  required: false,
                  description: 'The ETag of the object as read (else 428)',
                  schema: { type: 'string' },
                },
              ]
            : []),
        ],
        ...(s.body
          ? { requestBody: { required: true, content: { 'application/json': { schema: acceptScalarText(s.body) } } } }
          : {}),
        // A raw body (an uploaded file): the media types the route takes, as bytes.
        ...(!s.body && s.consumes
          ? {
              requestBody: {
                required: true,
                content: Object.fromEntries(
                  s.consumes.map((c) => [c, { schema: { type: 'string', format: 'binary' } }]),
                ),
              },
            }
          : {}),
        responses,
        security,
      };
    }
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Powerly ops API',
      version: '1',
      description: 'The back office API. See docs/api.md "Ops API": cookie session, X-CSRF-Token, cursors, If-Match.',
      license: { name: 'Proprietary', url: 'https://powerly.invalid/terms' },
    },
    servers: [{ url: '/', description: 'This server' }],
    components: {
      securitySchemes: {
        session: {
          type: 'apiKey',
          in: 'cookie',
          name: 'ops_session',
          description: 'The session of a sign-in (passkey or single sign-on)',
        },
        csrf: {
          type: 'apiKey',
          in: 'header',
          name: 'X-CSRF-Token',
          description: 'The CSRF token of GET /session (every unsafe method)',
        },
      },
    },
    paths,
  };
}
