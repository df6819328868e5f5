// Payments: the support desk's search (payment id, provider reference or order; the rider's phone, e-mail and card;
// provider, purpose, state, the rental's cabinet, venue and power bank; dates), pages by cursor, the CSV export of the
// same search. A payment's order opens its rental or Wi-Fi package.
import { useStore } from '@nanostores/react';
import type { PaymentSummary } from '../../contract/ops/search.ts';
import { toMajor } from '../../core/money.ts';
import { $activeLang, useT } from '../../i18n/index.ts';
import { dateTime, money } from '../../ui/format.ts';
import { usePaged } from '../paged.tsx';
import { SearchButtons, useSearch, WHO, WhoFields } from '../search.tsx';
import { Problem } from './Problem.tsx';

const EMPTY = { ...WHO, q: '', provider: '', purpose: '', state: '', cabinetId: '', venueId: '', powerbankId: '' };
const PURPOSES = [
  'deposit_preauth',
  'deposit_topup',
  'debt',
  'wallet_topup',
  'rent_extra',
  'mifi',
  'mifi_deposit_hold',
  'mifi_deposit',
] as const;
const STATES = [
  'requires_action',
  'pending',
  'authorized',
  'captured',
  'partially_captured',
  'voided',
  'refunded',
  'declined',
] as const;

/** A payment's state in words (a state the console does not know: as the server says it). */
const stateOf = (s: string, t: (k: string) => string) => {
  const base = s.replace(/:.*$/, '');
  return (STATES as readonly string[]).includes(base) ? t(`ops.payments.states.${base}`) : s;
};

/** Where a payment's order is read: a Wi-Fi order among the packages, anything else among the rentals. */
const orderLink = (p: PaymentSummary) =>
  p.purpose.startsWith('mifi')
    ? `#/wifi-packages?q=${encodeURIComponent(p.orderId ?? '')}`
    : `#/rentals?id=${encodeURIComponent(p.orderId ?? '')}`;

export function Payments() {
  const t = useT();
  const lang = useStore($activeLang);
  const { draft, set, submit, query } = useSearch(EMPTY);
  const { rows, next, error, loaded, more } = usePaged<PaymentSummary>('/payments', query);
  const amount = (minor: number, currency: string) => money(currency, toMajor(minor, currency));
  return (
    <>
      <form className="ops-filters" role="search" onSubmit={submit}>
        <label>
          {t('ops.payments.q')}
          <input type="search" maxLength={200} value={draft.q} onChange={set('q')} />
        </label>
        <WhoFields draft={draft} set={set} />
        <label>
          {t('ops.payments.provider')}
          <input maxLength={40} pattern="[a-z0-9_\-]{1,40}" value={draft.provider} onChange={set('provider')} />
        </label>
        <label>
          {t('ops.payments.purpose')}
          <select value={draft.purpose} onChange={set('purpose')}>
            <option value="">{t('ops.payments.anyPurpose')}</option>
            {PURPOSES.map((p) => (
              <option key={p} value={p}>
                {t(`ops.payments.purposes.${p}`)}
              </option>
            ))}
          </select>
        </label>
        <label>
          {t('ops.rentals.state')}
          <select value={draft.state} onChange={set('state')}>
            <option value="">{t('ops.rentals.anyState')}</option>
            {STATES.map((s) => (
              <option key={s} value={s}>
                {t(`ops.payments.states.${s}`)}
              </option>
            ))}
          </select>
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
          {t('ops.rentals.powerbank')}
          <input maxLength={100} value={draft.powerbankId} onChange={set('powerbankId')} />
        </label>
        <SearchButtons csv="/payments.csv" query={query} />
      </form>
      <div className="ops-scroll">
        <table className="ops-table">
          <thead>
            <tr>
              <th scope="col">{t('ops.rentals.created')}</th>
              <th scope="col">{t('ops.payments.payment')}</th>
              <th scope="col">{t('ops.rentals.rider')}</th>
              <th scope="col">{t('ops.payments.purpose')}</th>
              <th scope="col">{t('ops.rentals.state')}</th>
              <th scope="col">{t('ops.payments.amount')}</th>
              <th scope="col">{t('ops.payments.card')}</th>
              <th scope="col">{t('ops.rentals.order')}</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((p) => (
              <tr key={p.id}>
                <td>{dateTime(p.createdAt, lang)}</td>
                <td>
                  <code>{p.id}</code>
                  <br />
                  <small>
                    {p.provider}
                    {p.providerRef ? ` · ${p.providerRef}` : ''}
                  </small>
                </td>
                <td>{p.riderPhone ?? p.riderEmail ?? `#${p.riderId}`}</td>
                <td>
                  {(PURPOSES as readonly string[]).includes(p.purpose)
                    ? t(`ops.payments.purposes.${p.purpose}`)
                    : p.purpose}
                </td>
                <td>{stateOf(p.state, t)}</td>
                <td>
                  {amount(p.amount.amount, p.amount.currency)}
                  {p.refunded > 0 && (
                    <>
                      <br />
                      <small>{t('ops.payments.refunded', { amount: amount(p.refunded, p.amount.currency) })}</small>
                    </>
                  )}
                </td>
                <td>{p.cardLast4 ? `${p.cardBrand ?? ''} •••• ${p.cardLast4}` : '—'}</td>
                <td>{p.orderId ? <a href={orderLink(p)}>{p.orderId}</a> : '—'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {loaded && !rows.length && <p role="status">{t('ops.payments.none')}</p>}
      {next && (
        <button type="button" onClick={() => void more()}>
          {t('ops.list.more')}
        </button>
      )}
      <Problem error={error} />
    </>
  );
}
