// The iframe page (/embed/frame.html?agent=A&origin=HOST): the rent flows under preact/compat, talking to
// the host page through the bridge. The server injects the agent's origin allowlist into the page and sends
// it as `frame-ancestors` too; this page answers only a parent whose origin is on that list.
import { engine } from './storage.ts';
import { createRoot } from 'react-dom/client';
import { App } from '../src/App.tsx';
import { addMessages, loadLocale, startI18n, translate } from '../src/i18n/index.ts';
import { $lang } from '../src/stores/locale.ts';
import { $route, navigate, startMemoryHistory } from '../src/stores/router.ts';
import { $agentOpenId, $token, clearSession, setSession } from '../src/stores/session.ts';
import { api, onUnauthorized } from '../src/api/client.ts';
import { setHostEventSink } from '../src/platform/hostEvents.ts';
import { DEFAULT_LOCALE, isLocale } from '../src/core/lang.ts';
import { WidgetBridge } from './bridge.ts';
import type { RedeemCodeBody, RedeemedSession } from '../src/contract/embed.ts';
import {
  RESIZE_THROTTLE_MS,
  clampHeight,
  isAllowedOrigin,
  parseAppearance,
  throttle,
  parseScannedCode,
  type HostMessage,
  type WidgetMessage,
} from './protocol.ts';
import { applyAppearance } from './appearance.ts';
import { warmIntl } from '../src/platform/intlWarm.ts';
import { ROUTES, matchRoute } from '../src/routes.ts';
import { FIRST_SCREEN_ROUTES } from './firstStrings.ts';
import '../src/ui/app.css';
import './frame.css';

const RETURN_POLL_MS = 5000;

/**
 * The whole en-US table, once: this build's first load has only the first screen's namespaces
 * (embed/firstStrings.ts, vite.embed.config.ts). Asked for once the first screen is on, or by a later screen.
 */
let allStrings: Promise<void> | undefined;
function loadAllStrings(): Promise<void> {
  allStrings ??= import('../locales/en-US.json').then(
    (m) => addMessages(DEFAULT_LOCALE, m.default as Record<string, unknown>),
    (e: unknown) => {
      allStrings = undefined; // a later screen tries again
      throw e;
    },
  );
  return allStrings;
}

/** Every screen but the first ones comes with the whole table, so it never shows a key. */
function screensWaitForStrings() {
  for (const route of ROUTES) {
    const load = route.screen;
    if (!load || FIRST_SCREEN_ROUTES.includes(route.path)) continue;
    route.screen = () => Promise.all([load(), loadAllStrings()]).then(([screen]) => screen);
  }
}

interface AgentConfig {
  agent: string;
  origins: string[];
}

function agentConfig(): AgentConfig | null {
  const el = document.getElementById('powerly-agent');
  if (!el?.textContent) return null;
  try {
    const c = JSON.parse(el.textContent) as AgentConfig;
    return typeof c.agent === 'string' && Array.isArray(c.origins) ? c : null;
  } catch {
    return null;
  }
}

function refuse(text: string) {
  const root = document.getElementById('root')!;
  const p = document.createElement('p');
  p.className = 'embed-refused';
  p.setAttribute('role', 'alert');
  p.textContent = text;
  root.replaceChildren(p);
}

const params = new URLSearchParams(location.search);
const parentOrigin = params.get('origin') ?? '';
const config = agentConfig();
const ancestors = (location as Location & { ancestorOrigins?: DOMStringList }).ancestorOrigins;
const framedBy = ancestors && ancestors.length > 0 ? ancestors[0] : undefined;

// The native transport is for a web-view: a page opened by another page (window.opener) is refused, so a hostile
// page cannot open it and feed it its own one-time code (bridge.ts also drops any message posted by another window;
// framing is limited to the agent's origins by frame-ancestors, as for the iframe transport).
const native = params.get('transport') === 'native' && !window.opener;

if (native && config?.agent) {
  start(config, 'native');
} else if (
  window.parent === window ||
  !config ||
  !isAllowedOrigin(parentOrigin, config.origins) ||
  (framedBy !== undefined && framedBy !== parentOrigin)
) {
  startI18n();
  refuse(translate('embed.refused'));
} else {
  start(config, 'frame');
}

/** The native channel out of a web-view: React Native, then WeChat and Alipay mini-programs. */
function nativeOut(data: unknown) {
  const w = window as unknown as {
    ReactNativeWebView?: { postMessage(s: string): void };
    wx?: { miniProgram?: { postMessage(m: { data: unknown }): void } };
    my?: { postMessage(m: unknown): void };
  };
  if (w.ReactNativeWebView) w.ReactNativeWebView.postMessage(JSON.stringify(data));
  else if (w.wx?.miniProgram) w.wx.miniProgram.postMessage({ data });
  else w.my?.postMessage(data);
}

function start(cfg: AgentConfig, transport: 'frame' | 'native') {
  void warmIntl(DEFAULT_LOCALE); // the screen after a scan shows prices (src/platform/intlWarm.ts)
  // In an iframe, pushState and history.back() move the host page's history: the app's stays in memory.
  startMemoryHistory();
  $agentOpenId.set(cfg.agent);
  let rendered = false;
  let shown = false;
  const watching = new Set<string>();

  const bridge: { send(m: WidgetMessage): void; resize(h: number): void; start(): void } =
    transport === 'frame'
      ? new WidgetBridge({
          self: window,
          parent: window.parent,
          parentOrigin,
          allowlist: cfg.origins,
          onMessage: (msg) => void apply(msg),
          onTimeout: () => refuse(translate('embed.noHost')),
        })
      : nativeBridge();

  /**
   * The in-app transport, loaded only here (embed/nativeBridge.ts). A native host may inject its `init` as soon
   * as the page has loaded: what arrives through the web-view channel (no source window) before the module is
   * kept and handed to it; what the widget sends meanwhile waits.
   */
  function nativeBridge() {
    let nb: import('./nativeBridge.ts').NativeBridge | undefined;
    let started = false;
    const waiting: WidgetMessage[] = [];
    const early: unknown[] = [];
    const keep = (e: Event) => {
      const m = e as MessageEvent;
      if ((m.source === null || m.source === undefined) && early.length < 8) early.push(m.data);
    };
    const targets = [window, document as unknown as Window];
    for (const t of targets) t.addEventListener('message', keep);
    const send = (m: WidgetMessage) => (nb ? nb.send(m) : void waiting.push(m));
    void import('./nativeBridge.ts').then(({ NativeBridge }) => {
      for (const t of targets) t.removeEventListener('message', keep);
      nb = new NativeBridge({
        targets,
        out: nativeOut,
        redeem: async (code) => {
          const body: RedeemCodeBody = { code, agent: cfg.agent };
          return (await api.post<RedeemedSession>('embed/code/redeem', { body, noToken: true })).token;
        },
        onInit: ({ token, qrcode, lang }) => void apply({ type: 'init', payload: { version: 1, token, qrcode, lang } }),
        onRefused: () => send({ type: 'error', payload: { code: 'badCode', message: translate('embed.badSignIn') } }),
      });
      if (started) nb.start();
      for (const m of waiting.splice(0)) nb.send(m);
      for (const data of early.splice(0)) nb.deliver(data);
    });
    return {
      send,
      start() {
        started = true;
        nb?.start();
      },
      resize: throttle(
        (h: number) => send({ type: 'resize', payload: { height: clampHeight(h) } }),
        RESIZE_THROTTLE_MS,
      ),
    };
  }

  async function apply(msg: HostMessage) {
    switch (msg.type) {
      case 'init': {
        const { token, qrcode, lang, route, appearance } = msg.payload;
        if (appearance) setTheme(appearance);
        if (lang && isLocale(lang)) {
          $lang.set(lang);
          await loadLocale(lang);
        }
        if (token) setSession(token, '');
        if (!rendered) await new Promise((r) => setTimeout(r)); // the first render: a task of its own
        const first = !rendered;
        if (first) render();
        // A host reload (a fresh frame) during a rental: back to that rental rather than a fresh start.
        const open = first ? openRental() : null;
        if (open) {
          navigate(`/orderDetail?orderId=${encodeURIComponent(open)}`, { replace: true });
          watchReturn(open);
        } else if (route) openRoute(route);
        else if (qrcode) applyCode(qrcode);
        // `ready` goes once the first screen is on (measure() in render()); a re-init after it says so again.
        if (shown) bridge.send({ type: 'ready', payload: {} });
        return;
      }
      case 'setQrcode':
        applyCode(msg.payload.qrcode);
        return;
      case 'setToken':
        setSession(msg.payload.token, '');
        return;
      case 'setLang': {
        const { lang } = msg.payload;
        if (!isLocale(lang)) return;
        $lang.set(lang);
        await loadLocale(lang);
        return;
      }
      case 'setTheme':
        setTheme(msg.payload.appearance);
        return;
      case 'open':
        openRoute(msg.payload.route);
        return;
      case 'close':
        navigate('/', { replace: true });
        return;
      case 'logout':
        clearSession();
        delete engine.rental;
        navigate('/', { replace: true });
        return;
    }
  }

  function setTheme(json: string) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(json);
    } catch {
      parsed = null;
    }
    const a = parseAppearance(parsed);
    if (a) applyAppearance(document.documentElement, a);
    else
      bridge.send({
        type: 'error',
        payload: { code: 'badAppearance', message: 'The appearance does not match its grammar.' },
      });
  }

  function openRoute(route: string) {
    if (!matchRoute(route)) {
      bridge.send({ type: 'error', payload: { code: 'badRoute', message: `Unknown route ${route}` } });
      return;
    }
    navigate(route);
  }

  /** The open rental saved by this widget (storage.ts), when there is a session to see it with. */
  function openRental(): string | null {
    const id = engine.rental;
    return id && $token.get() && /^[A-Za-z0-9_-]{1,64}$/.test(id) ? id : null;
  }

  function applyCode(raw: string) {
    const code = parseScannedCode(raw);
    if (!code) {
      bridge.send({ type: 'error', payload: { code: 'badQrcode', message: translate('embed.badCode') } });
      return;
    }
    navigate(`/?qrcode=${encodeURIComponent(code)}`, { replace: true });
  }

  function render() {
    rendered = true;
    startI18n();
    onUnauthorized(() => {
      clearSession();
      delete engine.rental;
      bridge.send({ type: 'error', payload: { code: 'unauthorized', message: translate('errors.unauthorized') } });
    });
    const root = document.getElementById('root')!;
    screensWaitForStrings();
    createRoot(root).render(<App />);
    // Size follows the content both ways: the root's own height (never the document's scrollHeight, which
    // is at least the iframe's current height and so could only grow), or an open dialog's when taller.
    // Nothing is reported while a screen is still loading (the host keeps its reserved height and skeleton).
    // Every settled height goes to the host (throttled); the host applies it when that cannot shift its page
    // (embed/mount.ts), the frame scrolling inside meanwhile.
    const measure = () => {
      const main = root.querySelector('main');
      const busy =
        !main ||
        root.querySelector('[aria-busy="true"]') ||
        (main.childElementCount === 1 && main.firstElementChild!.classList.contains('loading'));
      if (busy) return;
      if (!shown) {
        shown = true;
        bridge.send({ type: 'ready', payload: {} });
        void loadAllStrings().catch(() => undefined);
      }
      let h = root.getBoundingClientRect().height;
      for (const d of document.querySelectorAll('dialog[open]')) h = Math.max(h, (d as HTMLElement).scrollHeight);
      bridge.resize(Math.ceil(h));
    };
    // A DOM change is measured in a task of its own, once per burst (in the observer's microtask it forced a layout
    // inside the render's task); a resize is seen after layout, when measuring costs nothing.
    let queued = 0;
    const measureSoon = () => void (queued ||= window.setTimeout(() => ((queued = 0), measure())));
    new ResizeObserver(measure).observe(root);
    new MutationObserver(measureSoon).observe(document.body, {
      subtree: true,
      childList: true,
      attributes: true,
      attributeFilter: ['open', 'aria-busy'],
    });
    // Navigation out: the path only — queries may carry payment ids or tokens.
    $route.subscribe((r) => bridge.send({ type: 'navigate', payload: { path: r.path } }));
    const started = new Set<string>();
    setHostEventSink((e) => {
      switch (e.type) {
        case 'rental.started':
          if (started.has(e.tradeNo)) return;
          started.add(e.tradeNo);
          bridge.send({ type: 'rental.started', payload: { tradeNo: e.tradeNo } });
          return;
        case 'eject.confirmed':
          if (watching.has(e.orderId)) return;
          engine.rental = e.orderId;
          bridge.send({ type: 'eject.confirmed', payload: { orderId: e.orderId } });
          watchReturn(e.orderId);
          return;
        case 'eject.failed':
          bridge.send({
            type: 'eject.failed',
            payload: { tradeNo: e.tradeNo, code: e.code, message: e.message.slice(0, 500) },
          });
          return;
        case 'payment.failed':
          bridge.send({ type: 'payment.failed', payload: { code: e.code, message: e.message.slice(0, 500) } });
          return;
        case 'error':
          bridge.send({ type: 'error', payload: { code: e.code, message: e.message.slice(0, 500) } });
          return;
      }
    });
    // Web vitals and the order poll are no part of the first screen: their modules come after it.
    void import('../src/platform/vitals.ts').then(
      (m) => m.reportWebVitals('iframe'),
      () => undefined,
    );
  }

  /** Once a rental is on: its receipts and reminders go to the host (notices.ts, loaded only then). */
  let hearing = false;
  function hearNotices() {
    if (hearing) return;
    hearing = true;
    void import('./notices.ts').then(
      (m) => m.passNotices(bridge),
      () => undefined,
    );
  }

  /** After a rental, tell the host when the power bank is back (the order leaves its open states). */
  function watchReturn(orderId: string) {
    if (watching.has(orderId)) return;
    watching.add(orderId);
    hearNotices();
    const poll = async () => {
      try {
        const { getOrder } = await import('../src/api/orders.ts');
        const o = await getOrder(orderId);
        if (o.pZujie === 3 || o.pZujie === 5) {
          if (engine.rental === orderId) delete engine.rental;
          bridge.send({ type: 'rental.returned', payload: { orderId } });
          return;
        }
        if (o.pZujie === 2) {
          if (engine.rental === orderId) delete engine.rental;
          return;
        }
      } catch {
        // transient: keep watching
      }
      setTimeout(() => void poll(), RETURN_POLL_MS);
    };
    setTimeout(() => void poll(), RETURN_POLL_MS);
  }

  bridge.start();
}
