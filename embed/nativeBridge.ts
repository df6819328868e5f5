// The in-app transport's end of the bridge (docs/embed.md, "Web-view pages"): its own module, so the iframe's
// first load (the postMessage transport) does not carry it; embed/frame.tsx loads it for transport=native.
import { PROTOCOL_VERSION, parseHostMessage, wire, type WidgetMessage } from './protocol.ts';
import type { Listenable } from './bridge.ts';

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
    this.deliver(m.data);
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

  /** A message from the web-view channel (its listener, or one the page kept before this module arrived). */
  deliver(raw: unknown): void {
    void this.receive(raw);
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
    if (!msg || msg.type !== 'init' || msg.payload.version !== PROTOCOL_VERSION || !msg.payload.code || this.busy)
      return;
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
