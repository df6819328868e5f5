// Sign in: a passkey (discoverable: no e-mail to type), or the organisation's single sign-on.
import { startAuthentication } from '@simplewebauthn/browser';
import { useState } from 'react';
import type { PublicKeyCredentialRequestOptionsJSON } from '@simplewebauthn/browser';
import type { SessionState } from '../../contract/ops/staff.ts';
import { useT } from '../../i18n/index.ts';
import { $session, OPS_API, opsCall } from '../api.ts';
import { Problem } from './Problem.tsx';

export function SignIn({ sso }: { sso: boolean }) {
  const t = useT();
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const passkey = async () => {
    setBusy(true);
    setError(undefined);
    try {
      const optionsJSON = await opsCall<PublicKeyCredentialRequestOptionsJSON>('POST', '/session/passkey/options');
      const credential = await startAuthentication({ optionsJSON });
      $session.set(await opsCall<SessionState>('POST', '/session/passkey', { credential }));
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };
  return (
    <main className="ops-card">
      <h1>{t('ops.signIn.title')}</h1>
      <p>{t('ops.signIn.lead')}</p>
      <button type="button" className="ops-primary" disabled={busy} onClick={() => void passkey()}>
        {t('ops.signIn.passkey')}
      </button>
      {sso && (
        <a className="ops-button" href={`${OPS_API}/session/sso`}>
          {t('ops.signIn.sso')}
        </a>
      )}
      <Problem error={error} />
    </main>
  );
}
