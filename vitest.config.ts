import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

// Files at once: Vitest's default (one less than the CPUs) is one on a 2-core machine; two measured faster there
// (unit 60 → 38 s, browser 556 → 499 s), three overloaded it (browser tests timed out). The server's files share
// each worker's module graph (isolate: false; 347 → 150 s): each starts its own app, database and broker and mocks
// no module, and loading the server's modules again for every file was most of their time. The browser's files
// keep their isolation: without it the partner page's host `open` went unanswered in 2 of 3 runs.
const WORKERS = Math.max(2, availableParallelism() - 1);

// Three projects, run one after another by `npm test`:
//  unit    – pure rules and components in happy-dom
//  server  – the rental API through app.inject against PGlite (or PostgreSQL when DATABASE_URL is set)
//  browser – Debian's Chromium through playwright-core against the real server, broker and simulator
export default defineConfig({
  // The server's aliases for the shared rules and the wire contract (tsconfig "paths" in server/tsconfig.json;
  // tsc and tsx read those, Vite needs them spelled out).
  resolve: {
    alias: [
      { find: /^#core\//, replacement: fileURLToPath(new URL('./src/core/', import.meta.url)) },
      { find: /^#contract\//, replacement: fileURLToPath(new URL('./src/contract/', import.meta.url)) },
    ],
  },
  oxc: { jsx: { runtime: 'automatic', importSource: 'react' } },
  test: {
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          environment: 'happy-dom',
          include: ['tests/unit/**/*.test.{ts,tsx}'],
          // Nothing a file scheduled outlives it (tests/unit/setup.ts).
          setupFiles: ['tests/unit/setup.ts'],
          maxWorkers: WORKERS,
          // Bounds for a failing or stuck test, not expectations of speed: a loaded machine settles a screen in
          // seconds that a quiet one settles in milliseconds (tests/unit/until.ts).
          testTimeout: 30_000,
          expect: { poll: { timeout: 15_000 } },
        },
      },
      {
        extends: true,
        test: {
          name: 'server',
          environment: 'node',
          include: ['server/test/**/*.test.ts'],
          globalSetup: ['server/test/global-setup.ts'],
          // Nothing a file started outlives it (server/test/left-behind.ts).
          setupFiles: ['server/test/left-behind.ts'],
          maxWorkers: WORKERS,
          isolate: false,
          // Bounds for a failing or stuck test, not expectations of speed: with a load average near 30 a build
          // took 30 s and a whole test over 30 s, so the bounds are the browser project's.
          testTimeout: 120_000,
          hookTimeout: 120_000,
        },
      },
      {
        extends: true,
        test: {
          name: 'browser',
          environment: 'node',
          include: ['tests/browser/**/*.test.ts'],
          globalSetup: ['server/test/global-setup.ts'],
          setupFiles: ['server/test/left-behind.ts'],
          maxWorkers: WORKERS,
          // A page under CI load may take seconds to settle (debounced calls, lazy chunks): expect.poll's
          // default of 1 s is for unit tests, not for a browser driving a real server.
          expect: { poll: { timeout: 15_000, interval: 100 } },
          testTimeout: 120_000,
          hookTimeout: 120_000,
        },
      },
    ],
  },
});
