// What every sign-in method does with its token: save it, load the user, then go to the stored
// login path, else the held qrcode's cabinet, else homeMap. No user returned: a confirm dialog to retry
// (cancel clears the token). A load error: a message dialog without cancel, then the token is cleared.
import { useCallback } from 'react';
import { getUserInfo, logoutCall } from '../api/auth.ts';
import { errorText, useT, type T } from '../i18n/index.ts';
import { confirmDialog, showMessage, toast } from '../ui/feedback.tsx';
import { navigate } from '../stores/router.ts';
import { $applyLogin, $loginPath, $token, $user, clearSignIn, setSession } from '../stores/session.ts';
import { $qrcode } from '../stores/scan.ts';
import { afterLoginTarget } from '../core/navigation.ts';

/** Loads the user; the dialogs (feedback module) do not hold up the caller. */
async function loadUser(t: T): Promise<void> {
  try {
    const user = await getUserInfo();
    if (!user) {
      void confirmDialog({
        title: t('login.userLoadTitle'),
        text: t('login.userLoadRetry'),
        okLabel: t('common.retry'),
        role: 'dialog',
      }).then((retry) => (retry ? loadUser(t) : clearSignIn()));
      return;
    }
    $user.set(user);
    const to = afterLoginTarget($loginPath.get(), $qrcode.get());
    $loginPath.set('');
    navigate(to, { replace: true });
  } catch (e) {
    void showMessage({ title: t('login.userLoadTitle'), text: errorText(e, t), role: 'alertdialog' }).then(clearSignIn);
  }
}

export function useCompleteLogin() {
  const t = useT();
  const finish = useCallback(
    async (token: string) => {
      if (!token) throw new Error('no token');
      setSession(token, '');
      $applyLogin.set(''); // signed in: an Apple ID token arriving later is only stored
      await loadUser(t);
      toast(t('login.success'));
    },
    [t],
  );
  return { finish };
}

/** Logout: the server revokes the token; user, token, Apple id token and the kept signed openid are cleared; then /login. */
export async function logout(): Promise<void> {
  if ($token.get()) await logoutCall().catch(() => undefined);
  clearSignIn();
  // Loaded here only (the sign-in screens' module): the menu's first load stays as small.
  await import('./openId.ts').then((m) => m.$openIdLogin.set(''));
  navigate('/login', { replace: true });
}
