// One rule, applied and documented from here: in a JSON body, a field whose schema wants a number, an integer or a
// boolean may come as its text ("12", "-0.5", "true"), as a form sends it and as older clients send JSON. Nothing else
// is converted: `null`, an object, or text that is not the number's or boolean's text is refused by the check.
// - readScalarText (plugins/validation.ts) reads such text as the schema's type before the strict check;
// - acceptScalarText (the OpenAPI documents) declares the same fields as `anyOf` the type and its text, with the
//   pattern of the text that is read, so the document says exactly what the server takes.
type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The text of each scalar type that is read as that type. */
export const SCALAR_TEXT = {
  integer: '^-?[0-9]+$',
  number: '^-?([0-9]+(\\.[0-9]*)?|\\.[0-9]+)([eE][-+]?[0-9]+)?$',
  boolean: '^(true|false)$',
} as const;
const INTEGER = new RegExp(SCALAR_TEXT.integer);
const NUMBER = new RegExp(SCALAR_TEXT.number);

/** The JSON types a schema allows (through anyOf/oneOf); 'any' when it does not say. */
function typesOf(schema: unknown, out = new Set<string>()): Set<string> {
  if (!isObject(schema)) return out.add('any');
  const union = (schema.anyOf ?? schema.oneOf) as unknown[] | undefined;
  if (Array.isArray(union)) union.forEach((u) => typesOf(u, out));
  else if (typeof schema.type === 'string') out.add(schema.type);
  else if ('const' in schema) out.add(typeof schema.const);
  else out.add('any');
  return out;
}

/** The pattern of the text that stands for a value of this schema, if the rule applies to it. */
function textPattern(schema: unknown): string | undefined {
  const types = typesOf(schema);
  if (types.has('string') || types.has('any')) return undefined;
  const parts: string[] = [];
  if (types.has('number')) parts.push(SCALAR_TEXT.number);
  else if (types.has('integer')) parts.push(SCALAR_TEXT.integer);
  if (types.has('boolean')) parts.push(SCALAR_TEXT.boolean);
  return parts.length ? parts.map((p) => `(${p})`).join('|') : undefined;
}

/** Reads a JSON body's numbers and booleans sent as text as the schema's types (in place). */
export function readScalarText(schema: unknown, value: unknown, depth = 0): unknown {
  if (depth > 20 || !isObject(schema)) return value;
  if (typeof value === 'string') {
    if (!textPattern(schema)) return value;
    const types = typesOf(schema);
    if (types.has('number') ? NUMBER.test(value) : types.has('integer') && INTEGER.test(value)) return Number(value);
    if (types.has('boolean') && (value === 'true' || value === 'false')) return value === 'true';
    return value;
  }
  if (Array.isArray(value) && isObject(schema.items))
    return value.map((v) => readScalarText(schema.items, v, depth + 1));
  if (isObject(value) && isObject(schema.properties)) {
    for (const [k, s] of Object.entries(schema.properties))
      if (k in value) value[k] = readScalarText(s, value[k], depth + 1);
  }
  return value;
}

/** A body schema as documented: each field the rule applies to is `anyOf` its schema and its text. */
export function acceptScalarText(schema: unknown, depth = 0): unknown {
  if (depth > 20 || !isObject(schema)) return schema;
  if (isObject(schema.properties)) {
    const properties = Object.fromEntries(
      Object.entries(schema.properties).map(([k, s]) => [k, acceptScalarText(s, depth + 1)]),
    );
    return { ...schema, properties };
  }
  if (isObject(schema.items)) return { ...schema, items: acceptScalarText(schema.items, depth + 1) };
  const pattern = textPattern(schema);
  if (!pattern) return schema;
  const { description, ...rest } = schema;
  return {
    ...(description ? { description } : {}),
    anyOf: [
      rest,
      { type: 'string', pattern, description: 'The value as its text, read as the value (its bounds apply)' },
    ],
  };
}
