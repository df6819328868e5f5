// What a rental that never started did with the deposit, exactly: a card hold released (or being released), a
// top-up going back to its card at a stated time (with the choice to keep it in the wallet instead), refunded, or
// kept in the wallet. The server's answer says which (GET cdb/mine/order/deposit); the live stream says when it
// changed.
import { useCallback, useEffect, useState } from 'react';
import { errorText, useT, $activeLang } from '../i18n/index.ts';
import { getDepositBack, keepDeposit, type DepositBack as Back } from '../api/deposit.ts';
import { onLiveEvent } from '../stores/live.ts';
import { dateTime, money } from '../ui/format.ts';
import { useReturnsStrings } from '../notify/strings.ts';

export function DepositBack({ orderId }: { orderId: string }) {
  const t = useT();
  const [back, setBack] = useState<Back | null>(null);
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  const ready = useReturnsStrings();

  useEffect(() => {
    let live = true;
    const load = () =>
      getDepositBack(orderId).then(
        (b) => live && setBack(b),
        () => undefined,
      );
    void load();
    const off = onLiveEvent((e) => {
      if (e.kind === 'resync' || e.kind === 'wallet' || (e.kind === 'order' && e.orderId === orderId)) void load();
    });
    return () => {
      live = false;
      off();
    };
  }, [orderId]);

  const keep = useCallback(async () => {
    setBusy(true);
    setError('');
    try {
      setBack(await keepDeposit(orderId));
    } catch (e) {
      setError(errorText(e, t));
      void getDepositBack(orderId).then(setBack, () => undefined);
    } finally {
      setBusy(false);
    }
  }, [orderId, t]);

  if (!back || !ready) return <p className="money-note" data-testid="money-note" />;
  const amount = money(back.currency, back.amount);
  const params = {
    amount,
    refunded: money(back.currency, back.refunded),
    method: back.method ?? t('deposit.yourMethod'),
    time: dateTime(back.at, $activeLang.get()),
  };
  return (
    <>
      <p className="money-note" data-testid="money-note" data-state={back.state}>
        {t(`deposit.${back.state}`, params)}
        {back.state === 'refunded' && back.refunded < back.amount ? ` ${t('deposit.refundedPart')}` : ''}
      </p>
      {back.canKeep ? (
        <button type="button" className="button block" disabled={busy} onClick={() => void keep()}>
          {t('deposit.keep', { amount })}
        </button>
      ) : null}
      {error ? (
        <p role="alert" className="error">
          {error}
        </p>
      ) : null}
    </>
  );
}
