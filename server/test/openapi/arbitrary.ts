// fast-check arbitraries from the schemas of an OpenAPI 3.0 document: values a schema allows (valid()) and, for an
// object, values it refuses (invalid(): one field of the wrong type, null, missing or undeclared).
import fc from 'fast-check';
import { SCALAR_TEXT } from '../../src/lib/scalar-text.ts';

export type Schema = Record<string, unknown>;
type Doc = { components?: { schemas?: Record<string, Schema> } };

const isObject = (v: unknown): v is Schema => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The schema behind a `$ref` (local references only). */
export function deref(doc: Doc, s: Schema): Schema {
  let cur = s;
  for (let i = 0; i < 20 && typeof cur.$ref === 'string'; i++) {
    const path = cur.$ref.replace(/^#\//, '').split('/');
    cur = path.reduce<unknown>((o, k) => (isObject(o) ? o[k] : undefined), doc) as Schema;
  }
  return cur;
}

/** An OpenAPI 3.0 schema as JSON Schema (draft 7) for ajv: boolean exclusive bounds, `nullable`. */
export function toJsonSchema(s: unknown): unknown {
  if (Array.isArray(s)) return s.map(toJsonSchema);
  if (!isObject(s)) return s;
  const out: Schema = {};
  for (const [k, v] of Object.entries(s))
    out[k] =
      k === 'properties' && isObject(v)
        ? Object.fromEntries(Object.entries(v).map(([p, ps]) => [p, toJsonSchema(ps)]))
        : toJsonSchema(v);
  for (const [k, bound] of [
    ['exclusiveMinimum', 'minimum'],
    ['exclusiveMaximum', 'maximum'],
  ] as const) {
    if (out[k] === true) {
      out[k] = out[bound];
      delete out[bound];
    } else if (out[k] === false) delete out[k];
  }
  if (out.nullable === true) {
    delete out.nullable;
    if (Array.isArray(out.enum) && !out.enum.includes(null)) out.enum = [...out.enum, null];
    return { anyOf: [out, { type: 'null' }] };
  }
  delete out.nullable;
  return out;
}

const MAX_STRING = 40;

/** Strings of the formats the schemas use (dates within the range the API accepts). */
const FORMATS: Record<string, () => fc.Arbitrary<string>> = {
  email: () => fc.emailAddress().filter((e) => e.length <= 254),
  'date-time': () =>
    fc
      .date({ min: new Date('2000-01-01T00:00:00Z'), max: new Date('2099-12-31T00:00:00Z'), noInvalidDate: true })
      .map((d) => d.toISOString()),
  date: () =>
    fc
      .date({ min: new Date('2000-01-01T00:00:00Z'), max: new Date('2099-12-31T00:00:00Z'), noInvalidDate: true })
      .map((d) => d.toISOString().slice(0, 10)),
  uri: () => fc.webUrl(),
  uuid: () => fc.uuid(),
};

function stringOf(s: Schema): fc.Arbitrary<string> {
  if (typeof s.format === 'string' && FORMATS[s.format] && s.pattern === undefined) return FORMATS[s.format]!();
  const min = typeof s.minLength === 'number' ? s.minLength : 0;
  const max = Math.max(min, Math.min(typeof s.maxLength === 'number' ? s.maxLength : MAX_STRING, min + MAX_STRING));
  if (typeof s.pattern === 'string') {
    // A pattern ending in one repeated atom (`^[A-Z0-9]+$`) repeats it as often as the length bounds say; any other
    // pattern's strings are cut at maxLength (never filtered: a filter that rarely holds would never end).
    const source = s.pattern.replace(/([+*])\$$/, `{${Math.max(min, 1)},${Math.max(min, Math.min(max, min + 20))}}$`);
    return fc.stringMatching(new RegExp(source), { size: 'small' }).map((v) => [...v].slice(0, max).join(''));
  }
  return fc.string({ minLength: min, maxLength: max, unit: 'grapheme-ascii' });
}

function numberOf(s: Schema, integer: boolean): fc.Arbitrary<number> {
  const lo = typeof s.minimum === 'number' ? s.minimum : -1e6;
  const hi = typeof s.maximum === 'number' ? s.maximum : 1e6;
  const exLo = s.exclusiveMinimum === true;
  const exHi = s.exclusiveMaximum === true;
  if (integer) {
    const min = Math.ceil(exLo ? lo + 1e-9 : lo);
    const max = Math.floor(exHi ? hi - 1e-9 : hi);
    return fc.integer({ min: Math.max(min, Number.MIN_SAFE_INTEGER), max: Math.min(max, Number.MAX_SAFE_INTEGER) });
  }
  return fc.double({ min: lo, max: hi, minExcluded: exLo, maxExcluded: exHi, noNaN: true, noDefaultInfinity: true });
}

const TEXT_PATTERNS = Object.values(SCALAR_TEXT);
const isScalarText = (s: Schema) =>
  s.type === 'string' && typeof s.pattern === 'string' && TEXT_PATTERNS.some((p) => (s.pattern as string).includes(p));

/** Values `schema` allows. */
export function valid(doc: Doc, schema: Schema, depth = 0): fc.Arbitrary<unknown> {
  const s = deref(doc, schema);
  const base = ((): fc.Arbitrary<unknown> => {
    if ('const' in s) return fc.constant(s.const);
    if (Array.isArray(s.enum)) return fc.constantFrom(...(s.enum as unknown[]));
    const union = (s.anyOf ?? s.oneOf) as Schema[] | undefined;
    if (Array.isArray(union)) {
      // A number or boolean that may come as its text (lib/scalar-text.ts): a value of its schema, as itself or as its
      // text, so that its bounds hold either way.
      const values = union.filter((u) => !isScalarText(deref(doc, u)));
      const any = fc.oneof(...values.map((u) => valid(doc, u, depth + 1)));
      if (values.length === union.length) return any;
      return any.chain((v) =>
        typeof v === 'number' || typeof v === 'boolean' ? fc.constantFrom<unknown>(v, String(v)) : fc.constant(v),
      );
    }
    if (Array.isArray(s.allOf))
      return valid(doc, Object.assign({}, ...(s.allOf as Schema[]).map((x) => deref(doc, x))) as Schema, depth + 1);
    switch (s.type) {
      case 'string':
        return stringOf(s);
      case 'integer':
        return numberOf(s, true);
      case 'number':
        return numberOf(s, false);
      case 'boolean':
        return fc.boolean();
      case 'array': {
        const items = isObject(s.items) ? valid(doc, s.items, depth + 1) : fc.constant(null);
        const minLength = typeof s.minItems === 'number' ? s.minItems : 0;
        return fc.array(items, {
          minLength,
          maxLength: Math.min(typeof s.maxItems === 'number' ? s.maxItems : 3, minLength + 3),
        });
      }
      case 'object':
      case undefined: {
        if (!isObject(s.properties)) return s.type === 'object' ? fc.constant({}) : fc.constant(null);
        const required = new Set((s.required as string[] | undefined) ?? []);
        const props = Object.entries(s.properties).filter(([k]) => required.has(k) || depth < 3);
        return fc.record(Object.fromEntries(props.map(([k, ps]) => [k, valid(doc, ps as Schema, depth + 1)])), {
          requiredKeys: props.map(([k]) => k).filter((k) => required.has(k)),
        });
      }
      default:
        return fc.constant(null);
    }
  })();
  return s.nullable === true ? fc.oneof(base, fc.constant(null)) : base;
}

/** A value of another JSON type than `s` allows (null where not nullable, a number for a string, …), if there is one. */
export function wrongType(doc: Doc, schema: Schema): unknown[] {
  const s = deref(doc, schema);
  const types = new Set<string>();
  const patterns: RegExp[] = [];
  const collect = (x: Schema) => {
    const d = deref(doc, x);
    const union = (d.anyOf ?? d.oneOf) as Schema[] | undefined;
    if (Array.isArray(union)) union.forEach(collect);
    else if (d.type === 'string' && typeof d.pattern === 'string') patterns.push(new RegExp(d.pattern));
    else if (typeof d.type === 'string') types.add(d.type);
    else if ('const' in d) types.add(typeof d.const);
    else if (Array.isArray(d.enum)) (d.enum as unknown[]).forEach((e) => types.add(e === null ? 'null' : typeof e));
    else types.add('any');
    if (d.nullable === true) types.add('null');
  };
  collect(s);
  if (types.has('any')) return [];
  const out: unknown[] = [];
  if (!types.has('null')) out.push(null);
  // Text where no text is declared, or none of the declared patterns (a number's text) matches it.
  if (!types.has('string') && !patterns.some((p) => p.test('not-a-number'))) out.push('not-a-number');
  if (!types.has('number') && !types.has('integer')) out.push(12345);
  if (!types.has('object')) out.push({ nested: true });
  if (!types.has('array')) out.push(['a']);
  return out;
}
