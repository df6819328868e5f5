// The cabinet inbox (platform owners and admins; the same as `npm run cabinet:inbox`): the events the server could
// not process (dead, or still pending) with their last error, the messages refused before the inbox, and the power
// banks no one registered (quarantined, never lent). Retry a dead event once its cause is fixed; release a
// quarantined power bank that is the operator's own (lendable in the slot it is in); each with a reason.
import { useStore } from '@nanostores/react';
import { useCallback, useEffect, useState } from 'react';
import type { CabinetInbox as Inbox } from '../../contract/ops/cabinet-inbox.ts';
import { $activeLang, useT } from '../../i18n/index.ts';
import { opsCall, withQuery } from '../api.ts';
import { useReasonedActions } from '../reasoned.tsx';

export function CabinetInbox() {
  const t = useT();
  const lang = useStore($activeLang);
  const [state, setState] = useState<'dead' | 'pending'>('dead');
  const [inbox, setInbox] = useState<Inbox>();
  const load = useCallback(async () => {
    try {
      setInbox(await opsCall<Inbox>('GET', withQuery('/cabinet-inbox', { state })));
    } catch (e) {
      actions.setError(e);
    }
    // eslint-disable-next-line react-hooks/exhaustive-deps -- setError is a state setter, stable
  }, [state]);
  const actions = useReasonedActions('ops-inbox-reason', load);
  useEffect(() => void load(), [load]);
  const when = (at?: string) => (at ? new Date(at).toLocaleString(lang) : '—');
  return (
    <>
      <p>{t('ops.inbox.lead')}</p>
      {actions.field}
      {inbox && (
        <p>
          {inbox.counts
            .map((c) => t('ops.inbox.count', { state: t(`ops.inbox.states.${c.state}`), n: c.n }))
            .join(' · ') || t('ops.inbox.empty')}
        </p>
      )}
      <h2>{t('ops.inbox.events')}</h2>
      <form className="ops-filters" onSubmit={(e) => e.preventDefault()}>
        <label>
          {t('ops.inbox.state')}
          <select value={state} onChange={(e) => setState(e.currentTarget.value as 'dead' | 'pending')}>
            {(['dead', 'pending'] as const).map((s) => (
              <option key={s} value={s}>
                {t(`ops.inbox.states.${s}`)}
              </option>
            ))}
          </select>
        </label>
      </form>
      <table className="ops-table">
        <thead>
          <tr>
            <th scope="col">{t('ops.inbox.event')}</th>
            <th scope="col">{t('ops.inbox.received')}</th>
            <th scope="col">{t('ops.jobs.lastError')}</th>
            <th scope="col">{t('ops.jobs.actions')}</th>
          </tr>
        </thead>
        <tbody>
          {inbox?.events.map((e) => (
            <tr key={e.id}>
              <td>
                {e.type} · {e.id}
                <br />
                <small>{t('ops.jobs.attempts', { n: e.attempts })}</small>
                <details>
                  <summary>{t('ops.jobs.payload')}</summary>
                  <pre>{JSON.stringify(e.payload, null, 2)}</pre>
                </details>
              </td>
              <td>{when(e.receivedAt)}</td>
              <td>{e.lastError ?? '—'}</td>
              <td>
                {e.state === 'dead' && (
                  <button
                    type="button"
                    aria-label={t('ops.inbox.retryOne', { id: e.id })}
                    onClick={() =>
                      void actions.act(
                        `/cabinet-inbox/events/${encodeURIComponent(e.id)}/retry`,
                        t('ops.inbox.retried', { id: e.id }),
                      )
                    }
                  >
                    {t('ops.jobs.retry')}
                  </button>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {inbox && !inbox.events.length && <p>{t('ops.list.empty')}</p>}
      <h2>{t('ops.inbox.rejects')}</h2>
      <table className="ops-table">
        <thead>
          <tr>
            <th scope="col">{t('ops.rentals.cabinet')}</th>
            <th scope="col">{t('ops.inbox.why')}</th>
            <th scope="col">{t('ops.inbox.times')}</th>
            <th scope="col">{t('ops.inbox.last')}</th>
          </tr>
        </thead>
        <tbody>
          {inbox?.rejects.map((r) => (
            <tr key={`${r.cabinetId}/${r.reason}`}>
              <td>{r.cabinetId}</td>
              <td>{r.reason}</td>
              <td>{r.count}</td>
              <td>
                {when(r.lastAt)}
                {r.lastPayload && (
                  <details>
                    <summary>{t('ops.jobs.payload')}</summary>
                    <pre>{r.lastPayload}</pre>
                  </details>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {inbox && !inbox.rejects.length && <p>{t('ops.list.empty')}</p>}
      <h2>{t('ops.inbox.quarantined')}</h2>
      <table className="ops-table">
        <thead>
          <tr>
            <th scope="col">{t('ops.rentals.powerbank')}</th>
            <th scope="col">{t('ops.inbox.where')}</th>
            <th scope="col">{t('ops.inbox.seen')}</th>
            <th scope="col">{t('ops.jobs.actions')}</th>
          </tr>
        </thead>
        <tbody>
          {inbox?.quarantined.map((b) => (
            <tr key={b.id}>
              <td>{b.id}</td>
              <td>{b.cabinetId ? t('ops.inbox.slot', { cabinet: b.cabinetId, slot: b.slot ?? '—' }) : '—'}</td>
              <td>{when(b.seenAt)}</td>
              <td>
                <button
                  type="button"
                  aria-label={t('ops.inbox.releaseOne', { id: b.id })}
                  onClick={() =>
                    void actions.act(
                      `/cabinet-inbox/powerbanks/${encodeURIComponent(b.id)}/release`,
                      t('ops.inbox.released', { id: b.id }),
                    )
                  }
                >
                  {t('ops.inbox.release')}
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {inbox && !inbox.quarantined.length && <p>{t('ops.list.empty')}</p>}
      {actions.answer}
    </>
  );
}
