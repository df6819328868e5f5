// One small hash-router atom: `#/path?query` → { path, query }, and the app's position in its own history.
//
// The app (index.html) uses the browser's history: each entry the app makes carries its position in
// `history.state` ({ powerly: { i, h } }: index and the hash it was written for), so after Back / Forward
// (popstate, hashchange) or a reload the router knows how many in-app entries lie behind the current one.
// An entry without the mark (a hash link, a typed hash) is a new entry one further on.
//
// The embed (embed/frame.tsx → startMemoryHistory) runs inside an iframe, whose pushState / history.back()
// move the host page's joint session history: there the entries live in memory, and the iframe's URL
// only follows by replaceState — the host page's history never changes.
//
// Every back in the app goes through back(): in-app history when there is an entry behind, otherwise the
// spec's fallback route (backFallback) by replace — it never leaves the app.
import { atom } from 'nanostores';
import { parseHash, type ParsedHash } from '../core/routes.ts';
import { backFallback } from '../core/navigation.ts';
import { $homePathName, $isTourist, $user } from './session.ts';

const KEY = 'powerly';
const hasWindow = typeof window !== 'undefined';

function current(): ParsedHash {
  return parseHash(hasWindow ? location.hash : '');
}

export const $route = atom<ParsedHash>(current());

let mode: 'browser' | 'memory' = 'browser';
/** Position of the current entry among the app's entries (0: the first one). */
let index = 0;
/** Memory mode: the app's entries (hashes); index points into it. */
let entries: string[] = [];
/** The hash $route was last set from. */
let shown = hasWindow ? location.hash : '';

function stateObject(): Record<string, unknown> {
  const s: unknown = history.state;
  return s && typeof s === 'object' ? (s as Record<string, unknown>) : {};
}

/** The index stamped on the current entry, when it was stamped for the hash it shows. */
function stampedIndex(): number | null {
  const mark = stateObject()[KEY] as { i?: unknown; h?: unknown } | undefined;
  return mark && typeof mark.i === 'number' && mark.h === location.hash ? mark.i : null;
}

/** Writes the entry (push or replace), then stamps it with its index and the hash the browser shows. */
function write(how: 'push' | 'replace', i: number, hash?: string): void {
  if (how === 'push') history.pushState({ [KEY]: { i } }, '', hash);
  else if (hash !== undefined) history.replaceState(stateObject(), '', hash);
  history.replaceState({ ...stateObject(), [KEY]: { i, h: location.hash } }, '');
}

function show(): void {
  shown = location.hash;
  $route.set(current());
}

/** Back / Forward / a hash link / a typed hash: find the entry's position and show its route. */
function sync(): void {
  if (mode === 'memory') {
    // Not made by navigate() (the iframe's own URL was changed): it replaces the current entry.
    if (location.hash === shown) return;
    entries[index] = location.hash;
    show();
    return;
  }
  const i = stampedIndex();
  if (i === null) {
    index += 1;
    write('replace', index);
  } else {
    index = i;
  }
  if (location.hash !== shown) show();
}

if (hasWindow) {
  index = stampedIndex() ?? 0;
  write('replace', index);
  window.addEventListener('popstate', sync);
  window.addEventListener('hashchange', sync);
}

/**
 * The embed's history: in memory, the iframe's URL kept in step by replaceState only. Hash links inside the
 * frame are taken over too (a followed hash link would add an entry to the host page's history).
 */
export function startMemoryHistory(): void {
  if (mode === 'memory') return;
  mode = 'memory';
  entries = [location.hash];
  index = 0;
  document.addEventListener('click', (e) => {
    const a = e.target instanceof Element ? e.target.closest('a') : null;
    const href = a?.getAttribute('href');
    if (!href?.startsWith('#') || a?.target || e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey) return;
    e.preventDefault();
    navigate(href.slice(1));
  });
}

export interface NavigateOptions {
  replace?: boolean;
  /**
   * Only if the current route's path is still this one: for a step that runs after an await (a dialog, a
   * request), so it never acts on a screen the user has since moved to.
   */
  from?: string;
}

export function navigate(to: string, opts: NavigateOptions = {}): void {
  if (opts.from !== undefined && $route.get().path !== opts.from) return;
  const hash = '#' + (to.startsWith('/') ? to : '/' + to);
  if (mode === 'memory') {
    if (!opts.replace) {
      entries.length = index + 1;
      index += 1;
    }
    history.replaceState(history.state, '', hash);
    entries[index] = location.hash;
  } else if (opts.replace) {
    write('replace', index, hash);
  } else {
    index += 1;
    write('push', index, hash);
  }
  show();
}

/** Replaces the whole page URL (same document), e.g. a code link without a hash → its hash route. */
export function replaceUrl(url: string): void {
  history.replaceState(history.state, '', url);
  if (mode === 'memory') entries[index] = location.hash;
  else write('replace', index);
  show();
}

/** True when the current entry has an in-app entry behind it. */
export function canGoBack(): boolean {
  return index > 0;
}

/** Where back goes without in-app history (spec §2): selectPakage for tourists or users with no account, else the stored home. */
export function backFallbackRoute(): string {
  const tourist = $isTourist.get();
  const user = $user.get();
  return backFallback(tourist, Boolean(user?.pmobile || user?.email) || !tourist, $homePathName.get());
}

/**
 * The app's one back: the previous in-app entry when there is one, else `fallback` (default: the spec's
 * fallback route) by replace. Never leaves the app; in the embed never moves the host page's history.
 * `from`: as for navigate(), only while that route is still the current one.
 */
export function back({ fallback, from }: { fallback?: string; from?: string } = {}): void {
  if (from !== undefined && $route.get().path !== from) return;
  if (index > 0) {
    if (mode === 'memory') {
      index -= 1;
      history.replaceState(history.state, '', entries[index]);
      show();
    } else {
      // Counted now, so a second tap before popstate arrives cannot step out of the app.
      index -= 1;
      history.back();
    }
    return;
  }
  navigate(fallback ?? backFallbackRoute(), { replace: true });
}

/** Builds "/path?k=v" from a params object, skipping empty values. */
export function href(path: string, params: Record<string, string | number | undefined | null> = {}): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v != null && v !== '') q.set(k, String(v));
  const s = q.toString();
  return s ? `${path}?${s}` : path;
}
