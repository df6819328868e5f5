// The audit log: filters, pages by cursor, and the CSV export of the same filter (finance, admins, owners).
import { useState } from 'react';
import type { AuditEntry } from '../../contract/ops/audit.ts';
import type { Me } from '../../contract/ops/staff.ts';
import { useT } from '../../i18n/index.ts';
import { OPS_API, withQuery } from '../api.ts';
import { usePaged } from '../paged.tsx';
import { Problem } from './Problem.tsx';

const EMPTY = { entity: '', entityId: '', action: '', from: '', to: '' };
const iso = (local: string) => (local ? new Date(local).toISOString() : undefined);

export function AuditLog({ me }: { me: Me }) {
  const t = useT();
  const [draft, setDraft] = useState(EMPTY);
  const [filter, setFilter] = useState(EMPTY);
  const query = {
    entity: filter.entity,
    entityId: filter.entityId,
    action: filter.action,
    from: iso(filter.from),
    to: iso(filter.to),
  };
  const { rows, next, error, more } = usePaged<AuditEntry>('/audit', query);
  const set = (k: keyof typeof EMPTY) => (e: { currentTarget: { value: string } }) =>
    setDraft({ ...draft, [k]: e.currentTarget.value });
  return (
    <>
      <form
        className="ops-filters"
        onSubmit={(e) => {
          e.preventDefault();
          setFilter(draft);
        }}
      >
        <label>
          {t('ops.audit.entity')}
          <input value={draft.entity} onChange={set('entity')} />
        </label>
        <label>
          {t('ops.audit.entityId')}
          <input value={draft.entityId} onChange={set('entityId')} />
        </label>
        <label>
          {t('ops.audit.action')}
          <input value={draft.action} onChange={set('action')} />
        </label>
        <label>
          {t('ops.audit.from')}
          <input type="datetime-local" value={draft.from} onChange={set('from')} />
        </label>
        <label>
          {t('ops.audit.to')}
          <input type="datetime-local" value={draft.to} onChange={set('to')} />
        </label>
        <button type="submit">{t('ops.list.apply')}</button>
        {me.permissions.includes('audit.export') && (
          <a className="ops-button" href={withQuery(`${OPS_API}/audit.csv`, query)} download>
            {t('ops.audit.export')}
          </a>
        )}
      </form>
      <table className="ops-table">
        <thead>
          <tr>
            <th scope="col">{t('ops.audit.at')}</th>
            <th scope="col">{t('ops.audit.who')}</th>
            <th scope="col">{t('ops.audit.action')}</th>
            <th scope="col">{t('ops.audit.entity')}</th>
            <th scope="col">{t('ops.reason')}</th>
            <th scope="col">{t('ops.audit.change')}</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((r) => (
            <tr key={r.id}>
              <td>{new Date(r.at).toLocaleString()}</td>
              <td>
                {r.staffEmail ?? '—'}
                <br />
                <small>{r.ip}</small>
              </td>
              <td>{r.action}</td>
              <td>
                {r.entity} {r.entityId}
              </td>
              <td>{r.reason ?? '—'}</td>
              <td>
                <details>
                  <summary>{t('ops.audit.show')}</summary>
                  <pre>{JSON.stringify({ before: r.before, after: r.after }, null, 2)}</pre>
                </details>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {!rows.length && <p>{t('ops.list.empty')}</p>}
      {next && (
        <button type="button" onClick={() => void more()}>
          {t('ops.list.more')}
        </button>
      )}
      <Problem error={error} />
    </>
  );
}
