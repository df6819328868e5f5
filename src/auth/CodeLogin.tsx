// Routes '/login_wechat' (query code) and '/login_alipay' (query auth_code): an authorise button that goes to
// the provider (through authCodeUrl), which comes back here with the code; the code is exchanged on the server (the
// openId exchange), and a person whose signed openid is kept signs in with it at once (loginByOpenId).
import { useEffect, useRef, useState } from 'react';
import { useStore } from '@nanostores/react';
import { authCodeUrl } from '../api/auth.ts';
import { $openIdLogin, exchangeCode, signInWithOpenId } from './openId.ts';
import { errorText, useT } from '../i18n/index.ts';
import { $route } from '../stores/router.ts';
import { Loading } from '../ui/Loading.tsx';
import { PageHeader } from '../ui/PageHeader.tsx';
import { useCompleteLogin } from './session.tsx';
import './auth.css';

export function CodeLogin({ provider }: { provider: 'wechat' | 'alipay' }) {
  const t = useT();
  const route = useStore($route);
  const { finish } = useCompleteLogin();
  const code = route.query.get(provider === 'wechat' ? 'code' : 'auth_code');
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  const used = useRef('');
  // Set once any sign-in started here: a code's exchange keeps a signed openid and then leaves the route's code
  // behind, which must not start a second sign-in with that openid.
  const remembered = useRef(false);

  useEffect(() => {
    if (!code || used.current === code) return;
    used.current = code;
    remembered.current = true;
    setBusy(true);
    exchangeCode(code, provider)
      .then(finish)
      .catch((e: unknown) => setError(errorText(e, t)))
      .finally(() => setBusy(false));
  }, [code, provider, finish, t]);

  // A returning person whose signed openid is kept signs in with it (loginByOpenId), without authorising again.
  useEffect(() => {
    if (code || remembered.current || !$openIdLogin.get()) return;
    remembered.current = true;
    setBusy(true);
    void signInWithOpenId()
      .then((token) => (token ? finish(token) : undefined))
      .catch((e: unknown) => setError(errorText(e, t)))
      .finally(() => setBusy(false));
  }, [code, finish, t]);

  const authorize = async () => {
    setError('');
    setBusy(true);
    try {
      const back = `${location.origin}${location.pathname}#${route.path}`;
      location.assign(await authCodeUrl(back, provider));
    } catch (e) {
      setError(errorText(e, t));
      setBusy(false);
    }
  };

  return (
    <main className="page login-page">
      <PageHeader title={t(`login.${provider}.title`)} />
      <section className="login-card">
        <p className="lead">{t(`login.${provider}.intro`)}</p>
        {busy ? <Loading label={t('login.signingIn')} /> : null}
        {error ? (
          <p role="alert" className="field-error">
            {error}
          </p>
        ) : null}
        <button type="button" className="button primary block" disabled={busy} onClick={() => void authorize()}>
          {t(`login.${provider}.authorize`)}
        </button>
      </section>
    </main>
  );
}
