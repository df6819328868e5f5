// Waiting for a condition in a server or browser test (re-exported by helper.ts).

/**
 * Polls `fn` until it answers. `timeoutMs` bounds a stuck test, not the product's speed: with a load average near 30
 * on two CPUs a rent took more than 10 s to pop, so the default is 30 s (a passing test returns as soon as it can).
 */
export async function waitFor<T>(
  fn: () => Promise<T | undefined | null | false>,
  what: string,
  timeoutMs = 30_000,
): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}
