// Host side: put the widget's iframe into a container and run the bridge. Shared by the loader script and
// the <powerly-rent> custom element (both plain DOM: no framework on the host page). Each mount has its own
// iframe and bridge, so several widgets on one page never see each other's messages.
//
// Layout: a box of the reserved height (the start screen's) holds a skeleton painted at once in the host's
// appearance, with the iframe over it; when the widget is ready the skeleton goes and the box follows the
// widget's reported height both ways (ResizeObserver in the frame → `resize` → here).
//
// Boot: the iframe goes in (and the handshake's clock starts) when the box comes within BOOT_MARGIN_PX of the
// viewport, or when the host asks the widget to act (a cabinet, a route, close, logout). Widgets of one origin
// share the host page's main thread, so a second widget further down the page boots when the person scrolls
// towards it, not during the page's load; until then its settings wait in the handshake's init.
//
// The host page never shifts on its own (CLS). The browser forgives a shift only within 500 ms of an input in
// the host document itself — a tap inside the widget's frame does not count for the host (measured in
// Chromium). So a reported height is applied here at once only when (a) the person touched or typed on the
// host page just now (a host button that calls open/close counts), or (b) nothing of the host that is in view
// can move: the box reaches below the bottom of the viewport before and after the change. Otherwise it
// waits — the frame scrolls inside meanwhile — for the next host input, scroll or viewport change that makes
// it safe.
import { HostBridge, type WidgetEvent } from './bridge.ts';
import { MAX_HEIGHT, MIN_HEIGHT, clampHeight, parseAppearance, type Appearance } from './protocol.ts';

/**
 * The start screen's height at phone widths (a cabinet's prices and Continue: 840–1000 px from 320 to 600 px
 * wide): reserved before the widget has said anything.
 */
export const DEFAULT_RESERVED_HEIGHT = 920;
/** A resize this soon after an input in the host document is applied at once (the browser's window is 500 ms). */
export const HOST_INPUT_WINDOW_MS = 400;
/** How far below (or above) the viewport a widget's box boots: its frame is ready by the time it is in view. */
export const BOOT_MARGIN_PX = 200;

/**
 * May the box go from its current rectangle to `height` without moving anything of the host page that is in
 * view? Yes when it reaches below the viewport's bottom before and after (what follows it is out of view both
 * times), or when it is not laid out at all.
 */
export function resizeIsInvisible(
  rect: { top: number; bottom: number; width: number; height: number },
  height: number,
  viewportHeight: number,
): boolean {
  if (rect.width === 0 && rect.height === 0) return true;
  return rect.bottom >= viewportHeight && rect.top + height >= viewportHeight;
}

export interface MountOptions {
  /** Origin of the Powerly server that serves /embed/frame.html and the API. */
  widgetOrigin: string;
  /** The agent whose origin allowlist admits this host page. */
  agent: string;
  qrcode?: string;
  lang?: string;
  /** A route of the widget to open first (instead of a cabinet). */
  route?: string;
  /** A session token the host already holds (kept in memory; posted to the widget, never put in a URL). */
  token?: string;
  /** A signed one-time code (in-app transports). */
  code?: string;
  appearance?: Appearance;
  /** This widget's name on the page (an id): its saved session is kept apart from other widgets'. */
  slot?: string;
  /** The first height (px) to reserve; default DEFAULT_RESERVED_HEIGHT. */
  height?: number;
  title?: string;
  /** The skeleton's accessible label (the host's language). */
  loadingLabel?: string;
  onEvent(e: WidgetEvent): void;
}

export interface WidgetHandle {
  iframe: HTMLIFrameElement;
  box: HTMLElement;
  setQrcode(qrcode: string): void;
  setToken(token: string): void;
  setLang(lang: string): void;
  /** False (and nothing changes) when the appearance fails its grammar. */
  setTheme(appearance: unknown): boolean;
  open(route: string): void;
  close(): void;
  logout(): void;
  destroy(): void;
}

/** `slot` names this widget on its page (the element's or container's id) so its saved session is its own. */
export function frameUrl(widgetOrigin: string, agent: string, hostOrigin: string, slot = ''): string {
  const u = new URL('/embed/frame.html', widgetOrigin);
  u.searchParams.set('agent', agent);
  u.searchParams.set('origin', hostOrigin);
  if (/^[A-Za-z0-9_-]{1,64}$/.test(slot)) u.searchParams.set('slot', slot);
  return u.href;
}

const DARK = { colorBackground: '#15191d', colorText: '#e8ecef' };
const LIGHT = { colorBackground: '#f4f6f8', colorText: '#1a1f24' };

/** The skeleton's colours and radius from an appearance (already validated): set through the CSSOM only. */
export function paintSkeleton(box: HTMLElement, a: Appearance): void {
  const dark = a.theme === 'dark' || (a.theme === 'auto' && matchMedia('(prefers-color-scheme: dark)').matches);
  const base = dark ? DARK : LIGHT;
  const v = a.variables ?? {};
  box.style.setProperty('--pw-bg', v.colorBackground ?? base.colorBackground);
  box.style.setProperty('--pw-text', v.colorText ?? base.colorText);
  box.style.setProperty('--pw-primary', v.colorPrimary ?? '#0b6e4f');
  box.style.setProperty('--pw-radius', v.borderRadius ?? '14px');
  box.style.setProperty('--pw-font', v.fontFamily ?? 'system-ui, sans-serif');
}

/**
 * The skeleton's CSS (inside the element's shadow root, or once in the host document for the loader). One line as
 * served (each line ends in a continuation); the iframe and the bars need no `display` of their own (an absolutely
 * positioned box and flex items are blocks).
 */
export const SKELETON_CSS = `\
.pw-box{position:relative;overflow:hidden;background:var(--pw-bg);border-radius:var(--pw-radius);font-family:var(--pw-font)}\
.pw-box iframe{position:absolute;inset:0;width:100%;height:100%;border:0;color-scheme:normal}\
.pw-skel{position:absolute;inset:0;padding:16px;display:flex;flex-direction:column;gap:16px}\
.pw-skel i{height:20px;border-radius:var(--pw-radius);background:var(--pw-text);opacity:.08}\
.pw-skel i:first-child{height:56px}.pw-skel i:nth-child(3){height:140px}.pw-skel i:last-child{height:48px;background:var(--pw-primary);opacity:.35}\
.pw-box.pw-ready .pw-skel{display:none}.pw-box:not(.pw-ready) iframe{opacity:0}\
@media (prefers-reduced-motion:no-preference){.pw-skel i{animation:pw-pulse 1.2s ease-in-out infinite alternate}}\
@keyframes pw-pulse{to{opacity:.16}}`;

export function mountWidget(container: Element | ShadowRoot, o: MountOptions): WidgetHandle {
  const box = document.createElement('div');
  box.className = 'pw-box';
  box.setAttribute('part', 'container');
  const reserved = clampHeight(o.height ?? DEFAULT_RESERVED_HEIGHT);
  box.style.height = `${reserved}px`;
  const appearance = o.appearance ?? {};
  paintSkeleton(box, appearance);
  const skeleton = document.createElement('div');
  skeleton.className = 'pw-skel';
  skeleton.setAttribute('role', 'status');
  skeleton.setAttribute('aria-label', o.loadingLabel ?? 'Loading');
  for (let i = 0; i < 5; i++) skeleton.appendChild(document.createElement('i'));

  const iframe = document.createElement('iframe');
  iframe.src = frameUrl(o.widgetOrigin, o.agent, location.origin, o.slot);
  iframe.title = o.title ?? 'Powerly';
  iframe.allow = 'payment; camera';
  iframe.setAttribute('referrerpolicy', 'origin');
  // The size the widget asks for, applied when it cannot shift the host page (see the top of this file).
  let wanted: number | null = null;
  let lastInput = -Infinity;
  const applyHeight = () => {
    if (wanted === null) return;
    const recentInput = performance.now() - lastInput < HOST_INPUT_WINDOW_MS;
    if (!recentInput && !resizeIsInvisible(box.getBoundingClientRect(), wanted, window.innerHeight)) return;
    box.style.height = `${wanted}px`;
    wanted = null;
  };
  const onInput = () => {
    lastInput = performance.now();
    applyHeight();
  };
  const onViewport = () => applyHeight();
  for (const type of ['pointerdown', 'keydown'] as const)
    window.addEventListener(type, onInput, { capture: true, passive: true });
  for (const type of ['scroll', 'resize'] as const) window.addEventListener(type, onViewport, { passive: true });

  const bridge = new HostBridge({
    self: window,
    widget: () => iframe.contentWindow,
    widgetOrigin: o.widgetOrigin,
    init: {
      token: o.token,
      qrcode: o.qrcode,
      lang: o.lang,
      code: o.code,
      route: o.route,
      appearance: o.appearance ? JSON.stringify(o.appearance) : undefined,
    },
    onEvent(e) {
      if (e.type === 'resize') {
        const h = Math.min(MAX_HEIGHT, Math.max(MIN_HEIGHT, e.height));
        wanted = `${h}px` === box.style.height ? null : h;
        applyHeight();
      }
      if (e.type === 'ready') box.classList.add('pw-ready');
      o.onEvent(e);
    },
  });
  // Near the viewport (see the top of this file); `near` is gone once booted.
  let near: IntersectionObserver | undefined = new IntersectionObserver(
    (es) => es.some((e) => e.isIntersecting) && boot(),
    { rootMargin: `${BOOT_MARGIN_PX}px 0px` },
  );
  function boot() {
    if (!near) return;
    near.disconnect();
    near = undefined;
    bridge.start();
    box.append(iframe);
  }
  box.append(skeleton);
  container.appendChild(box);
  near.observe(box);
  return {
    iframe,
    box,
    setQrcode: (q) => (bridge.setQrcode(q), boot()),
    setToken: (t) => bridge.setToken(t),
    setLang: (l) => bridge.setLang(l),
    setTheme(input) {
      const a = parseAppearance(input);
      if (!a) return false;
      paintSkeleton(box, a);
      bridge.setTheme(JSON.stringify(a));
      return true;
    },
    open: (route) => (bridge.open(route), boot()),
    close: () => (bridge.close(), boot()),
    logout: () => (bridge.logout(), boot()),
    destroy() {
      for (const type of ['pointerdown', 'keydown'] as const)
        window.removeEventListener(type, onInput, { capture: true });
      for (const type of ['scroll', 'resize'] as const) window.removeEventListener(type, onViewport);
      near?.disconnect();
      bridge.stop();
      box.remove();
    },
  };
}
