// No import circle in the flows (src/) or the embed (embed/): the static import graph of their TypeScript
// files, from `import … from '…'`, `import '…'` and `export … from '…'` with relative specifiers. Type-only
// imports and dynamic import() are not edges (they load nothing at start, or nothing at all).
import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '../..');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(p);
    return /\.tsx?$/.test(e.name) && !e.name.endsWith('.d.ts') ? [p] : [];
  });
}

const IMPORT = /^\s*(?:import|export)\s+(?!type\s)(?:[\w*\s{},$]*?\s+from\s+)?['"]([^'"]+)['"]/gm;

/** The relative modules a file's source imports at run time. */
export function staticImports(source: string): string[] {
  // Comments out, so a commented import is no edge.
  const code = source.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');
  return [...code.matchAll(IMPORT)].map((m) => m[1]!).filter((s) => s.startsWith('.'));
}

/** Every cycle's path (a → b → … → a), found by depth-first search. */
export function findCycles(graph: Map<string, string[]>): string[][] {
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const cycles: string[][] = [];
  const visit = (n: string) => {
    state.set(n, 'open');
    stack.push(n);
    for (const d of graph.get(n) ?? []) {
      if (state.get(d) === 'open') cycles.push([...stack.slice(stack.indexOf(d)), d]);
      else if (!state.has(d)) visit(d);
    }
    stack.pop();
    state.set(n, 'done');
  };
  for (const n of graph.keys()) if (!state.has(n)) visit(n);
  return cycles;
}

function importGraph(dirs: string[]): Map<string, string[]> {
  const files = dirs.flatMap((d) => sourceFiles(join(root, d)));
  const known = new Set(files);
  return new Map(
    files.map((f) => [
      relative(root, f),
      staticImports(readFileSync(f, 'utf8'))
        .map((s) => resolve(dirname(f), s))
        .filter((p) => known.has(p))
        .map((p) => relative(root, p)),
    ]),
  );
}

describe('import graph of src/ and embed/', () => {
  it('reads value imports and re-exports, not type-only or dynamic ones', () => {
    const src = [
      "import { a } from './a.ts';",
      "import './side.css';",
      'import {\n  b,\n  type C,\n} from "../b.tsx";',
      "import type { D } from './d.ts';",
      "export { e } from './e.ts';",
      "export * from './f.ts';",
      "// import { g } from './g.ts';",
      "const h = () => import('./h.tsx');",
      "import x from 'react';",
    ].join('\n');
    expect(staticImports(src)).toEqual(['./a.ts', './side.css', '../b.tsx', './e.ts', './f.ts']);
  });

  it('finds a cycle when there is one', () => {
    const g = new Map([
      ['client', ['session']],
      ['session', ['i18n']],
      ['i18n', ['feedback']],
      ['feedback', ['client']],
      ['leaf', []],
    ]);
    expect(findCycles(g)).toEqual([['client', 'session', 'i18n', 'feedback', 'client']]);
    expect(
      findCycles(
        new Map([
          ['a', ['b']],
          ['b', []],
        ]),
      ),
    ).toEqual([]);
  });

  it('has no cycle', () => {
    const graph = importGraph(['src', 'embed']);
    expect(graph.size).toBeGreaterThan(50);
    expect(graph.get('src/App.tsx')).toContain('src/routes.ts');
    expect(findCycles(graph).map((c) => c.join(' → '))).toEqual([]);
  });
});
