// Navigation rules of spec §2 that are not route guards: the WeChat secondary-domain redirect, WeChat's
// homeMap → /home, the fixed scan ids that go to the Wi-Fi site, the vc=true debug console, the support chat
// link and the URL WeChat signs. Pure: the shell (src/shell/navigationEffects.ts) applies them.
// (The qrcode/zhcode storage rule is scanCodesFrom in routes.ts.)

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
  const pick = (k: string) => hashQuery.get(k) || pageQuery.get(k);
  const qrcode = pick('qrcode') || pick('qr');
  const zhcode = pick('zhcode');
  const hash = qrcode ? `#/?qrcode=${encodeURIComponent(qrcode)}` : zhcode ? `#/?zhcode=${encodeURIComponent(zhcode)}` : '#/';
  return `${loc.protocol}//${hosts.mainHost}/${hash}`;
}

/** In WeChat, homeMap redirects to /home (spec §2). */
export function wechatRouteRedirect(path: string, ua: string): string | null {
  return isWeChat(ua) && path === '/homeMap' ? '/home' : null;
}

/** Scan codes with these fixed numeric ids belong to the Wi-Fi partner and go to its site. */
export const WIFI_SCAN_IDS: readonly string[] = ['10000001', '10000002', '10000003'];
export const WIFI_SITE_URL = 'https://wifi.powerly.io/';

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
export function wifiSiteRedirect(code: string | null | undefined, ids: readonly string[] = WIFI_SCAN_IDS, site = WIFI_SITE_URL): string | null {
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
