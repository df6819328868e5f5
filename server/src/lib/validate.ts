// Validation of a service operation's input against its contract schema (src/contract/ops-fleet.ts), with every
// refused field named: a FieldErrors (400) lists them as `{ field, code, message }`; the first one is the
// error's message in the caller's language (locales/server `error.field.<code>`).
import type { TSchema, Static } from 'typebox';
import { Value } from 'typebox/value';
import { AppError } from './errors.ts';
import { t, DEFAULT_LOCALE, type Locale } from './i18n.ts';

export type FieldCode =
  'required' | 'invalid' | 'range' | 'unknown' | 'origin' | 'duplicate' | 'notFound' | 'currency' | 'order';

export interface FieldProblem {
  /** The field, as a dotted path (`openingHours.weekly.mon.0.open`); a CSV row number when it comes from one. */
  field: string;
  code: FieldCode;
  row?: number;
}

/** The English text of a problem (what a script prints; the API translates with `t`). */
export const problemText = (p: FieldProblem, locale: Locale = DEFAULT_LOCALE) =>
  t(locale, `error.field.${p.code}`, { field: p.field });

export class FieldErrors extends AppError {
  constructor(readonly problems: FieldProblem[]) {
    super(400, `error.field.${problems[0]?.code ?? 'invalid'}`, { field: problems[0]?.field ?? '' });
  }

  /** Each problem with its text in `locale`. */
  issues(locale: Locale = DEFAULT_LOCALE) {
    return this.problems.map((p) => ({
      ...(p.row !== undefined ? { row: p.row } : {}),
      field: p.field,
      code: p.code,
      message: problemText(p, locale),
    }));
  }
}

/** Collects problems; `throwIfAny` raises them together. */
export class Problems {
  readonly list: FieldProblem[] = [];
  add(field: string, code: FieldCode) {
    if (!this.list.some((p) => p.field === field)) this.list.push({ field, code });
    return this;
  }
  get any() {
    return this.list.length > 0;
  }
  throwIfAny() {
    if (this.any) throw new FieldErrors(this.list);
  }
}

const pathOf = (instancePath: string) => instancePath.replace(/^\//, '').split('/').filter(Boolean).join('.');

/** The schema's problems with `input`, one per field (missing fields by name, unknown ones as 'unknown'). */
export function schemaProblems(schema: TSchema, input: unknown): Problems {
  const out = new Problems();
  for (const e of Value.Errors(schema, input)) {
    const at = pathOf(e.instancePath);
    const params = e.params as Record<string, unknown>;
    if (e.keyword === 'boolean' && e.schemaPath.endsWith('/additionalProperties')) {
      out.add(at, 'unknown');
    } else if (e.keyword === 'required') {
      for (const f of (params.requiredProperties as string[] | undefined) ?? [])
        out.add(at ? `${at}.${f}` : f, 'required');
    } else if (e.keyword === 'additionalProperties') {
      for (const f of (params.additionalProperties as string[] | undefined) ?? [])
        out.add(at ? `${at}.${f}` : f, 'unknown');
    } else if (
      [
        'minimum',
        'maximum',
        'exclusiveMinimum',
        'exclusiveMaximum',
        'minItems',
        'maxItems',
        'minLength',
        'maxLength',
      ].includes(e.keyword)
    ) {
      out.add(at || '(body)', 'range');
    } else {
      out.add(at || '(body)', 'invalid');
    }
  }
  return out;
}

/** `input` as the schema's type, or a FieldErrors naming every refused field. */
export function validate<S extends TSchema>(schema: S, input: unknown): Static<S> {
  schemaProblems(schema, input).throwIfAny();
  return input as Static<S>;
}
