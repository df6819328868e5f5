// The console's operations lists (dead jobs, the cabinet inbox), written once: one reason field above the list,
// each row's action posts with it (an empty reason: said, and the field takes the focus), then the list reads again;
// below, the last answer (a status line, or the problem: what someone else handled first is the server's 404).
import { useState } from 'react';
import { useT } from '../i18n/index.ts';
import { opsCall } from './api.ts';
import { Problem } from './screens/Problem.tsx';

export function useReasonedActions(id: string, reload: () => Promise<void>) {
  const t = useT();
  const [reason, setReason] = useState('');
  const [note, setNote] = useState('');
  const [error, setError] = useState<unknown>();
  const act = async (path: string, doneNote: string) => {
    setError(undefined);
    setNote('');
    if (reason.trim().length < 3) {
      setError(new Error(t('ops.jobs.reasonFirst')));
      document.getElementById(id)?.focus();
      return;
    }
    try {
      await opsCall('POST', path, { reason });
      setNote(doneNote);
      await reload();
    } catch (e) {
      setError(e);
    }
  };
  const field = (
    <div className="ops-form">
      <label>
        {t('ops.reason')}
        <input
          id={id}
          required
          minLength={3}
          maxLength={500}
          value={reason}
          onChange={(e) => setReason(e.currentTarget.value)}
        />
      </label>
    </div>
  );
  const answer = (
    <>
      {note && <p role="status">{note}</p>}
      {error instanceof Error && !('status' in error) ? (
        <p className="ops-error" role="alert">
          {error.message}
        </p>
      ) : (
        <Problem error={error} />
      )}
    </>
  );
  return { act, field, answer, setError };
}
