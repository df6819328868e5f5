// Inviting a person to a role of an agent: by a passkey link in an e-mail, or (where single sign-on is configured)
// by their first single sign-on with that e-mail.
import { useStore } from '@nanostores/react';
import { useState } from 'react';
import type { InvitationSignIn, Me } from '../../../contract/ops/staff.ts';
import { STAFF_ROLES, type StaffRole } from '../../../core/opsAccess.ts';
import { useT } from '../../../i18n/index.ts';
import { $session, opsCall } from '../../api.ts';
import { Problem } from '../Problem.tsx';

export function Invite({ me, onSent }: { me: Me; onSent: () => void }) {
  const t = useT();
  const sso = useStore($session)?.sso ?? false;
  const platform = me.memberships.some((m) => m.agentId === '*' && m.role === 'owner');
  const agents = me.memberships.filter((m) => m.agentId !== '*').map((m) => m.agentId);
  const [form, setForm] = useState({
    email: '',
    name: '',
    agentId: platform ? '*' : (agents[0] ?? ''),
    role: 'support' as StaffRole,
    venues: '',
    signIn: 'passkey' as InvitationSignIn,
    reason: '',
  });
  const [sent, setSent] = useState('');
  const [error, setError] = useState<unknown>();
  const set = (k: keyof typeof form) => (e: { currentTarget: { value: string } }) =>
    setForm({ ...form, [k]: e.currentTarget.value });
  const submit = async (e: React.FormEvent) => {
    e.preventDefault();
    setError(undefined);
    try {
      const venueIds =
        form.role === 'venue_partner'
          ? form.venues
              .split(',')
              .map((v) => v.trim())
              .filter(Boolean)
          : [];
      await opsCall('POST', '/invitations', {
        email: form.email,
        name: form.name,
        membership: { agentId: form.agentId, role: form.role, venueIds },
        reason: form.reason,
        ...(sso ? { signIn: form.signIn } : {}),
      });
      setSent(t('ops.invite.sent', { email: form.email }));
      setForm({ ...form, email: '', name: '', reason: '' });
      onSent();
    } catch (err) {
      setError(err);
    }
  };
  return (
    <section aria-labelledby="ops-invite">
      <h2 id="ops-invite">{t('ops.invite.title')}</h2>
      <form className="ops-form" onSubmit={(e) => void submit(e)}>
        <label>
          {t('ops.staff.email')}
          <input type="email" required autoComplete="off" value={form.email} onChange={set('email')} />
        </label>
        <label>
          {t('ops.staff.name')}
          <input required maxLength={120} value={form.name} onChange={set('name')} />
        </label>
        <label>
          {t('ops.invite.agent')}
          <input required maxLength={64} value={form.agentId} onChange={set('agentId')} list="ops-agents" />
        </label>
        <datalist id="ops-agents">
          {[...(platform ? ['*'] : []), ...agents].map((a) => (
            <option key={a} value={a} />
          ))}
        </datalist>
        <label>
          {t('ops.invite.role')}
          <select value={form.role} onChange={set('role')}>
            {STAFF_ROLES.map((r) => (
              <option key={r} value={r}>
                {t(`ops.role.${r}`)}
              </option>
            ))}
          </select>
        </label>
        {form.role === 'venue_partner' && (
          <label>
            {t('ops.invite.venues')}
            <input required value={form.venues} onChange={set('venues')} />
          </label>
        )}
        {sso && (
          <label>
            {t('ops.invite.signIn')}
            <select value={form.signIn} onChange={set('signIn')}>
              <option value="passkey">{t('ops.invite.byPasskey')}</option>
              <option value="sso">{t('ops.invite.bySso')}</option>
            </select>
          </label>
        )}
        <label>
          {t('ops.reason')}
          <input required minLength={3} maxLength={500} value={form.reason} onChange={set('reason')} />
        </label>
        <button type="submit" className="ops-primary">
          {t('ops.invite.send')}
        </button>
      </form>
      {sent && <p role="status">{sent}</p>}
      <Problem error={error} />
    </section>
  );
}
