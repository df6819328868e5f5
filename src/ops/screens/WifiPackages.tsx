// Riders' Wi-Fi packages: the support desk's search (package, order or box; the rider's phone, e-mail and card;
// cabinet, venue, state and dates), pages by cursor, the CSV export of the same search; a package opens its
// timeline (#/wifi-packages?id=…): its own steps, the box's cabinet command and events, payments, ledger, messages
// and staff actions, in order.
import { useStore } from '@nanostores/react';
import { useEffect, useRef, useState } from 'react';
import type { PackageSummary, PackageTimeline } from '../../contract/ops/search.ts';
import { toMajor } from '../../core/money.ts';
import { $activeLang, useT } from '../../i18n/index.ts';
import { dateTime, money } from '../../ui/format.ts';
import { opsCall } from '../api.ts';
import { usePaged } from '../paged.tsx';
import { $route } from '../route.ts';
import { SearchButtons, useSearch, WHO, WhoFields } from '../search.tsx';
import { Timeline } from '../timeline.tsx';
import { Problem } from './Problem.tsx';

/** Package status → its name (ops.packages.states.<name>). */
const STATES: Record<number, string> = {
  0: 'unused',
  1: 'toBeActivated',
  2: 'activated',
  3: 'revoked',
  4: 'refunded',
  9: 'ended',
  33: 'unpaid',
  88: 'cancelled',
};

export function WifiPackages() {
  const route = useStore($route);
  const id = route.query.get('id');
  return id ? (
    <PackageDetail id={id} />
  ) : (
    <PackageSearch key={route.query.get('q') ?? ''} q={route.query.get('q') ?? ''} />
  );
}

function PackageSearch({ q }: { q: string }) {
  const t = useT();
  const lang = useStore($activeLang);
  const { draft, set, submit, query } = useSearch({
    ...WHO,
    q,
    cabinetId: '',
    venueId: '',
    powerbankId: '',
    state: '',
  });
  // A link from a payment (#/wifi-packages?q=<order>) searches for that order at once.
  const shown = query;
  const { rows, next, error, loaded, more } = usePaged<PackageSummary>('/mifi/packages', shown);
  return (
    <>
      <form className="ops-filters" role="search" onSubmit={submit}>
        <label>
          {t('ops.packages.q')}
          <input type="search" maxLength={100} value={draft.q} onChange={set('q')} />
        </label>
        <WhoFields draft={draft} set={set} />
        <label>
          {t('ops.packages.box')}
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
            {Object.entries(STATES).map(([n, name]) => (
              <option key={n} value={n}>
                {t(`ops.packages.states.${name}`)}
              </option>
            ))}
          </select>
        </label>
        <SearchButtons csv="/mifi/packages.csv" query={shown} />
      </form>
      <div className="ops-scroll">
        <table className="ops-table">
          <thead>
            <tr>
              <th scope="col">{t('ops.rentals.created')}</th>
              <th scope="col">{t('ops.packages.package')}</th>
              <th scope="col">{t('ops.rentals.rider')}</th>
              <th scope="col">{t('ops.rentals.state')}</th>
              <th scope="col">{t('ops.packages.price')}</th>
              <th scope="col">{t('ops.packages.period')}</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((k) => (
              <tr key={k.id}>
                <td>{dateTime(k.createdAt, lang)}</td>
                <td>
                  <a href={`#/wifi-packages?id=${encodeURIComponent(k.id)}`}>{k.id}</a>
                  <br />
                  <small>{k.name}</small>
                </td>
                <td>{k.riderPhone ?? k.riderEmail ?? `#${k.riderId}`}</td>
                <td>{t(`ops.packages.states.${STATES[k.state] ?? 'unpaid'}`)}</td>
                <td>{money(k.price.currency, toMajor(k.price.amount, k.price.currency))}</td>
                <td>
                  {dateTime(k.startAt, lang)} – {dateTime(k.endAt, lang)}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {loaded && !rows.length && <p role="status">{t('ops.packages.none')}</p>}
      {next && (
        <button type="button" onClick={() => void more()}>
          {t('ops.list.more')}
        </button>
      )}
      <Problem error={error} />
    </>
  );
}

function PackageDetail({ id }: { id: string }) {
  const t = useT();
  const lang = useStore($activeLang);
  const [data, setData] = useState<PackageTimeline>();
  const [error, setError] = useState<unknown>();
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    opsCall<PackageTimeline>('GET', `/mifi/packages/${encodeURIComponent(id)}`).then(setData, setError);
  }, [id]);
  const shown = data !== undefined;
  useEffect(() => heading.current?.focus(), [id, shown]);
  const k = data?.package;
  return (
    <>
      <p>
        <a href="#/wifi-packages">{t('ops.rentals.back')}</a>
      </p>
      <h2 ref={heading} tabIndex={-1}>
        {t('ops.packages.title', { id })}
      </h2>
      <Problem error={error} />
      {data && k && (
        <>
          <dl className="ops-facts">
            <dt>{t('ops.rentals.state')}</dt>
            <dd>{t(`ops.packages.states.${STATES[k.state] ?? 'unpaid'}`)}</dd>
            <dt>{t('ops.packages.package')}</dt>
            <dd>
              {k.name}
              {k.country ? ` · ${k.country}` : ''}
            </dd>
            <dt>{t('ops.rentals.rider')}</dt>
            <dd>
              #{k.riderId} {k.riderPhone ?? ''} {k.riderEmail ?? ''}
            </dd>
            <dt>{t('ops.packages.price')}</dt>
            <dd>{money(k.price.currency, toMajor(k.price.amount, k.price.currency))}</dd>
            <dt>{t('ops.packages.period')}</dt>
            <dd>
              {dateTime(k.startAt, lang)} – {dateTime(k.endAt, lang)}
            </dd>
            <dt>{t('ops.packages.box')}</dt>
            <dd>
              {k.deviceSn ?? '—'}
              {k.cabinetId ? ` · ${k.cabinetId}` : ''}
            </dd>
          </dl>
          <Timeline entries={data.entries} />
        </>
      )}
    </>
  );
}
