// Follows a new rental until the cabinet answered: the live stream (src/stores/live.ts) says at once when the order
// changed, and POST cdb/mine/order/check/{tradeNo}/{payMode} reads the answer; while the stream is down it polls at
// the screen's spec interval (code 1 'Processing' = not yet). Then the power bank is out, or the failure screen says
// what happened to the money and what to do next, or a clear give-up message.
import { useCallback, useEffect, useRef, useState } from 'react';
import './check.css';
import { useT, errorText } from '../i18n/index.ts';
import { checkOrder, type OrderCheck as CheckResult } from '../api/orders.ts';
import { ApiError } from '../api/client.ts';
import { navigate } from '../stores/router.ts';
import { $cabinet } from '../stores/cabinet.ts';
import { $liveState, onLiveEvent } from '../stores/live.ts';
import { useStore } from '@nanostores/react';
import { emitHostEvent } from '../platform/hostEvents.ts';
import { DepositBack } from './DepositBack.tsx';
import { PushOffer } from '../notify/PushOffer.tsx';

export interface OrderCheckProps {
  tradeNo: string;
  payMode: string;
  /** Poll interval while the live stream is down (3 s on the borrow screen, 1 s on the result screen). */
  intervalMs: number;
  /** Give up after this long. */
  maxMs: number;
  /** The picture above the status while waiting and on success (a failure shows the failure icon). */
  icon?: React.ReactNode;
  /** The picture on success, when it differs from the waiting one. */
  successIcon?: React.ReactNode;
  /** Extra content under the success message (download-app button …). */
  successExtra?: React.ReactNode;
}

type Phase =
  | { kind: 'waiting' }
  | { kind: 'success'; result: CheckResult }
  | { kind: 'failed'; message: string; final: boolean }
  | { kind: 'gaveUp' };

const MAX_NETWORK_ERRORS = 3;
/** With the live stream open, a check this often only in case an event was lost. */
export const LIVE_SAFETY_POLL_MS = 10_000;

export function OrderCheck({ tradeNo, payMode, intervalMs, maxMs, icon, successIcon, successExtra }: OrderCheckProps) {
  const t = useT();
  const hasCabinet = Boolean(useStore($cabinet));
  useStore($liveState); // holds the live stream open while this screen waits
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
    let inFlight = false;
    let again = false;
    let done = false;
    setPhase({ kind: 'waiting' });
    setElapsed(0);
    const tick = setInterval(() => setElapsed(Math.min(maxMs, Date.now() - started)), 250);
    const finish = () => {
      done = true;
      clearInterval(tick);
      clearTimeout(timer);
    };
    emitHostEvent({ type: 'rental.started', tradeNo });

    const poll = async () => {
      if (done) return;
      if (inFlight) {
        again = true;
        return;
      }
      inFlight = true;
      clearTimeout(timer);
      try {
        const result = await checkOrder(tradeNo, payMode, ctrl.signal);
        if (ctrl.signal.aborted) return;
        finish();
        setPhase({ kind: 'success', result });
        emitHostEvent({ type: 'eject.confirmed', orderId: String(result.orderId) });
      } catch (e) {
        if (ctrl.signal.aborted) return;
        const transient =
          e instanceof ApiError &&
          (e.kind === 'network' || e.kind === 'timeout') &&
          ++networkErrors <= MAX_NETWORK_ERRORS;
        const processing = e instanceof ApiError && e.kind === 'processing';
        if (processing || transient) {
          if (processing) networkErrors = 0;
          const wait = $liveState.get() === 'open' ? Math.max(intervalMs, LIVE_SAFETY_POLL_MS) : intervalMs;
          const left = maxMs - (Date.now() - started);
          if (left <= 0) {
            finish();
            setPhase({ kind: 'gaveUp' });
            emitHostEvent({ type: 'eject.failed', tradeNo, code: 'timeout', message: tRef.current('check.gaveUp') });
          } else timer = setTimeout(() => void poll(), Math.min(wait, left));
          return;
        }
        finish();
        // A business refusal (eject failed: the order is cancelled) is final; anything else may pass.
        const final = e instanceof ApiError && e.kind === 'business';
        setPhase({ kind: 'failed', message: errorText(e, tRef.current), final });
        emitHostEvent({
          type: 'eject.failed',
          tradeNo,
          code: final ? 'refused' : 'network',
          message: errorText(e, tRef.current),
        });
      } finally {
        inFlight = false;
        if (again && !done) {
          again = false;
          void poll();
        }
      }
    };
    // The cabinet answered (popped / pop-failed) or the stream reopened: check now rather than at the next poll.
    const off = onLiveEvent((e) => {
      if (e.kind === 'resync' || (e.kind === 'order' && e.orderId === tradeNo)) void poll();
    });
    void poll();
    return () => {
      off();
      ctrl.abort();
      finish();
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

  const failed = phase.kind === 'failed' || phase.kind === 'gaveUp';
  const remaining = Math.max(0, Math.ceil((maxMs - elapsed) / 1000));
  return (
    <div className="check">
      <div className="hero" aria-hidden="true">
        {failed ? <FailIcon /> : phase.kind === 'success' && successIcon ? successIcon : icon}
      </div>
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
            <h2 className="title error-title">{phase.final ? t('check.jamTitle') : t('check.failedTitle')}</h2>
            <p>{phase.final ? t('check.jamText') : phase.message}</p>
            {phase.final ? <DepositBack orderId={tradeNo} /> : null}
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
          <PushOffer />
        </>
      ) : null}

      {failed ? (
        <div className="actions">
          {phase.kind === 'failed' && phase.final ? (
            <>
              {/* The next step: another cabinet with power banks (the map lists the nearest with stock first). */}
              <button type="button" className="button primary block" onClick={() => navigate('/google_map')}>
                {t('check.otherCabinet')}
              </button>
              {hasCabinet ? (
                // The rental was cancelled: trying again means renting again at the cabinet.
                <button type="button" className="button block" onClick={() => navigate('/home')}>
                  {t('check.reload')}
                </button>
              ) : null}
            </>
          ) : (
            <button type="button" className="button primary block" onClick={retry}>
              {phase.kind === 'failed' ? t('check.reload') : t('check.checkAgain')}
            </button>
          )}
          <button type="button" className="button block" onClick={() => navigate('/contactUs')}>
            {t('check.support')}
          </button>
          <button type="button" className="button link block" onClick={() => navigate('/order')}>
            {t('check.viewOrders')}
          </button>
        </div>
      ) : null}
    </div>
  );
}

/** The failure picture: a warning sign in the error colour (never the success screen's battery). */
export function FailIcon() {
  return (
    <svg viewBox="0 0 64 64" width="72" height="72" focusable="false" data-testid="fail-icon">
      <circle cx="32" cy="32" r="28" fill="var(--danger, #b3261e)" />
      <rect x="29" y="15" width="6" height="24" rx="3" fill="#fff" />
      <circle cx="32" cy="47" r="4" fill="#fff" />
    </svg>
  );
}
