import { defineConfig } from 'vite';
import { resolve } from 'node:path';
import { compression, defineAlgorithm } from 'vite-plugin-compression2';
import { firstLoad } from './embed/firstLoadPlugin.ts';
import { LOCALES } from './src/core/lang.ts';

// What a host page loads: the loader (embed/loader.ts) and the <powerly-rent> element (embed/element.ts),
// plain DOM and no framework, built on their own so that nothing of the iframe page (preact, the flows, the
// widget side of the bridge) can end up in a chunk they share. ES modules with fixed names, served by the
// Powerly server at /embed/loader.js and /embed/powerly-rent.js (`npm run build`), and the same files are
// the npm package in embed/ (`npm run build:embed-package` → embed/dist/, types in embed/types.d.ts).
const PACKAGE = process.env.EMBED_PACKAGE === '1';

export default defineConfig({
  plugins: PACKAGE
    ? []
    : [
        firstLoad({ 'embed-element': { entry: 'embed/element.ts' }, 'embed-loader': { entry: 'embed/loader.ts' } }),
        compression({
          include: /\.(js|mjs)$/,
          exclude: /(^|[/\\])size[/\\]/,
          threshold: 256,
          algorithms: [defineAlgorithm('brotliCompress'), defineAlgorithm('gzip', { level: 9 })],
          logLevel: 'silent',
        }),
      ],
  build: {
    outDir: PACKAGE ? 'embed/dist' : 'dist',
    emptyOutDir: PACKAGE,
    copyPublicDir: false,
    modulePreload: false,
    target: 'es2022',
    rollupOptions: {
      input: {
        loader: resolve(import.meta.dirname, 'embed/loader.ts'),
        'powerly-rent': resolve(import.meta.dirname, 'embed/element.ts'),
        // Loaded by the element by URL, beside it: its texts in its language, and the web vitals reporter once ready.
        ...Object.fromEntries(
          LOCALES.map((l) => [`element-texts-${l}`, resolve(import.meta.dirname, `embed/texts/${l}.ts`)]),
        ),
        'element-vitals': resolve(import.meta.dirname, 'embed/elementVitals.ts'),
      },
      output: {
        entryFileNames: PACKAGE ? '[name].js' : 'embed/[name].js',
        chunkFileNames: PACKAGE ? 'chunks/[name]-[hash].js' : 'embed/assets/[name]-[hash].js',
      },
      preserveEntrySignatures: 'strict',
    },
  },
});
