// Route '/loginborrow' [qrcode]: sign in to borrow. The sign-in landing whose login path is the borrow:
// the code-link entry of the query's or the held qrcode (it scans that cabinet again, signed in), else the
// cabinet home. Signed in already (not as a tourist): straight to the borrow. In the WeChat or Alipay browser,
// their own sign-in screens, which come back the same way (the stored login path).
import { useEffect } from 'react';
import { useStore } from '@nanostores/react';
import { borrowTarget, inAppBrowserOf } from '../core/navigation.ts';
import { $route, navigate } from '../stores/router.ts';
import { $qrcode } from '../stores/scan.ts';
import { $isTourist, $loginPath, $token } from '../stores/session.ts';
import Login from './Login.tsx';

export default function LoginBorrow() {
  const { query } = useStore($route);
  const token = useStore($token);
  const tourist = useStore($isTourist);
  const target = borrowTarget(query.get('qrcode') || $qrcode.get());
  const signedIn = Boolean(token) && !tourist;

  useEffect(() => {
    if (signedIn) return navigate(target, { replace: true });
    $loginPath.set(target);
    const browser = inAppBrowserOf(navigator.userAgent);
    if (browser !== 'other') navigate(browser === 'wechat' ? '/login_wechat' : '/login_alipay', { replace: true });
  }, [signedIn, target]);

  return signedIn ? null : <Login />;
}
