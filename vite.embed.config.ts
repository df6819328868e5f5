import { defineConfig } from 'vite';
import preact from '@preact/preset-vite';
import { resolve } from 'node:path';
import { compression, defineAlgorithm } from 'vite-plugin-compression2';
import { firstLoad } from './embed/firstLoadPlugin.ts';

// The embed: the iframe page (embed/frame.html, the rent flows), the loader script (embed/loader.ts) and the
// <powerly-rent> custom element (embed/element.tsx), built against preact/compat into dist/embed/ after the
// app's own build (`npm run build` runs both). React imports resolve to preact/compat here only.
export default defineConfig({
  plugins: [
    preact({ reactAliasesEnabled: true, prerender: { enabled: false } }),
    // What a host page loads first: the element's script; the iframe page with the code-link entry screen.
    firstLoad({ 'embed-element': { entry: 'embed/element.tsx' }, 'embed-loader': { entry: 'embed/loader.ts' }, 'embed-frame': { entry: 'embed/frame.html', lazy: ['src/scan/HomeScan.tsx'] } }),
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
  resolve: {
    alias: {
      react: 'preact/compat',
      'react-dom/client': 'preact/compat/client',
      'react-dom': 'preact/compat',
      'react/jsx-runtime': 'preact/jsx-runtime',
    },
  },
  build: {
    outDir: 'dist',
    emptyOutDir: false,
    assetsDir: 'embed/assets',
    rollupOptions: {
      input: {
        frame: resolve(import.meta.dirname, 'embed/frame.html'),
        loader: resolve(import.meta.dirname, 'embed/loader.ts'),
        'powerly-rent': resolve(import.meta.dirname, 'embed/element.tsx'),
      },
      output: {
        entryFileNames: (chunk) => (chunk.name === 'loader' || chunk.name === 'powerly-rent' ? 'embed/[name].js' : 'embed/assets/[name]-[hash].js'),
      },
      preserveEntrySignatures: 'strict',
    },
  },
});
