// Partners: each partner account's earnings (what Powerly owes it, its rentals, what no statement reported yet)
// and its issued statements with their CSV and PDF. A venue partner sees only its own venues.
import { useStore } from '@nanostores/react';
import { useEffect, useState } from 'react';
import type { Earnings, PartnerRentals, StatementShape } from '../../contract/ops/partners.ts';
import { formatMoney } from '../../core/money.ts';
import { useT } from '../../i18n/index.ts';
import { $lang } from '../../stores/locale.ts';
import { OPS_API, opsCall } from '../api.ts';
import { Problem } from './Problem.tsx';

export function Partners() {
  const t = useT();
  const lang = useStore($lang);
  const [earnings, setEarnings] = useState<Earnings['items']>();
  const [statements, setStatements] = useState<StatementShape[]>();
  const [rentals, setRentals] = useState<PartnerRentals['items']>();
  const [error, setError] = useState<unknown>();
  useEffect(() => {
    Promise.all([
      opsCall<Earnings>('GET', '/partners/earnings'),
      opsCall<{ items: StatementShape[] }>('GET', '/partners/statements'),
      opsCall<PartnerRentals>('GET', '/partners/rentals'),
    ])
      .then(([e, s, r]) => {
        setEarnings(e.items);
        setStatements(s.items);
        setRentals(r.items);
      })
      .catch(setError);
  }, []);
  const who = (p: { partnerType: string; partnerId: string }) =>
    t(`ops.partners.${p.partnerType}`, { id: p.partnerId });
  const money = (v: number, c: string) => formatMoney(v, c, lang);
  return (
    <>
      <h2>{t('ops.partners.earnings')}</h2>
      <table className="ops-table">
        <thead>
          <tr>
            <th scope="col">{t('ops.partners.partner')}</th>
            <th scope="col">{t('ops.partners.currency')}</th>
            <th scope="col">{t('ops.partners.balance')}</th>
            <th scope="col">{t('ops.partners.rentals')}</th>
            <th scope="col">{t('ops.partners.unreported')}</th>
          </tr>
        </thead>
        <tbody>
          {earnings?.map((e) => (
            <tr key={`${e.partnerType}:${e.partnerId}:${e.currency}`}>
              <td>{who(e)}</td>
              <td>{e.currency}</td>
              <td>{money(e.balance, e.currency)}</td>
              <td>{e.rentals.toLocaleString(lang)}</td>
              <td>{money(e.unreported, e.currency)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {earnings && !earnings.length && <p>{t('ops.list.empty')}</p>}
      <h2>{t('ops.partners.statements')}</h2>
      <table className="ops-table">
        <thead>
          <tr>
            <th scope="col">{t('ops.partners.period')}</th>
            <th scope="col">{t('ops.partners.partner')}</th>
            <th scope="col">{t('ops.partners.total')}</th>
            <th scope="col">{t('ops.partners.download')}</th>
          </tr>
        </thead>
        <tbody>
          {statements?.map((s) => (
            <tr key={s.id}>
              <td>{s.period}</td>
              <td>{who(s)}</td>
              <td>{money(s.total, s.currency)}</td>
              <td>
                <a href={`${OPS_API}/partners/statements/${s.id}/csv`} download>
                  {t('ops.partners.csv', { period: s.period })}
                </a>
                {' · '}
                <a href={`${OPS_API}/partners/statements/${s.id}/pdf`} download>
                  {t('ops.partners.pdf', { period: s.period })}
                </a>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {statements && !statements.length && <p>{t('ops.list.empty')}</p>}
      <h2>{t('ops.partners.latest')}</h2>
      <table className="ops-table">
        <thead>
          <tr>
            <th scope="col">{t('ops.partners.order')}</th>
            <th scope="col">{t('ops.partners.settled')}</th>
            <th scope="col">{t('ops.partners.gross')}</th>
            <th scope="col">{t('ops.partners.refunded')}</th>
            <th scope="col">{t('ops.partners.share')}</th>
          </tr>
        </thead>
        <tbody>
          {rentals?.map((r) => (
            <tr key={r.orderId}>
              <td>
                {r.orderId}
                <br />
                <small>{who({ partnerType: 'venue', partnerId: r.venueId })}</small>
              </td>
              <td>{new Date(r.settledAt).toLocaleString(lang)}</td>
              <td>{money(r.gross, r.currency)}</td>
              <td>{money(r.refunded, r.currency)}</td>
              <td>{money(r.venueShare, r.currency)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {rentals && !rentals.length && <p>{t('ops.list.empty')}</p>}
      <Problem error={error} />
    </>
  );
}
