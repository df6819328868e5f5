// What the element and the loader share on the host page besides mount.ts: reading open()'s argument.
import { isRoutePath } from './protocol.ts';

export type OpenTarget = { kind: 'route'; route: string } | { kind: 'cabinet'; qrcode: string };

/** A cabinet code or one of our code links (the frame validates it in full: parseScannedCode → `badQrcode`). */
const CODE_LIKE = /^(?:[A-Za-z0-9][A-Za-z0-9._-]{0,63}|https?:\/\/\S{1,500})$/;

/** open('/order') opens a route; open('PWL-LIS-001') or a code link moves to that cabinet; else null. */
export function resolveOpen(target: unknown): OpenTarget | null {
  if (typeof target !== 'string') return null;
  if (target.startsWith('/')) return isRoutePath(target) ? { kind: 'route', route: target } : null;
  return CODE_LIKE.test(target) ? { kind: 'cabinet', qrcode: target } : null;
}
