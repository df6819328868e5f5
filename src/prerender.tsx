// The build's prerender (build/prerender.ts loads this module in Node through Vite, with the app's aliases):
// the app shell with a route's real screen and the locale's real strings, as HTML, rendered by preact's
// renderer (react-dom/server resolves to preact/compat/server) so that src/main.tsx can hydrate it.
import { renderToString } from 'react-dom/server';
import { App, preloadScreen } from './App.tsx';
import { loadLocale, translate } from './i18n/index.ts';
import { $lang } from './stores/locale.ts';
import { $route } from './stores/router.ts';
import { parseHash } from './core/routes.ts';
import { NOT_FOUND_TITLE, matchRoute } from './routes.ts';
import type { Locale } from './core/lang.ts';

export async function prerender(route: string, lang: Locale): Promise<{ html: string; title: string }> {
  $route.set(parseHash('#' + route));
  $lang.set(lang);
  await loadLocale(lang);
  const { path } = $route.get();
  await preloadScreen(path);
  const def = matchRoute(path)?.route;
  const titleKey = def?.screen ? def.title : NOT_FOUND_TITLE;
  const title = titleKey ? translate('shell.documentTitle', { screen: translate(titleKey) }) : translate('shell.productName');
  return { html: renderToString(<App />), title };
}
