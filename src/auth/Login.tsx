// Route '/login': the landing. Back button; Apple on iOS, otherwise Google; 'other login' to /otherLogin.
// Query code + state=STATE is a mini-program code login (through the openId exchange).
import { useEffect, useRef, useState } from 'react';
import { useStore } from '@nanostores/react';
import { appleLogin } from '../api/auth.ts';
import { exchangeCode } from './openId.ts';
import { $appleIdToken, $applyLogin, $token } from '../stores/session.ts';
import { miniProgramCode } from '../core/navigation.ts';
import { errorText, useT } from '../i18n/index.ts';
import { $route, navigate } from '../stores/router.ts';
import { Loading } from '../ui/Loading.tsx';
import { PageHeader } from '../ui/PageHeader.tsx';
import { toast } from '../ui/feedback.tsx';
import { ProviderButtons, primaryProvider } from './ProviderButtons.tsx';
import { useCompleteLogin } from './session.tsx';
import './auth.css';

export default function Login() {
  const t = useT();
  const route = useStore($route);
  const { finish } = useCompleteLogin();
  const code = miniProgramCode(route.query);
  const started = useRef('');

  useEffect(() => {
    if (!code || started.current === code) return;
    started.current = code;
    // The openId exchange: the session, and the signed openid that signs this person in again (loginByOpenId).
    exchangeCode(code, 'wechat')
      .then(finish)
      .catch((e: unknown) => {
        toast(errorText(e, t));
        navigate('/login', { replace: true });
      });
  }, [code, finish, t]);

  // This screen is the apply-login path: an Apple ID token the native host hands over while the person signs in
  // there (AppleIdToken on whatever route the host opens) brings navigation back here, which signs in with it.
  useEffect(() => {
    if (!$token.get()) $applyLogin.set('/login');
  }, []);

  // An Apple ID token handed over by the native iOS host (AppleIdToken query, stored): sign in with it once.
  const apple = useStore($appleIdToken);
  const appleTried = useRef('');
  const [appleBusy, setAppleBusy] = useState(false);
  useEffect(() => {
    if (code || !apple || $token.get() || appleTried.current === apple) return;
    appleTried.current = apple;
    setAppleBusy(true);
    appleLogin(apple)
      .then(finish)
      .catch((e: unknown) => {
        $appleIdToken.set('');
        toast(errorText(e, t));
      })
      .finally(() => setAppleBusy(false));
  }, [apple, code, finish, t]);

  return (
    <main className="page login-page">
      <PageHeader title={t('login.title')} />
      {code || appleBusy ? (
        <Loading label={t('login.signingIn')} />
      ) : (
        <section className="login-card">
          <p className="login-brand" aria-hidden="true">
            Powerly
          </p>
          <p className="lead">{t('login.intro')}</p>
          <ProviderButtons providers={[primaryProvider()]} finish={finish} />
          <button type="button" className="button block" onClick={() => navigate('/otherLogin')}>
            {t('login.other')}
          </button>
        </section>
      )}
    </main>
  );
}
