// The daily reconciliation of each payment provider's settlements against the ledger (platform-wide staff): a day's
// result per provider (matched, mismatched, or not available from the provider's API) with every mismatch, and the
// day checked again now with a reason.
import { useCallback, useEffect, useState } from 'react';
import type { ReconciliationList, ReconciliationShape } from '../../contract/ops/money.ts';
import { toMajor } from '../../core/money.ts';
import { useT } from '../../i18n/index.ts';
import { money } from '../../ui/format.ts';
import { opsCall } from '../api.ts';
import { Problem } from './Problem.tsx';

const yesterday = () => new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);

export function Reconciliation({ mayRun }: { mayRun: boolean }) {
  const t = useT();
  const [day, setDay] = useState(yesterday);
  const [items, setItems] = useState<ReconciliationShape[]>();
  const [reason, setReason] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const load = useCallback(async () => {
    try {
      setItems((await opsCall<ReconciliationList>('GET', `/money/reconciliations?from=${day}&to=${day}`)).items);
      setError(undefined);
    } catch (e) {
      setError(e);
    }
  }, [day]);
  useEffect(() => void load(), [load]);
  const run = async (e: React.FormEvent) => {
    e.preventDefault();
    setBusy(true);
    try {
      setItems((await opsCall<ReconciliationList>('POST', '/money/reconciliations', { day, reason })).items);
      setReason('');
      setError(undefined);
    } catch (err) {
      // A provider's report that could not be read (503) stored nothing; the other providers' days were stored.
      const now = await opsCall<ReconciliationList>('GET', `/money/reconciliations?from=${day}&to=${day}`).catch(
        () => undefined,
      );
      if (now) setItems(now.items);
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  const m = (minor: number, currency: string) => money(currency, toMajor(minor, currency));
  return (
    <section aria-labelledby="ops-recon">
      <h2 id="ops-recon">{t('ops.recon.title')}</h2>
      <form className="ops-filters" onSubmit={(e) => void run(e)}>
        <label>
          {t('ops.recon.day')}
          <input type="date" required value={day} onChange={(e) => setDay(e.currentTarget.value)} />
        </label>
        {mayRun && (
          <>
            <label>
              {t('ops.reason')}
              <input
                required
                minLength={3}
                maxLength={500}
                value={reason}
                onChange={(e) => setReason(e.currentTarget.value)}
              />
            </label>
            <button type="submit" disabled={busy}>
              {t('ops.recon.run')}
            </button>
          </>
        )}
      </form>
      <Problem error={error} />
      {items && !items.length && <p>{t('ops.recon.none')}</p>}
      {items?.map((r) => (
        <section key={r.provider} aria-labelledby={`ops-recon-${r.provider}`}>
          <h3 id={`ops-recon-${r.provider}`}>
            {r.provider}: {t(`ops.recon.status.${r.status}`)}
          </h3>
          <p>{t('ops.recon.lines', { n: r.lines })}</p>
          {r.mismatches.length > 0 && (
            <div className="ops-scroll">
              <table className="ops-table">
                <thead>
                  <tr>
                    <th scope="col">{t('ops.recon.kind')}</th>
                    <th scope="col">{t('ops.rentals.order')}</th>
                    <th scope="col">{t('ops.recon.refs')}</th>
                    <th scope="col">{t('ops.recon.atProvider')}</th>
                    <th scope="col">{t('ops.recon.inLedger')}</th>
                  </tr>
                </thead>
                <tbody>
                  {r.mismatches.map((x, i) => (
                    <tr key={i}>
                      <td>{t(`ops.recon.kinds.${x.kind}`)}</td>
                      <td>{x.orderId ?? '—'}</td>
                      <td>
                        <small>{x.refs.join(', ') || '—'}</small>
                      </td>
                      <td>
                        {t('ops.recon.side', {
                          charged: m(x.provider.charged, x.currency),
                          refunded: m(x.provider.refunded, x.currency),
                          fee: m(x.provider.fee, x.currency),
                        })}
                      </td>
                      <td>
                        {t('ops.recon.side', {
                          charged: m(x.ledger.charged, x.currency),
                          refunded: m(x.ledger.refunded, x.currency),
                          fee: m(x.ledger.fee, x.currency),
                        })}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
        </section>
      ))}
    </section>
  );
}
