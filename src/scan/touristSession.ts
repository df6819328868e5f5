// The session a code link needs before its screens: the stored one, else a new tourist session (no tourist
// login in the WeChat browser: it signs in with WeChat instead). Used by the code-link entry (HomeScan.tsx) and
// by the adoption of a server-rendered code link (served.ts), which loads it apart from the first load.
import { $route, navigate } from '../stores/router.ts';
import { $loginPath, $token, TOURIST, deviceCode, setSession } from '../stores/session.ts';
import { inAppBrowserOf, loginPathFor, touristLoginAllowed } from '../core/navigation.ts';
import { touristLogin } from '../api/auth.ts';

/** Thrown when the code link must sign in instead (no tourist login in the WeChat browser). */
export class SignInInstead extends Error {}

export async function ensureToken(): Promise<void> {
  if ($token.get()) return;
  if (!touristLoginAllowed(inAppBrowserOf(navigator.userAgent))) {
    $loginPath.set(loginPathFor($route.get().path, $route.get().query));
    navigate('/login_wechat', { replace: true });
    throw new SignInInstead();
  }
  const token = await touristLogin(deviceCode());
  if (!token) throw new Error('no token');
  setSession(token, TOURIST);
}
