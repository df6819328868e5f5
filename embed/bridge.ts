// Both ends of the postMessage bridge (docs/embed.md). The windows are injected, so unit tests dispatch
// MessageEvents at them directly; the browser tests run them across two real origins.
//
// Security rules, each enforced here and tested:
//  - exact-match origin allowlist (isAllowedOrigin), "null" rejected;
//  - the sender window checked (event.source must be the expected window);
//  - data posted only to one exact target origin, never "*";
//  - every message schema-validated with a size cap (protocol.ts), unknown types dropped, switch dispatch.
import {
  HANDSHAKE_TIMEOUT_MS, PROTOCOL_VERSION, RESIZE_THROTTLE_MS, clampHeight, isAllowedOrigin, isSerializedOrigin,
  parseHostMessage, parseWidgetMessage, throttle, wire, type HostMessage, type WidgetMessage,
} from './protocol.ts';

interface PostTarget {
  postMessage(message: unknown, targetOrigin: string): void;
}
interface Listenable {
  addEventListener(type: 'message', fn: (e: MessageEvent) => void): void;
  removeEventListener(type: 'message', fn: (e: MessageEvent) => void): void;
}

// ---------------------------------------------------------------- widget side (inside the iframe)

export interface WidgetBridgeOptions {
  /** The iframe's own window (where host messages arrive). */
  self: Listenable;
  /** window.parent: the only window whose messages are accepted. */
  parent: PostTarget;
  /** The host page's origin (from the frame URL), accepted only when it is on the agent's allowlist. */
  parentOrigin: string;
  allowlist: readonly string[];
  onMessage(msg: HostMessage): void;
  /** Hello is repeated until the host answers (it may attach its listener late); gives up after the timeout. */
  helloEveryMs?: number;
  timeoutMs?: number;
  onTimeout?(): void;
}

export class WidgetBridge {
  private connected = false;
  private helloTimer: ReturnType<typeof setInterval> | undefined;
  private giveUp: ReturnType<typeof setTimeout> | undefined;
  private readonly listener = (e: MessageEvent) => this.receive(e);
  readonly resize: (height: number) => void;

  constructor(private readonly o: WidgetBridgeOptions) {
    if (!isAllowedOrigin(o.parentOrigin, o.allowlist)) throw new Error('parent origin not on the allowlist');
    this.resize = throttle((h: number) => this.send({ type: 'resize', payload: { height: clampHeight(h) } }), RESIZE_THROTTLE_MS);
  }

  start(): void {
    this.o.self.addEventListener('message', this.listener);
    const hello = () => this.post({ type: 'hello', payload: { versions: [PROTOCOL_VERSION] } });
    hello();
    this.helloTimer = setInterval(hello, this.o.helloEveryMs ?? 250);
    this.giveUp = setTimeout(() => {
      clearInterval(this.helloTimer);
      if (!this.connected) this.o.onTimeout?.();
    }, this.o.timeoutMs ?? HANDSHAKE_TIMEOUT_MS);
  }

  stop(): void {
    clearInterval(this.helloTimer);
    clearTimeout(this.giveUp);
    this.o.self.removeEventListener('message', this.listener);
  }

  get isConnected(): boolean {
    return this.connected;
  }

  /** Messages other than hello wait for the handshake: nothing is said to a host that has not answered. */
  send(msg: WidgetMessage): void {
    if (this.connected) this.post(msg);
  }

  private post(msg: WidgetMessage): void {
    this.o.parent.postMessage(wire(msg), this.o.parentOrigin);
  }

  private receive(e: MessageEvent): void {
    if (e.source !== (this.o.parent as unknown)) return;
    if (e.origin !== this.o.parentOrigin || !isAllowedOrigin(e.origin, this.o.allowlist)) return;
    const msg = parseHostMessage(e.data);
    if (!msg) return;
    if (msg.type === 'init') {
      if (msg.payload.version !== PROTOCOL_VERSION) return;
      this.connected = true;
      clearInterval(this.helloTimer);
      clearTimeout(this.giveUp);
    } else if (!this.connected) return;
    this.o.onMessage(msg);
  }
}

// ---------------------------------------------------------------- host side (the page that embeds)

export type WidgetEvent =
  | { type: 'ready' }
  | { type: 'height'; height: number }
  | { type: 'navigate'; path: string }
  | { type: 'rented'; orderId: string }
  | { type: 'returned'; orderId: string }
  | { type: 'error'; code: string; message: string };

export interface HostBridgeOptions {
  /** The host page's window (where widget messages arrive). */
  self: Listenable;
  /** The iframe's contentWindow, read when a message arrives (it changes on navigation). */
  widget(): PostTarget | null;
  /** The widget's origin (the Powerly server); the only origin accepted and posted to. */
  widgetOrigin: string;
  init: { token?: string; qrcode?: string; lang?: string; code?: string };
  onEvent(e: WidgetEvent): void;
  timeoutMs?: number;
}

export class HostBridge {
  private connected = false;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private readonly listener = (e: MessageEvent) => this.receive(e);

  constructor(private readonly o: HostBridgeOptions) {
    if (!isSerializedOrigin(o.widgetOrigin)) throw new Error('widget origin must be an http(s) origin');
  }

  start(): void {
    this.o.self.addEventListener('message', this.listener);
    this.timer = setTimeout(() => {
      if (!this.connected) this.o.onEvent({ type: 'error', code: 'handshakeTimeout', message: 'The Powerly widget did not answer.' });
    }, this.o.timeoutMs ?? HANDSHAKE_TIMEOUT_MS);
  }

  stop(): void {
    clearTimeout(this.timer);
    this.o.self.removeEventListener('message', this.listener);
  }

  get isConnected(): boolean {
    return this.connected;
  }

  setQrcode(qrcode: string): void {
    this.o.init.qrcode = qrcode;
    if (this.connected) this.post({ type: 'setQrcode', payload: { qrcode } });
  }

  setToken(token: string): void {
    this.o.init.token = token;
    if (this.connected) this.post({ type: 'setToken', payload: { token } });
  }

  /** A changed `lang` after mount: the widget switches its texts and currency formatting live. */
  setLang(lang: string): void {
    this.o.init.lang = lang;
    if (this.connected) this.post({ type: 'setLang', payload: { lang } });
  }

  private post(msg: HostMessage): void {
    this.o.widget()?.postMessage(wire(msg), this.o.widgetOrigin);
  }

  private receive(e: MessageEvent): void {
    const widget = this.o.widget();
    if (!widget || e.source !== (widget as unknown)) return;
    if (e.origin !== this.o.widgetOrigin) return;
    const msg = parseWidgetMessage(e.data);
    if (!msg) return;
    switch (msg.type) {
      case 'hello': {
        if (!msg.payload.versions.includes(PROTOCOL_VERSION)) {
          this.o.onEvent({ type: 'error', code: 'version', message: 'Unsupported widget protocol version.' });
          return;
        }
        // A reloaded frame says hello again: answer every hello with the current init.
        this.connected = true;
        clearTimeout(this.timer);
        const { token, qrcode, lang, code } = this.o.init;
        const payload: Extract<HostMessage, { type: 'init' }>['payload'] = { version: PROTOCOL_VERSION };
        if (token) payload.token = token;
        if (qrcode) payload.qrcode = qrcode;
        if (lang) payload.lang = lang;
        if (code) payload.code = code;
        this.post({ type: 'init', payload });
        return;
      }
      case 'ready':
        if (this.connected) this.o.onEvent({ type: 'ready' });
        return;
      case 'resize':
        if (this.connected) this.o.onEvent({ type: 'height', height: clampHeight(msg.payload.height) });
        return;
      case 'navigate':
        if (this.connected) this.o.onEvent({ type: 'navigate', path: msg.payload.path });
        return;
      case 'rented':
        if (this.connected) this.o.onEvent({ type: 'rented', orderId: msg.payload.orderId });
        return;
      case 'returned':
        if (this.connected) this.o.onEvent({ type: 'returned', orderId: msg.payload.orderId });
        return;
      case 'error':
        if (this.connected) this.o.onEvent({ type: 'error', code: msg.payload.code, message: msg.payload.message });
        return;
    }
  }
}

// ---------------------------------------------------------------- in-app transports (no origin)

export interface NativeBridgeOptions {
  /** Where the native host's injected messages arrive (React Native: window and document). */
  targets: Listenable[];
  /** The native channel out (ReactNativeWebView.postMessage, wx.miniProgram.postMessage, my.postMessage). */
  out(data: ReturnType<typeof wire>): void;
  /** Redeems a signed one-time code with the server; rejects when it is invalid, expired or used. */
  redeem(code: string): Promise<string>;
  onInit(init: { token: string; qrcode?: string; lang?: string }): void;
  onRefused(): void;
}

/**
 * WeChat/Alipay mini-program web-views and React Native deliver messages without a meaningful origin or
 * source, so the content is authenticated instead: only an `init` carrying a signed one-time code is
 * accepted, and only once the server has redeemed that code, and only from the web-view channel itself (no
 * source window: see the listener). Every other message is dropped.
 */
export class NativeBridge {
  // Only the web-view channel: the native host injects its messages as events without a source window (React
  // Native's WebView dispatches them on window/document). A message posted by another window — a page that
  // window.open()ed this one, or a frame — has a source and is dropped: it must never sign this window in.
  private readonly listener = (e: Event) => {
    const m = e as MessageEvent;
    if (m.source !== null && m.source !== undefined) return;
    void this.receive(m.data);
  };
  private busy = false;
  constructor(private readonly o: NativeBridgeOptions) {}

  start(): void {
    for (const t of this.o.targets) t.addEventListener('message', this.listener);
    this.o.out(wire({ type: 'hello', payload: { versions: [PROTOCOL_VERSION] } }));
  }

  stop(): void {
    for (const t of this.o.targets) t.removeEventListener('message', this.listener);
  }

  send(msg: WidgetMessage): void {
    this.o.out(wire(msg));
  }

  private async receive(raw: unknown): Promise<void> {
    let data = raw;
    if (typeof raw === 'string' && raw.length <= 4096) {
      try {
        data = JSON.parse(raw); // React Native sends strings
      } catch {
        return;
      }
    }
    const msg = parseHostMessage(data);
    if (!msg || msg.type !== 'init' || msg.payload.version !== PROTOCOL_VERSION || !msg.payload.code || this.busy) return;
    this.busy = true;
    try {
      const token = await this.o.redeem(msg.payload.code);
      this.o.onInit({ token, qrcode: msg.payload.qrcode, lang: msg.payload.lang });
    } catch {
      this.o.onRefused();
    } finally {
      this.busy = false;
    }
  }
}
