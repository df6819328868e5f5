// The first screens the build prerenders (build/prerender.ts renders them from the real screens with the real
// strings) and how a page picks the one its URL shows. Pure: no DOM. The hash route is not sent to the server,
// so index.html carries the landing in #root and the other first screens as <template>s, and two small inline
// scripts (./firstScreenScripts.ts) decide before the first paint: the head script works out the route and language from the URL (the same
// rules as firstRouteOf / firstScreenOf / firstScreenLang below; a unit test runs it against them) and hides
// #root while its markup is not the one to show; the body script, right after #root and the templates, puts in the
// matching template (or empties #root: that route is not prerendered) and shows #root again. So the landing is
// never painted and then swapped for another screen. The web-view pages also exist as real paths
// (/aboutUsApp/{lang}, /contactUsApp/{lang}), one prerendered page per locale, which the server sends as they
// are (server/src/static.ts). The client (src/main.tsx) hydrates the markup when it is of the route and the
// language it renders first, and renders afresh otherwise.
import { DEFAULT_LOCALE, mapRouteLang, type Locale } from './lang.ts';
import { parseHash, type ParsedHash } from './routes.ts';

/**
 * The prerendered first screens: the landing, the code-link entry (while it scans), the two web-view pages, and
 * the package screen, which the server renders for a code link asked for as a path (/?qrcode=…) with the scan's data.
 */
export type FirstScreen = 'landing' | 'code' | 'aboutUsApp' | 'contactUsApp' | 'package';

/** The route each first screen is rendered from at build (the code-link entry's markup does not show the code). */
export const FIRST_SCREEN_ROUTES: Record<FirstScreen, string> = {
  landing: '/',
  code: '/?qrcode=PRERENDER',
  aboutUsApp: '/aboutUsApp',
  contactUsApp: '/contactUsApp',
  package: '/selectPakage',
};

/** The page the server fills in for a code link (server/src/codeLinkPage.ts), under dist/; its placeholders below. */
export const PACKAGE_PAGE = 'first/package.html';
export const PACKAGE_PAGE_SLOTS = {
  lang: 'powerly-lang',
  title: 'powerly-title',
  root: '<!--powerly-root-->',
  data: '<!--powerly-data-->',
} as const;
/** The id of the JSON data block with the scan the server rendered the package screen from (src/scan/served.ts). */
export const SERVED_SCAN_ID = 'powerly-scan';

/** The web-view pages, served also as real paths (one page per locale). */
export const WEB_VIEW_SCREENS = ['aboutUsApp', 'contactUsApp'] as const;

/** A web-view page's prerendered HTML in a locale, under dist/ (written by the build, sent by server/src/static.ts). */
export const webViewFile = (screen: (typeof WEB_VIEW_SCREENS)[number], lang: Locale): string =>
  `first/${screen}.${lang}.html`;

export const WEB_VIEW_PATH = /^\/(aboutUsApp|contactUsApp)(?:\/([^/]+))?\/*$/;

/** "/aboutUsApp/pt-BR" → "pt-BR"; no segment (or not a web-view path) → null. */
export function pathLang(path: string): string | null {
  const m = WEB_VIEW_PATH.exec(path);
  return m?.[2] ? safeDecode(m[2]) : null;
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

/** A web-view page asked for as a path (/aboutUsApp/lt-LT): its screen; anything else → null. */
export function webViewPathScreen(pathname: string): (typeof WEB_VIEW_SCREENS)[number] | null {
  return (WEB_VIEW_PATH.exec(pathname)?.[1] as (typeof WEB_VIEW_SCREENS)[number] | undefined) ?? null;
}

/**
 * A web-view page asked for as a path, without a hash: the same URL with its hash route
 * (/aboutUsApp/lt-LT → /aboutUsApp/lt-LT#/aboutUsApp/lt-LT); the path stays, so a reload gets the path's page again.
 */
export function webViewPathUrl(loc: { pathname: string; search: string; hash: string }): string | null {
  if (loc.hash || !webViewPathScreen(loc.pathname)) return null;
  return `${loc.pathname}${loc.search}#${loc.pathname.replace(/\/+$/, '')}${loc.search}`;
}

/** The hash route a page URL shows first: its hash, else a web-view path, else a code link's query, else '/'. */
export function firstRouteOf(loc: { pathname: string; search: string; hash: string }): ParsedHash {
  if (loc.hash) return parseHash(loc.hash);
  if (webViewPathScreen(loc.pathname)) return parseHash(loc.pathname + loc.search);
  if (/[?&](qrcode|zhcode|qr|lang)=/.test(loc.search)) return parseHash('/' + loc.search);
  return parseHash('/');
}

/**
 * The prerendered screen a route shows first, or null when it has none. On the page the server rendered for a
 * code link (`page` 'package'), the code link shows that package screen.
 */
export function firstScreenOf(route: ParsedHash, page?: string | null): FirstScreen | null {
  const { path, query } = route;
  if (path === '/')
    return query.get('qrcode') || query.get('qr') || query.get('zhcode')
      ? page === 'package'
        ? 'package'
        : 'code'
      : 'landing';
  const m = WEB_VIEW_PATH.exec(path);
  return m ? (m[1] as FirstScreen) : null;
}

/**
 * The language the route renders in: a web-view path's language (the `lang` parameter's mapping), else the stored
 * one; with none stored, the server-rendered package page's own language (`pageLang`), else en-US.
 */
export function firstScreenLang(route: ParsedHash, stored: Locale | null, pageLang?: Locale): Locale {
  return mapRouteLang(pathLang(route.path)) ?? stored ?? pageLang ?? DEFAULT_LOCALE;
}
