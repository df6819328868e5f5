// Dead jobs (platform owners and admins): the work that exhausted its attempts, with its last error; retry it once
// its cause is fixed, or abandon it when it was handled another way, each with a reason.
import { useCallback, useEffect, useState } from 'react';
import { useStore } from '@nanostores/react';
import type { DeadJobList, DeadJobShape } from '../../contract/ops/jobs.ts';
import { $activeLang, useT } from '../../i18n/index.ts';
import { opsCall } from '../api.ts';
import { useReasonedActions } from '../reasoned.tsx';

export function DeadJobs() {
  const t = useT();
  const lang = useStore($activeLang);
  const [rows, setRows] = useState<DeadJobShape[]>([]);
  const load = useCallback(async () => {
    try {
      setRows((await opsCall<DeadJobList>('GET', '/jobs/dead')).items);
    } catch (e) {
      actions.setError(e);
    }
    // eslint-disable-next-line react-hooks/exhaustive-deps -- setError is a state setter, stable
  }, []);
  const actions = useReasonedActions('ops-job-reason', load);
  useEffect(() => void load(), [load]);
  const act = (job: DeadJobShape, action: 'retry' | 'abandon') =>
    actions.act(`/jobs/dead/${job.id}/${action}`, t(`ops.jobs.done.${action}`, { id: job.id }));
  return (
    <>
      <p>{t('ops.jobs.lead')}</p>
      {actions.field}
      <table className="ops-table">
        <thead>
          <tr>
            <th scope="col">{t('ops.jobs.job')}</th>
            <th scope="col">{t('ops.jobs.deadAt')}</th>
            <th scope="col">{t('ops.jobs.lastError')}</th>
            <th scope="col">{t('ops.jobs.actions')}</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((j) => (
            <tr key={j.id}>
              <td>
                {j.kind} #{j.id}
                <br />
                <small>{t('ops.jobs.attempts', { n: j.attempts })}</small>
                <details>
                  <summary>{t('ops.jobs.payload')}</summary>
                  <pre>{JSON.stringify(j.payload, null, 2)}</pre>
                </details>
              </td>
              <td>{new Date(j.deadAt).toLocaleString(lang)}</td>
              <td>{j.lastError ?? '—'}</td>
              <td>
                <button
                  type="button"
                  aria-label={t('ops.jobs.retryOne', { id: j.id })}
                  onClick={() => void act(j, 'retry')}
                >
                  {t('ops.jobs.retry')}
                </button>{' '}
                <button
                  type="button"
                  aria-label={t('ops.jobs.abandonOne', { id: j.id })}
                  onClick={() => void act(j, 'abandon')}
                >
                  {t('ops.jobs.abandon')}
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {!rows.length && <p>{t('ops.jobs.none')}</p>}
      {actions.answer}
    </>
  );
}
