// Locale parity: every key in every locale file (app and, when present, server), no empty values, and every
// literal key the app's code asks for exists.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '../..');
const EXPECTED = ['en-US', 'es-ES', 'lt-LT', 'pt-PT', 'zh-CN'];

function flatten(obj: unknown, prefix = '', out: Record<string, unknown> = {}): Record<string, unknown> {
  if (obj && typeof obj === 'object' && !Array.isArray(obj)) {
    for (const [k, v] of Object.entries(obj)) flatten(v, prefix ? `${prefix}.${k}` : k, out);
  } else out[prefix] = obj;
  return out;
}

const CATEGORIES = new Set(['zero', 'one', 'two', 'few', 'many', 'other']);
/** A string with plural forms (an object of Intl.PluralRules categories, src/i18n): compared as one key. */
const isPlural = (v: unknown): v is Record<string, unknown> =>
  !!v && typeof v === 'object' && !Array.isArray(v) && 'other' in v && Object.keys(v).every((k) => CATEGORIES.has(k));

function flattenPlural(
  obj: unknown,
  prefix = '',
  out: Record<string, unknown> = {},
  forms: Record<string, string[]> = {},
) {
  if (isPlural(obj)) {
    out[prefix] = obj.other;
    forms[prefix] = Object.keys(obj).sort();
    for (const [k, v] of Object.entries(obj)) if (k !== 'other') out[`${prefix}#${k}`] = v;
  } else if (obj && typeof obj === 'object' && !Array.isArray(obj)) {
    for (const [k, v] of Object.entries(obj)) flattenPlural(v, prefix ? `${prefix}.${k}` : k, out, forms);
  } else out[prefix] = obj;
  return { out, forms };
}

function load(dir: string): Record<string, Record<string, unknown>> {
  const files = readdirSync(dir).filter((f) => f.endsWith('.json'));
  return Object.fromEntries(
    files.map((f) => [f.replace(/\.json$/, ''), flattenPlural(JSON.parse(readFileSync(join(dir, f), 'utf8'))).out]),
  );
}
const pluralForms = (dir: string, lang: string) =>
  flattenPlural(JSON.parse(readFileSync(join(dir, `${lang}.json`), 'utf8'))).forms;
/** The keys every locale shares: a plural form other than `other` is its language's own. */
const shared = (table: Record<string, unknown>) =>
  Object.keys(table)
    .filter((k) => !k.includes('#'))
    .sort();

// locales/server is the back end's; locales/pay the payment screens' (loaded with them, src/pay/strings.ts); locales/mifi
// the Wi-Fi screens' (src/mifi/strings.ts); locales/ops the back-office console's (src/ops/strings.ts); locales/returns the deposit and notification panels' (src/notify/strings.ts). Each is checked as soon as it holds locale files.
const dirs = [
  join(root, 'locales'),
  join(root, 'locales/server'),
  join(root, 'locales/pay'),
  join(root, 'locales/mifi'),
  join(root, 'locales/ops'),
  join(root, 'locales/returns'),
].filter((d) => existsSync(d) && readdirSync(d).some((f) => f.endsWith('.json')));

describe.each(dirs)('locale files in %s', (dir) => {
  const all = load(dir);
  it('has the five locales', () => {
    expect(Object.keys(all).sort()).toEqual(EXPECTED);
  });
  it('every locale has exactly the keys of en-US', () => {
    const ref = shared(all['en-US']!);
    for (const [lang, table] of Object.entries(all)) {
      expect(shared(table), lang).toEqual(ref);
    }
  });
  it('a string with plural forms has exactly the forms of its language (Intl.PluralRules)', () => {
    const en = pluralForms(dir, 'en-US');
    for (const lang of Object.keys(all)) {
      const forms = pluralForms(dir, lang);
      expect(Object.keys(forms).sort(), lang).toEqual(Object.keys(en).sort());
      const categories = new Intl.PluralRules(lang).resolvedOptions().pluralCategories.slice().sort();
      for (const [k, f] of Object.entries(forms)) expect(f, `${lang}: ${k}`).toEqual(categories);
    }
  });
  it('no empty or non-string values', () => {
    for (const [lang, table] of Object.entries(all)) {
      for (const [k, v] of Object.entries(table)) {
        expect(typeof v === 'string' && v.trim().length > 0, `${lang}: ${k}`).toBe(true);
      }
    }
  });
  it("placeholders are the client's {{name}} (rosetta), the server's {name}", () => {
    const single = /(?<!\{)\{\w+\}(?!\})/;
    const server = dir.endsWith('locales/server');
    for (const [lang, table] of Object.entries(all)) {
      for (const [k, v] of Object.entries(table)) {
        if (typeof v !== 'string') continue;
        if (server) expect(v.includes('{{'), `${lang} ${k}`).toBe(false);
        else expect(single.test(v), `${lang} ${k}: ${v}`).toBe(false);
      }
    }
  });
  it('placeholders match en-US', () => {
    const ph = (s: unknown) => [...String(s).matchAll(/\{\{(\w+)\}\}/g)].map((m) => m[1]).sort();
    const en = all['en-US']!;
    for (const [lang, table] of Object.entries(all)) {
      for (const k of Object.keys(table)) expect(ph(table[k]), `${lang}: ${k}`).toEqual(ph(en[k.split('#')[0]!]));
    }
  });
});

describe('keys used by the app', () => {
  it("every literal t('…') key exists in en-US", () => {
    const en = {
      ...flattenPlural(JSON.parse(readFileSync(join(root, 'locales/en-US.json'), 'utf8'))).out,
      ...flatten(JSON.parse(readFileSync(join(root, 'locales/pay/en-US.json'), 'utf8'))),
      ...flattenPlural(JSON.parse(readFileSync(join(root, 'locales/mifi/en-US.json'), 'utf8'))).out,
      ...flattenPlural(JSON.parse(readFileSync(join(root, 'locales/ops/en-US.json'), 'utf8'))).out,
      ...flattenPlural(JSON.parse(readFileSync(join(root, 'locales/returns/en-US.json'), 'utf8'))).out,
    };
    const files: string[] = [];
    const walk = (d: string) => {
      for (const e of readdirSync(d, { withFileTypes: true })) {
        if (e.isDirectory()) walk(join(d, e.name));
        else if (/\.tsx?$/.test(e.name)) files.push(join(d, e.name));
      }
    };
    walk(join(root, 'src'));
    const missing: string[] = [];
    for (const f of files) {
      for (const m of readFileSync(f, 'utf8').matchAll(/\bt\('([\w.]+)'/g))
        if (!(m[1]! in en)) missing.push(`${f}: ${m[1]}`);
    }
    expect(missing).toEqual([]);
    expect(files.length).toBeGreaterThan(10);
  });
});
