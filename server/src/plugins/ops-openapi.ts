// The ops API's own OpenAPI 3.1 document, made from its routes' TypeBox schemas (JSON Schema, which OpenAPI 3.1
// takes as it is). The rider API's document (@fastify/swagger) does not list these routes.
import type { FastifySchema } from 'fastify';

export interface OpsRouteDoc {
  method: string | string[];
  url: string;
  access: string;
  schema?: FastifySchema;
}

type Json = Record<string, unknown>;

function parameters(schema: unknown, where: 'query' | 'path' | 'header'): Json[] {
  const props = (schema as { properties?: Record<string, Json> } | undefined)?.properties ?? {};
  const required = new Set((schema as { required?: string[] } | undefined)?.required ?? []);
  return Object.entries(props).map(([name, s]) => ({ name, in: where, required: where === 'path' || required.has(name), schema: s }));
}

export function opsOpenApi(routes: OpsRouteDoc[]) {
  const paths: Record<string, Record<string, Json>> = {};
  for (const r of routes) {
    const path = r.url.replace(/:(\w+)/g, '{$1}');
    const s = (r.schema ?? {}) as FastifySchema & { description?: string; summary?: string };
    for (const method of [r.method].flat()) {
      if (method === 'HEAD') continue;
      const responses: Record<string, Json> = {};
      for (const [status, body] of Object.entries((s.response ?? {}) as Record<string, unknown>)) {
        responses[status] = { description: status, content: { 'application/json': { schema: body } } };
      }
      if (!Object.keys(responses).length) responses['200'] = { description: 'OK' };
      (paths[path] ??= {})[method.toLowerCase()] = {
        ...(s.summary ? { summary: s.summary } : {}),
        description: `${s.description ?? ''}${s.description ? '\n\n' : ''}Needs: ${r.access}.`,
        parameters: [...parameters(s.params, 'path'), ...parameters(s.querystring, 'query'), ...parameters(s.headers, 'header')],
        ...(s.body ? { requestBody: { required: true, content: { 'application/json': { schema: s.body } } } } : {}),
        responses,
        ...(r.access === 'public' ? { security: [] } : {}),
      };
    }
  }
  return {
    openapi: '3.1.0',
    info: { title: 'Powerly ops API', version: '1', description: 'The back office API. See docs/api.md "Ops API": cookie session, X-CSRF-Token, cursors, If-Match.' },
    components: {
      securitySchemes: { session: { type: 'apiKey', in: 'cookie', name: 'ops_session' } },
    },
    security: [{ session: [] }],
    paths,
  };
}
