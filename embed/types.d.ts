// TypeScript declarations for host pages: the <powerly-rent> element and the loader's `Powerly(…)`.
// Embed API version 1 (docs/embed.md). tests/unit/embedTypes.test.ts keeps these in step with the source.

export type PowerlyTheme = 'light' | 'dark' | 'auto';

/** Each value has a strict grammar; an appearance with any value outside it is refused whole (`badAppearance`). */
export interface PowerlyAppearanceVariables {
  /** #rgb, #rgba, #rrggbb, #rrggbbaa, rgb()/rgba()/hsl()/hsla() with numbers only. */
  colorPrimary?: string;
  colorBackground?: string;
  colorText?: string;
  colorDanger?: string;
  /** Up to 6 comma-separated family names: letters, digits, spaces, dashes; optionally quoted. */
  fontFamily?: string;
  /** 0, or a number with px, rem or em (e.g. '8px', '0.5rem'). */
  borderRadius?: string;
  /** The base spacing step (paddings and gaps are multiples of it); same grammar as borderRadius. */
  spacingUnit?: string;
}

export interface PowerlyAppearance {
  theme?: PowerlyTheme;
  variables?: PowerlyAppearanceVariables;
}

/** Stable error codes (`error` events). */
export type PowerlyErrorCode =
  | 'handshakeTimeout'
  | 'version'
  | 'badQrcode'
  | 'unauthorized'
  | 'badCode'
  | 'badAppearance'
  | 'badRoute'
  | 'network'
  | 'unknown';

/** Event name → the event's fields (`event.detail` on the element; the listener's argument on the loader). */
export interface PowerlyEventMap {
  ready: { type: 'ready' };
  resize: { type: 'resize'; height: number };
  navigate: { type: 'navigate'; path: string };
  'rental.started': { type: 'rental.started'; tradeNo: string };
  'eject.confirmed': { type: 'eject.confirmed'; orderId: string };
  /** code: 'refused' (the cabinet reported the eject failed; the order is cancelled), 'network', 'timeout'. */
  'eject.failed': { type: 'eject.failed'; tradeNo: string; code: string; message: string };
  'rental.returned': { type: 'rental.returned'; orderId: string };
  /**
   * A receipt or a reminder of the rental, in the rider's language (the same text the rider's push or e-mail gets):
   * kind 'receipt', 'free_end', 'cap', 'day', 'tier', 'buyout' or 'hold'. The host decides whether to show it.
   */
  'rental.notice': { type: 'rental.notice'; orderId: string; kind: string; title: string; body: string };
  /** code: the card provider's code in camelCase (cardDeclined, insufficientFunds …), 'network' or 'paymentFailed'. */
  'payment.failed': { type: 'payment.failed'; code: string; message: string };
  error: { type: 'error'; code: PowerlyErrorCode | (string & {}); message: string };
}
export type PowerlyEventType = keyof PowerlyEventMap;
export type PowerlyEvent = PowerlyEventMap[PowerlyEventType];

/** The methods, the same on the element and (with a target first) on the loader. */
export interface PowerlyMethods {
  /** A route of the widget ('/order', '/wallet', '/help' …) or a cabinet code / code link. */
  open(target: string): void;
  /** Back to the widget's start screen. */
  close(): void;
  /** en-US, zh-CN, lt-LT, pt-PT or es-ES. */
  setLocale(lang: string): void;
  setTheme(appearance: PowerlyAppearance): void;
  /** Ends the widget's session (also the one it kept for a reload). */
  logout(): void;
}

export interface PowerlyRentElement extends HTMLElement, PowerlyMethods {
  /** A session token the host holds (a property, never an attribute). */
  token: string;
  addEventListener<K extends PowerlyEventType>(
    type: K,
    listener: (ev: CustomEvent<PowerlyEventMap[K]>) => void,
    options?: boolean | AddEventListenerOptions,
  ): void;
  addEventListener(
    type: string,
    listener: EventListenerOrEventListenerObject,
    options?: boolean | AddEventListenerOptions,
  ): void;
}

export interface PowerlyMountOptions {
  agent: string;
  /** The Powerly server (default: the loader script's own origin; required for a bundled npm copy). */
  apiBase?: string;
  qrcode?: string;
  /** A route to open first instead of a cabinet. */
  route?: string;
  lang?: string;
  token?: string;
  appearance?: PowerlyAppearance;
  /** The first height to reserve (px), default 920 (the start screen at phone widths). */
  height?: number;
}

type Target = string | Element;

export interface PowerlyLoader {
  (command: 'mount', target: Target, options: PowerlyMountOptions): void;
  <K extends PowerlyEventType>(
    command: 'on',
    type: K,
    listener: (e: PowerlyEventMap[K] & { target: Element }) => void,
  ): void;
  (command: 'open', target: Target, routeOrCode: string): void;
  (command: 'close' | 'logout' | 'unmount', target: Target): void;
  (command: 'setLocale', target: Target, lang: string): void;
  (command: 'setTheme', target: Target, appearance: PowerlyAppearance): void;
  (command: 'setToken', target: Target, token: string): void;
  /** 1: this API's version. */
  readonly version?: number;
}

declare global {
  interface HTMLElementTagNameMap {
    'powerly-rent': PowerlyRentElement;
  }
  interface Window {
    Powerly: PowerlyLoader & { q?: unknown[][] };
  }
}
