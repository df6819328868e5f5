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

/** Widget → host. */
export type WidgetMessage =
  | { type: 'hello'; payload: { versions: number[] } }
  | { type: 'ready'; payload: Record<string, never> }
  | { type: 'resize'; payload: { height: number } }
  | { type: 'navigate'; payload: { path: string } }
  | { type: 'rented'; payload: { orderId: string } }
  | { type: 'returned'; payload: { orderId: string } }
  | { type: 'error'; payload: { code: string; message: string } };

/** Host → widget. The token travels only here, in memory, never in a URL. */
export type HostMessage =
  | { type: 'init'; payload: { version: number; token?: string; qrcode?: string; lang?: string; code?: string } }
  | { type: 'setQrcode'; payload: { qrcode: string } }
  | { type: 'setToken'; payload: { token: string } }
  | { type: 'setLang'; payload: { lang: string } };

type Field = 'string' | 'number' | 'numbers' | 'optString';
type Shape = Record<string, { kind: Field; max?: number; pattern?: RegExp }>;

export const TOKEN_PATTERN = /^[A-Za-z0-9._~+/=-]{8,2048}$/;
const PATH_PATTERN = /^\/[A-Za-z0-9_/-]{0,120}$/;
const LANG_PATTERN = /^[a-z]{2}-[A-Z]{2}$/;
const ID_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;

const WIDGET_SCHEMAS: Record<WidgetMessage['type'], Shape> = {
  hello: { versions: { kind: 'numbers' } },
  ready: {},
  resize: { height: { kind: 'number' } },
  navigate: { path: { kind: 'string', pattern: PATH_PATTERN } },
  rented: { orderId: { kind: 'string', pattern: ID_PATTERN } },
  returned: { orderId: { kind: 'string', pattern: ID_PATTERN } },
  error: { code: { kind: 'string', pattern: /^[a-zA-Z]{1,40}$/ }, message: { kind: 'string', max: 500 } },
};

const HOST_SCHEMAS: Record<HostMessage['type'], Shape> = {
  init: {
    version: { kind: 'number' },
    token: { kind: 'optString', pattern: TOKEN_PATTERN },
    qrcode: { kind: 'optString', max: 512 },
    lang: { kind: 'optString', pattern: LANG_PATTERN },
    code: { kind: 'optString', max: 600 },
  },
  setQrcode: { qrcode: { kind: 'string', max: 512 } },
  setToken: { token: { kind: 'string', pattern: TOKEN_PATTERN } },
  setLang: { lang: { kind: 'string', pattern: LANG_PATTERN } },
};

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
      timer = setTimeout(() => {
        timer = undefined;
        last = now();
        if (pending) fn(pending.a);
        pending = undefined;
      }, Math.max(0, ms - (t - last)));
    }
  };
}
