// Route mechanics over a route table. Pure: no DOM, no stores, no screens. The one table of the
// app's routes is src/routes.ts (it also holds each screen's lazy loader); the functions here take the
// table's metadata as input, so the server and the tests can use them without any screen code.

/** public = spec "ignoreAuth" (no login); private = login-required. */
export type Access = 'public' | 'private';

export interface RouteMeta {
  /** The route's own path, e.g. '/wallet'. */
  path: string;
  access: Access;
  /** Other paths that show the same route (kept as typed in the address bar), e.g. '/map' for '/google_map'. */
  aliases?: readonly string[];
  /** One optional trailing path segment, by name: '/aboutUsApp/{lang}' is { path: '/aboutUsApp', param: 'lang' }. */
  param?: string;
  /** i18n key of the screen's name in the document title; none → the product name alone. */
  title?: string;
}

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

export interface RouteMatch<R extends RouteMeta> {
  route: R;
  /** The optional trailing segment, under its name ({ lang: 'lt-LT' }); empty when absent. */
  params: Record<string, string>;
}

/** The route of a path in `table`: its own path, an alias, or either plus its optional segment. */
export function matchRoute<R extends RouteMeta>(table: readonly R[], path: string): RouteMatch<R> | null {
  for (const route of table) {
    for (const p of [route.path, ...(route.aliases ?? [])]) {
      if (path === p) return { route, params: {} };
      if (route.param && path.startsWith(p + '/')) {
        const rest = path.slice(p.length + 1);
        if (rest && !rest.includes('/')) return { route, params: { [route.param]: decodeURIComponent(rest) } };
      }
    }
  }
  return null;
}

export interface GuardSession {
  token: string;
  /** Stored cabinet code: lets a tourist session be re-created by the code-link entry. */
  qrcode: string;
  zhcode: string;
}

export type GuardResult = { allow: true } | { allow: false; redirect: string };

/**
 * Routes marked ignoreAuth (public), or any route with a token, pass. Other (login-required, or
 * unknown: `route` null) routes redirect to /login — except when a scan code is held: then the code-link entry
 * re-does the tourist login (no token and not mifi → tourist login first) and comes back to the
 * cabinet. Unknown routes with a token pass (the not-found screen).
 */
export function guardRoute(route: Pick<RouteMeta, 'access'> | null, s: GuardSession): GuardResult {
  if (route?.access === 'public' || s.token) return { allow: true };
  if (s.qrcode) return { allow: false, redirect: `/?qrcode=${encodeURIComponent(s.qrcode)}` };
  if (s.zhcode) return { allow: false, redirect: `/?zhcode=${encodeURIComponent(s.zhcode)}` };
  return { allow: false, redirect: '/login' };
}
