// The Wi-Fi line's catalogue: regions with their countries, packages and per-day plans with a price per currency
// (entered in major units, sent in minor units of each currency). Platform-wide members change it.
import { useStore } from '@nanostores/react';
import { useCallback, useEffect, useState } from 'react';
import type { MifiRegionShape, MifiSkuShape } from '../../contract/ops/mifi.ts';
import { $activeLang, useT } from '../../i18n/index.ts';
import { opsCall } from '../api.ts';
import { ListFooter, useOpsForm, usePaged } from '../paged.tsx';
import { ReasonField } from '../cabinets/parts.tsx';
import { Problem } from '../screens/Problem.tsx';
import { PackageEdit } from './packageEdit.tsx';
import { parseCountries, RegionEdit } from './regionEdit.tsx';
import { minorDigits, parsePrices } from './prices.ts';

const ID = '[A-Za-z0-9._\\-]{1,64}';

export function Regions({ canWrite }: { canWrite: boolean }) {
  const t = useT();
  const [regions, setRegions] = useState<MifiRegionShape[]>([]);
  const [editing, setEditing] = useState<MifiRegionShape>();
  const [error, setError] = useState<unknown>();
  const load = useCallback(async () => {
    try {
      setRegions((await opsCall<{ items: MifiRegionShape[] }>('GET', '/mifi/regions')).items);
      setEditing(undefined);
    } catch (e) {
      setError(e);
    }
  }, []);
  useEffect(() => void load(), [load]);
  return (
    <section aria-labelledby="ops-wifi-regions">
      <h2 id="ops-wifi-regions">{t('ops.wifi.regions')}</h2>
      <table className="ops-table">
        <thead>
          <tr>
            <th scope="col">{t('ops.wifi.id')}</th>
            <th scope="col">{t('ops.wifi.name')}</th>
            <th scope="col">{t('ops.wifi.countries')}</th>
            {canWrite && (
              <th scope="col">
                <span className="ops-sr">{t('ops.wifi.edit')}</span>
              </th>
            )}
          </tr>
        </thead>
        <tbody>
          {regions.map((r) => (
            <tr key={r.id}>
              <th scope="row">{r.id}</th>
              <td>{r.name}</td>
              <td>{r.countries.map((c) => `${c.name} (${c.code})`).join(', ') || '—'}</td>
              {canWrite && (
                <td>
                  <button type="button" onClick={() => setEditing(r)}>
                    {t('ops.wifi.edit')}
                    <span className="ops-sr"> {r.id}</span>
                  </button>
                </td>
              )}
            </tr>
          ))}
        </tbody>
      </table>
      <Problem error={error} />
      {canWrite && editing && <RegionEdit key={`${editing.id}-${editing.version}`} region={editing} onDone={load} />}
      {canWrite && <RegionForm onDone={load} />}
    </section>
  );
}

function RegionForm({ onDone }: { onDone: () => Promise<void> }) {
  const t = useT();
  const { form, setForm, error, submit } = useOpsForm({ id: '', name: '', countries: '', reason: '' }, async (f) => {
    const countries = parseCountries(f.countries);
    await opsCall('POST', '/mifi/regions', { id: f.id, name: f.name, flagUrl: '', countries, reason: f.reason });
    await onDone();
  });
  return (
    <form className="ops-form ops-import" aria-label={t('ops.wifi.newRegion')} onSubmit={submit}>
      <label>
        {t('ops.wifi.id')}
        <input
          required
          pattern={ID}
          value={form.id}
          onChange={(e) => setForm({ ...form, id: e.currentTarget.value })}
        />
      </label>
      <label>
        {t('ops.wifi.name')}
        <input
          required
          maxLength={80}
          value={form.name}
          onChange={(e) => setForm({ ...form, name: e.currentTarget.value })}
        />
      </label>
      <label className="ops-wide">
        {t('ops.wifi.countriesHint')}
        <textarea
          rows={3}
          value={form.countries}
          onChange={(e) => setForm({ ...form, countries: e.currentTarget.value })}
        />
      </label>
      <ReasonField value={form.reason} onChange={(reason) => setForm({ ...form, reason })} />
      <button type="submit" className="ops-primary">
        {t('ops.wifi.addRegion')}
      </button>
      <Problem error={error} />
    </form>
  );
}

export function Packages({ canWrite }: { canWrite: boolean }) {
  const t = useT();
  const lang = useStore($activeLang);
  const [regionId, setRegionId] = useState('');
  const [applied, setApplied] = useState('');
  const [editing, setEditing] = useState<MifiSkuShape>();
  const { rows, next, error, load } = usePaged<MifiSkuShape>('/mifi/skus', { regionId: applied, sort: 'name' });
  const money = (minor: number, currency: string) =>
    new Intl.NumberFormat(lang, { style: 'currency', currency }).format(minor / 10 ** minorDigits(currency));
  return (
    <section aria-labelledby="ops-wifi-skus">
      <h2 id="ops-wifi-skus">{t('ops.wifi.packages')}</h2>
      <form
        className="ops-filters"
        role="search"
        aria-label={t('ops.wifi.packages')}
        onSubmit={(e) => {
          e.preventDefault();
          setApplied(regionId);
        }}
      >
        <label>
          {t('ops.wifi.region')}
          <input value={regionId} pattern={ID} onChange={(e) => setRegionId(e.currentTarget.value)} />
        </label>
        <button type="submit">{t('ops.list.apply')}</button>
      </form>
      <table className="ops-table">
        <thead>
          <tr>
            <th scope="col">{t('ops.wifi.id')}</th>
            <th scope="col">{t('ops.wifi.name')}</th>
            <th scope="col">{t('ops.wifi.region')}</th>
            <th scope="col">{t('ops.wifi.plan')}</th>
            <th scope="col">{t('ops.wifi.prices')}</th>
            <th scope="col">{t('ops.wifi.onSale')}</th>
            {canWrite && (
              <th scope="col">
                <span className="ops-sr">{t('ops.wifi.edit')}</span>
              </th>
            )}
          </tr>
        </thead>
        <tbody>
          {rows.map((s) => (
            <tr key={s.id}>
              <th scope="row">{s.id}</th>
              <td>{s.name}</td>
              <td>
                {s.regionId}
                {s.countryCode ? ` · ${s.countryCode}` : ''}
              </td>
              <td>
                {t(`ops.wifi.kind.${s.planKind}`, { n: s.planValue })} ·{' '}
                {t(s.isPackage ? 'ops.wifi.packageDays' : 'ops.wifi.perDay', { n: s.days })}
              </td>
              <td>{s.prices.map((p) => money(p.price, p.currency)).join(' · ')}</td>
              <td>{t(s.enabled ? 'ops.wifi.yes' : 'ops.wifi.no')}</td>
              {canWrite && (
                <td>
                  <button type="button" onClick={() => setEditing(s)}>
                    {t('ops.wifi.edit')}
                    <span className="ops-sr"> {s.id}</span>
                  </button>
                </td>
              )}
            </tr>
          ))}
        </tbody>
      </table>
      <ListFooter count={rows.length} next={next} error={error} load={load} />
      {canWrite && editing && (
        <PackageEdit
          key={`${editing.id}:${editing.version}`}
          sku={editing}
          onDone={async () => {
            setEditing(undefined);
            await load();
          }}
        />
      )}
      {canWrite && <PackageForm onDone={() => load()} />}
    </section>
  );
}

function PackageForm({ onDone }: { onDone: () => Promise<void> }) {
  const t = useT();
  const empty = {
    id: '',
    regionId: '',
    countryCode: '',
    name: '',
    planKind: 'days',
    planValue: '1',
    isPackage: true,
    days: '1',
    prices: 'EUR 15.00',
    reason: '',
  };
  const { form, setForm, set, error, submit } = useOpsForm(empty, async (f) => {
    const prices = parsePrices(f.prices, t('ops.wifi.badPrices'));
    await opsCall('POST', '/mifi/skus', {
      id: f.id,
      regionId: f.regionId,
      countryCode: f.countryCode ? f.countryCode.toUpperCase() : null,
      name: f.name,
      planKind: f.planKind,
      planValue: f.planKind === 'unlimited' ? 0 : Number(f.planValue),
      isPackage: f.isPackage,
      days: Number(f.days),
      prices,
      reason: f.reason,
    });
    await onDone();
  });
  return (
    <form className="ops-form ops-import" aria-label={t('ops.wifi.newPackage')} onSubmit={submit}>
      <label>
        {t('ops.wifi.id')}
        <input required pattern={ID} value={form.id} onChange={set('id')} />
      </label>
      <label>
        {t('ops.wifi.name')}
        <input required maxLength={80} value={form.name} onChange={set('name')} />
      </label>
      <label>
        {t('ops.wifi.region')}
        <input required pattern={ID} value={form.regionId} onChange={set('regionId')} />
      </label>
      <label>
        {t('ops.wifi.country')}
        <input pattern="[A-Za-z]{2}" maxLength={2} value={form.countryCode} onChange={set('countryCode')} />
      </label>
      <label>
        {t('ops.wifi.plan')}
        <select value={form.planKind} onChange={set('planKind')}>
          {['days', 'mb', 'unlimited'].map((k) => (
            <option key={k} value={k}>
              {t(`ops.wifi.kindName.${k}`)}
            </option>
          ))}
        </select>
      </label>
      {form.planKind !== 'unlimited' && (
        <label>
          {t('ops.wifi.planValue')}
          <input type="number" required min={1} max={1_000_000} value={form.planValue} onChange={set('planValue')} />
        </label>
      )}
      <label>
        {t('ops.wifi.days')}
        <input type="number" required min={1} max={365} value={form.days} onChange={set('days')} />
      </label>
      <label className="ops-check">
        <input
          type="checkbox"
          checked={form.isPackage}
          onChange={(e) => setForm({ ...form, isPackage: e.currentTarget.checked })}
        />
        {t('ops.wifi.isPackage')}
      </label>
      <label className="ops-wide">
        {t('ops.wifi.pricesHint')}
        <textarea required rows={3} value={form.prices} onChange={set('prices')} />
      </label>
      <ReasonField value={form.reason} onChange={(reason) => setForm({ ...form, reason })} />
      <button type="submit" className="ops-primary">
        {t('ops.wifi.addPackage')}
      </button>
      <Problem error={error} />
    </form>
  );
}
