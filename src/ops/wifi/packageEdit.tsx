// Editing a Wi-Fi package or plan: its name and its name in each language, the plan, the days, the prices (the
// lines replace all of them) and whether it is on sale. Saved with the version read (If-Match): a save after
// someone else's is refused with the server's message and nothing is overwritten.
import { useEffect, useRef } from 'react';
import type { MifiSkuShape } from '../../contract/ops/mifi.ts';
import { LOCALES, LOCALE_NAMES } from '../../core/lang.ts';
import { useT } from '../../i18n/index.ts';
import { opsCall } from '../api.ts';
import { ReasonField } from '../cabinets/parts.tsx';
import { useOpsForm } from '../paged.tsx';
import { Problem } from '../screens/Problem.tsx';
import { parsePrices, priceLines } from './prices.ts';

export function PackageEdit({ sku, onDone }: { sku: MifiSkuShape; onDone: () => Promise<void> }) {
  const t = useT();
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), []);
  const start = {
    name: sku.name,
    planKind: sku.planKind,
    planValue: String(sku.planValue),
    days: String(sku.days),
    isPackage: sku.isPackage,
    prices: priceLines(sku.prices),
    enabled: sku.enabled,
    reason: '',
    ...Object.fromEntries(LOCALES.map((l) => [`name:${l}`, sku.names[l] ?? ''])),
  } as Record<string, string | boolean>;
  const { form, setForm, set, error, submit } = useOpsForm(
    start,
    async (f) => {
      const names = Object.fromEntries(
        LOCALES.map((l) => [l, String(f[`name:${l}`] ?? '').trim()]).filter(([, v]) => v),
      );
      await opsCall(
        'PATCH',
        `/mifi/skus/${encodeURIComponent(sku.id)}`,
        {
          name: f.name,
          names,
          planKind: f.planKind,
          planValue: f.planKind === 'unlimited' ? 0 : Number(f.planValue),
          days: Number(f.days),
          isPackage: f.isPackage,
          enabled: f.enabled,
          prices: parsePrices(String(f.prices), t('ops.wifi.badPrices')),
          reason: f.reason,
        },
        { 'if-match': `"v${sku.version}"` },
      );
      await onDone();
    },
    true,
  );
  const text = (k: string) => String(form[k] ?? '');
  const check = (k: string) => (e: { currentTarget: { checked: boolean } }) =>
    setForm({ ...form, [k]: e.currentTarget.checked });
  return (
    <section aria-labelledby="ops-wifi-edit">
      <h3 id="ops-wifi-edit" tabIndex={-1} ref={heading}>
        {t('ops.wifi.editOf', { id: sku.id })}
      </h3>
      <form className="ops-form ops-import" onSubmit={submit}>
        <label>
          {t('ops.wifi.name')}
          <input required maxLength={80} value={text('name')} onChange={set('name')} />
        </label>
        {LOCALES.map((l) => (
          <label key={l}>
            {t('ops.wifi.nameIn', { lang: LOCALE_NAMES[l] })}
            <input lang={l} maxLength={80} value={text(`name:${l}`)} onChange={set(`name:${l}`)} />
          </label>
        ))}
        <label>
          {t('ops.wifi.plan')}
          <select value={text('planKind')} onChange={set('planKind')}>
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
            <input
              type="number"
              required
              min={1}
              max={1_000_000}
              value={text('planValue')}
              onChange={set('planValue')}
            />
          </label>
        )}
        <label>
          {t('ops.wifi.days')}
          <input type="number" required min={1} max={365} value={text('days')} onChange={set('days')} />
        </label>
        <label className="ops-check">
          <input type="checkbox" checked={form.isPackage === true} onChange={check('isPackage')} />
          {t('ops.wifi.isPackage')}
        </label>
        <label className="ops-check">
          <input type="checkbox" checked={form.enabled === true} onChange={check('enabled')} />
          {t('ops.wifi.onSaleCheck')}
        </label>
        <label className="ops-wide">
          {t('ops.wifi.pricesHint')}
          <textarea required rows={3} value={text('prices')} onChange={set('prices')} />
        </label>
        <ReasonField value={text('reason')} onChange={(reason) => setForm({ ...form, reason })} />
        <button type="submit" className="ops-primary">
          {t('ops.wifi.savePackage')}
        </button>
        <Problem error={error} />
      </form>
    </section>
  );
}
