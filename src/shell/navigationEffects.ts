// Applies the navigation rules of src/core/navigation.ts in the browser — the only place that does:
// startNavigation() once before the first render, useRouteRules() in the app shell on every route,
// handleUnauthorized() on a 401, useDocumentTitle() for the route's title.
import { useEffect, useRef } from 'react';
import { useLatest } from '../ui/hooks.ts';
import { useStore } from '@nanostores/react';
import {
  DEFAULT_HOSTS,
  codeLinkUrl,
  isWeChat,
  loginPathFor,
  pageUrlWithoutHash,
  routeEffects,
  routeRedirect,
  unauthorizedTarget,
  wifiSiteConfig,
  wechatDomainRedirect,
} from '../core/navigation.ts';
import type { Access, ParsedHash } from '../core/routes.ts';
import { webViewPathUrl } from '../core/firstScreen.ts';
import { toast } from '../ui/feedback.tsx';
import { errorText, translate, useT } from '../i18n/index.ts';
import { $route, navigate, replaceUrl } from '../stores/router.ts';
import {
  $agentOpenId,
  $appleIdToken,
  $applyLogin,
  $isTourist,
  $loginPath,
  $token,
  clearSignIn,
} from '../stores/session.ts';
import { $mificode, $qrcode, $zhcode, storeScanCodes } from '../stores/scan.ts';
import { $lang } from '../stores/locale.ts';

/** Hosts for the WeChat secondary-domain rule: VITE_MAIN_HOST / VITE_SECONDARY_HOSTS (comma-separated) at build. */
const env = import.meta.env as Record<string, string | undefined>;
const HOSTS = env.VITE_MAIN_HOST
  ? {
      mainHost: env.VITE_MAIN_HOST,
      secondaryHosts: (env.VITE_SECONDARY_HOSTS ?? '')
        .split(',')
        .map((h) => h.trim().toLowerCase())
        .filter(Boolean),
    }
  : DEFAULT_HOSTS;

/** The Wi-Fi partner's scan ids and site: VITE_WIFI_SCAN_IDS (comma-separated) / VITE_WIFI_SITE_URL at build. */
const WIFI_SITE = wifiSiteConfig(env.VITE_WIFI_SCAN_IDS, env.VITE_WIFI_SITE_URL);

const ua = () => (typeof navigator === 'undefined' ? '' : navigator.userAgent);

/**
 * Once at start (the standalone app): a code link without a hash, or a web-view page asked for as a path
 * (/aboutUsApp/lt-LT), becomes its hash route; in WeChat on a
 * secondary domain the page leaves for the main host keeping the scan code (true: leaving, render nothing).
 */
export function startNavigation(): boolean {
  const codeLink = webViewPathUrl(location) ?? codeLinkUrl(location);
  if (codeLink) replaceUrl(codeLink);
  const to = wechatDomainRedirect(location, ua(), HOSTS);
  if (!to) return false;
  location.replace(to);
  return true;
}

/** 401: the session is gone. A held scan code lets the code-link entry make a new tourist session; otherwise login. */
export function handleUnauthorized(): void {
  const wasTourist = $isTourist.get();
  clearSignIn();
  const { path, query } = $route.get();
  if (path === '/') return; // the entry retries by itself
  const to = unauthorizedTarget(wasTourist, $qrcode.get(), $zhcode.get());
  if (to === '/login') $loginPath.set(loginPathFor(path, query));
  navigate(to, { replace: true });
}

let consoleLoading: Promise<unknown> | null = null;

/** vc=true: the debug console widget, loaded only then (its own chunk). */
function startDebugConsole(): void {
  if (consoleLoading) return;
  consoleLoading = import('eruda')
    .then((m) => m.default.init())
    .catch((e: unknown) => console.error('debug console', e));
}

let wxConfigured = false;
const WX_SDK = 'https://res.wx.qq.com/open/js/jweixin-1.6.0.js';

/**
 * In WeChat: load the JS-SDK and configure it with the server's signature; failure is a toast. The
 * content API module comes only there (no first load elsewhere carries it).
 */
function maybeWeChatConfig(): void {
  if (wxConfigured || !isWeChat(ua())) return;
  wxConfigured = true;
  import('../api/content.ts')
    .then((m) => m.wechatConfig(pageUrlWithoutHash(location.href)))
    .then(
      (c) =>
        new Promise<void>((resolve, reject) => {
          const s = document.createElement('script');
          s.src = WX_SDK;
          s.onload = () => {
            const wx = (window as unknown as { wx?: { config(o: object): void } }).wx;
            wx?.config({
              debug: false,
              appId: c.appId,
              timestamp: c.timestamp,
              nonceStr: c.noncestr,
              signature: c.signature,
              jsApiList: ['scanQRCode'],
            });
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
 * The app shell's per-route rules: stores what the route carries (scan codes, lang, agent), starts the debug
 * console and the WeChat config, leaves for the Wi-Fi site, and replaces the route when a rule or the guard
 * sends it elsewhere. Returns whether the route's screen may show (false while a redirect is under way).
 */
export function useRouteRules(route: ParsedHash, access: Access | null): boolean {
  const token = useStore($token);
  const qrcode = useStore($qrcode);
  const zhcode = useStore($zhcode);
  const mificode = useStore($mificode);
  const applyLogin = useStore($applyLogin);

  useEffect(() => {
    const fx = routeEffects(route, WIFI_SITE);
    if (fx.scanCodes) storeScanCodes(fx.scanCodes);
    if (fx.mificode !== null) $mificode.set(fx.mificode);
    if (fx.lang) $lang.set(fx.lang);
    if (fx.agentOpenId) $agentOpenId.set(fx.agentOpenId);
    if (fx.debugConsole) startDebugConsole();
    maybeWeChatConfig();
    if (fx.leave) location.replace(fx.leave);
  }, [route]);

  const { to, appleIdToken, loginPath } = routeRedirect(route, {
    access,
    token,
    qrcode,
    zhcode,
    mificode,
    applyLogin,
    ua: ua(),
  });
  useEffect(() => {
    if (appleIdToken) $appleIdToken.set(appleIdToken);
    if (loginPath !== null) $loginPath.set(loginPath);
    if (to) navigate(to, { replace: true });
  }, [appleIdToken, loginPath, to, route]);

  return !to;
}

/** document.title: the route's translated name and the product, e.g. "Wallet · Powerly". */
export function useDocumentTitle(titleKey: string | undefined): void {
  const t = useT();
  useEffect(() => {
    document.title = titleKey ? t('shell.documentTitle', { screen: t(titleKey) }) : t('shell.productName');
  }, [t, titleKey]);
}

/**
 * After a navigation (not the first screen): `onNavigate` runs (the side menu closes: Back with it open must not leave
 * it over the next screen), and once the new screen has rendered its heading, focus moves to that heading and a
 * polite live region names it, so keyboard and screen-reader users start at the top of the new screen. An open
 * dialog keeps the focus. Inside a host page's frame (the embed) only while the widget has the focus: a
 * navigation the person did not make there (the code link landing on the prices) must not take the focus from
 * the host page, which would also scroll the host to the widget.
 */
let interacted = false;
if (typeof window !== 'undefined') {
  for (const type of ['keydown', 'pointerdown'])
    window.addEventListener(type, () => (interacted = true), { once: true, capture: true });
}

export function useNavigationFocus(path: string, onNavigate: () => void): void {
  const initial = useRef(true);
  const latest = useLatest(onNavigate);
  useEffect(() => {
    if (initial.current) {
      initial.current = false;
      return;
    }
    latest.current();
    let done = false;
    const focusHeading = () => {
      // The new screen's heading: a rendered one (the old screen may still be in the DOM, hidden, while it loads).
      const h = [...document.querySelectorAll<HTMLElement>('h1')].find((e) => e.getClientRects().length > 0);
      if (!h) return false;
      if (document.querySelector('dialog[open]')) return (done = true);
      if (window.top !== window && !document.hasFocus()) return (done = true);
      if (!h.hasAttribute('tabindex')) h.setAttribute('tabindex', '-1');
      // Before any key or tap (a scan's redirect to its first screen) the focus moves without a ring.
      h.toggleAttribute('data-quiet', !interacted);
      h.focus();
      if (document.activeElement !== h) return false;
      done = true;
      const announcer = document.getElementById('route-announcer');
      if (announcer) announcer.textContent = h.textContent ?? '';
      return true;
    };
    if (focusHeading()) return;
    // Looked for again in a task of its own, once per burst of DOM changes: finding the rendered heading lays the
    // page out, which in the observer's microtask made the new screen's render task long.
    let queued = 0;
    const obs = new MutationObserver(() => {
      queued ||= window.setTimeout(() => {
        queued = 0;
        if (!done && focusHeading()) obs.disconnect();
      });
    });
    obs.observe(document.body, { childList: true, subtree: true });
    return () => {
      done = true;
      clearTimeout(queued);
      obs.disconnect();
    };
  }, [path, latest]);
}
