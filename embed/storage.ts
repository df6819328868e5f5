// Imported FIRST by the iframe page, before any persistent store exists: where the flows' persistent stores
// (token, language, scanned code …) live inside the widget.
//
// - In an iframe (`transport` absent): the session (token, userType) and the open rental are kept in the
//   widget origin's own localStorage under `powerly:<agent>:<slot>:` so a host reload finds the same person's
//   rental. Browsers partition third-party storage by the top-level site (Chromium's storage partitioning,
//   Firefox's Total Cookie Protection, Safari's partitioned storage), so another host site never sees it;
//   host scripts cannot read it (another origin); and the agent's `frame-ancestors` decides which sites may
//   frame the key at all. Every other store stays in memory. (Security reasoning: docs/embed.md.)
// - In a native web-view (`transport=native`) everything stays in memory: the app hands a signed one-time
//   code on every start.
import { setPersistentEngine } from '@nanostores/persistent';

/** The keys that survive a host reload. */
export const PERSISTED_KEYS = ['token', 'userType', 'rental'] as const;
const SLOT = /^[A-Za-z0-9_-]{0,64}$/;

function durable(): Storage | null {
  try {
    const s = window.localStorage;
    const probe = 'powerly:probe';
    s.setItem(probe, '1');
    s.removeItem(probe);
    return s;
  } catch {
    return null; // third-party storage blocked: memory only
  }
}

/** The storage prefix of this frame: agent and slot from its URL (validated), or null for memory only. */
export function storagePrefix(search: string): string | null {
  const p = new URLSearchParams(search);
  if (p.get('transport') === 'native') return null;
  const agent = p.get('agent') ?? '';
  const slot = p.get('slot') ?? '';
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(agent) || !SLOT.test(slot)) return null;
  return `powerly:${agent}:${slot}:`;
}

/** An engine for @nanostores/persistent: memory, writing the PERSISTED_KEYS through to `store` under `prefix`. */
export function frameEngine(store: Storage | null, prefix: string | null): Record<string, string> {
  const memory: Record<string, string> = {};
  const through = (key: string | symbol): key is (typeof PERSISTED_KEYS)[number] =>
    !!store && prefix !== null && (PERSISTED_KEYS as readonly (string | symbol)[]).includes(key);
  if (store && prefix !== null) {
    for (const key of PERSISTED_KEYS) {
      const v = store.getItem(prefix + key);
      if (v !== null) memory[key] = v;
    }
  }
  return new Proxy(memory, {
    set(target, key, value: string) {
      target[key as string] = value;
      // An emptied value (a sign-out sets '') leaves nothing behind.
      if (through(key)) {
        if (value === '') store!.removeItem(prefix + key);
        else store!.setItem(prefix + key, String(value));
      }
      return true;
    },
    deleteProperty(target, key) {
      delete target[key as string];
      if (through(key)) store!.removeItem(prefix + key);
      return true;
    },
  });
}

const prefix = typeof location === 'undefined' ? null : storagePrefix(location.search);
export const engine = frameEngine(prefix === null ? null : durable(), prefix);
setPersistentEngine(engine, { addEventListener() {}, removeEventListener() {} });
