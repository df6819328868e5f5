// Setup of every unit test file: nothing a file scheduled may outlive its environment.
// A timer that fires after the file's happy-dom window is torn down fails there ("window is not defined") as an
// unhandled error of whichever file runs then. The usual source is nanostores: a store with a lifecycle (every
// persistent store, every computed one) unmounts 1 s after its last listener leaves, or after a bare `.get()`,
// and a persistent store's unmount removes its `window` listeners. So, after each file's own after-all hooks:
//   - its short timers (due within FLUSH_MS) run now, in order, while the window still exists, as they would
//     have if the file had lived that much longer;
//   - work still in flight (a request answered or refused once the file's server closed) gets up to SETTLE_MS to
//     finish and clear its own timers;
//   - any timer or interval still pending then, and any server still listening, fails the file, naming where it
//     was started. Node's own timers (an idle keep-alive socket's) are not the file's and are left alone.
import { afterAll, beforeAll } from 'vitest';

/** Timers due within this are run at the end of the file. */
const FLUSH_MS = 2_000;
/** How long in-flight work may take to finish at the end of the file (returns as soon as it has). */
const SETTLE_MS = 3_000;
/** The real clock (some files fake Date). */
const now = Date.now;

interface Pending {
  due: number;
  interval: boolean;
  run: () => void;
  stack: string;
}

const pending = new Map<NodeJS.Timeout, Pending>();
const real = {
  setTimeout: globalThis.setTimeout,
  clearTimeout: globalThis.clearTimeout,
  setInterval: globalThis.setInterval,
  clearInterval: globalThis.clearInterval,
};

/** Where a timer was started: the frames above the wrapper; '' for Node's own (`node:internal`). */
function where(): string {
  const frames = (new Error().stack ?? '').split('\n').slice(3, 8);
  return frames[0]?.includes('node:internal') ? '' : frames.join('\n');
}

function forget(id: unknown): void {
  if (id === undefined || id === null) return;
  if (typeof id === 'object') {
    pending.delete(id as NodeJS.Timeout);
    return;
  }
  for (const t of pending.keys()) if (Number(t) === Number(id)) pending.delete(t);
}

function install(): void {
  const trackedTimeout = (fn: (...a: unknown[]) => void, ms?: number, ...args: unknown[]) => {
    const run = () => {
      pending.delete(t);
      fn(...args);
    };
    const t = real.setTimeout(run, ms);
    const stack = where();
    if (stack) pending.set(t, { due: now() + (ms ?? 0), interval: false, run, stack });
    return t;
  };
  const trackedInterval = (fn: (...a: unknown[]) => void, ms?: number, ...args: unknown[]) => {
    const t = real.setInterval(() => fn(...args), ms);
    const stack = where();
    if (stack) pending.set(t, { due: Infinity, interval: true, run: () => undefined, stack });
    return t;
  };
  globalThis.setTimeout = Object.assign(trackedTimeout, {
    __promisify__: real.setTimeout.__promisify__,
  }) as typeof setTimeout;
  globalThis.setInterval = trackedInterval as typeof setInterval;
  globalThis.clearTimeout = ((id?: NodeJS.Timeout | string | number) => {
    forget(id);
    real.clearTimeout(id);
  }) as typeof clearTimeout;
  globalThis.clearInterval = ((id?: NodeJS.Timeout | string | number) => {
    forget(id);
    real.clearInterval(id);
  }) as typeof clearInterval;
}

const listening = () => process.getActiveResourcesInfo().filter((r) => r === 'TCPServerWrap').length;
let serversBefore = 0;

install();
beforeAll(() => {
  serversBefore = listening();
});

/** Runs the pending timers due by `limit`, earliest first (a callback may schedule more: a computed store's
 * unmount releases the stores it reads, which schedule theirs). */
function flush(limit: number): void {
  for (let round = 0; round < 1_000; round++) {
    const next = [...pending.entries()]
      .filter(([, p]) => !p.interval && p.due <= limit)
      .sort((a, b) => a[1].due - b[1].due)[0];
    if (!next) return;
    real.clearTimeout(next[0]);
    next[1].run();
  }
}

afterAll(async () => {
  const start = now();
  for (;;) {
    flush(start + FLUSH_MS);
    const busy = [...pending.values()].some((p) => !p.interval) || listening() > serversBefore;
    if (!busy || now() - start > SETTLE_MS) break;
    await new Promise((r) => real.setTimeout(r, 10));
  }
  const left = [...pending.values()];
  for (const t of pending.keys()) {
    real.clearTimeout(t);
    real.clearInterval(t);
  }
  pending.clear();
  const servers = listening() - serversBefore;
  const problems = [
    ...left.map(
      (p) =>
        `${p.interval ? 'an interval' : `a timer due in ${Math.round(p.due - now())} ms`} left running, started at\n${p.stack}`,
    ),
    ...(servers > 0 ? [`${servers} server(s) still listening`] : []),
  ];
  if (problems.length) throw new Error(`This file left work behind after its tests:\n${problems.join('\n')}`);
});
