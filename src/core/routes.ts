// Route table and guard rules (spec §2). Pure: no DOM, no stores.

/** Public routes (ignoreAuth). */
export const PUBLIC_ROUTES: readonly string[] = [
  '/login', '/otherLogin', '/', '/homeMap', '/home', '/login_wechat', '/login_alipay',
  '/aboutUs', '/aboutUsApp', '/contactUs', '/contactUsApp', '/payMethod', '/MercadoPago',
  '/invoiceOrderDtl', '/loginborrow', '/MonriPay',
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
