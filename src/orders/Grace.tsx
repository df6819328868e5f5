// A grace period on an open rental: when no cabinet near the rider is open with a free slot, the rental can be paused
// until the next opening nearby (GET/POST cdb/mine/order/grace). The rider asks for a check with their position;
// the pause is offered only when the server says it applies, and a running one shows until when.
import { useId, useState } from 'react';
import { errorText, useT, $activeLang } from '../i18n/index.ts';
import { api } from '../api/client.ts';
import type { GraceAnswer } from '../contract/returns.ts';
import type { Order } from '../api/orders.ts';
import { useReturnsStrings } from '../notify/strings.ts';
import { dateTime } from '../ui/format.ts';

type Here = { lat: number; lng: number };

function position(): Promise<Here> {
  return new Promise((resolve, reject) => {
    if (typeof navigator === 'undefined' || !navigator.geolocation) return reject(new Error('geolocation'));
    navigator.geolocation.getCurrentPosition(
      (p) => resolve({ lat: p.coords.latitude, lng: p.coords.longitude }),
      reject,
      { enableHighAccuracy: true, timeout: 10_000, maximumAge: 60_000 },
    );
  });
}

export function Grace({ order, onGranted }: { order: Order; onGranted: () => void }) {
  const t = useT();
  const ready = useReturnsStrings();
  const id = useId();
  const [here, setHere] = useState<Here | null>(null);
  const [answer, setAnswer] = useState<GraceAnswer | null>(null);
  const [note, setNote] = useState('');
  const [busy, setBusy] = useState(false);
  // The running one by the server's clock (the order is read again when it changes).
  const active = order.graceUntil ? { until: order.graceUntil } : null;
  if (!ready) return null;
  const lang = $activeLang.get();
  const metres = (m: number) =>
    new Intl.NumberFormat(lang, { style: 'unit', unit: 'meter', maximumFractionDigits: 0 }).format(m);

  const check = async () => {
    setNote('');
    setBusy(true);
    try {
      const at = here ?? (await position().catch(() => null));
      if (!at) return setNote(t('grace.noPosition'));
      setHere(at);
      setAnswer(
        await api.get<GraceAnswer>('cdb/mine/order/grace', {
          query: { orderId: order.pOrderid, lat: String(at.lat), lng: String(at.lng) },
        }),
      );
    } catch (err) {
      setNote(errorText(err, t));
    } finally {
      setBusy(false);
    }
  };
  const ask = async () => {
    if (!here) return;
    setNote('');
    setBusy(true);
    try {
      await api.post('cdb/mine/order/grace', {
        body: { orderId: order.pOrderid, lat: here.lat, lng: here.lng },
        json: true,
      });
      setAnswer(null);
      onGranted();
    } catch (err) {
      setNote(errorText(err, t));
    } finally {
      setBusy(false);
    }
  };

  return (
    <section className="panel grace" aria-labelledby={`${id}-title`} data-testid="grace">
      <h3 id={`${id}-title`}>{t('grace.title')}</h3>
      <div role="status" aria-live="polite">
        {active ? (
          <p data-testid="grace-active">{t('grace.active', { time: dateTime(active.until, lang) })}</p>
        ) : answer && !answer.applies && answer.place ? (
          <p>{t('grace.returnThere', { place: answer.place.name, distance: metres(answer.place.distanceM) })}</p>
        ) : answer?.applies && answer.until ? (
          <p>
            {answer.reason === 'closed' && answer.place
              ? t('grace.closed', {
                  radius: metres(answer.radiusM),
                  place: answer.place.name,
                  time: dateTime(answer.until, lang),
                })
              : t('grace.nowhere', { radius: metres(answer.radiusM) })}
          </p>
        ) : (
          <p className="muted">{t('grace.text')}</p>
        )}
        {note ? <p className="error">{note}</p> : null}
      </div>
      {active ? null : answer?.applies && answer.until ? (
        <button type="button" className="button primary block" disabled={busy} onClick={() => void ask()}>
          {t('grace.ask', { time: dateTime(answer.until, lang) })}
        </button>
      ) : (
        <button type="button" className="button block" disabled={busy} onClick={() => void check()}>
          {t('grace.check')}
        </button>
      )}
    </section>
  );
}
