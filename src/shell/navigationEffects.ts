// Applies the navigation rules of src/core/navigation.ts in the browser: called by the app shell on load and
// on every route change. Returns a route to replace the current one with, or null.
import { DEFAULT_HOSTS, debugConsoleRequested, isWeChat, pageUrlWithoutHash, wechatDomainRedirect, wechatRouteRedirect, wifiSiteRedirect } from '../core/navigation.ts';
import { SCAN_CODE_ROUTES, type ParsedHash } from '../core/routes.ts';
import { wechatConfig } from '../api/content.ts';
import { toast } from '../ui/feedback.tsx';
import { errorText, translate } from '../i18n/index.ts';

/** Hosts for the WeChat secondary-domain rule: VITE_MAIN_HOST / VITE_SECONDARY_HOSTS (comma-separated) at build. */
const env = import.meta.env as Record<string, string | undefined>;
const HOSTS = env.VITE_MAIN_HOST
  ? { mainHost: env.VITE_MAIN_HOST, secondaryHosts: (env.VITE_SECONDARY_HOSTS ?? '').split(',').map((h) => h.trim().toLowerCase()).filter(Boolean) }
  : DEFAULT_HOSTS;

const ua = () => (typeof navigator === 'undefined' ? '' : navigator.userAgent);

/** Once at start: the WeChat secondary-domain redirect (true when the page is leaving). */
export function leaveSecondaryDomain(): boolean {
  const to = wechatDomainRedirect(location, ua(), HOSTS);
  if (!to) return false;
  location.replace(to);
  return true;
}

let consoleLoading: Promise<unknown> | null = null;

/** vc=true: the debug console widget, loaded only then (its own chunk). */
export function maybeDebugConsole(query: URLSearchParams): void {
  if (!debugConsoleRequested(query) || consoleLoading) return;
  consoleLoading = import('eruda').then((m) => m.default.init()).catch((e: unknown) => console.error('debug console', e));
}

let wxConfigured = false;
const WX_SDK = 'https://res.wx.qq.com/open/js/jweixin-1.6.0.js';

/** In WeChat: load the JS-SDK and configure it with the server's signature; failure is a toast (spec §8). */
export function maybeWeChatConfig(): void {
  if (wxConfigured || !isWeChat(ua())) return;
  wxConfigured = true;
  wechatConfig(pageUrlWithoutHash(location.href))
    .then(
      (c) =>
        new Promise<void>((resolve, reject) => {
          const s = document.createElement('script');
          s.src = WX_SDK;
          s.onload = () => {
            const wx = (window as unknown as { wx?: { config(o: object): void } }).wx;
            wx?.config({ debug: false, appId: c.appId, timestamp: c.timestamp, nonceStr: c.noncestr, signature: c.signature, jsApiList: ['scanQRCode'] });
            resolve();
          };
          s.onerror = () => reject(new Error('WeChat SDK failed to load'));
          document.head.appendChild(s);
        }),
    )
    .catch((e: unknown) => {
      wxConfigured = false;
      toast(errorText(e, translate));
    });
}

/**
 * Per route: WeChat homeMap → /home; a fixed Wi-Fi scan id on a scan route leaves for the Wi-Fi site.
 * Returns the in-app route to replace the current one with, or null.
 */
export function routeRedirect(route: ParsedHash): string | null {
  if (SCAN_CODE_ROUTES.includes(route.path)) {
    const code = route.query.get('qrcode') || route.query.get('qr') || route.query.get('zhcode');
    const wifi = wifiSiteRedirect(code);
    if (wifi) {
      location.replace(wifi);
      return null;
    }
  }
  return wechatRouteRedirect(route.path, ua());
}
