// What every sign-in method does with its token (spec §4): save it, load the user, then go to the stored
// login path, else the held qrcode's cabinet, else homeMap. No user returned: a confirm dialog to retry
// (cancel clears the token). A load error: a message dialog without cancel, then the token is cleared.
import { useCallback, useState } from 'react';
import { getUserInfo, logoutCall } from '../api/auth.ts';
import { errorText, useT } from '../i18n/index.ts';
import { Dialog } from '../ui/Dialog.tsx';
import { navigate } from '../stores/router.ts';
import { $loginPath, $token, $user, clearSignIn, setSession } from '../stores/session.ts';
import { $qrcode } from '../stores/scan.ts';
import { afterLoginTarget } from '../core/routes.ts';

type Problem = { kind: 'noUser' } | { kind: 'error'; message: string } | null;

export function useCompleteLogin() {
  const t = useT();
  const [problem, setProblem] = useState<Problem>(null);

  const loadUser = useCallback(async () => {
    try {
      const user = await getUserInfo();
      if (!user) {
        setProblem({ kind: 'noUser' });
        return;
      }
      $user.set(user);
      setProblem(null);
      const to = afterLoginTarget($loginPath.get(), $qrcode.get());
      $loginPath.set('');
      navigate(to, { replace: true });
    } catch (e) {
      setProblem({ kind: 'error', message: errorText(e, t) });
    }
  }, [t]);

  const finish = useCallback(async (token: string) => {
    if (!token) throw new Error('no token');
    setSession(token, '');
    await loadUser();
  }, [loadUser]);

  const dialogs = (
    <>
      <Dialog
        open={problem?.kind === 'noUser'}
        title={t('login.userLoadTitle')}
        onClose={() => { setProblem(null); clearSignIn(); }}
        actions={
          <>
            <button type="button" className="button" onClick={() => { setProblem(null); clearSignIn(); }}>{t('common.cancel')}</button>
            <button type="button" className="button primary" onClick={() => void loadUser()}>{t('common.retry')}</button>
          </>
        }
      >
        {t('login.userLoadRetry')}
      </Dialog>
      <Dialog
        open={problem?.kind === 'error'}
        role="alertdialog"
        title={t('login.userLoadTitle')}
        onClose={() => { setProblem(null); clearSignIn(); }}
        actions={<button type="button" className="button primary" onClick={() => { setProblem(null); clearSignIn(); }}>{t('common.ok')}</button>}
      >
        {problem?.kind === 'error' ? problem.message : ''}
      </Dialog>
    </>
  );
  return { finish, dialogs };
}

/** Logout (spec §4): the server revokes the token; user, token and Apple id token are cleared; then /login. */
export async function logout(): Promise<void> {
  if ($token.get()) await logoutCall().catch(() => undefined);
  clearSignIn();
  navigate('/login', { replace: true });
}
