import { defineConfig, mergeConfig } from 'vite';
import { resolve } from 'node:path';
import app from './vite.config.ts';

// The demo host pages (demo/: the control panel, a venue page, a partner site, a native-app web-view stand-in)
// build on their own into dist/demo/ after the app (`npm run build`): with the app in the same build, the modules
// both use were split into a dozen shared chunks that the app's first load then fetched one by one. Same plugins
// and aliases as the app (vite.config.ts); the size report there is the app's only.
export default mergeConfig(
  {
    ...app,
    plugins: (app.plugins ?? []).filter((p) => !(p && 'name' in p && p.name === 'powerly-first-load')),
    build: { ...app.build, rollupOptions: {} },
  },
  defineConfig({
    build: {
      emptyOutDir: false,
      rollupOptions: {
        input: {
          demo: resolve(import.meta.dirname, 'demo/index.html'),
          venue: resolve(import.meta.dirname, 'demo/venue.html'),
          partner: resolve(import.meta.dirname, 'demo/partner/index.html'),
          native: resolve(import.meta.dirname, 'demo/native.html'),
        },
      },
    },
  }),
  false,
);
