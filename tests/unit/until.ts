// Waits, inside React's act, until `fn` returns something truthy, and returns it. It returns as soon as the screen
// is there; the bound only decides how long a failing test takes to say so, and is generous because a loaded
// machine may take seconds to settle a screen that a quiet one settles in milliseconds.
import { act } from 'react';

export const WAIT_MS = 15_000;

export async function until<T>(fn: () => T | null | undefined | false, ms = WAIT_MS): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = fn();
    if (v) return v;
    if (Date.now() > end) throw new Error('timed out waiting');
    await act(() => new Promise((r) => setTimeout(r, 20)));
  }
}
