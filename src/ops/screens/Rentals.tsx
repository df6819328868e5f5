// Rentals: the support desk's search (order id, rider phone / e-mail / id, card, power bank, cabinet, venue, state,
// dates), pages by cursor, the CSV export of the same search; a rental opens its timeline (#/rentals?id=…).
import { useStore } from '@nanostores/react';
import { useState } from 'react';
import type { RentalSummary } from '../../contract/ops/rentals.ts';
import type { Me } from '../../contract/ops/staff.ts';
import { toMajor } from '../../core/money.ts';
import { useT } from '../../i18n/index.ts';
import { dateTime, money } from '../../ui/format.ts';
import { $activeLang } from '../../i18n/index.ts';
import { OPS_API, withQuery } from '../api.ts';
import { usePaged } from '../paged.tsx';
import { $route } from '../route.ts';
import { Problem } from './Problem.tsx';
import { RentalDetail, STATE_NAMES } from './RentalDetail.tsx';

const EMPTY = { q: '', cardLast4: '', powerbankId: '', cabinetId: '', venueId: '', state: '', from: '', to: '' };
const iso = (local: string) => (local ? new Date(local).toISOString() : undefined);

export function Rentals({ me }: { me: Me }) {
  const route = useStore($route);
  const id = route.query.get('id');
  if (id) return <RentalDetail me={me} id={id} />;
  return <RentalSearch />;
}

function RentalSearch() {
  const t = useT();
  const lang = useStore($activeLang);
  const [draft, setDraft] = useState(EMPTY);
  const [filter, setFilter] = useState(EMPTY);
  const query = { ...filter, from: iso(filter.from), to: iso(filter.to) };
  const { rows, next, error, loaded, more } = usePaged<RentalSummary>('/rentals', query);
  const set = (k: keyof typeof EMPTY) => (e: { currentTarget: { value: string } }) =>
    setDraft({ ...draft, [k]: e.currentTarget.value });
  return (
    <>
      <form
        className="ops-filters"
        role="search"
        onSubmit={(e) => {
          e.preventDefault();
          setFilter({ ...draft, q: draft.q.trim() });
        }}
      >
        <label>
          {t('ops.rentals.q')}
          <input type="search" maxLength={100} value={draft.q} onChange={set('q')} />
        </label>
        <label>
          {t('ops.rentals.cardLast4')}
          <input
            inputMode="numeric"
            pattern="[0-9]{4}"
            maxLength={4}
            value={draft.cardLast4}
            onChange={set('cardLast4')}
          />
        </label>
        <label>
          {t('ops.rentals.powerbank')}
          <input maxLength={100} value={draft.powerbankId} onChange={set('powerbankId')} />
        </label>
        <label>
          {t('ops.rentals.cabinet')}
          <input maxLength={100} value={draft.cabinetId} onChange={set('cabinetId')} />
        </label>
        <label>
          {t('ops.rentals.venue')}
          <input maxLength={100} value={draft.venueId} onChange={set('venueId')} />
        </label>
        <label>
          {t('ops.rentals.state')}
          <select value={draft.state} onChange={set('state')}>
            <option value="">{t('ops.rentals.anyState')}</option>
            {Object.entries(STATE_NAMES).map(([n, name]) => (
              <option key={n} value={n}>
                {t(`ops.rentals.states.${name}`)}
              </option>
            ))}
          </select>
        </label>
        <label>
          {t('ops.audit.from')}
          <input type="datetime-local" value={draft.from} onChange={set('from')} />
        </label>
        <label>
          {t('ops.audit.to')}
          <input type="datetime-local" value={draft.to} onChange={set('to')} />
        </label>
        <button type="submit">{t('ops.rentals.search')}</button>
        <a className="ops-button" href={withQuery(`${OPS_API}/rentals.csv`, query)} download>
          {t('ops.audit.export')}
        </a>
      </form>
      <div className="ops-scroll">
        <table className="ops-table">
          <thead>
            <tr>
              <th scope="col">{t('ops.rentals.created')}</th>
              <th scope="col">{t('ops.rentals.order')}</th>
              <th scope="col">{t('ops.rentals.rider')}</th>
              <th scope="col">{t('ops.rentals.venue')}</th>
              <th scope="col">{t('ops.rentals.state')}</th>
              <th scope="col">{t('ops.rentals.fee')}</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((r) => (
              <tr key={r.id}>
                <td>{dateTime(r.createdAt, lang)}</td>
                <td>
                  <a href={`#/rentals?id=${encodeURIComponent(r.id)}`}>{r.id}</a>
                </td>
                <td>
                  {r.riderPhone ?? r.riderEmail ?? `#${r.riderId}`}
                  {r.riderPhone && r.riderEmail ? (
                    <>
                      <br />
                      <small>{r.riderEmail}</small>
                    </>
                  ) : null}
                </td>
                <td>
                  {r.venueName}
                  <br />
                  <small>{r.cabinetId}</small>
                </td>
                <td>{t(`ops.rentals.states.${STATE_NAMES[r.state] ?? 'pending'}`)}</td>
                <td>{r.fee ? money(r.fee.currency, toMajor(r.fee.amount, r.fee.currency)) : '—'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {loaded && !rows.length && <p role="status">{t('ops.rentals.none')}</p>}
      {next && (
        <button type="button" onClick={() => void more()}>
          {t('ops.list.more')}
        </button>
      )}
      <Problem error={error} />
    </>
  );
}
