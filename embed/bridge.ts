// Both ends of the postMessage bridge (docs/embed.md). The windows are injected, so unit tests dispatch
// MessageEvents at them directly; the browser tests run them across two real origins.
//
// Security rules, each enforced here and tested:
//  - exact-match origin allowlist (isAllowedOrigin), "null" rejected;
//  - the sender window checked (event.source must be the expected window);
//  - data posted only to one exact target origin, never "*";
//  - every message schema-validated with a size cap (protocol.ts), unknown types dropped, switch dispatch.
import {
  HANDSHAKE_TIMEOUT_MS,
  PROTOCOL_VERSION,
  RESIZE_THROTTLE_MS,
  clampHeight,
  isAllowedOrigin,
  isSerializedOrigin,
  parseHostMessage,
  parseWidgetMessage,
  throttle,
  wire,
  type HostMessage,
  type WidgetMessage,
} from './protocol.ts';

interface PostTarget {
  postMessage(message: unknown, targetOrigin: string): void;
}
export interface Listenable {
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
    this.resize = throttle(
      (h: number) => this.send({ type: 'resize', payload: { height: clampHeight(h) } }),
      RESIZE_THROTTLE_MS,
    );
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
      // The host answers every hello it hears, and several may cross the first init on a busy page: only the first
      // init of this frame counts (a later one would replay its code over the screen the first one opened).
      if (msg.payload.version !== PROTOCOL_VERSION || this.connected) return;
      this.connected = true;
      clearInterval(this.helloTimer);
      clearTimeout(this.giveUp);
    } else if (!this.connected) return;
    this.o.onMessage(msg);
  }
}

// ---------------------------------------------------------------- host side (the page that embeds)

/** What the host hears (the element's DOM events and `Powerly('on', …)` carry the same names and fields). */
export type WidgetEvent =
  | { type: 'ready' }
  | { type: 'resize'; height: number }
  | { type: 'navigate'; path: string }
  | { type: 'rental.started'; tradeNo: string }
  | { type: 'eject.confirmed'; orderId: string }
  | { type: 'eject.failed'; tradeNo: string; code: string; message: string }
  | { type: 'rental.returned'; orderId: string }
  | { type: 'rental.notice'; orderId: string; kind: string; title: string; body: string }
  | { type: 'payment.failed'; code: string; message: string }
  | { type: 'error'; code: string; message: string };

export const WIDGET_EVENT_TYPES: readonly WidgetEvent['type'][] = [
  'ready',
  'resize',
  'navigate',
  'rental.started',
  'eject.confirmed',
  'eject.failed',
  'rental.returned',
  'rental.notice',
  'payment.failed',
  'error',
];

type InitPayload = Extract<HostMessage, { type: 'init' }>['payload'];

export interface HostBridgeOptions {
  /** The host page's window (where widget messages arrive). */
  self: Listenable;
  /** The iframe's contentWindow, read when a message arrives (it changes on navigation). */
  widget(): PostTarget | null;
  /** The widget's origin (the Powerly server); the only origin accepted and posted to. */
  widgetOrigin: string;
  init: Omit<InitPayload, 'version'>;
  onEvent(e: WidgetEvent): void;
  timeoutMs?: number;
}

export class HostBridge {
  private connected = false;
  /** A logout asked for before the handshake: the frame's saved session ends right after its init. */
  private loggedOut = false;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private readonly listener = (e: MessageEvent) => this.receive(e);

  constructor(private readonly o: HostBridgeOptions) {
    if (!isSerializedOrigin(o.widgetOrigin)) throw new Error('widget origin must be an http(s) origin');
  }

  start(): void {
    this.o.self.addEventListener('message', this.listener);
    this.timer = setTimeout(() => {
      if (!this.connected)
        this.o.onEvent({ type: 'error', code: 'handshakeTimeout', message: 'The Powerly widget did not answer.' });
    }, this.o.timeoutMs ?? HANDSHAKE_TIMEOUT_MS);
  }

  stop(): void {
    clearTimeout(this.timer);
    this.o.self.removeEventListener('message', this.listener);
  }

  // Each method before the handshake only updates the init (also what a reloaded frame gets).
  setQrcode(qrcode: string): void {
    this.o.init.qrcode = qrcode;
    this.o.init.route = undefined;
    if (this.connected) this.post({ type: 'setQrcode', payload: { qrcode } });
  }

  setToken(token: string): void {
    this.o.init.token = token;
    this.loggedOut = false;
    if (this.connected) this.post({ type: 'setToken', payload: { token } });
  }

  /** A changed `lang` after mount: the widget switches its texts and currency formatting live. */
  setLang(lang: string): void {
    this.o.init.lang = lang;
    if (this.connected) this.post({ type: 'setLang', payload: { lang } });
  }

  /** A validated appearance (parseAppearance), as JSON. */
  setTheme(appearance: string): void {
    this.o.init.appearance = appearance;
    if (this.connected) this.post({ type: 'setTheme', payload: { appearance } });
  }

  open(route: string): void {
    this.o.init.route = route;
    this.o.init.qrcode = undefined;
    if (this.connected) this.post({ type: 'open', payload: { route } });
  }

  close(): void {
    this.o.init.route = undefined;
    this.o.init.qrcode = undefined;
    if (this.connected) this.post({ type: 'close', payload: {} });
  }

  logout(): void {
    this.o.init.token = undefined;
    if (this.connected) this.post({ type: 'logout', payload: {} });
    else this.loggedOut = true;
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
    if (msg.type === 'hello') {
      if (!msg.payload.versions.includes(PROTOCOL_VERSION)) {
        this.o.onEvent({ type: 'error', code: 'version', message: 'Unsupported widget protocol version.' });
        return;
      }
      // A reloaded frame says hello again: answer every hello with the current init.
      this.connected = true;
      clearTimeout(this.timer);
      const payload: InitPayload = { version: PROTOCOL_VERSION };
      for (const [k, v] of Object.entries(this.o.init) as [keyof Omit<InitPayload, 'version'>, string | undefined][])
        if (v) payload[k] = v;
      this.post({ type: 'init', payload });
      if (this.loggedOut) this.post({ type: 'logout', payload: {} });
      this.loggedOut = false;
      return;
    }
    if (!this.connected) return;
    // The payload passed its type's schema (exact fields, patterns, lengths): it becomes the event's fields.
    const ev = { ...msg.payload, type: msg.type } as WidgetEvent;
    if (ev.type === 'resize') ev.height = clampHeight(ev.height);
    this.o.onEvent(ev);
  }
}
