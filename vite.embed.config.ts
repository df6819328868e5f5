import { defineConfig } from 'vite';
import preact from '@preact/preset-vite';
import { resolve } from 'node:path';
import { compression, defineAlgorithm } from 'vite-plugin-compression2';
import { readFileSync } from 'node:fs';
import type { Plugin } from 'vite';
import { firstLoad } from './embed/firstLoadPlugin.ts';
import { PREACT_ALIASES } from './vite.config.ts';
import { FIRST_SCREEN_STRINGS } from './embed/firstStrings.ts';

/**
 * The i18n module's bundled en-US table, in this build only: the first screen's namespaces (embed/firstStrings.ts).
 * The whole table is a lazy chunk the frame loads once it has started.
 */
function firstScreenStrings(): Plugin {
  const id = '\0powerly:first-screen-strings';
  return {
    name: 'powerly-first-screen-strings',
    enforce: 'pre',
    resolveId(source, importer) {
      if (source === '../../locales/en-US.json' && importer?.replace(/\\/g, '/').endsWith('/src/i18n/index.ts'))
        return id;
      return null;
    },
    load(loaded) {
      if (loaded !== id) return null;
      const all = JSON.parse(readFileSync(resolve(import.meta.dirname, 'locales/en-US.json'), 'utf8')) as Record<
        string,
        unknown
      >;
      const first: Record<string, unknown> = {};
      for (const key of FIRST_SCREEN_STRINGS) {
        const [ns, leaf] = key.split('.') as [string, string | undefined];
        const table = all[ns] as Record<string, unknown> | undefined;
        if (!table || (leaf !== undefined && table[leaf] === undefined))
          this.error(`first-screen string ${key} is not in locales/en-US.json`);
        first[ns] = leaf === undefined ? table : { ...(first[ns] as object | undefined), [leaf]: table[leaf] };
      }
      return `export default ${JSON.stringify(first)};`;
    },
  };
}

// The embed's iframe page (embed/frame.html, the rent flows), built against preact/compat into dist/embed/
// after the app's own build (`npm run build` runs all three). React imports resolve to preact/compat here
// only. The host side (loader, <powerly-rent>) is plain DOM and builds on its own: vite.embed-host.config.ts.
export default defineConfig({
  plugins: [
    firstScreenStrings(),
    preact({ reactAliasesEnabled: true, prerender: { enabled: false } }),
    // What the iframe loads first: the page with the code-link entry screen.
    firstLoad({ 'embed-frame': { entry: 'embed/frame.html', lazy: ['src/scan/HomeScan.tsx'] } }),
    // .br and .gz of this build's own files (emptyOutDir is off: the app build's compressed files stay), with
    // the options of vite.config.ts — but not of embed/frame.html: the server rewrites that page per request
    // (server/src/static.ts), so a copy of the template would never be sent; @fastify/compress compresses it.
    compression({
      include: /\.(js|mjs|css|html|svg|json|webmanifest|txt)$/,
      exclude: [/(^|[/\\])size[/\\]/, /(^|[/\\])embed[/\\]frame\.html$/],
      threshold: 1024,
      algorithms: [defineAlgorithm('brotliCompress'), defineAlgorithm('gzip', { level: 9 })],
      logLevel: 'silent',
    }),
  ],
  resolve: { alias: PREACT_ALIASES },
  build: {
    outDir: 'dist',
    emptyOutDir: false,
    assetsDir: 'embed/assets',
    // The browsers the iframe supports all have <link rel=modulepreload>: no polyfill in the first load.
    modulePreload: { polyfill: false },
    rollupOptions: {
      input: {
        frame: resolve(import.meta.dirname, 'embed/frame.html'),
      },
      output: { entryFileNames: 'embed/assets/[name]-[hash].js' },
    },
  },
});
