// The navigation rules, all of them, as pure functions; the shell (src/shell/navigationEffects.ts)
// applies them. Per route, in this order (routeEffects, then routeRedirect):
//  - on home, homeMap or homeScan a qrcode is stored and clears zhcode, a zhcode is stored and clears qrcode;
//    a scan code with a fixed numeric Wi-Fi id leaves for the Wi-Fi site; vc=true turns on the debug console;
//  - an AppleIdToken is stored; with an apply-login path set, navigation goes there;
//  - logged in, homeMap / homeScan / selectPakage with a stored 'wifi.' mificode → packageDetail;
//  - in WeChat, homeMap → /home; on the login screens WeChat and Alipay go to their own login;
//  - otherwise public (ignoreAuth) routes or a token pass; others go to /login (guardRoute, core/routes.ts).
// Once at start: the WeChat secondary-domain redirect and the code link without a hash. The back button:
// backFallback. A 401: unauthorizedTarget.
import { queryCode } from './codeLink.ts';
import { mapRouteLang, type Locale } from './lang.ts';
import { guardRoute, parseHash, type Access, type ParsedHash } from './routes.ts';

export const ROUTE_NAMES = {
  selectPakage: '/selectPakage',
  homeMap: '/homeMap',
  home: '/home',
  homeScan: '/',
} as const;

export function isWeChat(ua: string): boolean {
  return /MicroMessenger/i.test(ua);
}

export function isAlipay(ua: string): boolean {
  return /AlipayClient/i.test(ua);
}

export interface HostConfig {
  /** The app's main host, e.g. app.powerly.io. */
  mainHost: string;
  /** Secondary domains the app is also served on (short links printed on older cabinets). */
  secondaryHosts: readonly string[];
}

export const DEFAULT_HOSTS: HostConfig = {
  mainHost: 'app.powerly.io',
  secondaryHosts: ['m.powerly.io', 'scan.powerly.io'],
};

/**
 * In the WeChat browser on a secondary domain: the URL on the main host to go to, keeping qrcode or zhcode
 * (from the hash route or from the page query) in the hash. Null when no redirect applies.
 */
export function wechatDomainRedirect(
  loc: { protocol: string; host: string; search: string; hash: string },
  ua: string,
  hosts: HostConfig = DEFAULT_HOSTS,
): string | null {
  if (!isWeChat(ua) || !hosts.secondaryHosts.includes(loc.host.toLowerCase())) return null;
  const hashQuery = new URLSearchParams(loc.hash.includes('?') ? loc.hash.slice(loc.hash.indexOf('?') + 1) : '');
  const pageQuery = new URLSearchParams(loc.search);
  const merged = new URLSearchParams(pageQuery);
  for (const [k, v] of hashQuery) if (v) merged.set(k, v);
  const found = queryCode(merged);
  const hash = found ? `#/?${found.key}=${encodeURIComponent(found.code)}` : '#/';
  return `${loc.protocol}//${hosts.mainHost}/${hash}`;
}

/** In WeChat, homeMap redirects to /home. */
export function wechatRouteRedirect(path: string, ua: string): string | null {
  return isWeChat(ua) && path === '/homeMap' ? '/home' : null;
}

/**
 * Scan codes with these fixed numeric ids belong to the Wi-Fi partner and go to its site. The defaults;
 * an operator sets its own at build (VITE_WIFI_SCAN_IDS comma-separated, VITE_WIFI_SITE_URL; docs/operations.md).
 */
export const WIFI_SCAN_IDS: readonly string[] = ['10000001', '10000002', '10000003'];
export const WIFI_SITE_URL = 'https://wifi.powerly.io/';
export interface WifiSite {
  ids: readonly string[];
  site: string;
}
/** The Wi-Fi site configuration from build-time values; blank or missing values keep the defaults. */
export function wifiSiteConfig(ids: string | undefined, site: string | undefined): WifiSite {
  const list = (ids ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  return { ids: list.length ? list : WIFI_SCAN_IDS, site: site?.trim() || WIFI_SITE_URL };
}

/** The id of a scan code: the code itself, or the last id-like query value / path segment of a code link. */
export function scanIdOf(code: string): string {
  const c = code.trim();
  if (!/^https?:\/\//i.test(c)) return c;
  try {
    const u = new URL(c);
    for (const k of ['qrcode', 'qr', 'id', 'zhcode']) {
      const v = u.searchParams.get(k);
      if (v) return v;
    }
    const seg = u.pathname.split('/').filter(Boolean);
    return seg[seg.length - 1] ?? c;
  } catch {
    return c;
  }
}

/** Where a fixed-id scan code goes instead of the rental flow; null for any other code. */
export function wifiSiteRedirect(
  code: string | null | undefined,
  ids: readonly string[] = WIFI_SCAN_IDS,
  site = WIFI_SITE_URL,
): string | null {
  if (!code) return null;
  const id = scanIdOf(code);
  return ids.includes(id) ? `${site}?id=${encodeURIComponent(id)}` : null;
}

/** Query parameter vc equal to true turns on the debug console widget. */
export function debugConsoleRequested(query: URLSearchParams): boolean {
  return query.get('vc') === 'true';
}

/** The support number the chat link opens (WhatsApp, international format without '+'). */
export const SUPPORT_CHAT_NUMBER = '351912345678';

/** A link that opens the chat app to the fixed support number, optionally with a first message. */
export function supportChatLink(text?: string, number = SUPPORT_CHAT_NUMBER): string {
  const digits = number.replace(/\D/g, '');
  return `https://wa.me/${digits}${text ? `?text=${encodeURIComponent(text)}` : ''}`;
}

/** The page URL the WeChat JS config is asked for: without the hash (WeChat signs it so). */
export function pageUrlWithoutHash(href: string): string {
  const i = href.indexOf('#');
  return i >= 0 ? href.slice(0, i) : href;
}

// ---- Scan codes (home, homeMap, homeScan) ----

/** Routes on which a qrcode / zhcode query value is stored (navigation rules). */
export const SCAN_CODE_ROUTES: readonly string[] = [ROUTE_NAMES.homeScan, ROUTE_NAMES.home, ROUTE_NAMES.homeMap];

/**
 * The scan-code rule of home, homeMap and homeScan: a qrcode value is stored and clears zhcode; a zhcode
 * value is stored and clears qrcode. `qr` is an alias of qrcode (code-link entry). Returns the new pair, or
 * null when the route carries no code.
 */
export function scanCodesFrom(path: string, query: URLSearchParams): { qrcode: string; zhcode: string } | null {
  if (!SCAN_CODE_ROUTES.includes(path)) return null;
  const found = queryCode(query);
  if (found) return found.key === 'qrcode' ? { qrcode: found.code, zhcode: '' } : { qrcode: '', zhcode: found.code };
  return null;
}

/**
 * A code link may arrive as https://host/?qrcode=X (no hash): the URL (path, then the hash route carrying
 * the page query) to replace it with, or null when the link already has a hash route or carries no code.
 */
export function codeLinkUrl(loc: { pathname: string; search: string; hash: string }): string | null {
  if (loc.hash || !/[?&](qrcode|zhcode|qr|lang)=/.test(loc.search)) return null;
  return `${loc.pathname}#/${loc.search}`;
}

// ---- Back button ----

/** Back button without in-app history: selectPakage for tourists or users with no account, else the stored home. */
export function backFallback(isTourist: boolean, hasAccount: boolean, homePathName: string): string {
  if (isTourist || !hasAccount) return ROUTE_NAMES.selectPakage;
  return homePathName || ROUTE_NAMES.homeMap;
}

// ---- Sign-in routing ----

export const LOGIN_ROUTES: readonly string[] = ['/login', '/otherLogin', '/login_wechat', '/login_alipay'];

export type InAppBrowser = 'wechat' | 'alipay' | 'other';

/** Where /loginborrow sends a signed-in user: the code-link entry of the cabinet (it scans it), else the cabinet home. */
export function borrowTarget(qrcode: string | null | undefined): string {
  return qrcode ? `/?qrcode=${encodeURIComponent(qrcode)}` : '/home';
}

/** WeChat and Alipay in-app browsers by user agent. */
export function inAppBrowserOf(ua: string): InAppBrowser {
  if (isWeChat(ua)) return 'wechat';
  if (isAlipay(ua)) return 'alipay';
  return 'other';
}

/** /otherLogin (and the landing) in the WeChat browser go to /login_wechat, in Alipay to /login_alipay. */
export function loginBrowserRedirect(path: string, browser: InAppBrowser): string | null {
  if (path !== '/otherLogin' && path !== '/login') return null;
  if (browser === 'wechat') return '/login_wechat';
  if (browser === 'alipay') return '/login_alipay';
  return null;
}

/** After login: the stored login path, else the cabinet of a held qrcode, else homeMap. Never back to a login screen. */
export function afterLoginTarget(loginPath: string, qrcode: string): string {
  if (loginPath && !LOGIN_ROUTES.includes(parseHash(loginPath).path)) return loginPath;
  if (qrcode) return `/?qrcode=${encodeURIComponent(qrcode)}`;
  return ROUTE_NAMES.homeMap;
}

/** Query code plus state=STATE on the login landing is a mini-program code login. */
export function miniProgramCode(query: URLSearchParams): string | null {
  const code = query.get('code');
  return code && query.get('state') === 'STATE' ? code : null;
}

export interface NavState {
  token: string;
  mificode: string;
  applyLogin: string;
}

export type NavAction =
  | { kind: 'none' }
  | { kind: 'redirect'; to: string; store?: { appleIdToken?: string } }
  | { kind: 'store'; store: { appleIdToken: string } };

/**
 * Navigation rules that come before the guard:
 *  - an AppleIdToken query value is stored; if an apply-login path is set, navigation goes there;
 *  - logged in, target homeMap / homeScan / selectPakage and the stored mificode contains 'wifi.' → packageDetail.
 */
export function navigationRule(path: string, query: URLSearchParams, s: NavState): NavAction {
  const apple = query.get('AppleIdToken');
  if (apple) {
    if (s.applyLogin && parseHash(s.applyLogin).path !== path)
      return { kind: 'redirect', to: s.applyLogin, store: { appleIdToken: apple } };
    return { kind: 'store', store: { appleIdToken: apple } };
  }
  if (
    s.token &&
    ([ROUTE_NAMES.homeMap, ROUTE_NAMES.homeScan, ROUTE_NAMES.selectPakage] as string[]).includes(path) &&
    isBoxCode(s.mificode)
  ) {
    // The code-link entry ('/' with a code) still runs: only a bare home goes to the device.
    if (!(path === '/' && queryCode(query))) return { kind: 'redirect', to: '/packageDetail' };
  }
  return { kind: 'none' };
}

/** Where a 401 goes: a tourist holding a scan code gets a fresh tourist session through the code-link entry; everyone else signs in. */
export function unauthorizedTarget(wasTourist: boolean, qrcode: string, zhcode: string): string {
  if (wasTourist && qrcode) return `/?qrcode=${encodeURIComponent(qrcode)}`;
  if (wasTourist && zhcode) return `/?zhcode=${encodeURIComponent(zhcode)}`;
  return '/login';
}

/** The login path to remember when the guard sends someone to /login (not login screens themselves). */
export function loginPathFor(path: string, query: URLSearchParams): string {
  if (LOGIN_ROUTES.includes(path)) return '';
  const q = query.toString();
  return q ? `${path}?${q}` : path;
}

/** No tourist login in the WeChat browser (the user signs in with WeChat instead). */
export function touristLoginAllowed(browser: InAppBrowser): boolean {
  return browser !== 'wechat';
}

// ---- Per route: the rules together ----

export interface RouteEffects {
  /** Scan codes to store (a qrcode clears zhcode and vice versa). */
  scanCodes: { qrcode: string; zhcode: string } | null;
  /** The lang parameter, mapped to a locale. */
  lang: Locale | null;
  /** Agent context: sent on every request once a link carried it. */
  agentOpenId: string | null;
  /** vc=true: the debug console. */
  debugConsole: boolean;
  /** A fixed Wi-Fi scan id: leave the app for this URL. */
  leave: string | null;
  /**
   * The mificode to store: a scanned Wi-Fi box code (it contains 'wifi.') instead of a cabinet code; ''
   * when a cabinet's code is scanned (the newer intent: the cabinet, not the box's detail); null: unchanged.
   */
  mificode: string | null;
}

/** What entering a route stores and starts (the route's query only; the stores do not change the outcome). */
export function routeEffects(
  route: ParsedHash,
  wifi: WifiSite = { ids: WIFI_SCAN_IDS, site: WIFI_SITE_URL },
): RouteEffects {
  const { path, query } = route;
  const code = SCAN_CODE_ROUTES.includes(path) ? query.get('qrcode') || query.get('qr') || query.get('zhcode') : null;
  const mificode = code ? (isBoxCode(code) ? code : '') : null;
  return {
    scanCodes: mificode ? null : scanCodesFrom(path, query),
    lang: mapRouteLang(query.get('lang')) ?? null,
    agentOpenId: query.get('agentOpenId') || null,
    debugConsole: debugConsoleRequested(query),
    leave: wifiSiteRedirect(code, wifi.ids, wifi.site),
    mificode,
  };
}

/** A Wi-Fi box's code (its label's QR: 'wifi.' then the serial), not a cabinet's. */
export function isBoxCode(code: string): boolean {
  return code.includes('wifi.');
}

export interface RedirectInput extends NavState {
  /** The route's access in the route table; null for a path the table does not know. */
  access: Access | null;
  qrcode: string;
  zhcode: string;
  /** The browser's user agent (WeChat, Alipay). */
  ua: string;
}

export interface RouteRedirect {
  /** The route to replace the current one with (the current screen is not shown); null: show it. */
  to: string | null;
  /** An AppleIdToken to store. */
  appleIdToken: string | null;
  /** The guard sends this route to /login: the login path to come back to afterwards. */
  loginPath: string | null;
}

/**
 * Where a route goes instead of showing its screen, in this order: the AppleIdToken apply-login path,
 * the mificode 'wifi.' rule, WeChat's homeMap → /home, the WeChat / Alipay login screens, then the guard.
 * The shell re-applies the rules to the route it redirects to, so they chain (WeChat homeMap → /home, …).
 */
export function routeRedirect(route: ParsedHash, s: RedirectInput): RouteRedirect {
  const { path, query } = route;
  const action = navigationRule(path, query, s);
  const appleIdToken = action.kind === 'none' ? null : (action.store?.appleIdToken ?? null);
  const to =
    (action.kind === 'redirect' ? action.to : null) ??
    wechatRouteRedirect(path, s.ua) ??
    loginBrowserRedirect(path, inAppBrowserOf(s.ua));
  if (to) return { to, appleIdToken, loginPath: null };
  const verdict = guardRoute(s.access ? { access: s.access } : null, s);
  if (verdict.allow) return { to: null, appleIdToken, loginPath: null };
  return {
    to: verdict.redirect,
    appleIdToken,
    loginPath: verdict.redirect === '/login' ? loginPathFor(path, query) : null,
  };
}
