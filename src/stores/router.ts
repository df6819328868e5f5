// One small hash-router atom: `#/path?query` → { path, query }, over a pluggable history.
//
// Inside an iframe (the embed), pushState and history.back() move the host page's joint session history, so
// the default history keeps the app's entries in memory and the iframe's URL follows by replaceState only
// (startMemoryHistory() adds the takeover of in-frame hash links). The standalone app installs the browser's
// history instead (startBrowserHistory() in ./browserHistory.ts, called by src/main.tsx), where each entry
// carries its in-app position in history.state across Back / Forward and reloads.
//
// Every back in the app goes through back(): the previous in-app entry when there is one, otherwise the
// fallback route (backFallback) by replace — it never leaves the app.
import { atom } from 'nanostores';
import { parseHash, type ParsedHash } from '../core/routes.ts';
import { backFallback } from '../core/navigation.ts';
import { $homePathName, $isTourist, $user } from './session.ts';

const hasWindow = typeof window !== 'undefined';

function current(): ParsedHash {
  return parseHash(hasWindow ? location.hash : '');
}

export const $route = atom<ParsedHash>(current());

/** The hash $route was last set from. */
let shown = hasWindow ? location.hash : '';

function show(): void {
  shown = location.hash;
  $route.set(current());
}

export interface HistoryDriver {
  /** Writes `hash` as a new entry, or over the current one. */
  write(hash: string, replace: boolean): void;
  /** Moves to the previous in-app entry (showing it now or on popstate); false when none is behind. */
  back(): boolean;
  /** True when an in-app entry lies behind the current one. */
  canGoBack(): boolean;
  /** The URL changed without navigate() (Back / Forward, a hash link, a typed hash). */
  sync(): void;
}

// ---- The default: in memory ----
let entries: string[] = [shown];
let index = 0;
const memoryHistory: HistoryDriver = {
  write(hash, replace) {
    if (!replace) {
      entries.length = index + 1;
      index += 1;
    }
    history.replaceState(history.state, '', hash);
    entries[index] = location.hash;
  },
  back() {
    if (index === 0) return false;
    index -= 1;
    history.replaceState(history.state, '', entries[index]);
    show();
    return true;
  },
  canGoBack: () => index > 0,
  // Not made by navigate() (the frame's own URL was changed): it replaces the current entry.
  sync() {
    entries[index] = location.hash;
  },
};

let driver: HistoryDriver = memoryHistory;

/** Installs another history (the standalone app's browser history). */
export function setHistory(d: HistoryDriver): void {
  driver = d;
}

if (hasWindow) {
  const sync = () => {
    driver.sync();
    if (location.hash !== shown) show();
  };
  window.addEventListener('popstate', sync);
  window.addEventListener('hashchange', sync);
}

/**
 * The embed: the memory history from the frame's current URL, and hash links inside the frame taken over (a
 * followed hash link would add an entry to the host page's history).
 */
export function startMemoryHistory(): void {
  driver = memoryHistory;
  entries = [location.hash];
  index = 0;
  document.addEventListener('click', (e) => {
    const a = e.target instanceof Element ? e.target.closest('a') : null;
    const href = a?.getAttribute('href');
    if (
      !href?.startsWith('#') ||
      a?.target ||
      e.defaultPrevented ||
      e.button !== 0 ||
      e.metaKey ||
      e.ctrlKey ||
      e.shiftKey
    )
      return;
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
  driver.write('#' + (to.startsWith('/') ? to : '/' + to), Boolean(opts.replace));
  show();
}

/** Replaces the whole page URL (same document), e.g. a code link without a hash → its hash route. */
export function replaceUrl(url: string): void {
  history.replaceState(history.state, '', url);
  driver.write(location.hash, true);
  show();
}

/** True when the current entry has an in-app entry behind it. */
export function canGoBack(): boolean {
  return driver.canGoBack();
}

/** Where back goes without in-app history: selectPakage for tourists or users with no account, else the stored home. */
export function backFallbackRoute(): string {
  const tourist = $isTourist.get();
  const user = $user.get();
  return backFallback(tourist, Boolean(user?.pmobile || user?.email) || !tourist, $homePathName.get());
}

/**
 * The app's one back: the previous in-app entry when there is one, else `fallback` (default: the
 * fallback route) by replace. Never leaves the app; in the embed never moves the host page's history.
 * `from`: as for navigate(), only while that route is still the current one.
 */
export function back({ fallback, from }: { fallback?: string; from?: string } = {}): void {
  if (from !== undefined && $route.get().path !== from) return;
  if (!driver.back()) navigate(fallback ?? backFallbackRoute(), { replace: true });
}

/** Builds "/path?k=v" from a params object, skipping empty values. */
export function href(path: string, params: Record<string, string | number | undefined | null> = {}): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v != null && v !== '') q.set(k, String(v));
  const s = q.toString();
  return s ? `${path}?${s}` : path;
}
