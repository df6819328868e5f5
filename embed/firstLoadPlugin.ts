// A build plugin for the size budgets: for each named entry it writes dist/size/<name>.js, the concatenation
// of everything a browser loads first for it (the entry chunk, its static imports, listed lazy screens and
// their static imports, and their CSS), and dist/size/<name>.modules.json, the source modules in it.
// size-limit measures the .js files (gzip; budgets in package.json); a test reads the module lists to check
// that maplibre-gl, qr-scanner and payment SDKs are never in a first load.
import type { Plugin } from 'vite';

interface OutputChunkLike {
  type: 'chunk';
  fileName: string;
  code: string;
  isEntry: boolean;
  facadeModuleId: string | null;
  imports: string[];
  moduleIds: string[];
  viteMetadata?: { importedCss: Set<string> };
}

export interface FirstLoad {
  /** The entry, matched by the end of its module id (e.g. 'index.html', 'embed/element.tsx'). */
  entry: string;
  /** Lazy modules loaded on the first screen (e.g. the first route's screen). */
  lazy?: string[];
}

export function firstLoad(reports: Record<string, FirstLoad>): Plugin {
  return {
    name: 'powerly-first-load',
    apply: 'build',
    generateBundle(_opts, bundle) {
      const chunks = Object.values(bundle).filter((c) => c.type === 'chunk') as unknown as OutputChunkLike[];
      const byFile = new Map(chunks.map((c) => [c.fileName, c]));
      const cwd = process.cwd().replace(/\\/g, '/') + '/';
      const ends = (id: string | null, rel: string) => !!id && id.replace(/\\/g, '/') === cwd + rel;
      for (const [name, r] of Object.entries(reports)) {
        const roots = chunks.filter(
          (c) =>
            (c.isEntry && ends(c.facadeModuleId, r.entry)) || (r.lazy ?? []).some((l) => ends(c.facadeModuleId, l)),
        );
        if (roots.length !== 1 + (r.lazy?.length ?? 0))
          this.error(
            `first-load ${name}: entry or lazy screen not found among ${chunks.map((c) => `${c.fileName}:${c.isEntry}:${c.facadeModuleId}`).join(', ')}`,
          );
        const seen = new Set<string>();
        const walk = (c: OutputChunkLike) => {
          if (seen.has(c.fileName)) return;
          seen.add(c.fileName);
          for (const i of c.imports) {
            const next = byFile.get(i);
            if (next) walk(next);
          }
        };
        roots.forEach(walk);
        const files = [...seen].map((f) => byFile.get(f)!);
        const css = new Set(files.flatMap((c) => [...(c.viteMetadata?.importedCss ?? [])]));
        const cssText = [...css].map((f) => {
          const a = bundle[f];
          return a && a.type === 'asset' ? String(a.source) : '';
        });
        this.emitFile({
          type: 'asset',
          fileName: `size/${name}.js`,
          source: [...files.map((c) => c.code), ...cssText].join('\n'),
        });
        const modules = files
          .flatMap((c) => c.moduleIds)
          .map((m) =>
            m
              .replace(/\\/g, '/')
              .replace(/^.*\/node_modules\//, 'node_modules/')
              .replace(process.cwd().replace(/\\/g, '/') + '/', ''),
          );
        this.emitFile({
          type: 'asset',
          fileName: `size/${name}.modules.json`,
          source: JSON.stringify({ files: [...seen, ...css], modules }, null, 1),
        });
      }
    },
  };
}

/**
 * One chunk for what a page needs first: the modules statically reachable from the entry and from its first
 * screen(s), computed once the module graph is known (buildEnd), matched by a code-splitting group's `test`.
 * Without it the bundler splits the modules lazy screens share into a dozen small chunks, which HTTP/1.1's six
 * connections fetch in rounds before the first screen can render.
 */
export function firstLoadChunk(entry: string, lazy: string[] = []): { plugin: Plugin; test: (id: string) => boolean } {
  const graph = new Set<string>();
  const plugin: Plugin = {
    name: 'powerly-first-load-chunk',
    apply: 'build',
    buildEnd() {
      const cwd = process.cwd().replace(/\\/g, '/') + '/';
      const ids = [...this.getModuleIds()];
      const roots = ids.filter((id) => [entry, ...lazy].some((rel) => id.replace(/\\/g, '/') === cwd + rel));
      const walk = (id: string) => {
        if (graph.has(id)) return;
        graph.add(id);
        for (const next of this.getModuleInfo(id)?.importedIds ?? []) walk(next);
      };
      roots.forEach(walk);
    },
  };
  return { plugin, test: (id) => graph.has(id) };
}
