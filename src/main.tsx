// Entry of the standalone app (index.html).
import { useEffect } from 'react';
import { createRoot, hydrateRoot } from 'react-dom/client';
import { App, preloadScreen } from './App.tsx';
import { $activeLang, loadLocale, startI18n } from './i18n/index.ts';
import { $lang } from './stores/locale.ts';
import { onUnauthorized } from './api/client.ts';
import './ui/app.css';
import { handleUnauthorized, startNavigation } from './shell/navigationEffects.ts';
import { reportWebVitals } from './platform/vitals.ts';
import { startBrowserHistory } from './stores/browserHistory.ts';
import { $route } from './stores/router.ts';
import { SERVED_SCAN_ID, firstScreenLang, firstScreenOf } from './core/firstScreen.ts';
import { whileHydrating } from './ui/hydration.ts';

// The prerendered first screen in #root (build/prerender.ts; index.html's inline scripts chose it for this URL)
// and the language it was rendered in (before loadLocale changes <html lang>).
const root = document.getElementById('root')!;
const prerendered = root.getAttribute('data-first');
const prerenderedLang = document.documentElement.lang;

// The browser's history, each in-app entry marked with its position (not the embed's in-memory one).
startBrowserHistory();

// 401: the session is gone (a new tourist session through the code link, or the login screen).
onUnauthorized(handleUnauthorized);

// A code link without a hash (or a web-view page asked for as a path) becomes its hash route; WeChat on a
// secondary domain goes to the main host keeping the scan code: then render nothing here.
const leaving = startNavigation();

// A code link the server rendered (server/src/codeLinkPage.ts): its scan is adopted and the rider's session made
// (servedSession.ts, apart from the first load) before anything renders; its markup stays painted meanwhile.
const served =
  !leaving && document.getElementById(SERVED_SCAN_ID)
    ? import('./scan/servedSession.ts').then((m) => m.adoptServed(prerenderedLang))
    : null;

// A web-view path's language wins over the stored one (as WebView.tsx does), from the first render on.
if (!served) $lang.set(firstScreenLang($route.get(), $lang.get()));

void (served ?? Promise.resolve(null))
  .catch(() => null)
  .then((after) => {
    // The prerendered markup is hydrated when it is this route's first screen in the language it renders in.
    const hydrate =
      prerendered !== null &&
      prerendered === (after ? 'package' : firstScreenOf($route.get())) &&
      prerenderedLang === $lang.get();
    // A stored non-English language: render once its table is in (no English flash; index.html's script shows no
    // English markup then); at most a short wait. Over prerendered markup in that language: wait for the table.
    const first =
      $lang.get() === 'en-US'
        ? Promise.resolve()
        : hydrate
          ? loadLocale($lang.get())
          : Promise.race([loadLocale($lang.get()), new Promise((r) => setTimeout(r, 1500))]);
    return first
      .then(() =>
        hydrate && $activeLang.get() === prerenderedLang
          ? preloadScreen($route.get().path).then(() => after ?? noop)
          : null,
      )
      .catch(() => null);
  })
  // A task of its own for the first render: evaluating the bundle and rendering were one long task on a slow
  // phone (about 175 ms at Lighthouse's 4× CPU), which blocks a tap for all of it.
  .then((hydrating) => new Promise<typeof hydrating>((r) => setTimeout(() => r(hydrating), 0)))
  .then((hydrating) => {
    if (leaving) return;
    startI18n();
    document.documentElement.removeAttribute('data-swap');
    if (hydrating) {
      whileHydrating(() => hydrateRoot(root, <MountedApp />));
      // A rider signed in before: what only their own scan knows (servedSession.ts).
      return hydrating();
    }
    root.textContent = '';
    root.removeAttribute('data-first');
    createRoot(root).render(<MountedApp />);
  });

function noop() {}

// Web vitals of this shape (the web-view pages count apart from the app).
reportWebVitals(/^#\/(aboutUsApp|contactUsApp)(\/|\?|$)/.test(location.hash) ? 'webview' : 'app');

/** The app, and `data-mounted` on <html> once it has mounted (over prerendered markup: hydrated, handlers attached). */
function MountedApp() {
  useEffect(() => document.documentElement.setAttribute('data-mounted', ''), []);
  return <App />;
}
