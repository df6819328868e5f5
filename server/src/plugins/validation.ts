// One place for how requests are checked against their schemas (docs/api.md "Validation"):
// - the query string, path parameters and headers are text: numbers and booleans in them are read by the schema
//   (`page=2` → 2; one value where the schema wants a list becomes a list of one);
// - a form-encoded body is text like a query string, read by the same rules;
// - a JSON body keeps its JSON types, except that a number or a boolean may come as its text (`"12"`, `"true"`, as a
//   form would send it; lib/scalar-text.ts, which also declares it in the OpenAPI documents); nothing else is
//   converted: `null`, a number or an object where the schema wants text, text that is no number where it wants a
//   number, are refused;
// - a default fills in an absent field (the OpenAPI document declares such a field optional, lib/openapi.ts);
// - a property the schema does not declare is refused (400 naming it) where the schema forbids extras
//   (`additionalProperties: false`), and otherwise ignored: never silently removed from a strict schema.
// A failed check is a 400 naming the field (plugins/errors.ts).
import fp from 'fastify-plugin';
import type { FastifyInstance } from 'fastify';
import { Ajv, type Options, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { readScalarText } from '../lib/scalar-text.ts';

const common: Options = { useDefaults: true, removeAdditional: false, allErrors: false, strict: false };
const make = (coerceTypes: Options['coerceTypes']) => {
  const ajv = new Ajv({ ...common, coerceTypes });
  addFormats.default(ajv);
  return ajv;
};

const FORM = /^application\/x-www-form-urlencoded\b/i;

export default fp(
  async function validation(app: FastifyInstance) {
    const strict = make(false);
    const text = make('array');
    app.setValidatorCompiler(({ schema, httpPart }) => (httpPart === 'body' ? strict : text).compile(schema));

    // A form's fields are text: read them as the body schema's types before the (strict) check; a JSON body's numbers
    // and booleans sent as text likewise, and nothing else of it.
    const readers = new WeakMap<object, ValidateFunction>();
    app.addHook('preValidation', async (req) => {
      const schema = req.routeOptions.schema?.body;
      if (!schema || typeof schema !== 'object' || !req.body || typeof req.body !== 'object') return;
      if (!FORM.test(req.headers['content-type'] ?? '')) {
        readScalarText(schema, req.body);
        return;
      }
      let read = readers.get(schema);
      if (!read) readers.set(schema, (read = text.compile(schema)));
      read(req.body); // coerces in place; the strict check that follows reports what is still wrong
    });
  },
  { name: 'validation' },
);
