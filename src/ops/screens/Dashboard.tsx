// The dashboard: the business's figures over a date range (rentals, revenue per currency, utilisation, returns at
// another venue, failed ejects, top venues), within the person's scope, narrowed to an agent and a venue. The charts
// (uPlot) are their own lazy chunk; every chart has its table, which is what screen readers and keyboards use. The
// map of the cabinets (MapLibre) is another lazy chunk, with its legend and list as text.
import { useStore } from '@nanostores/react';
import { lazy, Suspense, useEffect, useState } from 'react';
import type { DashboardShape } from '../../contract/ops/dashboard.ts';
import type { Me } from '../../contract/ops/staff.ts';
import { formatMoney } from '../../core/money.ts';
import { useT } from '../../i18n/index.ts';
import { $lang } from '../../stores/locale.ts';
import { AgentSelect } from '../AgentSelect.tsx';
import { opsCall, withQuery } from '../api.ts';
import { Problem } from './Problem.tsx';

const DashboardCharts = lazy(() => import('./DashboardCharts.tsx'));
const CabinetMap = lazy(() => import('./CabinetMap.tsx'));

const isoDay = (d: Date) => d.toISOString().slice(0, 10);
const today = () => isoDay(new Date());
const daysBefore = (day: string, n: number) => isoDay(new Date(Date.parse(`${day}T00:00:00Z`) - n * 86_400_000));

export function Dashboard({ me }: { me: Me }) {
  const t = useT();
  const lang = useStore($lang);
  const [filter, setFilter] = useState(() => ({
    from: daysBefore(today(), 29),
    to: today(),
    agentId: '',
    venueId: '',
  }));
  const [draft, setDraft] = useState(filter);
  const [data, setData] = useState<DashboardShape>();
  const [error, setError] = useState<unknown>();
  useEffect(() => {
    let live = true;
    opsCall<DashboardShape>(
      'GET',
      withQuery('/dashboard', {
        from: filter.from,
        to: filter.to,
        agentId: filter.agentId || undefined,
        venueId: filter.venueId || undefined,
      }),
    ).then(
      (d) => {
        if (!live) return;
        setData(d);
        setError(undefined);
      },
      (e: unknown) => live && setError(e),
    );
    return () => {
      live = false;
    };
  }, [filter]);
  const pct = (v: number | null) =>
    v == null ? '–' : v.toLocaleString(lang, { style: 'percent', maximumFractionDigits: 1 });
  const num = (v: number) => v.toLocaleString(lang);
  const moneyList = (list: { currency: string; amount: number }[]) =>
    list.length ? list.map((m) => formatMoney(m.amount, m.currency, lang)).join(' · ') : '–';
  const field = (key: keyof typeof draft, type: 'date' | 'text') => (
    <label>
      {t(`ops.dashboard.filter.${key}`)}
      <input
        type={type}
        value={draft[key]}
        maxLength={64}
        onChange={(e) => setDraft({ ...draft, [key]: e.currentTarget.value })}
      />
    </label>
  );
  const currencies = data ? [...new Set(data.revenue.map((r) => r.currency))] : [];
  return (
    <>
      <form
        className="ops-filters"
        onSubmit={(e) => {
          e.preventDefault();
          setFilter(draft);
        }}
      >
        {field('from', 'date')}
        {field('to', 'date')}
        <AgentSelect
          me={me}
          label={t('ops.dashboard.filter.agentId')}
          value={draft.agentId}
          onChange={(agentId) => setDraft({ ...draft, agentId })}
        />
        {field('venueId', 'text')}
        <button type="submit">{t('ops.dashboard.apply')}</button>
      </form>
      <Problem error={error} />
      {data && (
        <>
          <p className="ops-note" role="status">
            {data.refreshedAt
              ? t('ops.dashboard.refreshed', { at: new Date(data.refreshedAt).toLocaleString(lang) })
              : t('ops.dashboard.neverRefreshed')}
            {data.pending > 0 && ` ${t('ops.dashboard.pending')}`}
          </p>
          <dl className="ops-figures">
            <div>
              <dt>{t('ops.dashboard.rentals')}</dt>
              <dd>{num(data.totals.rentals)}</dd>
            </div>
            <div>
              <dt>{t('ops.dashboard.revenue')}</dt>
              <dd>{moneyList(data.totals.revenue)}</dd>
            </div>
            <div>
              <dt>{t('ops.dashboard.averageMinutes')}</dt>
              <dd>
                {data.totals.averageMinutes == null
                  ? '–'
                  : data.totals.averageMinutes.toLocaleString(lang, {
                      style: 'unit',
                      unit: 'minute',
                      unitDisplay: 'long',
                    })}
              </dd>
            </div>
            <div>
              <dt>{t('ops.dashboard.utilisation')}</dt>
              <dd>{pct(data.totals.utilisation)}</dd>
            </div>
            <div>
              <dt>{t('ops.dashboard.returnsElsewhere')}</dt>
              <dd>
                {num(data.totals.returnsElsewhere)} / {num(data.totals.returns)}
              </dd>
            </div>
            <div>
              <dt>{t('ops.dashboard.failedEjects')}</dt>
              <dd>{num(data.totals.failedEjects)}</dd>
            </div>
          </dl>
          <Suspense fallback={<p role="status">{t('ops.dashboard.chartsLoading')}</p>}>
            <DashboardCharts data={data} currencies={currencies} />
          </Suspense>
          <Suspense fallback={<p role="status">{t('ops.dashboard.map.loading')}</p>}>
            <CabinetMap agentId={filter.agentId} venueId={filter.venueId} />
          </Suspense>
          <h2 id="dash-days">{t('ops.dashboard.perDay')}</h2>
          <div className="ops-scroll" role="region" aria-labelledby="dash-days" tabIndex={0}>
            <table className="ops-table">
              <thead>
                <tr>
                  <th scope="col">{t('ops.dashboard.day')}</th>
                  <th scope="col">{t('ops.dashboard.rentals')}</th>
                  <th scope="col">{t('ops.dashboard.returns')}</th>
                  <th scope="col">{t('ops.dashboard.returnsElsewhere')}</th>
                  <th scope="col">{t('ops.dashboard.failedEjects')}</th>
                  <th scope="col">{t('ops.dashboard.utilisation')}</th>
                  {currencies.map((c) => (
                    <th scope="col" key={c}>
                      {t('ops.dashboard.revenueIn', { currency: c })}
                    </th>
                  ))}
                </tr>
              </thead>
              <tbody>
                {data.days.map((d) => (
                  <tr key={d.day}>
                    <th scope="row">{d.day}</th>
                    <td>{num(d.rentals)}</td>
                    <td>{num(d.returns)}</td>
                    <td>{num(d.returnsElsewhere)}</td>
                    <td>{num(d.failedEjects)}</td>
                    <td>{pct(d.utilisation)}</td>
                    {currencies.map((c) => {
                      const r = data.revenue.find((x) => x.day === d.day && x.currency === c);
                      return <td key={c}>{formatMoney(r?.amount ?? 0, c, lang)}</td>;
                    })}
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <h2 id="dash-venues">{t('ops.dashboard.topVenues')}</h2>
          <table className="ops-table" aria-labelledby="dash-venues">
            <thead>
              <tr>
                <th scope="col">{t('ops.dashboard.venue')}</th>
                <th scope="col">{t('ops.dashboard.rentals')}</th>
                <th scope="col">{t('ops.dashboard.revenue')}</th>
              </tr>
            </thead>
            <tbody>
              {data.topVenues.map((v) => (
                <tr key={v.venueId}>
                  <th scope="row">{v.venueId}</th>
                  <td>{num(v.rentals)}</td>
                  <td>{moneyList(v.revenue)}</td>
                </tr>
              ))}
            </tbody>
          </table>
          {!data.topVenues.length && <p>{t('ops.list.empty')}</p>}
        </>
      )}
    </>
  );
}
