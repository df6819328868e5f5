// 0 HTTP 500s from malformed input. Every operation of the OpenAPI document (plus the webhook, the lead
// form and the sandbox routes) gets malformed path parameters, query strings, bodies and content types — NUL bytes,
// a bare `%`, infinite/NaN numbers, wrong types, huge strings, a form-encoded body where JSON is expected — signed
// in and not. Every answer must be a client error (or a success), never a 5xx.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { build, touristToken, type Built } from './helper.ts';

let b: Built;
let token = '';
beforeAll(async () => {
  b = await build({ simulator: false });
  token = await touristToken(b.app);
});
afterAll(async () => b?.close());

interface Operation {
  parameters?: { in: string; name: string; schema?: { type?: string } }[];
  requestBody?: { content?: Record<string, { schema?: { properties?: Record<string, { type?: string }> } }> };
}

const HUGE = 'x'.repeat(100_000);
/** Malformed scalars, raw (they are URL-encoded where they go into a URL). */
const BAD = [
  '\u0000',
  'a\u0000b',
  '%',
  '%00',
  '%zz',
  'Infinity',
  '-Infinity',
  'NaN',
  '1e309',
  '-1',
  '0',
  '99999999999999999999',
  '1.5',
  'true',
  '[]',
  '{}',
  '../..',
  HUGE,
  '',
];
/** Wrong-typed JSON values. */
const WRONG = [null, true, -1, 1e308, 'NaN', '\u0000', HUGE, [], [1, 2], {}, { a: { b: 1 } }];

const enc = (v: string) => encodeURIComponent(v);

describe('malformed input never yields a 5xx', () => {
  it('over every operation of the OpenAPI document', async () => {
    const doc = (await b.app.inject({ method: 'GET', url: '/cdb-app-api/v1/app/openapi.json' })).json() as {
      paths: Record<string, Record<string, Operation>>;
    };
    const ops = Object.entries(doc.paths).flatMap(([path, methods]) =>
      Object.entries(methods).map(([method, op]) => ({ path, method: method.toUpperCase(), op })),
    );
    // Routes outside the API document: provider webhooks, the public lead form.
    ops.push({
      path: '/webhooks/payments/{provider}',
      method: 'POST',
      op: { parameters: [{ in: 'path', name: 'provider' }] },
    });
    // Provider and sandbox peers: their own wire formats, not in the API document (lib/openapi.ts).
    ops.push({
      path: '/webhooks/methods/{provider}',
      method: 'POST',
      op: { parameters: [{ in: 'path', name: 'provider' }] },
    });
    ops.push({
      path: '/payments/webhooks/{provider}',
      method: 'POST',
      op: { parameters: [{ in: 'path', name: 'provider' }] },
    });
    ops.push({
      path: '/payments/webhooks/{provider}/{agent}',
      method: 'POST',
      op: {
        parameters: [
          { in: 'path', name: 'provider' },
          { in: 'path', name: 'agent' },
        ],
      },
    });
    for (const method of ['GET', 'POST']) {
      ops.push({
        path: '/payments/return/{outTradeNo}',
        method,
        op: { parameters: [{ in: 'path', name: 'outTradeNo' }] },
      });
      ops.push({ path: '/sandbox-pay/checkout/{ref}', method, op: { parameters: [{ in: 'path', name: 'ref' }] } });
    }
    ops.push({
      path: '/sandbox-pay/v1/tokens',
      method: 'POST',
      op: {
        requestBody: {
          content: {
            'application/json': {
              schema: {
                properties: {
                  publicKey: { type: 'string' },
                  number: { type: 'string' },
                  expMonth: { type: 'integer' },
                  expYear: { type: 'integer' },
                  cvc: { type: 'string' },
                },
              },
            },
          },
        },
      },
    });
    expect(ops.length).toBeGreaterThan(40);
    const failures: string[] = [];
    let sent = 0;
    const fire = async (method: string, url: string, payload?: string, contentType?: string, withToken = true) => {
      sent++;
      let res;
      try {
        res = await b.app.inject({
          method: method as 'GET',
          url,
          payload,
          headers: { ...(withToken ? { token } : {}), ...(contentType ? { 'content-type': contentType } : {}) },
        });
      } catch (err) {
        failures.push(`${method} ${url.slice(0, 120)}: threw ${String(err).slice(0, 100)}`);
        return;
      }
      if (res.statusCode >= 500)
        failures.push(
          `${method} ${url.slice(0, 120)} ${contentType ?? ''} ${payload?.slice(0, 60) ?? ''} → ${res.statusCode} ${res.body.slice(0, 120)}`,
        );
    };
    for (const { path, method, op } of ops) {
      const params = op.parameters ?? [];
      const pathParams = params.filter((p) => p.in === 'path').map((p) => p.name);
      const query = params.filter((p) => p.in === 'query').map((p) => p.name);
      const fill = (v: string) => path.replace(/\{([^}]+)\}/g, () => enc(v));
      const base = fill('PWL-SH-001');
      // Path parameters: each malformed value (raw `%` and NUL included).
      for (const v of BAD) {
        if (pathParams.length) {
          await fire(method, fill(v));
          if (v === '%' || v === '%zz') await fire(method, path.replace(/\{([^}]+)\}/g, v)); // unencoded
        }
      }
      // Query parameters: each malformed value in each, repeated keys, and a raw `%`.
      for (const q of query) {
        for (const v of BAD) await fire(method, `${base}?${q}=${enc(v)}`);
        await fire(method, `${base}?${q}=1&${q}=2`);
        await fire(method, `${base}?${q}=%`);
        await fire(method, `${base}?${q}[a]=1`);
      }
      if (method === 'GET') continue;
      // Bodies: invalid JSON, wrong types per property, a form-encoded body, an empty one, without a session.
      const schemaProps = Object.values(op.requestBody?.content ?? {})[0]?.schema?.properties ?? {};
      await fire(method, base, '{', 'application/json');
      await fire(method, base, '"\u0000"', 'application/json');
      await fire(method, base, '[]', 'application/json');
      await fire(method, base, 'a=%&b=\u0000', 'application/x-www-form-urlencoded');
      await fire(method, base, 'x'.repeat(2_000_000), 'application/x-www-form-urlencoded');
      await fire(method, base, '', 'application/json');
      await fire(method, base, '{}', 'text/plain');
      await fire(method, base, '{}', 'application/json', false);
      for (const prop of Object.keys(schemaProps)) {
        for (const w of WRONG) {
          await fire(method, base, JSON.stringify({ [prop]: w }), 'application/json');
          if (typeof w === 'string' || typeof w === 'number')
            await fire(method, base, `${prop}=${enc(String(w))}`, 'application/x-www-form-urlencoded');
        }
      }
    }
    // The public lead form (outside the API prefix).
    for (const v of BAD)
      await fire('POST', '/crmLeads/add/public', `name=${enc(v)}&phone=${enc(v)}`, 'application/x-www-form-urlencoded');
    expect(sent).toBeGreaterThan(1000);
    expect(failures).toEqual([]);
  }, 600_000);
});
