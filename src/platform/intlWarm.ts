// The first Intl.NumberFormat of a page makes Chromium load ICU's number data: 30–70 ms of main thread on the
// 2-core machine (four times that at Lighthouse's mobile CPU), the largest single task of a price screen's first
// render (docs/benchmarks.md). That data is the renderer process's, shared by its threads: made once in a worker
// (./intlWarm.worker.ts), the main thread's first format then takes well under a millisecond. A page that will
// show prices soon (a code link, the embed's frame) starts it at once; a page may wait for it, briefly (`wait`).

/** Resolves once the worker has made the formatters, or failed, or after `wait` ms: never rejects. */
export function warmIntl(lang: string, wait = 400): Promise<void> {
  return new Promise<void>((resolve) => {
    setTimeout(resolve, wait);
    try {
      const w = new Worker(new URL('./intlWarm.worker.ts', import.meta.url), { type: 'module' });
      w.onmessage = w.onerror = () => resolve();
      w.postMessage(lang);
    } catch {
      resolve(); // no workers here
    }
  });
}
