// Route table and guard rules (spec §2). Pure: no DOM, no stores.

/** Public routes (ignoreAuth). */
export const PUBLIC_ROUTES: readonly string[] = [
  '/login', '/otherLogin', '/', '/homeMap', '/home', '/login_wechat', '/login_alipay',
  '/aboutUs', '/aboutUsApp', '/contactUs', '/contactUsApp', '/payMethod', '/MercadoPago',
  '/invoiceOrderDtl', '/loginborrow', '/MonriPay',
  // The token-less order detail (spec §2): readable with the order's share sign.
  '/orderStatus',
];

/** Login-required routes. */
export const PRIVATE_ROUTES: readonly string[] = [
  '/confirm', '/wallet', '/result', '/order', '/setting', '/shop', '/help', '/wallet_in', '/wallet_out',
  '/wallet_list', '/google_map', '/map', '/nearby_shop', '/selectPakage', '/wifiMall', '/packageOrder',
  '/scanOrder', '/scanPickUpOrder', '/pickUp', '/borrowSuccess', '/packageDetail', '/orderDetail', '/usage',
  '/pastOrder', '/scanQr', '/payment_card', '/cdbUsage', '/mine',
];

export const ROUTE_NAMES = { selectPakage: '/selectPakage', homeMap: '/homeMap', home: '/home' } as const;

/** Routes on which a qrcode / zhcode query value is stored (spec §2 navigation rules). */
export const SCAN_CODE_ROUTES: readonly string[] = ['/', '/home', '/homeMap'];

export interface ParsedHash {
  path: string;
  query: URLSearchParams;
}

/** "#/confirm?price=2" → { path: '/confirm', query }. Trailing slashes dropped; empty → '/'. */
export function parseHash(hash: string): ParsedHash {
  const raw = hash.replace(/^#/, '');
  const q = raw.indexOf('?');
  let path = q >= 0 ? raw.slice(0, q) : raw;
  const query = new URLSearchParams(q >= 0 ? raw.slice(q + 1) : '');
  if (!path.startsWith('/')) path = '/' + path;
  if (path.length > 1) path = path.replace(/\/+$/, '');
  return { path: path || '/', query };
}

/** The route of a path: '/aboutUsApp/en-US' is the '/aboutUsApp' route. */
export function routeOf(path: string): string {
  for (const base of ['/aboutUsApp', '/contactUsApp']) if (path.startsWith(base + '/')) return base;
  return path;
}

export function isPublic(path: string): boolean {
  return PUBLIC_ROUTES.includes(routeOf(path));
}

export interface GuardSession {
  token: string;
  /** Stored cabinet code: lets a tourist session be re-created by the code-link entry. */
  qrcode: string;
  zhcode: string;
}

export type GuardResult = { allow: true } | { allow: false; redirect: string };

/**
 * Spec §2: routes marked ignoreAuth, or any route with a token, pass. Other (login-required, or unknown)
 * routes redirect to /login — except when a scan code is held: then the code-link entry re-does the tourist
 * login (spec §4: no token and not mifi → tourist login first) and comes back to the cabinet.
 * Unknown routes without a token are treated as login-required; with a token they pass (not-found screen).
 */
export function guard(path: string, s: GuardSession): GuardResult {
  if (isPublic(path) || s.token) return { allow: true };
  if (s.qrcode) return { allow: false, redirect: `/?qrcode=${encodeURIComponent(s.qrcode)}` };
  if (s.zhcode) return { allow: false, redirect: `/?zhcode=${encodeURIComponent(s.zhcode)}` };
  return { allow: false, redirect: '/login' };
}

/**
 * The scan-code rule of home, homeMap and homeScan: a qrcode value is stored and clears zhcode; a zhcode
 * value is stored and clears qrcode. `qr` is an alias of qrcode (code-link entry). Returns the new pair, or
 * null when the route carries no code.
 */
export function scanCodesFrom(path: string, query: URLSearchParams): { qrcode: string; zhcode: string } | null {
  if (!SCAN_CODE_ROUTES.includes(path)) return null;
  const qrcode = query.get('qrcode') || query.get('qr');
  if (qrcode) return { qrcode, zhcode: '' };
  const zhcode = query.get('zhcode');
  if (zhcode) return { qrcode: '', zhcode };
  return null;
}

/** Back button without history: selectPakage for tourists or users with no account, else the stored home. */
export function backFallback(isTourist: boolean, hasAccount: boolean, homePathName: string): string {
  if (isTourist || !hasAccount) return ROUTE_NAMES.selectPakage;
  return homePathName || ROUTE_NAMES.homeMap;
}

// ---- Sign-in routing (issue 4) ----

export const LOGIN_ROUTES: readonly string[] = ['/login', '/otherLogin', '/login_wechat', '/login_alipay'];

export type InAppBrowser = 'wechat' | 'alipay' | 'other';

/** WeChat and Alipay in-app browsers by user agent. */
export function inAppBrowserOf(ua: string): InAppBrowser {
  if (/MicroMessenger/i.test(ua)) return 'wechat';
  if (/AlipayClient/i.test(ua)) return 'alipay';
  return 'other';
}

/** Spec §2: /otherLogin (and the landing) in the WeChat browser go to /login_wechat, in Alipay to /login_alipay. */
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

/** Spec §2: query code plus state=STATE on the login landing is a mini-program code login. */
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
 * Spec §2 navigation rules that come before the guard:
 *  - an AppleIdToken query value is stored; if an apply-login path is set, navigation goes there;
 *  - logged in, target homeMap / homeScan / selectPakage and the stored mificode contains 'wifi.' → packageDetail.
 */
export function navigationRule(path: string, query: URLSearchParams, s: NavState): NavAction {
  const apple = query.get('AppleIdToken');
  if (apple) {
    if (s.applyLogin && parseHash(s.applyLogin).path !== path) return { kind: 'redirect', to: s.applyLogin, store: { appleIdToken: apple } };
    return { kind: 'store', store: { appleIdToken: apple } };
  }
  if (s.token && ['/homeMap', '/', '/selectPakage'].includes(path) && s.mificode.includes('wifi.')) {
    // The code-link entry ('/' with a code) still runs: only a bare home goes to the device.
    if (!(path === '/' && (query.get('qrcode') || query.get('zhcode') || query.get('qr')))) return { kind: 'redirect', to: '/packageDetail' };
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

/** Spec §4, §6: no tourist login in the WeChat browser (the user signs in with WeChat instead). */
export function touristLoginAllowed(browser: InAppBrowser): boolean {
  return browser !== 'wechat';
}
