// The host ⇄ widget postMessage protocol (docs/embed.md). Pure: no DOM globals, so the unit tests and both
// sides (the host's loader/custom element, the widget's iframe page) share one definition.
//
// Every message is { powerly: VERSION, type, payload }. A message is accepted only when it parses against
// the schema of its type, its serialised size is at most MAX_MESSAGE_BYTES, and its type is known for the
// direction it travels; anything else is dropped. Handlers switch over the literal type — never
// `handlers[msg.type]()` — so a message can never name a method to call.

export const PROTOCOL_VERSION = 1;
export const MAX_MESSAGE_BYTES = 4096;
/** The host gives up when the widget has not said hello within this time. */
export const HANDSHAKE_TIMEOUT_MS = 10_000;
/** Heights outside [MIN, MAX] are clamped; resize messages at most once per RESIZE_THROTTLE_MS. */
export const MIN_HEIGHT = 200;
export const MAX_HEIGHT = 4000;
export const RESIZE_THROTTLE_MS = 100;

/** The stable error codes a host can switch on (`error` events); the message is for people, in the widget's language. */
export const ERROR_CODES = [
  'handshakeTimeout',
  'version',
  'badQrcode',
  'unauthorized',
  'badCode',
  'badAppearance',
  'badRoute',
  'network',
  'unknown',
] as const;
export type ErrorCode = (typeof ERROR_CODES)[number];

/** Appearance (docs/embed.md): a theme and design variables, each with a strict grammar (no CSS injection). */
export type Theme = 'light' | 'dark' | 'auto';
export interface AppearanceVariables {
  colorPrimary?: string;
  colorBackground?: string;
  colorText?: string;
  colorDanger?: string;
  fontFamily?: string;
  borderRadius?: string;
  spacingUnit?: string;
}
export interface Appearance {
  theme?: Theme;
  variables?: AppearanceVariables;
}

/** Widget → host. */
export type WidgetMessage =
  | { type: 'hello'; payload: { versions: number[] } }
  | { type: 'ready'; payload: Record<string, never> }
  | { type: 'resize'; payload: { height: number } }
  | { type: 'navigate'; payload: { path: string } }
  /** Payment accepted and the cabinet asked to eject: the rental's trade number. */
  | { type: 'rental.started'; payload: { tradeNo: string } }
  | { type: 'eject.confirmed'; payload: { orderId: string } }
  | { type: 'eject.failed'; payload: { tradeNo: string; code: string; message: string } }
  | { type: 'rental.returned'; payload: { orderId: string } }
  /** A receipt or a reminder of the rider's rental (the host shows it or not), in the rider's language. */
  | { type: 'rental.notice'; payload: { orderId: string; kind: string; title: string; body: string } }
  | { type: 'payment.failed'; payload: { code: string; message: string } }
  | { type: 'error'; payload: { code: string; message: string } };

/** Host → widget. The token travels only here, in memory, never in a URL. */
export type HostMessage =
  | {
      type: 'init';
      payload: {
        version: number;
        token?: string;
        qrcode?: string;
        lang?: string;
        code?: string;
        route?: string;
        appearance?: string;
      };
    }
  | { type: 'setQrcode'; payload: { qrcode: string } }
  | { type: 'setToken'; payload: { token: string } }
  | { type: 'setLang'; payload: { lang: string } }
  /** open(route): a route path of the widget (`/order`, `/wallet` …); a cabinet code goes through setQrcode. */
  | { type: 'open'; payload: { route: string } }
  /** close(): back to the widget's start screen (the host hides or removes the element itself). */
  | { type: 'close'; payload: Record<string, never> }
  /** The appearance as JSON (validated again by parseAppearance on arrival). */
  | { type: 'setTheme'; payload: { appearance: string } }
  | { type: 'logout'; payload: Record<string, never> };

type Field = 'string' | 'number' | 'numbers' | 'optString';
type Shape = Record<string, { kind: Field; max?: number; pattern?: RegExp }>;

export const TOKEN_PATTERN = /^[A-Za-z0-9._~+/=-]{8,2048}$/;
const PATH_PATTERN = /^\/[A-Za-z0-9_/-]{0,120}$/;
const LANG_PATTERN = /^[a-z]{2}-[A-Z]{2}$/;
const ID_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;
const CODE_PATTERN = /^[a-zA-Z]{1,40}$/;
const NOTICE_KIND_PATTERN = /^[a-z_]{1,20}$/;

const WIDGET_SCHEMAS: Record<WidgetMessage['type'], Shape> = {
  hello: { versions: { kind: 'numbers' } },
  ready: {},
  resize: { height: { kind: 'number' } },
  navigate: { path: { kind: 'string', pattern: PATH_PATTERN } },
  'rental.started': { tradeNo: { kind: 'string', pattern: ID_PATTERN } },
  'eject.confirmed': { orderId: { kind: 'string', pattern: ID_PATTERN } },
  'eject.failed': {
    tradeNo: { kind: 'string', pattern: ID_PATTERN },
    code: { kind: 'string', pattern: CODE_PATTERN },
    message: { kind: 'string', max: 500 },
  },
  'rental.returned': { orderId: { kind: 'string', pattern: ID_PATTERN } },
  'rental.notice': {
    orderId: { kind: 'string', pattern: ID_PATTERN },
    kind: { kind: 'string', pattern: NOTICE_KIND_PATTERN },
    title: { kind: 'string', max: 200 },
    body: { kind: 'string', max: 600 },
  },
  'payment.failed': { code: { kind: 'string', pattern: CODE_PATTERN }, message: { kind: 'string', max: 500 } },
  error: { code: { kind: 'string', pattern: CODE_PATTERN }, message: { kind: 'string', max: 500 } },
};

const HOST_SCHEMAS: Record<HostMessage['type'], Shape> = {
  init: {
    version: { kind: 'number' },
    token: { kind: 'optString', pattern: TOKEN_PATTERN },
    qrcode: { kind: 'optString', max: 512 },
    lang: { kind: 'optString', pattern: LANG_PATTERN },
    code: { kind: 'optString', max: 600 },
    route: { kind: 'optString', pattern: PATH_PATTERN },
    appearance: { kind: 'optString', max: 1024 },
  },
  setQrcode: { qrcode: { kind: 'string', max: 512 } },
  setToken: { token: { kind: 'string', pattern: TOKEN_PATTERN } },
  setLang: { lang: { kind: 'string', pattern: LANG_PATTERN } },
  open: { route: { kind: 'string', pattern: PATH_PATTERN } },
  close: {},
  setTheme: { appearance: { kind: 'string', max: 1024 } },
  logout: {},
};

/** A route path the host may open (`open` method): a path of the widget, never a URL or a query. */
export function isRoutePath(s: unknown): s is string {
  return typeof s === 'string' && PATH_PATTERN.test(s);
}

// ---- appearance grammar: every value is checked against a closed grammar before it reaches the CSSOM ----
const HEX = /^#(?:[0-9a-fA-F]{3,4}|[0-9a-fA-F]{6}|[0-9a-fA-F]{8})$/;
const NUM = '\\d{1,3}(?:\\.\\d{1,3})?';
const FUNC_COLOR = new RegExp(
  `^(?:rgb|rgba|hsl|hsla)\\(\\s*${NUM}(?:%|deg)?\\s*[ ,]\\s*${NUM}%?\\s*[ ,]\\s*${NUM}%?\\s*(?:[,/]\\s*${NUM}%?\\s*)?\\)$`,
);
const FONT_NAME = /^(?:[A-Za-z][A-Za-z0-9 -]{0,40}|"[A-Za-z0-9 -]{1,40}"|'[A-Za-z0-9 -]{1,40}')$/;
const LENGTH = /^(?:0|\d{1,3}(?:\.\d{1,2})?(?:px|rem|em))$/;
const COLOR_KEYS = ['colorPrimary', 'colorBackground', 'colorText', 'colorDanger'] as const;
export const APPEARANCE_KEYS = [...COLOR_KEYS, 'fontFamily', 'borderRadius', 'spacingUnit'] as const;

export function isColor(v: string): boolean {
  return HEX.test(v) || FUNC_COLOR.test(v);
}
export function isFontFamily(v: string): boolean {
  const parts = v.split(',').map((p) => p.trim());
  return v.length <= 200 && parts.length <= 6 && parts.every((p) => FONT_NAME.test(p));
}
export function isLength(v: string): boolean {
  return LENGTH.test(v);
}

/**
 * The appearance a host asked for, validated: an unknown theme, an unknown variable, a value outside its
 * grammar or a non-plain object makes the whole appearance invalid (null) — a host sees its mistake at once
 * (an `error {code: 'badAppearance'}` event) instead of a half-applied theme.
 */
export function parseAppearance(input: unknown): Appearance | null {
  if (!isPlainObject(input)) return null;
  const out: Appearance = {};
  for (const key of Object.keys(input)) if (key !== 'theme' && key !== 'variables') return null;
  if (input.theme !== undefined) {
    if (input.theme !== 'light' && input.theme !== 'dark' && input.theme !== 'auto') return null;
    out.theme = input.theme;
  }
  if (input.variables !== undefined) {
    const vars = input.variables;
    if (!isPlainObject(vars)) return null;
    const v: AppearanceVariables = {};
    for (const [key, value] of Object.entries(vars)) {
      if (typeof value !== 'string' || !(APPEARANCE_KEYS as readonly string[]).includes(key)) return null;
      const ok =
        key === 'fontFamily'
          ? isFontFamily(value)
          : key === 'borderRadius' || key === 'spacingUnit'
            ? isLength(value)
            : isColor(value);
      if (!ok) return null;
      v[key as keyof AppearanceVariables] = value;
    }
    out.variables = v;
  }
  return out;
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return false;
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

function sizeOf(v: unknown): number {
  try {
    const s = JSON.stringify(v);
    return s === undefined ? Infinity : new TextEncoder().encode(s).length;
  } catch {
    return Infinity; // cycles, BigInt: not ours
  }
}

function parse<M extends { type: string; payload: unknown }>(data: unknown, schemas: Record<string, Shape>): M | null {
  if (!isPlainObject(data) || data.powerly !== PROTOCOL_VERSION) return null;
  if (sizeOf(data) > MAX_MESSAGE_BYTES) return null;
  const type = data.type;
  if (typeof type !== 'string' || !Object.prototype.hasOwnProperty.call(schemas, type)) return null;
  const shape = schemas[type]!;
  const payload = data.payload;
  if (!isPlainObject(payload)) return null;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(payload)) if (!Object.prototype.hasOwnProperty.call(shape, key)) return null; // no extra fields
  for (const [key, rule] of Object.entries(shape)) {
    const v = payload[key];
    switch (rule.kind) {
      case 'number':
        if (typeof v !== 'number' || !Number.isFinite(v)) return null;
        break;
      case 'numbers':
        if (!Array.isArray(v) || v.length > 8 || !v.every((n) => Number.isInteger(n))) return null;
        break;
      case 'optString':
      case 'string':
        if (v === undefined && rule.kind === 'optString') continue;
        if (typeof v !== 'string') return null;
        if (rule.max !== undefined && v.length > rule.max) return null;
        if (rule.pattern && !rule.pattern.test(v)) return null;
        break;
    }
    out[key] = v;
  }
  return { type, payload: out } as unknown as M;
}

/** A widget → host message, or null when it is not one of ours or fails its schema. */
export function parseWidgetMessage(data: unknown): WidgetMessage | null {
  return parse<WidgetMessage>(data, WIDGET_SCHEMAS);
}

/** A host → widget message, or null. */
export function parseHostMessage(data: unknown): HostMessage | null {
  return parse<HostMessage>(data, HOST_SCHEMAS);
}

export function wire(msg: WidgetMessage | HostMessage): { powerly: number; type: string; payload: unknown } {
  return { powerly: PROTOCOL_VERSION, type: msg.type, payload: msg.payload };
}

/** A serialised origin: scheme://host[:port], exactly as the browser reports event.origin. */
export function isSerializedOrigin(s: string): boolean {
  if (s === 'null' || !/^https?:\/\/[^/?#\s]+$/.test(s)) return false;
  try {
    return new URL(s).origin === s;
  } catch {
    return false;
  }
}

/**
 * Exact-match allowlist: the origin must equal one entry character for character. No substring, prefix,
 * suffix or wildcard matching, and the opaque origin "null" (sandboxed frames, file:, data:) never passes.
 */
export function isAllowedOrigin(origin: unknown, allowlist: readonly string[]): boolean {
  if (typeof origin !== 'string' || origin === 'null' || !isSerializedOrigin(origin)) return false;
  return allowlist.includes(origin);
}

export function clampHeight(h: number): number {
  if (!Number.isFinite(h)) return MIN_HEIGHT;
  return Math.round(Math.min(MAX_HEIGHT, Math.max(MIN_HEIGHT, h)));
}

/** Scanned codes: the one code-link reader of src/core (qrcode, qr, zhcode). */
export { QRCODE_PATTERN, parseScannedCode } from '../src/core/codeLink.ts';

/** Returns a function that calls fn at most once per `ms`, always delivering the latest value last. */
export function throttle<A>(fn: (a: A) => void, ms: number, now: () => number = Date.now): (a: A) => void {
  let last = -Infinity;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let pending: { a: A } | undefined;
  return (a: A) => {
    const t = now();
    if (t - last >= ms && !timer) {
      last = t;
      fn(a);
      return;
    }
    pending = { a };
    if (!timer) {
      timer = setTimeout(
        () => {
          timer = undefined;
          last = now();
          if (pending) fn(pending.a);
          pending = undefined;
        },
        Math.max(0, ms - (t - last)),
      );
    }
  };
}
