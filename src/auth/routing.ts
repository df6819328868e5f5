// The sign-in side of the spec §2 navigation rules, applied by the app shell on every route: AppleIdToken
// storage and the apply-login path, the mificode 'wifi.' rule, WeChat/Alipay browsers on the login screens,
// and remembering where the guard's /login redirect came from. The rules themselves are in core/routes.ts.
import { useEffect } from 'react';
import { useStore } from '@nanostores/react';
import { inAppBrowserOf, loginBrowserRedirect, loginPathFor, navigationRule, type ParsedHash } from '../core/routes.ts';
import { navigate } from '../stores/router.ts';
import { $appleIdToken, $applyLogin, $loginPath, $token } from '../stores/session.ts';
import { $mificode } from '../stores/scan.ts';

/** Returns the redirect this hook is about to make ('' when none), so the shell can hold the screen. */
export function useSignInRouting(route: ParsedHash, guardRedirect: string): string {
  const token = useStore($token);
  const mificode = useStore($mificode);
  const applyLogin = useStore($applyLogin);
  const action = navigationRule(route.path, route.query, { token, mificode, applyLogin });
  const browser = typeof navigator === 'undefined' ? 'other' : inAppBrowserOf(navigator.userAgent);
  const browserTo = loginBrowserRedirect(route.path, browser);
  const to = action.kind === 'redirect' ? action.to : browserTo ?? '';

  const apple = action.kind !== 'none' ? action.store?.appleIdToken ?? '' : '';
  useEffect(() => {
    if (apple) $appleIdToken.set(apple);
    if (to) navigate(to, { replace: true });
  }, [apple, to]);

  // The guard sends this route to /login: come back here after signing in.
  useEffect(() => {
    if (guardRedirect === '/login') $loginPath.set(loginPathFor(route.path, route.query));
  }, [guardRedirect, route]);

  return to;
}
