// An invitation link: who it is for, and the passkey that accepts it (signed in afterwards).
import { startRegistration, type PublicKeyCredentialCreationOptionsJSON } from '@simplewebauthn/browser';
import { useEffect, useState } from 'react';
import type { SessionState } from '../../contract/ops/staff.ts';
import { useT } from '../../i18n/index.ts';
import { $session, opsCall, withQuery } from '../api.ts';
import { go } from '../route.ts';
import { Problem } from './Problem.tsx';

export function Invitation({ token }: { token: string }) {
  const t = useT();
  const [who, setWho] = useState<{ email: string; name: string }>();
  const [error, setError] = useState<unknown>();
  useEffect(() => {
    opsCall<{ email: string; name: string }>('GET', withQuery('/invitation', { token })).then(setWho, setError);
  }, [token]);
  const accept = async () => {
    setError(undefined);
    try {
      const optionsJSON = await opsCall<PublicKeyCredentialCreationOptionsJSON>('POST', '/invitation/options', {
        token,
      });
      const credential = await startRegistration({ optionsJSON });
      $session.set(await opsCall<SessionState>('POST', '/invitation/accept', { token, credential }));
      go('/account');
    } catch (e) {
      setError(e);
    }
  };
  return (
    <main className="ops-card">
      <h1>{t('ops.invitation.title')}</h1>
      {who && <p>{t('ops.invitation.lead', { name: who.name, email: who.email })}</p>}
      {who && (
        <button type="button" className="ops-primary" onClick={() => void accept()}>
          {t('ops.invitation.accept')}
        </button>
      )}
      <Problem error={error} />
    </main>
  );
}
