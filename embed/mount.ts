// Host side: put the widget's iframe into a container and run the bridge. Shared by the loader script and
// the <powerly-rent> custom element. Each mount has its own iframe and bridge, so several widgets on one
// page never see each other's messages (each bridge accepts only its own iframe's window).
import { HostBridge, type WidgetEvent } from './bridge.ts';
import { MIN_HEIGHT } from './protocol.ts';

export interface MountOptions {
  /** Origin of the Powerly server that serves /embed/frame.html and the API. */
  widgetOrigin: string;
  /** The agent whose origin allowlist admits this host page. */
  agent: string;
  qrcode?: string;
  lang?: string;
  /** A session token the host already holds (kept in memory; posted to the widget, never put in a URL). */
  token?: string;
  /** A signed one-time code (in-app transports). */
  code?: string;
  title?: string;
  onEvent(e: WidgetEvent): void;
}

export interface WidgetHandle {
  iframe: HTMLIFrameElement;
  setQrcode(qrcode: string): void;
  setToken(token: string): void;
  setLang(lang: string): void;
  destroy(): void;
}

export function frameUrl(widgetOrigin: string, agent: string, hostOrigin: string): string {
  const u = new URL('/embed/frame.html', widgetOrigin);
  u.searchParams.set('agent', agent);
  u.searchParams.set('origin', hostOrigin);
  return u.href;
}

export function mountWidget(container: Element | ShadowRoot, o: MountOptions): WidgetHandle {
  const iframe = document.createElement('iframe');
  iframe.src = frameUrl(o.widgetOrigin, o.agent, location.origin);
  iframe.title = o.title ?? 'Powerly';
  iframe.allow = 'payment; camera';
  iframe.style.cssText = `display:block;width:100%;border:0;height:${MIN_HEIGHT}px;color-scheme:normal`;
  iframe.setAttribute('referrerpolicy', 'origin');
  const bridge = new HostBridge({
    self: window,
    widget: () => iframe.contentWindow,
    widgetOrigin: o.widgetOrigin,
    init: { token: o.token, qrcode: o.qrcode, lang: o.lang, code: o.code },
    onEvent(e) {
      if (e.type === 'height') iframe.style.height = `${e.height}px`;
      o.onEvent(e);
    },
  });
  bridge.start();
  container.appendChild(iframe);
  return {
    iframe,
    setQrcode: (q) => bridge.setQrcode(q),
    setToken: (t) => bridge.setToken(t),
    setLang: (l) => bridge.setLang(l),
    destroy() {
      bridge.stop();
      iframe.remove();
    },
  };
}
