// Holding a served OpenAPI document's operations to what it says (the rider API's and the ops API's contract tests).
// For each operation, inputs are generated from its request schemas (fast-check, a fixed seed per operation): values
// the schemas allow, sent as JSON and as a form where the document offers both; and values they refuse (null, another
// type, a missing required field, an undeclared one where extras are forbidden), each of which must be a 400 naming
// the field. Every answer must have a status the operation declares (never a 5xx), the declared content type, and a
// body valid against the declared schema of that status.
import type { LightMyRequestResponse } from 'fastify';
import { Ajv, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import fc from 'fast-check';
import { deref, toJsonSchema, valid, wrongType, type Schema } from './arbitrary.ts';

export interface Parameter {
  in: 'query' | 'path' | 'header' | 'cookie';
  name: string;
  required?: boolean;
  schema: Schema;
}
export interface Operation {
  operationId: string;
  parameters?: Parameter[];
  requestBody?: { content: Record<string, { schema: Schema }> };
  responses: Record<string, { content?: Record<string, { schema: Schema }> }>;
  security?: Record<string, string[]>[];
}
export interface Doc {
  paths: Record<string, Record<string, Operation>>;
  components?: { schemas?: Record<string, Schema> };
  servers?: unknown[];
}
export interface Input {
  path: Record<string, unknown>;
  query: Record<string, unknown>;
  header: Record<string, unknown>;
  body?: unknown;
}
export type Reply = LightMyRequestResponse;
export type Inject = (req: {
  method: string;
  url: string;
  headers: Record<string, string>;
  payload?: string;
}) => Promise<Reply>;

/** A seed per operation: the same inputs on every run. */
const seedOf = (id: string) => [...id].reduce((h, c) => (Math.imul(h, 31) + c.charCodeAt(0)) | 0, 7);
const text = (v: unknown) => (typeof v === 'object' && v !== null ? JSON.stringify(v) : String(v));

function formOf(body: unknown) {
  const f = new URLSearchParams();
  for (const [k, v] of Object.entries((body ?? {}) as Record<string, unknown>)) {
    if (v === undefined || v === null) continue;
    for (const x of [v].flat()) f.append(k, text(x));
  }
  return f.toString();
}

export interface SendOptions {
  headers?: Record<string, string>;
  form?: boolean;
  rawBody?: string;
}
export interface FuzzOptions {
  /** Valid inputs per operation. */
  runs: number;
  /** The headers of a caller allowed to call the operation (a token, a session cookie and CSRF header). */
  headers: Record<string, string>;
  /** Also the refused inputs (each a 400 naming the field). */
  invalid: boolean;
}

export class Conformance {
  private readonly jsonDoc: Doc;
  private readonly ajv = new Ajv({ strict: false, allErrors: true });
  private readonly validators = new Map<string, ValidateFunction>();

  /** `message`: where an error body says what is wrong (the field a 400 must name). */
  constructor(
    readonly doc: Doc,
    private readonly inject: Inject,
    private readonly message: (body: unknown) => string,
  ) {
    this.jsonDoc = toJsonSchema(doc) as Doc;
    addFormats.default(this.ajv);
    this.ajv.addFormat('binary', true);
  }

  operations() {
    return Object.entries(this.doc.paths).flatMap(([path, item]) =>
      Object.entries(item).map(([method, op]) => ({ path, method, op })),
    );
  }

  /** The object schema of one kind of parameter (so that it is generated as one record). */
  private paramsSchema(op: Operation, where: Parameter['in']): Schema {
    const ps = (op.parameters ?? []).filter((p) => p.in === where);
    return {
      type: 'object',
      properties: Object.fromEntries(ps.map((p) => [p.name, p.schema])),
      required: ps.filter((p) => p.required || where === 'path').map((p) => p.name),
    };
  }

  bodySchema(op: Operation): Schema | undefined {
    const c = op.requestBody?.content;
    return c ? (c['application/json'] ?? Object.values(c)[0])!.schema : undefined;
  }

  inputs(op: Operation): fc.Arbitrary<Input> {
    const body = this.bodySchema(op);
    return fc.record({
      path: valid(this.doc, this.paramsSchema(op, 'path')) as fc.Arbitrary<Record<string, unknown>>,
      query: valid(this.doc, this.paramsSchema(op, 'query')) as fc.Arbitrary<Record<string, unknown>>,
      header: valid(this.doc, this.paramsSchema(op, 'header')) as fc.Arbitrary<Record<string, unknown>>,
      ...(body ? { body: valid(this.doc, body) } : {}),
    }) as fc.Arbitrary<Input>;
  }

  send(path: string, method: string, input: Input, opts: SendOptions = {}) {
    const url = path.replace(/\{([^}]+)\}/g, (_m, name: string) => encodeURIComponent(text(input.path[name])));
    const query = new URLSearchParams();
    for (const [k, v] of Object.entries(input.query))
      for (const x of [v].flat()) if (x !== undefined) query.append(k, text(x));
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(input.header))
      if (v !== undefined) headers[k] = text(v).replace(/[^\x20-\x7e]/g, '');
    Object.assign(headers, opts.headers);
    let payload: string | undefined;
    if (opts.rawBody !== undefined) {
      payload = opts.rawBody;
      headers['content-type'] = 'application/json';
    } else if ('body' in input) {
      payload = opts.form ? formOf(input.body) : JSON.stringify(input.body);
      headers['content-type'] = opts.form ? 'application/x-www-form-urlencoded' : 'application/json';
    }
    const q = query.toString();
    return this.inject({ method: method.toUpperCase(), url: q ? `${url}?${q}` : url, headers, payload });
  }

  private validatorFor(path: string, method: string, status: string, type: string) {
    const key = `${method} ${path} ${status} ${type}`;
    let v = this.validators.get(key);
    if (!v) {
      const schema = this.jsonDoc.paths[path]![method]!.responses[status]!.content![type]!.schema;
      v = this.ajv.compile({ ...schema, components: this.jsonDoc.components });
      this.validators.set(key, v);
    }
    return v;
  }

  /** Whether a generated body is valid against the operation's request schema (the generators do not keep every rule). */
  bodyValid(op: Operation, body: unknown): boolean {
    const schema = this.bodySchema(op);
    if (!schema) return true;
    const key = `request ${op.operationId}`;
    let v = this.validators.get(key);
    if (!v)
      this.validators.set(
        key,
        (v = this.ajv.compile({ ...(toJsonSchema(schema) as object), components: this.jsonDoc.components })),
      );
    return v(body) as boolean;
  }

  /** What is wrong with an answer against the document (empty: nothing). */
  conformance(path: string, method: string, op: Operation, res: Reply): string[] {
    const status = String(res.statusCode);
    const declared = op.responses[status];
    if (!declared)
      return [`answered ${status}, declared ${Object.keys(op.responses).join(', ')}: ${res.body.slice(0, 200)}`];
    if (res.statusCode >= 500 && res.statusCode !== 503) return [`answered ${status}: ${res.body.slice(0, 200)}`];
    if (!declared.content) return [];
    const type = String(res.headers['content-type'] ?? '')
      .split(';')[0]!
      .trim();
    if (!declared.content[type])
      return [`${status} served as ${type}, declared ${Object.keys(declared.content).join(', ')}`];
    if (type !== 'application/json') return [];
    const v = this.validatorFor(path, method, status, type);
    return v(res.json())
      ? []
      : [`${status} body does not match its schema: ${this.ajv.errorsText(v.errors)}: ${res.body.slice(0, 200)}`];
  }

  /** Generated valid (and refused) inputs for one operation; the failures found. */
  async fuzz(path: string, method: string, op: Operation, o: FuzzOptions): Promise<string[]> {
    const failures: string[] = [];
    const where = `${method.toUpperCase()} ${path}`;
    const form = Object.keys(op.requestBody?.content ?? {}).includes('application/x-www-form-urlencoded');
    const samples = fc.sample(this.inputs(op), { seed: seedOf(op.operationId), numRuns: o.runs });
    const check = (res: Reply, what: string, input: Input) =>
      failures.push(
        ...this.conformance(path, method, op, res).map(
          (f) => `${where} (${what}): ${f} ← ${JSON.stringify(input).slice(0, 300)}`,
        ),
      );

    for (const [i, input] of samples.entries()) {
      const asForm = form && i % 2 === 1;
      check(
        await this.send(path, method, input, { headers: o.headers, form: asForm }),
        `valid ${asForm ? 'form' : 'JSON'} #${i}`,
        input,
      );
    }
    if (!o.invalid) return failures;
    const sample = samples[0]!;
    const refused = async (input: Input, field: string, what: string) => {
      const res = await this.send(path, method, input, { headers: o.headers });
      check(res, what, input);
      if (res.statusCode !== 400)
        failures.push(`${where} (${what}): answered ${res.statusCode}, not 400: ${res.body.slice(0, 160)}`);
      else if (!this.message(res.json()).includes(field))
        failures.push(`${where} (${what}): the message does not name ${field}: ${res.body}`);
    };
    const body = this.bodySchema(op) && deref(this.doc, this.bodySchema(op)!);
    if (body?.properties && typeof sample.body === 'object' && sample.body !== null) {
      for (const [name, ps] of Object.entries(body.properties as Record<string, Schema>)) {
        for (const wrong of wrongType(this.doc, ps).slice(0, 2)) {
          await refused(
            { ...sample, body: { ...sample.body, [name]: wrong } },
            name,
            `body ${name} = ${JSON.stringify(wrong)}`,
          );
        }
      }
      for (const name of (body.required as string[] | undefined) ?? []) {
        const rest = { ...(sample.body as Record<string, unknown>) };
        delete rest[name];
        await refused({ ...sample, body: rest }, name, `body without ${name}`);
      }
      if (body.additionalProperties === false)
        await refused(
          { ...sample, body: { ...sample.body, undeclaredField: 'x' } },
          'undeclaredField',
          'an undeclared field',
        );
    }
    for (const p of (op.parameters ?? []).filter((x) => x.in === 'query')) {
      const ps = deref(this.doc, p.schema);
      if (p.required) {
        const rest = { ...sample.query };
        delete rest[p.name];
        await refused({ ...sample, query: rest }, p.name, `query without ${p.name}`);
      }
      if (ps.type === 'integer' || ps.type === 'number')
        await refused({ ...sample, query: { ...sample.query, [p.name]: 'abc' } }, p.name, `query ${p.name}=abc`);
    }
    return failures;
  }
}

export const needsAuth = (op: Operation) =>
  (op.security ?? []).length > 0 && !(op.security ?? []).some((r) => Object.keys(r).length === 0);
