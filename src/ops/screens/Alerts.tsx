// Alerts: what is open (or everything, resolved included), and, for those who may, acknowledging ("someone is on
// it") and resolving, each with the reason typed above the list.
import { useStore } from '@nanostores/react';
import { useCallback, useEffect, useId, useState } from 'react';
import type { AlertShape } from '../../contract/ops/alerts.ts';
import type { Me } from '../../contract/ops/staff.ts';
import { useT } from '../../i18n/index.ts';
import { $lang } from '../../stores/locale.ts';
import { opsCall, withQuery } from '../api.ts';
import { Problem } from './Problem.tsx';

export function Alerts({ me }: { me: Me }) {
  const t = useT();
  const lang = useStore($lang);
  const reasonId = useId();
  const [all, setAll] = useState(false);
  const [reason, setReason] = useState('');
  const [rows, setRows] = useState<AlertShape[]>();
  const [error, setError] = useState<unknown>();
  const manage = me.permissions.includes('alerts.manage');
  const load = useCallback(async () => {
    try {
      const open = await opsCall<{ items: AlertShape[] }>(
        'GET',
        withQuery('/alerts', { state: all ? undefined : 'open' }),
      );
      const acked = all ? [] : (await opsCall<{ items: AlertShape[] }>('GET', '/alerts?state=acknowledged')).items;
      setRows([...open.items, ...acked]);
      setError(undefined);
    } catch (e) {
      setError(e);
    }
  }, [all]);
  useEffect(() => void load(), [load]);
  const act = async (a: AlertShape, action: 'acknowledge' | 'resolve') => {
    if (reason.trim().length < 3) {
      setError(new Error(t('ops.alerts.reasonNeeded')));
      document.getElementById(reasonId)?.focus();
      return;
    }
    try {
      await opsCall('POST', `/alerts/${a.id}/${action}`, { reason: reason.trim() });
      await load();
    } catch (e) {
      setError(e);
    }
  };
  return (
    <>
      <div className="ops-filters">
        <label>
          <input type="checkbox" checked={all} onChange={(e) => setAll(e.currentTarget.checked)} />
          {t('ops.alerts.showResolved')}
        </label>
        {manage && (
          <label htmlFor={reasonId}>
            {t('ops.alerts.reasonHint')}
            <input id={reasonId} value={reason} onChange={(e) => setReason(e.currentTarget.value)} maxLength={500} />
          </label>
        )}
      </div>
      <table className="ops-table">
        <thead>
          <tr>
            <th scope="col">{t('ops.alerts.kind')}</th>
            <th scope="col">{t('ops.alerts.subject')}</th>
            <th scope="col">{t('ops.alerts.state')}</th>
            <th scope="col">{t('ops.alerts.opened')}</th>
            {manage && <th scope="col">{t('ops.alerts.actions')}</th>}
          </tr>
        </thead>
        <tbody>
          {rows?.map((a) => (
            <tr key={a.id}>
              <td>{t(`ops.alerts.kinds.${a.kind}`)}</td>
              <td>{a.subject}</td>
              <td>{t(`ops.alerts.states.${a.state}`)}</td>
              <td>{new Date(a.openedAt).toLocaleString(lang)}</td>
              {manage && (
                <td>
                  {a.state === 'open' && (
                    <button type="button" onClick={() => void act(a, 'acknowledge')}>
                      {t('ops.alerts.acknowledge')}
                    </button>
                  )}
                  {a.state !== 'resolved' && (
                    <button type="button" onClick={() => void act(a, 'resolve')}>
                      {t('ops.alerts.resolve')}
                    </button>
                  )}
                </td>
              )}
            </tr>
          ))}
        </tbody>
      </table>
      {rows && !rows.length && <p>{t('ops.list.empty')}</p>}
      {error instanceof Error && !('status' in error) ? (
        <p className="ops-error" role="alert">
          {error.message}
        </p>
      ) : (
        <Problem error={error} />
      )}
    </>
  );
}
