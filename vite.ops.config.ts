import { defineConfig } from 'vite';
import preact from '@preact/preset-vite';
import { resolve } from 'node:path';
import { compression, defineAlgorithm } from 'vite-plugin-compression2';
import { PREACT_ALIASES } from './vite.config.ts';

// The back-office console (src/ops/, served at /ops/): its own entry and chunks in dist/ops/, built against
// preact/compat as the app and the embed are. Nothing of it is imported by the rider app or the embed
// (tests/unit/opsIsolation.test.ts).
export default defineConfig({
  root: resolve(import.meta.dirname, 'src/ops'),
  base: '/ops/',
  publicDir: false,
  plugins: [
    preact({ reactAliasesEnabled: true, prerender: { enabled: false } }),
    compression({
      include: /\.(js|mjs|css|html|svg|json)$/,
      threshold: 1024,
      algorithms: [defineAlgorithm('brotliCompress'), defineAlgorithm('gzip', { level: 9 })],
      logLevel: 'silent',
    }),
  ],
  resolve: { alias: PREACT_ALIASES },
  build: {
    outDir: resolve(import.meta.dirname, 'dist/ops'),
    emptyOutDir: true,
    modulePreload: { polyfill: false },
  },
});
