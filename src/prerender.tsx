// The build's prerender (build/prerender.ts loads this module in Node through Vite, with the app's aliases):
// the app shell with a route's real screen and the locale's real strings, as HTML, rendered by preact's
// renderer (react-dom/server resolves to preact/compat/server) so that src/main.tsx can hydrate it. Bundled for
// Node (vite.ssr.config.ts), the server renders a code link's package screen with it (renderPackage).
import { renderToString } from 'react-dom/server';
import { App, preloadScreen } from './App.tsx';
import { loadLocale, translate } from './i18n/index.ts';
import { $lang } from './stores/locale.ts';
import { $route } from './stores/router.ts';
import { parseHash } from './core/routes.ts';
import { NOT_FOUND_TITLE, matchRoute } from './routes.ts';
import type { Locale } from './core/lang.ts';
import { $cabinet } from './stores/cabinet.ts';
import type { Cabinet } from './api/cabinet.ts';
import { FIRST_SCREEN_ROUTES } from './core/firstScreen.ts';

const PACKAGE_ROUTE = FIRST_SCREEN_ROUTES.package;

export async function prerender(route: string, lang: Locale): Promise<{ html: string; title: string }> {
  $route.set(parseHash('#' + route));
  $lang.set(lang);
  await loadLocale(lang);
  const { path } = $route.get();
  await preloadScreen(path);
  const def = matchRoute(path)?.route;
  const titleKey = def?.screen ? def.title : NOT_FOUND_TITLE;
  const title = titleKey
    ? translate('shell.documentTitle', { screen: translate(titleKey) })
    : translate('shell.productName');
  return { html: renderToString(<App />), title };
}

/**
 * The package screen of a scanned cabinet in `lang`, as the server answers a code link (/?qrcode=…, server/src/
 * codeLinkPage.ts) with the scan's public data: the same shell and screen the client hydrates. Everything that
 * awaits comes first; the stores are then set and the markup made in one synchronous stretch, so concurrent
 * requests in other languages or for other cabinets never mix.
 */
export async function renderPackage(cabinet: Cabinet, lang: Locale): Promise<{ html: string; title: string }> {
  await loadLocale(lang);
  await preloadScreen(PACKAGE_ROUTE);
  $lang.set(lang);
  void loadLocale(lang); // loaded above: applies the table at once, without awaiting
  $cabinet.set(cabinet);
  $route.set(parseHash('#' + PACKAGE_ROUTE));
  const title = translate('shell.documentTitle', { screen: translate('rentPricing.title') });
  return { html: renderToString(<App signedIn />), title };
}
