// Money: the ledger's balances per currency, agent, owner and account kind (the caller's agents), each currency's
// sum over every agent (zero when the ledger balances; platform-wide staff), the ledger's invariants (platform-wide staff), and the daily reconciliation
// of each payment provider's settlements against the ledger (Reconciliation.tsx).
import { useEffect, useState } from 'react';
import type { Balances, LedgerCheck } from '../../contract/ops/money.ts';
import { toMajor } from '../../core/money.ts';
import { useT } from '../../i18n/index.ts';
import { money } from '../../ui/format.ts';
import { OpsApiError, opsCall } from '../api.ts';
import { Problem } from './Problem.tsx';
import { Reconciliation } from './Reconciliation.tsx';
import type { Me } from '../../contract/ops/staff.ts';

export function Money({ me }: { me: Me }) {
  const t = useT();
  const [balances, setBalances] = useState<Balances['items']>();
  const [check, setCheck] = useState<LedgerCheck | 'forbidden'>();
  const [error, setError] = useState<unknown>();
  useEffect(() => {
    opsCall<Balances>('GET', '/money/balances').then((b) => setBalances(b.items), setError);
    opsCall<LedgerCheck>('GET', '/money/ledger-check').then(setCheck, (e: unknown) =>
      e instanceof OpsApiError && e.status === 403 ? setCheck('forbidden') : setError(e),
    );
  }, []);
  const sums = new Map<string, number>();
  for (const b of balances ?? []) sums.set(b.currency, (sums.get(b.currency) ?? 0) + b.posted);
  const m = (minor: number, currency: string) => money(currency, toMajor(minor, currency));
  return (
    <>
      <Problem error={error} />
      <section aria-labelledby="ops-money-check">
        <h2 id="ops-money-check">{t('ops.moneyViews.check')}</h2>
        {check === 'forbidden' && <p>{t('ops.moneyViews.checkPlatformOnly')}</p>}
        {check &&
          check !== 'forbidden' &&
          (check.ok ? (
            <p role="status">{t('ops.moneyViews.checkOk')}</p>
          ) : (
            <>
              <p role="alert">{t('ops.moneyViews.checkFailed', { n: check.violations.length })}</p>
              <ul>
                {check.violations.map((v, i) => (
                  <li key={i}>
                    <code>{v.invariant}</code> {v.detail}
                  </li>
                ))}
              </ul>
            </>
          ))}
      </section>
      <section aria-labelledby="ops-money-balances">
        <h2 id="ops-money-balances">{t('ops.moneyViews.balances')}</h2>
        {balances && (
          <>
            {/* Each currency sums to zero over every agent: shown to platform-wide staff, who see every account. */}
            {check && check !== 'forbidden' && (
              <ul aria-label={t('ops.moneyViews.sums')}>
                {[...sums].map(([currency, sum]) => (
                  <li key={currency}>
                    {t(sum === 0 ? 'ops.moneyViews.sumZero' : 'ops.moneyViews.sumOff', {
                      currency,
                      amount: m(sum, currency),
                    })}
                  </li>
                ))}
              </ul>
            )}
            <div className="ops-scroll">
              <table className="ops-table">
                <thead>
                  <tr>
                    <th scope="col">{t('ops.moneyViews.currency')}</th>
                    <th scope="col">{t('ops.moneyViews.agent')}</th>
                    <th scope="col">{t('ops.moneyViews.owner')}</th>
                    <th scope="col">{t('ops.moneyViews.kind')}</th>
                    <th scope="col">{t('ops.moneyViews.accounts')}</th>
                    <th scope="col">{t('ops.moneyViews.posted')}</th>
                    <th scope="col">{t('ops.moneyViews.pending')}</th>
                  </tr>
                </thead>
                <tbody>
                  {balances.map((b) => (
                    <tr key={`${b.currency}/${b.agentId}/${b.ownerType}/${b.kind}`}>
                      <td>{b.currency}</td>
                      <td>{b.agentId}</td>
                      <td>
                        <code>{b.ownerType}</code>
                      </td>
                      <td>
                        <code>{b.kind}</code>
                      </td>
                      <td>{b.accounts}</td>
                      <td>{m(b.posted, b.currency)}</td>
                      <td>{m(b.pending, b.currency)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
            {!balances.length && <p>{t('ops.list.empty')}</p>}
          </>
        )}
      </section>
      {check && check !== 'forbidden' && <Reconciliation mayRun={me.permissions.includes('money.correct')} />}
    </>
  );
}
