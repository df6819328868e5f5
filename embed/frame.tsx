// The iframe page (/embed/frame.html?agent=A&origin=HOST): the rent flows under preact/compat, talking to
// the host page through the bridge. The server injects the agent's origin allowlist into the page and sends
// it as `frame-ancestors` too; this page answers only a parent whose origin is on that list.
import './memory-storage.ts';
import { createRoot } from 'react-dom/client';
import { App } from '../src/App.tsx';
import { loadLocale, startI18n, translate } from '../src/i18n/index.ts';
import { $lang } from '../src/stores/locale.ts';
import { $route, navigate, startMemoryHistory } from '../src/stores/router.ts';
import { $agentOpenId, setSession } from '../src/stores/session.ts';
import { onUnauthorized } from '../src/api/client.ts';
import { clearSession } from '../src/stores/session.ts';
import { getOrder } from '../src/api/orders.ts';
import { setHostEventSink } from '../src/platform/hostEvents.ts';
import { isLocale } from '../src/core/lang.ts';
import { reportWebVitals } from '../src/platform/vitals.ts';
import { NativeBridge, WidgetBridge } from './bridge.ts';
import { api } from '../src/api/client.ts';
import type { RedeemCodeBody, RedeemedSession } from '../src/contract/embed.ts';
import { RESIZE_THROTTLE_MS, clampHeight, isAllowedOrigin, throttle, parseScannedCode, type HostMessage, type WidgetMessage } from './protocol.ts';
import '../src/ui/app.css';
import './frame.css';

const RETURN_POLL_MS = 5000;

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
} else if (window.parent === window || !config || !isAllowedOrigin(parentOrigin, config.origins) || (framedBy !== undefined && framedBy !== parentOrigin)) {
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
  // In an iframe, pushState and history.back() move the host page's history: the app's stays in memory.
  startMemoryHistory();
  $agentOpenId.set(cfg.agent);
  let rendered = false;
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

  function nativeBridge() {
    const nb = new NativeBridge({
      targets: [window, document as unknown as Window],
      out: nativeOut,
      redeem: async (code) => {
        const body: RedeemCodeBody = { code, agent: cfg.agent };
        return (await api.post<RedeemedSession>('embed/code/redeem', { body, noToken: true })).token;
      },
      onInit: ({ token, qrcode, lang }) => void apply({ type: 'init', payload: { version: 1, token, qrcode, lang } }),
      onRefused: () => nb.send({ type: 'error', payload: { code: 'badCode', message: translate('embed.badSignIn') } }),
    });
    return Object.assign(nb, { resize: throttle((h: number) => nb.send({ type: 'resize', payload: { height: clampHeight(h) } }), RESIZE_THROTTLE_MS) });
  }

  async function apply(msg: HostMessage) {
    switch (msg.type) {
      case 'init': {
        const { token, qrcode, lang } = msg.payload;
        if (lang && isLocale(lang)) {
          $lang.set(lang);
          await loadLocale(lang);
        }
        if (token) setSession(token, '');
        if (!rendered) render();
        if (qrcode) applyCode(qrcode);
        bridge.send({ type: 'ready', payload: {} });
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
    }
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
      bridge.send({ type: 'error', payload: { code: 'unauthorized', message: translate('errors.unauthorized') } });
    });
    createRoot(document.getElementById('root')!).render(<App />);
    new ResizeObserver(() => bridge.resize(document.documentElement.scrollHeight)).observe(document.body);
    // Navigation out: the path only — queries may carry payment ids or tokens.
    $route.subscribe((r) => bridge.send({ type: 'navigate', payload: { path: r.path } }));
    setHostEventSink((e) => {
      if (e.type === 'rented') {
        bridge.send({ type: 'rented', payload: { orderId: e.orderId } });
        watchReturn(e.orderId);
      } else bridge.send({ type: 'error', payload: { code: e.code, message: e.message } });
    });
    reportWebVitals('iframe');
  }

  /** After a rental, tell the host when the power bank is back (the order leaves its open states). */
  function watchReturn(orderId: string) {
    if (watching.has(orderId)) return;
    watching.add(orderId);
    const poll = async () => {
      try {
        const o = await getOrder(orderId);
        if (o.pZujie === 3 || o.pZujie === 5) {
          bridge.send({ type: 'returned', payload: { orderId } });
          return;
        }
        if (o.pZujie === 2) return;
      } catch {
        // transient: keep watching
      }
      setTimeout(() => void poll(), RETURN_POLL_MS);
    };
    setTimeout(() => void poll(), RETURN_POLL_MS);
  }

  bridge.start();
}
