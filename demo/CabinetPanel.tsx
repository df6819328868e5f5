// The cabinet panel: every simulated cabinet with its slots, the power banks out on rent, and the two
// things a person standing at a cabinet can do: push a power bank back in, or (demo only) jam the next eject.
import { useCallback, useEffect, useId, useState } from 'react';
import { errorText, useT } from '../src/i18n/index.ts';
import { demoState, failNextEject, returnPowerbank, type DemoState } from './api.ts';
import { BoxPanel } from './BoxPanel.tsx';

const REFRESH_MS = 2000;

export function CabinetPanel() {
  const t = useT();
  const [state, setState] = useState<DemoState | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [status, setStatus] = useState('');

  const refresh = useCallback(async () => {
    try {
      setState(await demoState());
      setError(null);
    } catch (e) {
      setError(errorText(e, t));
    }
  }, [t]);

  useEffect(() => {
    void refresh();
    const timer = setInterval(() => void refresh(), REFRESH_MS);
    return () => clearInterval(timer);
  }, [refresh]);

  const act = async (fn: () => Promise<unknown>, done: string) => {
    try {
      await fn();
      setStatus(done);
    } catch (e) {
      setStatus(errorText(e, t));
    }
    await refresh();
  };

  if (error && !state) return <p role="alert">{error}</p>;
  if (!state) return <p className="muted">{t('common.loading')}</p>;

  return (
    <div className="demo-panel">
      <p role="status" aria-live="polite" className="demo-status">
        {status}
      </p>
      <section aria-labelledby="out-title" className="panel">
        <h2 id="out-title" className="section-title">
          {t('demo.outOnRent')}
        </h2>
        {state.outOnRent.length === 0 ? (
          <p className="muted">{t('demo.noneOut')}</p>
        ) : (
          <ul className="demo-list">
            {state.outOnRent.map((p) => (
              <ReturnRow
                key={p.powerbankId}
                powerbankId={p.powerbankId}
                fromCabinetId={p.fromCabinetId}
                cabinets={state.cabinets.map((c) => ({
                  id: c.cabinetId,
                  name: c.venueName,
                  free: c.slots.some((s) => !s.powerbankId),
                }))}
                onReturn={(cabinetId) =>
                  void act(
                    () => returnPowerbank(cabinetId, p.powerbankId),
                    t('demo.returned', { powerbank: p.powerbankId, cabinet: cabinetId }),
                  )
                }
              />
            ))}
          </ul>
        )}
      </section>
      <BoxPanel state={state} act={act} />
      <section aria-labelledby="cab-title" className="panel">
        <h2 id="cab-title" className="section-title">
          {t('demo.cabinets')}
        </h2>
        <ul className="demo-list">
          {state.cabinets.map((c) => {
            const full = c.slots.filter((s) => s.powerbankId).length;
            return (
              <li key={c.cabinetId} className="demo-cabinet" aria-label={`${c.venueName} ${c.cabinetId}`}>
                <div className="demo-cabinet-head">
                  <strong>{c.venueName}</strong> <code>{c.cabinetId}</code> <span>{c.currency}</span>{' '}
                  <span className={c.online ? 'demo-online' : 'demo-offline'}>
                    {c.online ? t('demo.online') : t('demo.offline')}
                  </span>
                </div>
                <p className="small">{t('demo.slots', { full, total: c.slots.length })}</p>
                <ol className="demo-slots" aria-label={t('demo.slotsLabel')}>
                  {c.slots.map((s) => (
                    <li
                      key={s.slot}
                      className={s.powerbankId ? 'full' : 'empty'}
                      title={s.powerbankId ?? t('demo.emptySlot')}
                    >
                      <span className="visually-hidden">
                        {t('demo.slot', { slot: s.slot })}: {s.powerbankId ?? t('demo.emptySlot')}
                      </span>
                    </li>
                  ))}
                </ol>
                <div className="demo-actions">
                  <a className="button small primary" href={`/?qrcode=${encodeURIComponent(c.cabinetId)}`}>
                    {t('demo.scan', { cabinet: c.cabinetId })}
                  </a>
                  <button
                    type="button"
                    className="button small"
                    onClick={() =>
                      void act(() => failNextEject(c.cabinetId), t('demo.jammed', { cabinet: c.cabinetId }))
                    }
                  >
                    {t('demo.failNext', { cabinet: c.cabinetId })}
                  </button>
                </div>
              </li>
            );
          })}
        </ul>
      </section>
    </div>
  );
}

function ReturnRow(props: {
  powerbankId: string;
  fromCabinetId: string;
  cabinets: { id: string; name: string; free: boolean }[];
  onReturn: (cabinetId: string) => void;
}) {
  const t = useT();
  const id = useId();
  const choices = props.cabinets.filter((c) => c.free);
  const [target, setTarget] = useState(choices[0]?.id ?? '');
  const chosen = choices.some((c) => c.id === target) ? target : (choices[0]?.id ?? '');
  return (
    <li className="demo-return">
      <span>
        <code>{props.powerbankId}</code>{' '}
        <span className="small muted">{t('demo.from', { cabinet: props.fromCabinetId })}</span>
      </span>
      <label htmlFor={id}>{t('demo.returnTo', { powerbank: props.powerbankId })}</label>
      <select id={id} value={chosen} onChange={(e) => setTarget(e.target.value)}>
        {choices.map((c) => (
          <option key={c.id} value={c.id}>
            {c.name} ({c.id})
          </option>
        ))}
      </select>
      <button type="button" className="button small primary" disabled={!chosen} onClick={() => props.onReturn(chosen)}>
        {t('demo.return', { powerbank: props.powerbankId })}
      </button>
    </li>
  );
}
