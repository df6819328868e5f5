// The served OpenAPI document holds every operation to what it says. For each operation, inputs are generated from
// its request schemas (fast-check, fixed seeds): values the schemas allow, sent as JSON and as a form where the
// document offers both, with a session token where the operation needs one; and values they refuse (null, another
// type, a missing required field, an undeclared one where extras are forbidden), each of which must be a 400 naming
// the field. Every answer must have a status the operation declares (never a 5xx), the declared content type, and a
// body valid against the declared schema of that status. A secured operation without a token must answer 401.
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { Ajv, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { build, touristToken, type Built } from './helper.ts';
import { deref, toJsonSchema, valid, wrongType, type Schema } from './openapi/arbitrary.ts';

const API = '/cdb-app-api/v1/app';
/** Every OpenAPI document the server serves (a new API's document is added here): each lints clean. */
const SERVED_DOCUMENTS = [`${API}/openapi.json`];
const root = fileURLToPath(new URL('../../', import.meta.url));
const VALID_RUNS = 6;

interface Parameter { in: 'query' | 'path' | 'header'; name: string; required?: boolean; schema: Schema }
interface Operation {
  operationId: string;
  parameters?: Parameter[];
  requestBody?: { content: Record<string, { schema: Schema }> };
  responses: Record<string, { content?: Record<string, { schema: Schema }> }>;
  security?: Record<string, string[]>[];
}
interface Doc { paths: Record<string, Record<string, Operation>>; components?: { schemas?: Record<string, Schema> } }
interface Input { path: Record<string, unknown>; query: Record<string, unknown>; header: Record<string, unknown>; body?: unknown }

let b: Built;
let doc: Doc;
let jsonDoc: Doc;
const ajv = new Ajv({ strict: false, allErrors: true });
addFormats.default(ajv);
ajv.addFormat('binary', true);

beforeAll(async () => {
  b = await build();
  doc = (await b.app.inject({ url: `${API}/openapi.json` })).json() as Doc;
  jsonDoc = toJsonSchema(doc) as Doc;
}, 180_000);
afterAll(async () => b?.close());

/** A seed per operation: the same inputs on every run. */
const seedOf = (id: string) => [...id].reduce((h, c) => (Math.imul(h, 31) + c.charCodeAt(0)) | 0, 7);

const validators = new Map<string, ValidateFunction>();
function validatorFor(path: string, method: string, status: string, type: string) {
  const key = `${method} ${path} ${status} ${type}`;
  let v = validators.get(key);
  if (!v) {
    const schema = jsonDoc.paths[path]![method]!.responses[status]!.content![type]!.schema;
    v = ajv.compile({ ...schema, components: jsonDoc.components });
    validators.set(key, v);
  }
  return v;
}

const operations = () => Object.entries(doc.paths).flatMap(([path, item]) => Object.entries(item).map(([method, op]) => ({ path, method, op })));

/** The object schema of one kind of parameter (so that it is generated as one record). */
function paramsSchema(op: Operation, where: Parameter['in']): Schema {
  const ps = (op.parameters ?? []).filter((p) => p.in === where);
  return { type: 'object', properties: Object.fromEntries(ps.map((p) => [p.name, p.schema])), required: ps.filter((p) => p.required || where === 'path').map((p) => p.name) };
}

const bodySchema = (op: Operation): Schema | undefined => {
  const c = op.requestBody?.content;
  return c ? (c['application/json'] ?? Object.values(c)[0])!.schema : undefined;
};

function inputs(op: Operation): fc.Arbitrary<Input> {
  const body = bodySchema(op);
  return fc.record({
    path: valid(doc, paramsSchema(op, 'path')) as fc.Arbitrary<Record<string, unknown>>,
    query: valid(doc, paramsSchema(op, 'query')) as fc.Arbitrary<Record<string, unknown>>,
    header: valid(doc, paramsSchema(op, 'header')) as fc.Arbitrary<Record<string, unknown>>,
    ...(body ? { body: valid(doc, body) } : {}),
  }) as fc.Arbitrary<Input>;
}

const text = (v: unknown) => (typeof v === 'object' && v !== null ? JSON.stringify(v) : String(v));

function formOf(body: unknown) {
  const f = new URLSearchParams();
  for (const [k, v] of Object.entries((body ?? {}) as Record<string, unknown>)) {
    if (v === undefined || v === null) continue;
    for (const x of [v].flat()) f.append(k, text(x));
  }
  return f.toString();
}

async function send(path: string, method: string, input: Input, opts: { token?: string; form?: boolean; rawBody?: string }) {
  const url = path.replace(/\{([^}]+)\}/g, (_m, name: string) => encodeURIComponent(text(input.path[name])));
  const query = new URLSearchParams();
  for (const [k, v] of Object.entries(input.query)) for (const x of [v].flat()) if (x !== undefined) query.append(k, text(x));
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(input.header)) if (v !== undefined) headers[k] = text(v).replace(/[^\x20-\x7e]/g, '');
  if (opts.token) headers.token = opts.token;
  let payload: string | undefined;
  if (opts.rawBody !== undefined) {
    payload = opts.rawBody;
    headers['content-type'] = 'application/json';
  } else if ('body' in input) {
    payload = opts.form ? formOf(input.body) : JSON.stringify(input.body);
    headers['content-type'] = opts.form ? 'application/x-www-form-urlencoded' : 'application/json';
  }
  const q = query.toString();
  return b.app.inject({ method: method.toUpperCase() as 'GET', url: q ? `${url}?${q}` : url, headers, payload });
}

type Reply = Awaited<ReturnType<typeof send>>;

/** What is wrong with an answer against the document (empty: nothing). */
function conformance(path: string, method: string, op: Operation, res: Reply): string[] {
  const status = String(res.statusCode);
  const declared = op.responses[status];
  if (!declared) return [`answered ${status}, declared ${Object.keys(op.responses).join(', ')}: ${res.body.slice(0, 200)}`];
  if (res.statusCode >= 500) return [`answered ${status}: ${res.body.slice(0, 200)}`];
  if (!declared.content) return [];
  const type = String(res.headers['content-type'] ?? '').split(';')[0]!.trim();
  if (!declared.content[type]) return [`${status} served as ${type}, declared ${Object.keys(declared.content).join(', ')}`];
  if (type !== 'application/json') return [];
  const v = validatorFor(path, method, status, type);
  return v(res.json()) ? [] : [`${status} body does not match its schema: ${ajv.errorsText(v.errors)}: ${res.body.slice(0, 200)}`];
}

const needsToken = (op: Operation) => (op.security ?? []).length > 0 && !(op.security ?? []).some((r) => Object.keys(r).length === 0);
const takesToken = (op: Operation) => (op.security ?? []).some((r) => 'token' in r);

interface Problem { ruleId: string; severity: string; message: string; location?: { pointer?: string }[] }

describe('the served OpenAPI documents lint clean', () => {
  // Redocly CLI (pinned dev dependency) with its recommended rules (redocly.yaml at the top level).
  it.each(SERVED_DOCUMENTS)('Redocly recommended rules: %s', async (url) => {
    const res = await b.app.inject({ url });
    expect(res.statusCode).toBe(200);
    const dir = await mkdtemp(join(tmpdir(), 'powerly-openapi-'));
    try {
      const file = join(dir, 'openapi.json');
      await writeFile(file, res.body);
      const out = await promisify(execFile)(join(root, 'node_modules/.bin/redocly'), ['lint', file, '--config', join(root, 'redocly.yaml'), '--format', 'json'], {
        cwd: root, env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' }, maxBuffer: 64 << 20,
      }).catch((err: { stdout?: string }) => ({ stdout: err.stdout ?? '' }));
      const problems = (JSON.parse(out.stdout) as { problems: Problem[] }).problems
        .map((p) => `${p.severity} ${p.ruleId} ${p.location?.[0]?.pointer ?? ''}: ${p.message}`);
      expect(problems, problems.join('\n')).toEqual([]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 120_000);
});

describe('every operation of the served OpenAPI document does what it declares', () => {
  it('declares security, error answers and servers on every operation', () => {
    expect((doc as unknown as { servers?: unknown[] }).servers?.length).toBeGreaterThan(0);
    const ops = operations();
    expect(ops.length).toBeGreaterThan(60);
    for (const { path, method, op } of ops) {
      expect(op.security, `${method} ${path}`).toBeDefined();
      expect(op.responses['400'], `${method} ${path}`).toBeDefined();
      if (needsToken(op)) expect(op.responses['401'], `${method} ${path}`).toBeDefined();
    }
    const tourist = doc.paths[`${API}/saas/tourist/login`]!.post!;
    expect(tourist.security).toEqual([]);
    expect(Object.keys(doc.paths[`${API}/captcha.webp`]!.get!.responses['200']!.content!)).toEqual(['image/webp']);
    const scan = doc.paths[`${API}/cdb/cabinet/checkisok`]!.post!.responses['200'] as { links?: Record<string, { operationId: string }> };
    expect(scan.links?.rentWithDeposit?.operationId).toBe('postCdbCabinetUseDepositToRent');
  });

  it('answers generated valid and invalid inputs only as declared', async () => {
    const failures: string[] = [];
    for (const { path, method, op } of operations()) {
      const where = `${method.toUpperCase()} ${path}`;
      if (op.responses['200']?.content?.['text/event-stream']) continue; // a stream does not end; live.test.ts covers it
      const token = takesToken(op) ? await touristToken(b.app, `contract-${op.operationId}`) : undefined;
      const types = Object.keys(op.requestBody?.content ?? {});
      const form = types.includes('application/x-www-form-urlencoded');
      const samples = fc.sample(inputs(op), { seed: seedOf(op.operationId), numRuns: VALID_RUNS });
      const check = (res: Reply, what: string, input: Input) =>
        failures.push(...conformance(path, method, op, res).map((f) => `${where} (${what}): ${f} ← ${JSON.stringify(input).slice(0, 300)}`));

      for (const [i, input] of samples.entries()) {
        const asForm = form && i % 2 === 1;
        check(await send(path, method, input, { token, form: asForm }), `valid ${asForm ? 'form' : 'JSON'} #${i}`, input);
      }
      const sample = samples[0]!;
      if (needsToken(op)) {
        const res = await send(path, method, sample, {});
        check(res, 'no token', sample);
        if (res.statusCode !== 401) failures.push(`${where}: without a token answered ${res.statusCode}, not 401`);
      }
      // Refused inputs: each a 400 naming the field.
      const refused = async (input: Input, field: string, what: string, rawBody?: string) => {
        const res = await send(path, method, input, { token, rawBody });
        check(res, what, input);
        if (res.statusCode !== 400) failures.push(`${where} (${what}): answered ${res.statusCode}, not 400: ${res.body.slice(0, 160)}`);
        else if (!(res.json() as { msg: string }).msg.includes(field)) failures.push(`${where} (${what}): the message does not name ${field}: ${res.body}`);
      };
      const body = bodySchema(op) && deref(doc, bodySchema(op)!);
      if (body?.properties && typeof sample.body === 'object' && sample.body !== null) {
        const props = body.properties as Record<string, Schema>;
        for (const [name, ps] of Object.entries(props)) {
          for (const wrong of wrongType(doc, ps).slice(0, 2)) {
            await refused({ ...sample, body: { ...sample.body, [name]: wrong } }, name, `body ${name} = ${JSON.stringify(wrong)}`);
          }
        }
        for (const name of (body.required as string[] | undefined) ?? []) {
          const rest = { ...(sample.body as Record<string, unknown>) };
          delete rest[name];
          await refused({ ...sample, body: rest }, name, `body without ${name}`);
        }
        if (body.additionalProperties === false) await refused({ ...sample, body: { ...sample.body, undeclaredField: 'x' } }, 'undeclaredField', 'an undeclared field');
      }
      for (const p of (op.parameters ?? []).filter((x) => x.in === 'query')) {
        const ps = deref(doc, p.schema);
        if (p.required) {
          const rest = { ...sample.query };
          delete rest[p.name];
          await refused({ ...sample, query: rest }, p.name, `query without ${p.name}`);
        }
        if (ps.type === 'integer' || ps.type === 'number') await refused({ ...sample, query: { ...sample.query, [p.name]: 'abc' } }, p.name, `query ${p.name}=abc`);
      }
    }
    expect(failures, failures.join('\n')).toEqual([]);
  }, 180_000);

  it('a known path with another method is 405 with Allow', async () => {
    const token = await touristToken(b.app, 'contract-405');
    const res = await b.app.inject({ method: 'PUT', url: `${API}/userInfo`, headers: { token } });
    expect(res.statusCode).toBe(405);
    expect(res.headers.allow).toBe('GET, HEAD');
    expect(res.json()).toMatchObject({ code: 405, data: null });
    const unknown = await b.app.inject({ method: 'GET', url: `${API}/no/such/path` });
    expect(unknown.statusCode).toBe(404);
  });
});
