// Pickup by a QR code shown to the box (/scanOrder, "QR pickup polling"): the dialog shows the package's
// code for the box to read and polls checkPickUp every 2 s: pickUp_msg → failure (the dialog closes and says why);
// 0 keeps waiting; 1 loading; 2 success; anything else refreshes the list and closes. A box that has not read the
// code within QR_PICKUP_TIMEOUT_MS ends the wait: the dialog closes and says so (the box reports what it read
// through its cabinet, docs/cabinet-protocol.md `box-code-read`).
import { useEffect, useMemo, useState } from 'react';
import { encode } from 'uqr';
import { errorText, useT } from '../i18n/index.ts';
import { checkPickUp, type MifiPackage } from '../api/mifi.ts';
import { PICKUP_POLL_MS, QR_PICKUP_TIMEOUT_MS, pickupOutcome } from '../core/mifi.ts';
import { Dialog } from '../ui/Dialog.tsx';
import { showMessage } from '../ui/feedback.tsx';
import { useLatest } from '../ui/hooks.ts';

/** The code as an SVG of dark modules (no markup strings). */
export function QrCode({ text, label }: { text: string; label: string }) {
  const { size, data } = useMemo(() => encode(text, { border: 2 }), [text]);
  const path = useMemo(() => {
    let d = '';
    data.forEach((row, y) =>
      row.forEach((on, x) => {
        if (on) d += `M${x} ${y}h1v1h-1z`;
      }),
    );
    return d;
  }, [data]);
  return (
    <svg className="mifi-qr" viewBox={`0 0 ${size} ${size}`} role="img" aria-label={label} shapeRendering="crispEdges">
      <rect width={size} height={size} fill="#fff" />
      <path d={path} fill="#000" />
    </svg>
  );
}

export function QrPickupDialog({
  pkg,
  onClose,
  onPicked,
  onRefresh,
  timeoutMs = QR_PICKUP_TIMEOUT_MS,
}: {
  pkg: MifiPackage;
  onClose: () => void;
  onPicked: (p: MifiPackage) => void;
  onRefresh: () => void;
  /** How long to wait for the box to read the code. */
  timeoutMs?: number;
}) {
  const t = useT();
  const [phase, setPhase] = useState<'waiting' | 'loading'>('waiting');
  const cb = useLatest({ onClose, onPicked, onRefresh });

  useEffect(() => {
    const ctl = new AbortController();
    let timer: ReturnType<typeof setTimeout>;
    const finish = () => ctl.abort();
    const started = Date.now();
    const poll = async () => {
      try {
        const r = await checkPickUp(pkg.orderId, ctl.signal);
        if (ctl.signal.aborted) return;
        const o = pickupOutcome(r);
        if (o === 'failed') {
          finish();
          cb.current.onClose();
          void showMessage({ title: t('mifi.pickupFailed'), text: r.pickUp_msg ?? '', role: 'alertdialog' });
          return;
        }
        if (o === 'success') {
          finish();
          cb.current.onPicked({ ...pkg, productSendSn: r.productSendSn ?? pkg.productSendSn });
          return;
        }
        if (o === 'refresh') {
          finish();
          cb.current.onRefresh();
          cb.current.onClose();
          return;
        }
        setPhase(o);
      } catch (e) {
        if (ctl.signal.aborted) return;
        setPhase('waiting');
        if (!(e instanceof Error && e.name === 'AbortError')) console.warn('checkPickUp', errorText(e, t));
      }
      if (Date.now() - started >= timeoutMs) {
        finish();
        cb.current.onClose();
        void showMessage({ title: t('mifi.qr.timeoutTitle'), text: t('mifi.qr.timeout'), role: 'alertdialog' });
        return;
      }
      timer = setTimeout(() => void poll(), PICKUP_POLL_MS);
    };
    timer = setTimeout(() => void poll(), PICKUP_POLL_MS);
    return () => {
      clearTimeout(timer);
      ctl.abort();
    };
  }, [pkg, t, cb, timeoutMs]);

  return (
    <Dialog
      open
      title={t('mifi.qr.title')}
      onClose={onClose}
      actions={
        <button type="button" className="button" onClick={onClose}>
          {t('mifi.qr.close')}
        </button>
      }
    >
      <p>{t('mifi.qr.hint')}</p>
      <QrCode text={pkg.orderId} label={t('mifi.qr.codeLabel', { code: pkg.orderId })} />
      <p className="mifi-code">
        {t('mifi.qr.code')} <code data-testid="pickup-code">{pkg.orderId}</code>
      </p>
      <p role="status" aria-live="polite">
        {phase === 'loading' ? t('mifi.qr.loading') : t('mifi.qr.waiting')}
      </p>
    </Dialog>
  );
}
