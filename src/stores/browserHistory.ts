// The standalone app's history: the browser's own. Each entry the app makes carries its position among the
// app's entries in history.state ({ powerly: { i, h } }: the index and the hash it was written for), so
// after Back / Forward (popstate, hashchange) or a reload the router knows whether an in-app entry lies
// behind the current one. An entry without the mark (a hash link, a typed hash) is a new one, one further on.
// Not for the embed: in an iframe these calls would move the host page's history (see ./router.ts).
import { setHistory } from './router.ts';

const KEY = 'powerly';

function stateObject(): Record<string, unknown> {
  const s: unknown = history.state;
  return s && typeof s === 'object' ? (s as Record<string, unknown>) : {};
}

/** The index stamped on the current entry, when it was stamped for the hash it shows. */
function stampedIndex(): number | null {
  const mark = stateObject()[KEY] as { i?: unknown; h?: unknown } | undefined;
  return mark && typeof mark.i === 'number' && mark.h === location.hash ? mark.i : null;
}

/** Stamps the current entry with its index and the hash the browser shows. */
function stamp(i: number): void {
  history.replaceState({ ...stateObject(), [KEY]: { i, h: location.hash } }, '');
}

export function startBrowserHistory(): void {
  let index = stampedIndex() ?? 0;
  stamp(index);
  setHistory({
    write(hash, replace) {
      if (replace) {
        history.replaceState(stateObject(), '', hash);
      } else {
        history.pushState({}, '', hash);
        index += 1;
      }
      stamp(index);
    },
    back() {
      if (index === 0) return false;
      // Counted now, so a second tap before popstate arrives cannot step out of the app.
      index -= 1;
      history.back();
      return true;
    },
    canGoBack: () => index > 0,
    sync() {
      const i = stampedIndex();
      if (i !== null) {
        index = i;
      } else {
        index += 1;
        stamp(index);
      }
    },
  });
}
