import { defineConfig } from 'vite';
import preact from '@preact/preset-vite';
import { PREACT_ALIASES } from './vite.config.ts';

// The renderer the server runs for a code link asked for as a path (/?qrcode=…, server/src/codeLinkPage.ts):
// src/prerender.tsx, the same shell, screens and strings as the app, bundled for Node into dist-ssr/ (beside
// dist/, never served). Every dependency is bundled (React resolves to preact/compat, as in the app).
export default defineConfig({
  plugins: [preact({ reactAliasesEnabled: true, prerender: { enabled: false } })],
  resolve: { alias: PREACT_ALIASES },
  ssr: { noExternal: true, target: 'node' },
  build: {
    ssr: 'src/prerender.tsx',
    outDir: 'dist-ssr',
    emptyOutDir: true,
    rollupOptions: { output: { entryFileNames: 'render.js', format: 'es' } },
  },
});
