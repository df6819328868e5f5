// The first render over prerendered markup (src/main.tsx hydrates it) must produce that markup: a value the
// build cannot know (the user agent's system) is rendered as the build rendered it, then the browser's.
import { useEffect, useState } from 'react';

let hydrating = false;

/** Runs `render` (a synchronous hydrateRoot) with hydration-time values in force. */
export function whileHydrating(render: () => void): void {
  hydrating = true;
  try {
    render();
  } finally {
    hydrating = false;
  }
}

/**
 * `prerendered` while prerendering at build and in the first render over that markup, `client()` otherwise and
 * once mounted.
 */
export function useClientValue<T>(prerendered: T, client: () => T): T {
  const [value, setValue] = useState<T>(() => (hydrating || typeof window === 'undefined' ? prerendered : client()));
  useEffect(() => setValue(client), [client]);
  return value;
}
