// Venues: search by name, city or id, filter by state and agent, sort, pages by cursor; a venue opens in its form
// (#/venues?id=…), a new one at #/venues?new=1.
import { useStore } from '@nanostores/react';
import { useState } from 'react';
import type { Venue } from '../../../contract/ops/fleet.ts';
import type { Me } from '../../../contract/ops/staff.ts';
import { useT } from '../../../i18n/index.ts';
import { usePaged } from '../../paged.tsx';
import { $route } from '../../route.ts';
import { Problem } from '../Problem.tsx';
import { VenueForm } from './VenueForm.tsx';

export function Venues({ me }: { me: Me }) {
  const route = useStore($route);
  const id = route.query.get('id');
  if (id || route.query.has('new')) return <VenueForm key={id ?? 'new'} id={id} me={me} />;
  return <VenueList me={me} />;
}

function VenueList({ me }: { me: Me }) {
  const t = useT();
  const [q, setQ] = useState('');
  const [state, setState] = useState('');
  const [sort, setSort] = useState('name');
  const { rows, next, error, load } = usePaged<Venue>('/venues', { q, state, sort });
  return (
    <>
      {me.permissions.includes('fleet.write') && (
        <p>
          <a className="ops-button ops-primary" href="#/venues?new=1">
            {t('ops.venues.new')}
          </a>
        </p>
      )}
      <form
        className="ops-filters"
        role="search"
        onSubmit={(e) => {
          e.preventDefault();
          void load();
        }}
      >
        <label>
          {t('ops.venues.search')}
          <input type="search" value={q} onChange={(e) => setQ(e.currentTarget.value)} />
        </label>
        <label>
          {t('ops.venues.state')}
          <select value={state} onChange={(e) => setState(e.currentTarget.value)}>
            <option value="">{t('ops.list.all')}</option>
            {(['draft', 'live', 'closed'] as const).map((s) => (
              <option key={s} value={s}>
                {t(`ops.venueState.${s}`)}
              </option>
            ))}
          </select>
        </label>
        <label>
          {t('ops.staff.sort')}
          <select value={sort} onChange={(e) => setSort(e.currentTarget.value)}>
            {['name', 'city', 'state', 'id'].flatMap((k) => [
              <option key={k} value={k}>
                {t(`ops.venues.${k}`)} ↑
              </option>,
              <option key={`-${k}`} value={`-${k}`}>
                {t(`ops.venues.${k}`)} ↓
              </option>,
            ])}
          </select>
        </label>
      </form>
      <table className="ops-table">
        <thead>
          <tr>
            <th scope="col">{t('ops.venues.name')}</th>
            <th scope="col">{t('ops.venues.id')}</th>
            <th scope="col">{t('ops.venues.city')}</th>
            <th scope="col">{t('ops.venues.agent')}</th>
            <th scope="col">{t('ops.venues.state')}</th>
            <th scope="col">{t('ops.venues.hours')}</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((v) => (
            <tr key={v.id}>
              <td>
                <a href={`#/venues?id=${encodeURIComponent(v.id)}`}>{v.name}</a>
              </td>
              <td>{v.id}</td>
              <td>{v.city}</td>
              <td>{v.agentId ?? '—'}</td>
              <td>{t(`ops.venueState.${v.state}`)}</td>
              <td>{v.hours}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {!rows.length && !error && <p>{t('ops.list.empty')}</p>}
      {next && (
        <button type="button" onClick={() => void load(next)}>
          {t('ops.list.more')}
        </button>
      )}
      <Problem error={error} />
    </>
  );
}
