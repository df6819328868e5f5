// The back-office console (src/ops/) never reaches the rider app's or the embed's bundles: no module of theirs
// imports it, statically or lazily (import(), import.meta.glob), and once built, no chunk of theirs carries the
// console's mark (src/ops/main.tsx OPS_CONSOLE_MARK).
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '../..');
const MARK = 'powerly-ops-console';

const SPECIFIERS = [
  /^\s*(?:import|export)\s+(?!type\s)(?:[\w*\s{},$]*?\s+from\s+)?['"]([^'"]+)['"]/gm,
  /\bimport\(\s*['"]([^'"]+)['"]\s*\)/g,
  /import\.meta\.glob(?:<[^(]*>)?\(\s*\[?\s*['"]([^'"]+)['"]/g,
];

function resolveFile(from: string, spec: string): string[] {
  const base = resolve(dirname(from), spec);
  if (spec.includes('*')) {
    const dir = base.slice(0, base.indexOf('*')).replace(/\/[^/]*$/, '');
    return existsSync(dir) ? readdirSync(dir).map((f) => join(dir, f)) : [];
  }
  for (const c of [base, `${base}.ts`, `${base}.tsx`, join(base, 'index.ts')])
    if (existsSync(c) && !c.endsWith('/')) return [c];
  return [];
}

/** Every file the entries load at run time, following relative static imports, import() and import.meta.glob. */
export function reachable(entries: string[]): Set<string> {
  const seen = new Set<string>();
  const queue = [...entries];
  while (queue.length) {
    const f = queue.pop()!;
    if (seen.has(f) || !/\.(tsx?|json)$/.test(f)) continue;
    seen.add(f);
    if (f.endsWith('.json')) continue;
    // Block comments that open a line (a glob such as 'x/*.json' is no comment).
    const code = readFileSync(f, 'utf8')
      .replace(/^\s*\/\*[\s\S]*?\*\//gm, '')
      .replace(/^\s*\/\/.*$/gm, '');
    for (const re of SPECIFIERS)
      for (const m of code.matchAll(re)) if (m[1]!.startsWith('.')) queue.push(...resolveFile(f, m[1]!));
  }
  return seen;
}

const RIDER_ENTRIES = [
  'src/main.tsx',
  'src/prerender.tsx',
  'embed/frame.tsx',
  'embed/element.ts',
  'embed/loader.ts',
  'embed/host.ts',
].map((p) => join(root, p));

describe('the console stays out of the rider app and the embed', () => {
  it('no module of the app or the embed imports src/ops', () => {
    const files = reachable(RIDER_ENTRIES);
    expect(files.size).toBeGreaterThan(50);
    expect(
      [...files].map((f) => relative(root, f)).filter((f) => f.startsWith('src/ops/') || f.startsWith('locales/ops/')),
    ).toEqual([]);
  });

  it('the walk does find the console from its own entry (the check can fail)', () => {
    const files = [...reachable([join(root, 'src/ops/main.tsx')])].map((f) => relative(root, f));
    expect(files).toEqual(
      expect.arrayContaining(['src/ops/App.tsx', 'src/ops/screens/AuditLog.tsx', 'locales/ops/pt-PT.json']),
    );
  });

  const dist = join(root, 'dist');
  it.runIf(existsSync(join(dist, 'ops')))("no built chunk of the app or the embed carries the console's mark", () => {
    const chunks = (dir: string): string[] =>
      existsSync(dir)
        ? readdirSync(dir, { recursive: true, encoding: 'utf8' })
            .filter((f) => f.endsWith('.js'))
            .map((f) => join(dir, f))
        : [];
    const rider = [...chunks(join(dist, 'assets')), ...chunks(join(dist, 'embed'))];
    expect(rider.filter((f) => readFileSync(f, 'utf8').includes(MARK))).toEqual([]);
    expect(chunks(join(dist, 'ops/assets')).some((f) => readFileSync(f, 'utf8').includes(MARK))).toBe(true);
  });
});
