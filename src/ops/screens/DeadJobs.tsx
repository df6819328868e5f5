// Dead jobs (platform owners and admins): the work that exhausted its attempts, with its last error; retry it once
// its cause is fixed, or abandon it when it was handled another way, each with a reason.
import { useCallback, useEffect, useState } from 'react';
import { useStore } from '@nanostores/react';
import type { DeadJobList, DeadJobShape } from '../../contract/ops/jobs.ts';
import { $activeLang, useT } from '../../i18n/index.ts';
import { opsCall } from '../api.ts';
import { Problem } from './Problem.tsx';

export function DeadJobs() {
  const t = useT();
  const lang = useStore($activeLang);
  const [rows, setRows] = useState<DeadJobShape[]>([]);
  const [reason, setReason] = useState('');
  const [note, setNote] = useState('');
  const [error, setError] = useState<unknown>();
  const load = useCallback(async () => {
    try {
      setRows((await opsCall<DeadJobList>('GET', '/jobs/dead')).items);
    } catch (e) {
      setError(e);
    }
  }, []);
  useEffect(() => void load(), [load]);
  const act = async (job: DeadJobShape, action: 'retry' | 'abandon') => {
    setError(undefined);
    setNote('');
    if (reason.trim().length < 3) {
      setError(new Error(t('ops.jobs.reasonFirst')));
      document.getElementById('ops-job-reason')?.focus();
      return;
    }
    try {
      await opsCall('POST', `/jobs/dead/${job.id}/${action}`, { reason });
      setNote(t(`ops.jobs.done.${action}`, { id: job.id }));
      await load();
    } catch (e) {
      setError(e);
    }
  };
  return (
    <>
      <p>{t('ops.jobs.lead')}</p>
      <div className="ops-form">
        <label>{t('ops.reason')}<input id="ops-job-reason" required minLength={3} maxLength={500} value={reason} onChange={(e) => setReason(e.currentTarget.value)} /></label>
      </div>
      <table className="ops-table">
        <thead>
          <tr><th scope="col">{t('ops.jobs.job')}</th><th scope="col">{t('ops.jobs.deadAt')}</th><th scope="col">{t('ops.jobs.lastError')}</th><th scope="col">{t('ops.jobs.actions')}</th></tr>
        </thead>
        <tbody>
          {rows.map((j) => (
            <tr key={j.id}>
              <td>{j.kind} #{j.id}<br /><small>{t('ops.jobs.attempts', { n: j.attempts })}</small><details><summary>{t('ops.jobs.payload')}</summary><pre>{JSON.stringify(j.payload, null, 2)}</pre></details></td>
              <td>{new Date(j.deadAt).toLocaleString(lang)}</td>
              <td>{j.lastError ?? '—'}</td>
              <td>
                <button type="button" aria-label={t('ops.jobs.retryOne', { id: j.id })} onClick={() => void act(j, 'retry')}>{t('ops.jobs.retry')}</button>{' '}
                <button type="button" aria-label={t('ops.jobs.abandonOne', { id: j.id })} onClick={() => void act(j, 'abandon')}>{t('ops.jobs.abandon')}</button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {!rows.length && <p>{t('ops.jobs.none')}</p>}
      {note && <p role="status">{note}</p>}
      {error instanceof Error && !('status' in error) ? <p className="ops-error" role="alert">{error.message}</p> : <Problem error={error} />}
    </>
  );
}
