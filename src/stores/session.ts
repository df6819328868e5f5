// Session: token, user, userType (client state). token and userType persist; user is reloaded.
import { atom, computed } from 'nanostores';
import { persistentAtom } from '@nanostores/persistent';
import type { UserInfo } from '../contract/auth.ts';

/** The signed-in user as GET userInfo sends it (src/contract/auth.ts). */
export type User = UserInfo;

export const TOURIST = 'tourist_login';

export const $token = persistentAtom<string>('token', '');
export const $userType = persistentAtom<string>('userType', '');
export const $user = atom<User | null>(null);
/** Random per-device code so the same device gets its tourist user back. */
export const $deviceCode = persistentAtom<string>('deviceCode', '');
export const $agentOpenId = persistentAtom<string>('agentOpenId', '');
/** Stored home route (spec: homePathName). */
export const $homePathName = persistentAtom<string>('homePathName', '');

/** A guest: signed in by a scan (userType), or a user the server calls a tourist (a session restored without it). */
export const $isTourist = computed([$userType, $user], (t, u) => t === TOURIST || u?.userType === 'tourist');

export function setSession(token: string, userType = ''): void {
  $token.set(token);
  $userType.set(userType);
}

export function clearSession(): void {
  $token.set('');
  $userType.set('');
  $user.set(null);
}

export function deviceCode(): string {
  let c = $deviceCode.get();
  if (!c) {
    c = randomId().replace(/-/g, '');
    $deviceCode.set(c);
  }
  return c;
}

/** UUID v4; crypto.randomUUID needs a secure context, getRandomValues does not. */
export function randomId(): string {
  if (typeof crypto.randomUUID === 'function' && globalThis.isSecureContext !== false) return crypto.randomUUID();
  const b = crypto.getRandomValues(new Uint8Array(16));
  b[6] = (b[6]! & 0x0f) | 0x40;
  b[8] = (b[8]! & 0x3f) | 0x80;
  const h = [...b].map((x) => x.toString(16).padStart(2, '0')).join('');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

// ---- Sign-in state (appleIdToken, applyLogin) ----
/** Apple ID token handed over by a native host (AppleIdToken query). */
export const $appleIdToken = persistentAtom<string>('appleIdToken', '');
/** Apply-login path: where an AppleIdToken arrival sends navigation. */
export const $applyLogin = persistentAtom<string>('applyLogin', '');
/** The route to return to after signing in (set when the guard sends someone to /login). */
export const $loginPath = persistentAtom<string>('loginPath', '');

/** Logout: user, token and Apple id token are cleared. */
export function clearSignIn(): void {
  clearSession();
  $appleIdToken.set('');
}
