// Staff: search, sort, pages by cursor; admins invite a person to a role of an agent.
import { useState } from 'react';
import type { Me, StaffShape } from '../../contract/ops/staff.ts';
import { STAFF_ROLES, type StaffRole } from '../../core/opsAccess.ts';
import { useT } from '../../i18n/index.ts';
import { opsCall } from '../api.ts';
import { usePaged } from '../paged.tsx';
import { Problem } from './Problem.tsx';

export function StaffList({ me }: { me: Me }) {
  const t = useT();
  const [q, setQ] = useState('');
  const [sort, setSort] = useState('name');
  const { rows, next, error, load } = usePaged<StaffShape>('/staff', { q, sort });
  return (
    <>
      <form className="ops-filters" role="search" onSubmit={(e) => { e.preventDefault(); void load(); }}>
        <label>{t('ops.staff.search')}<input type="search" value={q} onChange={(e) => setQ(e.currentTarget.value)} /></label>
        <label>{t('ops.staff.sort')}
          <select value={sort} onChange={(e) => setSort(e.currentTarget.value)}>
            <option value="name">{t('ops.staff.name')} ↑</option>
            <option value="-name">{t('ops.staff.name')} ↓</option>
            <option value="email">{t('ops.staff.email')} ↑</option>
            <option value="-email">{t('ops.staff.email')} ↓</option>
          </select>
        </label>
      </form>
      <table className="ops-table">
        <thead><tr><th scope="col">{t('ops.staff.name')}</th><th scope="col">{t('ops.staff.email')}</th><th scope="col">{t('ops.staff.roles')}</th><th scope="col">{t('ops.staff.status')}</th></tr></thead>
        <tbody>
          {rows.map((s) => (
            <tr key={s.id}>
              <td>{s.name}</td>
              <td>{s.email}</td>
              <td>{s.memberships.map((m) => `${t(`ops.role.${m.role}`)} · ${m.agentId === '*' ? t('ops.staff.allAgents') : m.agentId}`).join(', ')}</td>
              <td>{s.disabled ? t('ops.staff.disabled') : t('ops.staff.active')}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {next && <button type="button" onClick={() => void load(next)}>{t('ops.list.more')}</button>}
      <Problem error={error} />
      {me.permissions.includes('staff.invite') && <Invite me={me} />}
    </>
  );
}

function Invite({ me }: { me: Me }) {
  const t = useT();
  const platform = me.memberships.some((m) => m.agentId === '*' && m.role === 'owner');
  const agents = me.memberships.filter((m) => m.agentId !== '*').map((m) => m.agentId);
  const [form, setForm] = useState({ email: '', name: '', agentId: platform ? '*' : agents[0] ?? '', role: 'support' as StaffRole, venues: '', reason: '' });
  const [sent, setSent] = useState('');
  const [error, setError] = useState<unknown>();
  const set = (k: keyof typeof form) => (e: { currentTarget: { value: string } }) => setForm({ ...form, [k]: e.currentTarget.value });
  const submit = async (e: React.FormEvent) => {
    e.preventDefault();
    setError(undefined);
    try {
      const venueIds = form.role === 'venue_partner' ? form.venues.split(',').map((v) => v.trim()).filter(Boolean) : [];
      await opsCall('POST', '/invitations', { email: form.email, name: form.name, membership: { agentId: form.agentId, role: form.role, venueIds }, reason: form.reason });
      setSent(t('ops.invite.sent', { email: form.email }));
      setForm({ ...form, email: '', name: '', reason: '' });
    } catch (err) {
      setError(err);
    }
  };
  return (
    <section aria-labelledby="ops-invite">
      <h2 id="ops-invite">{t('ops.invite.title')}</h2>
      <form className="ops-form" onSubmit={(e) => void submit(e)}>
        <label>{t('ops.staff.email')}<input type="email" required autoComplete="off" value={form.email} onChange={set('email')} /></label>
        <label>{t('ops.staff.name')}<input required maxLength={120} value={form.name} onChange={set('name')} /></label>
        <label>{t('ops.invite.agent')}<input required maxLength={64} value={form.agentId} onChange={set('agentId')} list="ops-agents" /></label>
        <datalist id="ops-agents">{[...(platform ? ['*'] : []), ...agents].map((a) => <option key={a} value={a} />)}</datalist>
        <label>{t('ops.invite.role')}
          <select value={form.role} onChange={set('role')}>
            {STAFF_ROLES.map((r) => <option key={r} value={r}>{t(`ops.role.${r}`)}</option>)}
          </select>
        </label>
        {form.role === 'venue_partner' && <label>{t('ops.invite.venues')}<input required value={form.venues} onChange={set('venues')} /></label>}
        <label>{t('ops.reason')}<input required minLength={3} maxLength={500} value={form.reason} onChange={set('reason')} /></label>
        <button type="submit" className="ops-primary">{t('ops.invite.send')}</button>
      </form>
      {sent && <p role="status">{sent}</p>}
      <Problem error={error} />
    </section>
  );
}
