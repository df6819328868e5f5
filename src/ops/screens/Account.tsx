// My account: my memberships, my passkeys (add one), sign out everywhere.
import { startRegistration, type PublicKeyCredentialCreationOptionsJSON } from '@simplewebauthn/browser';
import { useCallback, useEffect, useState } from 'react';
import type { Me, PasskeyShape } from '../../contract/ops/staff.ts';
import { useT } from '../../i18n/index.ts';
import { confirmDialog } from '../../ui/feedback.tsx';
import { loadSession, opsCall } from '../api.ts';
import { Problem } from './Problem.tsx';
import { MembershipEnd } from './staff/MembershipEnd.tsx';

export function Account({ me }: { me: Me }) {
  const t = useT();
  const [keys, setKeys] = useState<PasskeyShape[]>([]);
  const [error, setError] = useState<unknown>();
  const [note, setNote] = useState('');
  const [label, setLabel] = useState('');
  // The membership the person is leaving (one of several): its form below the list.
  const [leaving, setLeaving] = useState<string>();
  const refresh = useCallback(() => opsCall<PasskeyShape[]>('GET', '/me/passkeys').then(setKeys, setError), []);
  useEffect(() => void refresh(), [refresh]);
  const add = async (e: React.FormEvent) => {
    e.preventDefault();
    setError(undefined);
    try {
      const optionsJSON = await opsCall<PublicKeyCredentialCreationOptionsJSON>('POST', '/me/passkeys/options');
      const credential = await startRegistration({ optionsJSON });
      await opsCall('POST', '/me/passkeys', { credential, label });
      setLabel('');
      setNote(t('ops.account.added'));
      await refresh();
    } catch (err) {
      setError(err);
    }
  };
  const everywhere = async () => {
    if (!(await confirmDialog({ title: t('ops.account.everywhere'), text: t('ops.account.everywhereConfirm') })))
      return;
    try {
      await opsCall('POST', '/session/everywhere');
      await loadSession();
    } catch (err) {
      setError(err);
    }
  };
  return (
    <>
      <section aria-labelledby="ops-roles">
        <h2 id="ops-roles">{t('ops.account.roles')}</h2>
        <ul>
          {me.memberships.map((m) => (
            <li key={m.agentId}>
              {t(`ops.role.${m.role}`)} · {m.agentId === '*' ? t('ops.staff.allAgents') : m.agentId}
              {me.memberships.length > 1 && me.version !== undefined && (
                <>
                  {' '}
                  <button type="button" onClick={() => setLeaving(m.agentId)}>
                    {t('ops.membership.leave')}
                    <span className="ops-sr"> · {m.agentId}</span>
                  </button>
                </>
              )}
            </li>
          ))}
        </ul>
        {leaving && me.version !== undefined && (
          <MembershipEnd
            key={leaving}
            personId={me.id}
            who={t('ops.membership.you')}
            agentId={leaving}
            version={me.version}
            onEnded={() => {
              setLeaving(undefined);
              void loadSession();
            }}
          />
        )}
      </section>
      <section aria-labelledby="ops-keys">
        <h2 id="ops-keys">{t('ops.account.passkeys')}</h2>
        <table className="ops-table">
          <thead>
            <tr>
              <th scope="col">{t('ops.account.label')}</th>
              <th scope="col">{t('ops.account.created')}</th>
              <th scope="col">{t('ops.account.lastUsed')}</th>
            </tr>
          </thead>
          <tbody>
            {keys.map((k) => (
              <tr key={k.id}>
                <td>{k.label}</td>
                <td>{new Date(k.createdAt).toLocaleString()}</td>
                <td>{k.lastUsedAt ? new Date(k.lastUsedAt).toLocaleString() : '—'}</td>
              </tr>
            ))}
          </tbody>
        </table>
        <form className="ops-form" onSubmit={(e) => void add(e)}>
          <label>
            {t('ops.account.label')}
            <input value={label} maxLength={80} onChange={(e) => setLabel(e.currentTarget.value)} />
          </label>
          <button type="submit">{t('ops.account.add')}</button>
        </form>
        {note && <p role="status">{note}</p>}
      </section>
      <section aria-labelledby="ops-sessions">
        <h2 id="ops-sessions">{t('ops.account.sessions')}</h2>
        <p>{t('ops.account.everywhereLead')}</p>
        <button type="button" onClick={() => void everywhere()}>
          {t('ops.account.everywhere')}
        </button>
      </section>
      <Problem error={error} />
    </>
  );
}
