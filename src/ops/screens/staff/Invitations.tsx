// The invitations inside the caller's agents (pending first by default), and revoking one not accepted yet.
import { useEffect, useId, useRef, useState } from 'react';
import { INVITATION_STATES, type InvitationShape, type Me } from '../../../contract/ops/staff.ts';
import { useT } from '../../../i18n/index.ts';
import { opsCall } from '../../api.ts';
import { SaveRow } from '../../form.tsx';
import { ListFooter, usePaged } from '../../paged.tsx';

export function Invitations({ me }: { me: Me }) {
  const t = useT();
  const [state, setState] = useState<string>('pending');
  const { rows, setRows, next, error, load } = usePaged<InvitationShape>('/invitations', { state });
  const [revoking, setRevoking] = useState<InvitationShape>();
  const admin = me.permissions.includes('staff.invite');
  const when = (iso: string) => new Date(iso).toLocaleString(document.documentElement.lang || undefined);
  return (
    <section aria-labelledby="ops-invitations">
      <h2 id="ops-invitations">{t('ops.staff.invitations')}</h2>
      <div className="ops-filters">
        <label>
          {t('ops.staff.invState')}
          <select value={state} onChange={(e) => setState(e.currentTarget.value)}>
            <option value="">{t('ops.list.all')}</option>
            {INVITATION_STATES.map((s) => (
              <option key={s} value={s}>
                {t(`ops.staff.inv.${s}`)}
              </option>
            ))}
          </select>
        </label>
      </div>
      <table className="ops-table">
        <thead>
          <tr>
            <th scope="col">{t('ops.staff.email')}</th>
            <th scope="col">{t('ops.staff.roles')}</th>
            <th scope="col">{t('ops.invite.signIn')}</th>
            <th scope="col">{t('ops.staff.invState')}</th>
            <th scope="col">{t('ops.staff.expires')}</th>
            {admin && <th scope="col">{t('ops.staff.actions')}</th>}
          </tr>
        </thead>
        <tbody>
          {rows.map((i) => (
            <tr key={i.id}>
              <td>
                {i.name} &lt;{i.email}&gt;
              </td>
              <td>
                {t(`ops.role.${i.membership.role}`)} ·{' '}
                {i.membership.agentId === '*' ? t('ops.staff.allAgents') : i.membership.agentId}
              </td>
              <td>{i.signIn === 'sso' ? t('ops.invite.bySso') : t('ops.invite.byPasskey')}</td>
              <td>{t(`ops.staff.inv.${i.state}`)}</td>
              <td>{when(i.expiresAt)}</td>
              {admin && (
                <td>
                  {i.state === 'pending' && (
                    <button type="button" onClick={() => setRevoking(i)}>
                      {t('ops.staff.revoke')}
                      <span className="ops-sr"> · {i.email}</span>
                    </button>
                  )}
                </td>
              )}
            </tr>
          ))}
        </tbody>
      </table>
      <ListFooter count={rows.length} next={next} error={error} load={load} />
      {revoking && (
        <Revoke
          key={revoking.id}
          invitation={revoking}
          onClose={() => setRevoking(undefined)}
          onDone={(r) => setRows((all) => all.map((x) => (x.id === r.id ? r : x)))}
        />
      )}
    </section>
  );
}

function Revoke({
  invitation,
  onClose,
  onDone,
}: {
  invitation: InvitationShape;
  onClose: () => void;
  onDone: (r: InvitationShape) => void;
}) {
  const t = useT();
  const headingId = useId();
  const heading = useRef<HTMLHeadingElement>(null);
  const [reason, setReason] = useState('');
  const [saved, setSaved] = useState('');
  const [error, setError] = useState<unknown>();
  useEffect(() => heading.current?.focus(), []);
  const submit = async (e: React.FormEvent) => {
    e.preventDefault();
    setError(undefined);
    try {
      onDone(
        await opsCall<InvitationShape>('POST', `/invitations/${encodeURIComponent(invitation.id)}/revoke`, { reason }),
      );
      setSaved(t('ops.staff.revoked'));
    } catch (err) {
      setError(err);
    }
  };
  return (
    <section aria-labelledby={headingId}>
      <h3 id={headingId} ref={heading} tabIndex={-1}>
        {t('ops.staff.revokeOf', { email: invitation.email })}
      </h3>
      <form onSubmit={(e) => void submit(e)}>
        <SaveRow reason={reason} onReason={setReason} label={t('ops.staff.revoke')} saved={saved} error={error} />
      </form>
      <button type="button" onClick={onClose}>
        {t('ops.staff.close')}
      </button>
    </section>
  );
}
