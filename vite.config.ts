import { defineConfig } from 'vite';
import preact from '@preact/preset-vite';
import { resolve } from 'node:path';
import { compression, defineAlgorithm } from 'vite-plugin-compression2';
import { firstLoad, firstLoadChunk } from './embed/firstLoadPlugin.ts';
import { prerenderFirstScreens } from './build/prerender.ts';

/** React imports resolve to preact/compat in every shipped build (this one and vite.embed.config.ts). */
export const PREACT_ALIASES = {
  react: 'preact/compat',
  'react-dom/client': 'preact/compat/client',
  'react-dom': 'preact/compat',
  'react/jsx-runtime': 'preact/jsx-runtime',
};

const first = firstLoadChunk('src/main.tsx', ['src/scan/HomeScan.tsx']);

// The standalone app (index.html) builds into dist/, which the server serves at /; the demo host pages build
// after it (vite.demo.config.ts, into dist/demo/), then the embed (vite.embed.config.ts). The flows are React
// components; here, as in the embed frame, React resolves to preact/compat (PREACT_ALIASES).
export default defineConfig({
  // Size budgets: the standalone app's first route (index.html + the '/' screen) → dist/size/app.js.
  plugins: [
    preact({ reactAliasesEnabled: true, prerender: { enabled: false } }),
    first.plugin,
    firstLoad({ app: { entry: 'index.html', lazy: ['src/scan/HomeScan.tsx'] } }),
    // The first screens as HTML (build/prerender.ts): the landing in index.html, the web-view pages per locale.
    prerenderFirstScreens({
      plugins: [preact({ reactAliasesEnabled: true, prerender: { enabled: false } })],
      resolve: { alias: PREACT_ALIASES },
    }),
    // Precompressed copies (.br, .gz) of every compressible file above 1 kB, made from the final bundle (after
    // hashing and minifying); the server sends them with @fastify/static's preCompressed. dist/size/ holds the
    // size-limit's inputs, which no page loads: not compressed. Same options in vite.embed.config.ts.
    compression({
      include: /\.(js|mjs|css|html|svg|json|webmanifest|txt)$/,
      exclude: /(^|[/\\])size[/\\]/,
      threshold: 1024,
      algorithms: [defineAlgorithm('brotliCompress'), defineAlgorithm('gzip', { level: 9 })],
      logLevel: 'silent',
    }),
  ],
  resolve: { alias: PREACT_ALIASES },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    rollupOptions: {
      // The app alone: the demo pages build after it (vite.demo.config.ts), so no chunk is split off for them.
      input: { app: resolve(import.meta.dirname, 'index.html') },
      output: {
        // What the first route needs, as one chunk beside the entry (firstLoadChunk): split by what lazy screens
        // share, it was a dozen small chunks that HTTP/1.1's six connections fetched in rounds.
        codeSplitting: {
          groups: [{ name: 'first', test: first.test }],
        },
      },
    },
  },
  server: {
    proxy: {
      '/cdb-app-api': 'http://127.0.0.1:8080',
      '/sandbox-pay': 'http://127.0.0.1:8080',
      '/demo-api': 'http://127.0.0.1:8080',
    },
  },
});
