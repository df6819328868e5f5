// "Keep a return slot": on a venue's page, a signed-in rider with a power bank out keeps an empty slot of the venue
// for 15 minutes (cdb/return/reserve); the held slot, whether the cabinet confirmed it, until when, and giving it back.
// Its strings are the fair-returns table (locales/returns/), loaded with this panel.
import { useCallback, useEffect, useState } from 'react';
import { useStore } from '@nanostores/react';
import { $activeLang, errorText, useT } from '../i18n/index.ts';
import { $token } from '../stores/session.ts';
import { useReturnsStrings } from '../notify/strings.ts';
import {
  cancelReservation,
  currentReservation,
  reserveReturnSlot,
  type ReturnReservation,
} from '../api/reservations.ts';

export function ReturnSlot({ shopId, free }: { shopId: string; free: number }) {
  const t = useT();
  const token = useStore($token);
  const lang = useStore($activeLang);
  const ready = useReturnsStrings();
  const [r, setR] = useState<ReturnReservation | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState('');

  const refresh = useCallback(() => currentReservation().then(setR, () => undefined), []);
  useEffect(() => {
    if (token) void refresh();
  }, [token, refresh]);
  // Until the cabinet confirms, look again now and then (its ack arrives within seconds when it is reachable).
  const waiting = r?.state === 'held' && !r.confirmed;
  useEffect(() => {
    if (!waiting) return;
    const timer = setInterval(() => void refresh(), 3_000);
    return () => clearInterval(timer);
  }, [waiting, refresh]);

  if (!token || !ready) return null;
  const time = (iso: string) =>
    new Intl.DateTimeFormat(lang, { hour: '2-digit', minute: '2-digit' }).format(new Date(iso));
  const act = async (fn: () => Promise<ReturnReservation>) => {
    setBusy(true);
    setError('');
    try {
      setR(await fn());
    } catch (e) {
      setError(errorText(e, t));
    } finally {
      setBusy(false);
    }
  };
  const held = r?.state === 'held';
  const ended = r && !held && r.shopId === shopId ? r : null;
  return (
    <section className="panel return-slot" aria-labelledby="return-slot-title" data-testid="return-slot">
      <h2 id="return-slot-title" className="subtitle">
        {t('reserve.title')}
      </h2>
      <div role="status" aria-live="polite">
        {held ? (
          <>
            <p>
              {t('reserve.held', { slot: r.slot, cabinet: r.cabinetId, place: r.shopName, time: time(r.expiresAt) })}
            </p>
            <p className="muted">{r.confirmed ? t('reserve.confirmed') : t('reserve.waiting')}</p>
          </>
        ) : ended ? (
          <p>{t(`reserve.${ended.state}`, { time: time(ended.endedAt ?? ended.expiresAt) })}</p>
        ) : (
          <p>{free > 0 ? t('reserve.text') : t('reserve.full')}</p>
        )}
      </div>
      {error ? (
        <p className="error" role="alert">
          {error}
        </p>
      ) : null}
      {held ? (
        <button type="button" className="button block" disabled={busy} onClick={() => void act(cancelReservation)}>
          {t('reserve.cancel')}
        </button>
      ) : free > 0 ? (
        <button
          type="button"
          className="button block"
          disabled={busy}
          onClick={() => void act(() => reserveReturnSlot({ shopId }))}
        >
          {t('reserve.button')}
        </button>
      ) : null}
    </section>
  );
}
