// Staff: search, sort, pages by cursor; admins change a person's role at an agent (If-Match), invite a person (a
// passkey link or single sign-on) and revoke an invitation not accepted yet.
import { useState } from 'react';
import type { Me, StaffShape } from '../../contract/ops/staff.ts';
import { useT } from '../../i18n/index.ts';
import { ListFooter, usePaged } from '../paged.tsx';
import { Invitations } from './staff/Invitations.tsx';
import { Invite } from './staff/Invite.tsx';
import { RoleChange } from './staff/RoleChange.tsx';

export function StaffList({ me }: { me: Me }) {
  const t = useT();
  const [q, setQ] = useState('');
  const [sort, setSort] = useState('name');
  const { rows, setRows, next, error, load } = usePaged<StaffShape>('/staff', { q, sort });
  const [changing, setChanging] = useState<StaffShape>();
  // Bumped by each invitation sent: the invitations list reads again.
  const [sent, setSent] = useState(0);
  const admin = me.permissions.includes('staff.invite');
  return (
    <>
      <form
        className="ops-filters"
        role="search"
        onSubmit={(e) => {
          e.preventDefault();
          void load();
        }}
      >
        <label>
          {t('ops.staff.search')}
          <input type="search" value={q} onChange={(e) => setQ(e.currentTarget.value)} />
        </label>
        <label>
          {t('ops.staff.sort')}
          <select value={sort} onChange={(e) => setSort(e.currentTarget.value)}>
            <option value="name">{t('ops.staff.name')} ↑</option>
            <option value="-name">{t('ops.staff.name')} ↓</option>
            <option value="email">{t('ops.staff.email')} ↑</option>
            <option value="-email">{t('ops.staff.email')} ↓</option>
          </select>
        </label>
      </form>
      <table className="ops-table">
        <thead>
          <tr>
            <th scope="col">{t('ops.staff.name')}</th>
            <th scope="col">{t('ops.staff.email')}</th>
            <th scope="col">{t('ops.staff.roles')}</th>
            <th scope="col">{t('ops.staff.status')}</th>
            {admin && <th scope="col">{t('ops.staff.actions')}</th>}
          </tr>
        </thead>
        <tbody>
          {rows.map((s) => (
            <tr key={s.id}>
              <td>{s.name}</td>
              <td>{s.email}</td>
              <td>
                {s.memberships
                  .map(
                    (m) => `${t(`ops.role.${m.role}`)} · ${m.agentId === '*' ? t('ops.staff.allAgents') : m.agentId}`,
                  )
                  .join(', ')}
              </td>
              <td>{s.disabled ? t('ops.staff.disabled') : t('ops.staff.active')}</td>
              {admin && (
                <td>
                  {s.id !== me.id && (
                    <button type="button" onClick={() => setChanging(s)}>
                      {t('ops.staff.changeRole')}
                      <span className="ops-sr"> · {s.name}</span>
                    </button>
                  )}
                </td>
              )}
            </tr>
          ))}
        </tbody>
      </table>
      <ListFooter count={rows.length} next={next} error={error} load={load} />
      {admin && changing && (
        <RoleChange
          key={changing.id}
          me={me}
          person={changing}
          onClose={() => setChanging(undefined)}
          onSaved={(s) => setRows((r) => r.map((x) => (x.id === s.id ? s : x)))}
        />
      )}
      {admin && <Invite me={me} onSent={() => setSent((n) => n + 1)} />}
      <Invitations key={sent} me={me} />
    </>
  );
}
