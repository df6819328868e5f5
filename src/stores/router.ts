// One small hash-router atom: `#/path?query` → { path, query }. navigate() writes the hash.
import { atom } from 'nanostores';
import { parseHash, type ParsedHash } from '../core/routes.ts';

function current(): ParsedHash {
  return parseHash(typeof location === 'undefined' ? '' : location.hash);
}

export const $route = atom<ParsedHash>(current());

/** Number of in-app navigations, so the back button knows whether history holds one of ours. */
let depth = 0;

if (typeof window !== 'undefined') {
  window.addEventListener('hashchange', () => $route.set(current()));
}

export function navigate(to: string, opts: { replace?: boolean } = {}): void {
  const hash = '#' + (to.startsWith('/') ? to : '/' + to);
  if (opts.replace) {
    history.replaceState(history.state, '', hash);
  } else {
    history.pushState(null, '', hash);
    depth++;
  }
  $route.set(current());
}

export function canGoBack(): boolean {
  return depth > 0;
}

export function goBack(): void {
  depth = Math.max(0, depth - 1);
  history.back();
}

/** Builds "/path?k=v" from a params object, skipping empty values. */
export function href(path: string, params: Record<string, string | number | undefined | null> = {}): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v != null && v !== '') q.set(k, String(v));
  const s = q.toString();
  return s ? `${path}?${s}` : path;
}
