// The Wi-Fi box deposit per currency: any ISO 4217 currency, entered in its major unit and sent in minor units. A
// currency already set is saved with the version read (If-Match): a save after someone else's answers 409 and the
// list is read again. Platform-wide members change it; a currency without one falls back to the Wi-Fi price plans.
import { useStore } from '@nanostores/react';
import { useCallback, useEffect, useState } from 'react';
import type { BoxDepositShape } from '../../contract/ops/mifi.ts';
import { parseDecimal, toDecimalText } from '../../core/money.ts';
import { $activeLang, useT } from '../../i18n/index.ts';
import { OpsApiError, opsCall, opsCallTagged } from '../api.ts';
import { ReasonField } from '../cabinets/parts.tsx';
import { useOpsForm } from '../paged.tsx';
import { Problem } from '../screens/Problem.tsx';

const isCurrency = (c: string) => Intl.supportedValuesOf('currency').includes(c);

export function BoxDeposits({ canWrite }: { canWrite: boolean }) {
  const t = useT();
  const lang = useStore($activeLang);
  const [items, setItems] = useState<BoxDepositShape[]>([]);
  const [loadError, setLoadError] = useState<unknown>();
  const [saved, setSaved] = useState('');
  const load = useCallback(async () => {
    try {
      setItems((await opsCall<{ items: BoxDepositShape[] }>('GET', '/mifi/box-deposits')).items);
    } catch (e) {
      setLoadError(e);
    }
  }, []);
  useEffect(() => void load(), [load]);
  const { form, setForm, set, error, submit } = useOpsForm({ currency: '', amount: '', reason: '' }, async (f) => {
    setSaved('');
    const currency = f.currency.trim().toUpperCase();
    if (!isCurrency(currency)) throw new OpsApiError(400, t('ops.wifi.badCurrency', { currency }));
    const amount = parseDecimal(f.amount, currency);
    if (!amount) throw new OpsApiError(400, t('ops.wifi.badDeposit', { example: toDecimalText(2500, currency) }));
    const current = items.find((d) => d.currency === currency);
    try {
      await opsCallTagged(
        'PUT',
        `/mifi/box-deposits/${currency}`,
        { amount, reason: f.reason },
        current ? { 'if-match': `"v${current.version}"` } : {},
      );
    } finally {
      // Saved or refused (someone saved first): the list shows what is now in force.
      await load();
    }
    setSaved(t('ops.wifi.depositSaved', { currency }));
  });
  const money = (d: BoxDepositShape) =>
    new Intl.NumberFormat(lang, { style: 'currency', currency: d.currency }).format(
      Number(toDecimalText(d.amount, d.currency)),
    );
  return (
    <section aria-labelledby="ops-wifi-deposits">
      <h2 id="ops-wifi-deposits">{t('ops.wifi.deposits')}</h2>
      <p>{t('ops.wifi.depositsLead')}</p>
      <table className="ops-table">
        <thead>
          <tr>
            <th scope="col">{t('ops.wifi.currency')}</th>
            <th scope="col">{t('ops.wifi.deposit')}</th>
            <th scope="col">{t('ops.wifi.updated')}</th>
            {canWrite && (
              <th scope="col">
                <span className="ops-sr">{t('ops.wifi.change')}</span>
              </th>
            )}
          </tr>
        </thead>
        <tbody>
          {items.map((d) => (
            <tr key={d.currency}>
              <th scope="row">{d.currency}</th>
              <td>{money(d)}</td>
              <td>
                {new Intl.DateTimeFormat(lang, { dateStyle: 'medium', timeStyle: 'short' }).format(
                  new Date(d.updatedAt),
                )}
              </td>
              {canWrite && (
                <td>
                  <button
                    type="button"
                    onClick={() =>
                      setForm({ ...form, currency: d.currency, amount: toDecimalText(d.amount, d.currency) })
                    }
                  >
                    {t('ops.wifi.change')}
                    <span className="ops-sr"> {d.currency}</span>
                  </button>
                </td>
              )}
            </tr>
          ))}
          {!items.length && (
            <tr>
              <td colSpan={canWrite ? 4 : 3}>{t('ops.wifi.noDeposits')}</td>
            </tr>
          )}
        </tbody>
      </table>
      <Problem error={loadError} />
      {canWrite && (
        <form className="ops-form" aria-label={t('ops.wifi.setDeposit')} onSubmit={submit}>
          <label>
            {t('ops.wifi.currency')}
            <input
              required
              pattern="[A-Za-z]{3}"
              maxLength={3}
              autoComplete="off"
              value={form.currency}
              onChange={(e) => setForm({ ...form, currency: e.currentTarget.value.toUpperCase() })}
            />
          </label>
          <label>
            {t('ops.wifi.depositAmount')}
            <input required inputMode="decimal" pattern="\d+(\.\d+)?" value={form.amount} onChange={set('amount')} />
          </label>
          <ReasonField value={form.reason} onChange={(reason) => setForm({ ...form, reason })} />
          <button type="submit" className="ops-primary">
            {t('ops.wifi.saveDeposit')}
          </button>
          <Problem error={error} />
          {saved && <p role="status">{saved}</p>}
        </form>
      )}
    </section>
  );
}
