// Polls POST cdb/mine/order/check/{tradeNo}/{payMode} while the server answers 'Processing' (code 1),
// with a countdown; then the power bank is out, or the error with a retry, or a clear give-up message.
import { useCallback, useEffect, useRef, useState } from 'react';
import { useT, errorText } from '../i18n/index.ts';
import { checkOrder, type OrderCheck as CheckResult } from '../api/orders.ts';
import { ApiError } from '../api/client.ts';
import { navigate } from '../stores/router.ts';
import { $cabinet } from '../stores/cabinet.ts';
import { useStore } from '@nanostores/react';
import { emitHostEvent } from '../platform/hostEvents.ts';

export interface OrderCheckProps {
  tradeNo: string;
  payMode: string;
  intervalMs: number;
  /** Give up after this long. */
  maxMs: number;
  /** Extra content under the success message (download-app button …). */
  successExtra?: React.ReactNode;
}

type Phase = { kind: 'waiting' } | { kind: 'success'; result: CheckResult } | { kind: 'failed'; message: string; final: boolean } | { kind: 'gaveUp' };

const MAX_NETWORK_ERRORS = 3;

export function OrderCheck({ tradeNo, payMode, intervalMs, maxMs, successExtra }: OrderCheckProps) {
  const t = useT();
  const hasCabinet = Boolean(useStore($cabinet));
  const [phase, setPhase] = useState<Phase>({ kind: 'waiting' });
  const [elapsed, setElapsed] = useState(0);
  const [run, setRun] = useState(0);
  const tRef = useRef(t);
  tRef.current = t;

  useEffect(() => {
    if (!tradeNo) return;
    const ctrl = new AbortController();
    const started = Date.now();
    let timer: ReturnType<typeof setTimeout> | undefined;
    let networkErrors = 0;
    setPhase({ kind: 'waiting' });
    setElapsed(0);
    const tick = setInterval(() => setElapsed(Math.min(maxMs, Date.now() - started)), 250);
    emitHostEvent({ type: 'rental.started', tradeNo });

    const poll = async () => {
      try {
        const result = await checkOrder(tradeNo, payMode, ctrl.signal);
        if (ctrl.signal.aborted) return;
        clearInterval(tick);
        setPhase({ kind: 'success', result });
        emitHostEvent({ type: 'eject.confirmed', orderId: String(result.orderId) });
      } catch (e) {
        if (ctrl.signal.aborted) return;
        const transient = e instanceof ApiError && (e.kind === 'network' || e.kind === 'timeout') && ++networkErrors <= MAX_NETWORK_ERRORS;
        const processing = e instanceof ApiError && e.kind === 'processing';
        if (processing || transient) {
          if (processing) networkErrors = 0;
          if (Date.now() - started + intervalMs > maxMs) {
            clearInterval(tick);
            setPhase({ kind: 'gaveUp' });
            emitHostEvent({ type: 'eject.failed', tradeNo, code: 'timeout', message: tRef.current('check.gaveUp') });
          } else timer = setTimeout(() => void poll(), intervalMs);
          return;
        }
        clearInterval(tick);
        // A business refusal (eject failed: the order is cancelled) is final; anything else may pass.
        const final = e instanceof ApiError && e.kind === 'business';
        setPhase({ kind: 'failed', message: errorText(e, tRef.current), final });
        emitHostEvent({ type: 'eject.failed', tradeNo, code: final ? 'refused' : 'network', message: errorText(e, tRef.current) });
      }
    };
    void poll();
    return () => {
      ctrl.abort();
      clearTimeout(timer);
      clearInterval(tick);
    };
  }, [tradeNo, payMode, intervalMs, maxMs, run]);

  const retry = useCallback(() => setRun((n) => n + 1), []);

  if (!tradeNo) {
    return (
      <div className="panel" role="alert">
        <p>{t('check.noTrade')}</p>
        <button type="button" className="button primary" onClick={() => navigate('/order')}>
          {t('check.viewOrders')}
        </button>
      </div>
    );
  }

  const remaining = Math.max(0, Math.ceil((maxMs - elapsed) / 1000));
  return (
    <div className="check">
      <div role="status" aria-live="polite" aria-atomic="true" className="check-status">
        {phase.kind === 'waiting' ? (
          <h2 className="title">{t('check.waitingTitle')}</h2>
        ) : phase.kind === 'success' ? (
          <>
            <h2 className="title success-title">{t('check.successTitle')}</h2>
            <p>
              {phase.result.shebei
                ? t('check.successDetail', { id: phase.result.shebei, slot: phase.result.number })
                : t('check.successGeneric')}
            </p>
          </>
        ) : phase.kind === 'failed' ? (
          <>
            <h2 className="title error-title">{t('check.failedTitle')}</h2>
            <p>{phase.message}</p>
          </>
        ) : (
          <>
            <h2 className="title error-title">{t('check.gaveUpTitle')}</h2>
            <p>{t('check.gaveUp')}</p>
          </>
        )}
      </div>

      {phase.kind === 'waiting' ? (
        // The countdown sits outside the live region so screen readers are not told every second.
        <>
          <p className="muted">{t('check.waiting', { s: remaining })}</p>
          <progress className="progress" max={maxMs} value={elapsed} aria-label={t('check.progress')} />
        </>
      ) : null}

      {phase.kind === 'success' ? (
        <>
          <ol className="steps">
            <li>{t('check.next1')}</li>
            <li>{t('check.next2')}</li>
            <li>{t('check.next3')}</li>
          </ol>
          <button type="button" className="button primary block" onClick={() => navigate('/order')}>
            {t('check.viewOrders')}
          </button>
          {successExtra}
        </>
      ) : null}

      {phase.kind === 'failed' || phase.kind === 'gaveUp' ? (
        <div className="actions">
          {phase.kind === 'failed' && phase.final && hasCabinet ? (
            // The rental was cancelled: try again means renting again at the cabinet.
            <button type="button" className="button primary block" onClick={() => navigate('/home')}>
              {t('check.reload')}
            </button>
          ) : (
            <button type="button" className="button primary block" onClick={retry}>
              {phase.kind === 'failed' ? t('check.reload') : t('check.checkAgain')}
            </button>
          )}
          <button type="button" className="button block" onClick={() => navigate('/order')}>
            {t('check.viewOrders')}
          </button>
        </div>
      ) : null}
    </div>
  );
}
