// "I returned it" on an open or charged order: the rider names the cabinet and about when; the server checks the
// cabinets' own records (POST cdb/mine/order/claimReturn). A match ends the rental at the cabinet's time; otherwise
// the claim waits for the support team, and its state (and their answer) shows here.
import { useEffect, useId, useState } from 'react';
import { errorText, useT, $activeLang } from '../i18n/index.ts';
import { api } from '../api/client.ts';
import type { ReturnClaim as Claim } from '../contract/returns.ts';
import { useReturnsStrings } from '../notify/strings.ts';
import { dateTime } from '../ui/format.ts';

const localNow = () => {
  const d = new Date();
  d.setMinutes(d.getMinutes() - d.getTimezoneOffset());
  return d.toISOString().slice(0, 16);
};

/** `canClaim`: the order is open or charged (a settled order shows only its claim's state, if it has one). */
export function ReturnClaim({
  orderId,
  canClaim,
  onSettled,
}: {
  orderId: string;
  canClaim: boolean;
  onSettled: () => void;
}) {
  const t = useT();
  const ready = useReturnsStrings();
  const id = useId();
  const [claim, setClaim] = useState<Claim | null>(null);
  const [open, setOpen] = useState(false);
  const [cabinet, setCabinet] = useState('');
  const [when, setWhen] = useState(localNow);
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    void api.get<Claim | null>('cdb/mine/order/claim', { query: { orderId } }).then(setClaim, () => undefined);
  }, [orderId]);

  if (!ready || (!canClaim && !claim)) return null;
  const submit = async (e: React.FormEvent) => {
    e.preventDefault();
    setError('');
    if (!cabinet.trim()) return setError(t('claim.cabinetRequired'));
    setBusy(true);
    try {
      const c = await api.post<Claim>('cdb/mine/order/claimReturn', {
        body: { orderId, cabinetId: cabinet.trim(), at: new Date(when).toISOString() },
        json: true,
      });
      setClaim(c);
      setOpen(false);
      if (c.state === 'matched') onSettled();
    } catch (err) {
      setError(errorText(err, t));
    } finally {
      setBusy(false);
    }
  };
  const lang = $activeLang.get();
  return (
    <section className="panel return-claim" aria-labelledby={`${id}-title`} data-testid="return-claim">
      <h3 id={`${id}-title`}>{t('claim.title')}</h3>
      <div role="status" aria-live="polite">
        {claim ? (
          <p data-state={claim.state}>{t(`claim.state.${claim.state}`, { time: dateTime(claim.createdAt, lang) })}</p>
        ) : null}
        {claim?.message ? <p>{claim.message}</p> : null}
      </div>
      {!canClaim || claim?.state === 'open' || claim?.state === 'matched' ? null : open ? (
        <form onSubmit={(e) => void submit(e)} noValidate>
          <label htmlFor={`${id}-cabinet`}>{t('claim.cabinet')}</label>
          <input
            id={`${id}-cabinet`}
            className="input"
            value={cabinet}
            onChange={(e) => setCabinet(e.currentTarget.value)}
            autoComplete="off"
            required
            aria-invalid={Boolean(error) || undefined}
          />
          <label htmlFor={`${id}-when`}>{t('claim.when')}</label>
          <input
            id={`${id}-when`}
            className="input"
            type="datetime-local"
            value={when}
            onChange={(e) => setWhen(e.currentTarget.value)}
            required
          />
          {error ? (
            <p role="alert" className="error">
              {error}
            </p>
          ) : null}
          <button type="submit" className="button primary block" disabled={busy}>
            {t('claim.submit')}
          </button>
        </form>
      ) : (
        <button type="button" className="button block" onClick={() => setOpen(true)}>
          {t('claim.open')}
        </button>
      )}
    </section>
  );
}
