// Cabinets: the list with live state (server-side search, filters, sort and pages; each row kept up to date by
// the live stream), registration by serial and vendor family, and the CSV import with its dry run. A row opens
// the cabinet's live view (#/cabinets?id=…).
import { useStore } from '@nanostores/react';
import { useState } from 'react';
import { CABINET_VENDORS, type OpsCabinet } from '../../contract/ops/cabinets.ts';
import type { Me } from '../../contract/ops/staff.ts';
import { useT } from '../../i18n/index.ts';
import { opsCall } from '../api.ts';
import { ListFooter, usePaged } from '../paged.tsx';
import { CabinetImport, CabinetRegister } from '../cabinets/forms.tsx';
import { useCabinetEvents } from '../cabinets/live.ts';
import { OnlineBadge, heartbeatText, vendorName } from '../cabinets/parts.tsx';
import { $route } from '../route.ts';
import { CabinetLive } from './CabinetLive.tsx';

const EMPTY = { q: '', online: '', vendor: '', venueId: '', sort: 'id' };

export function Cabinets({ me }: { me: Me }) {
  const route = useStore($route);
  const id = route.query.get('id');
  if (id) return <CabinetLive me={me} id={id} />;
  return <CabinetList me={me} />;
}

function CabinetList({ me }: { me: Me }) {
  const t = useT();
  const [draft, setDraft] = useState(EMPTY);
  const [filter, setFilter] = useState(EMPTY);
  const { rows, setRows, next, error, load } = usePaged<OpsCabinet>('/cabinets', filter);
  // A cabinet on screen changed: read that one again (in place); a resync reads the first page again.
  useCabinetEvents(undefined, (e) => {
    if (e.kind === 'resync') return;
    if (!rows.some((r) => r.id === e.id)) return;
    void opsCall<OpsCabinet>('GET', `/cabinets/${encodeURIComponent(e.id)}`)
      .then((c) => setRows((rs) => rs.map((r) => (r.id === c.id ? c : r))))
      .catch(() => undefined);
  });
  const set = (k: keyof typeof EMPTY) => (e: { currentTarget: { value: string } }) =>
    setDraft({ ...draft, [k]: e.currentTarget.value });
  const sortOption = (key: string, label: string) => [
    <option key={key} value={key}>
      {label} ↑
    </option>,
    <option key={`-${key}`} value={`-${key}`}>
      {label} ↓
    </option>,
  ];
  const writer = me.permissions.includes('fleet.write');
  return (
    <>
      <form
        className="ops-filters"
        role="search"
        aria-label={t('ops.cabinets.filters')}
        onSubmit={(e) => {
          e.preventDefault();
          setFilter(draft);
        }}
      >
        <label>
          {t('ops.cabinets.search')}
          <input type="search" maxLength={64} value={draft.q} onChange={set('q')} />
        </label>
        <label>
          {t('ops.cabinets.venue')}
          <input maxLength={64} value={draft.venueId} onChange={set('venueId')} pattern="[A-Za-z0-9._\-]{1,64}" />
        </label>
        <label>
          {t('ops.cabinets.state')}
          <select value={draft.online} onChange={set('online')}>
            <option value="">{t('ops.cabinets.any')}</option>
            <option value="true">{t('ops.cabinets.online')}</option>
            <option value="false">{t('ops.cabinets.offline')}</option>
          </select>
        </label>
        <label>
          {t('ops.cabinets.vendor')}
          <select value={draft.vendor} onChange={set('vendor')}>
            <option value="">{t('ops.cabinets.any')}</option>
            {CABINET_VENDORS.map((v) => (
              <option key={v} value={v}>
                {vendorName(t, v)}
              </option>
            ))}
          </select>
        </label>
        <label>
          {t('ops.staff.sort')}
          <select value={draft.sort} onChange={set('sort')}>
            {sortOption('id', t('ops.cabinets.serial'))}
            {sortOption('venue', t('ops.cabinets.venue'))}
            {sortOption('lastHeartbeat', t('ops.cabinets.lastHeartbeat'))}
            {sortOption('vendor', t('ops.cabinets.vendor'))}
          </select>
        </label>
        <button type="submit">{t('ops.list.apply')}</button>
      </form>
      <table className="ops-table">
        <caption className="ops-sr">{t('ops.nav.cabinets')}</caption>
        <thead>
          <tr>
            <th scope="col">{t('ops.cabinets.serial')}</th>
            <th scope="col">{t('ops.cabinets.vendor')}</th>
            <th scope="col">{t('ops.cabinets.venue')}</th>
            <th scope="col">{t('ops.cabinets.state')}</th>
            <th scope="col">{t('ops.cabinets.lastHeartbeat')}</th>
            <th scope="col">{t('ops.cabinets.filled')}</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((c) => (
            <tr key={c.id}>
              <th scope="row">
                <a href={`#/cabinets?id=${encodeURIComponent(c.id)}`}>{c.id}</a>
              </th>
              <td>{vendorName(t, c.vendor)}</td>
              <td>{c.venueName ?? c.venueId ?? '—'}</td>
              <td>
                <OnlineBadge online={c.online} />
              </td>
              <td>{heartbeatText(t, c.lastHeartbeatAt)}</td>
              <td>{t('ops.cabinets.filledOf', { n: c.slots.filter((s) => s.deviceId).length, of: c.slotCount })}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <ListFooter count={rows.length} next={next} error={error} load={load} />
      {writer && <CabinetRegister me={me} onDone={() => void load()} />}
      {writer && <CabinetImport me={me} onDone={() => void load()} />}
    </>
  );
}
