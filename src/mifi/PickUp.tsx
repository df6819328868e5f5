// Route '/pickUp' [orderId]: pick up the box of a package at a cabinet (spec §7 pickup {qrcode, pickOrderId}): the
// cabinet scanned last, or another one's code; the cabinet ejects a box, checkPickUp is polled every 2 s until the
// box is bound (→ /packageDetail) or the eject failed (the pickup failure dialog, spec §8). A box handed over by
// hand is bound by its serial instead (bind sn; spec §5: it needs the serial, mifisn).
import { useEffect, useId, useRef, useState, type FormEvent } from 'react';
import { useStore } from '@nanostores/react';
import { errorText, useT } from '../i18n/index.ts';
import { $route, href, navigate } from '../stores/router.ts';
import { $qrcode } from '../stores/scan.ts';
import { $cabinet } from '../stores/cabinet.ts';
import { $mifisn } from '../stores/mifi.ts';
import { bindSn, checkPickUp, pickup } from '../api/mifi.ts';
import { PICKUP_POLL_MS, canBind, canPickUp, pickupOutcome } from '../core/mifi.ts';
import { cabinetCodeFrom } from '../core/codeLink.ts';
import { showMessage, toast } from '../ui/feedback.tsx';
import { MifiScreen } from './common.tsx';

export default function PickUp() {
  return <MifiScreen title="mifi.pickup.title" className="pick-up">{() => <Pick />}</MifiScreen>;
}

function Pick() {
  const t = useT();
  const { query } = useStore($route);
  const orderId = query.get('orderId') ?? '';
  const stored = useStore($qrcode);
  const cabinet = useStore($cabinet);
  const codeId = useId();
  const snId = useId();
  const [code, setCode] = useState(stored || cabinet?.qrcode || '');
  const [sn, setSn] = useState('');
  const [state, setState] = useState<'idle' | 'ejecting'>('idle');
  const poll = useRef<AbortController | null>(null);
  useEffect(() => () => poll.current?.abort(), []);

  const wait = (ctl: AbortController) => {
    setTimeout(() => {
      if (ctl.signal.aborted) return;
      checkPickUp(orderId, ctl.signal).then((r) => {
        if (ctl.signal.aborted) return;
        const o = pickupOutcome(r);
        if (o === 'success') {
          if (r.productSendSn) $mifisn.set(r.productSendSn);
          navigate(href('/packageDetail', { orderId }), { replace: true });
        } else if (o === 'failed') {
          setState('idle');
          void showMessage({ title: t('mifi.pickupFailed'), text: r.pickUp_msg ?? '', role: 'alertdialog' });
        } else wait(ctl);
      }, () => !ctl.signal.aborted && wait(ctl));
    }, PICKUP_POLL_MS);
  };

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (!canPickUp({ orderId })) {
      toast(t('mifi.pickList.choose'));
      return;
    }
    const qrcode = code.trim();
    if (!cabinetCodeFrom(qrcode)) {
      toast(t('mifi.pickup.codeNeeded'));
      return;
    }
    setState('ejecting');
    try {
      await pickup(qrcode, orderId);
      poll.current?.abort();
      const ctl = new AbortController();
      poll.current = ctl;
      wait(ctl);
    } catch (err) {
      setState('idle');
      void showMessage({ title: t('mifi.pickupFailed'), text: errorText(err, t), role: 'alertdialog' });
    }
  };

  const bind = async (e: FormEvent) => {
    e.preventDefault();
    if (!canBind(sn, { orderId })) {
      toast(t('mifi.pickup.snNeeded'));
      return;
    }
    try {
      await bindSn(sn.trim(), orderId);
      $mifisn.set(sn.trim());
      navigate(href('/packageDetail', { orderId }), { replace: true });
    } catch (err) {
      void showMessage({ title: t('mifi.pickupFailed'), text: errorText(err, t), role: 'alertdialog' });
    }
  };

  return (
    <>
      <form onSubmit={(e) => void submit(e)} className="actions">
        <p>{t('mifi.pickup.hint', { order: orderId })}</p>
        <div className="field">
          <label htmlFor={codeId}>{t('mifi.pickup.code')}</label>
          <input id={codeId} value={code} onChange={(e) => setCode(e.target.value)} autoComplete="off" />
        </div>
        <button type="submit" className="button primary block" disabled={state === 'ejecting'}>
          {t('mifi.pickup.submit')}
        </button>
        <p role="status" aria-live="polite">{state === 'ejecting' ? t('mifi.pickup.ejecting') : ''}</p>
      </form>
      <form onSubmit={(e) => void bind(e)} className="actions" aria-labelledby={`${snId}-h`}>
        <h2 id={`${snId}-h`} className="section-title">{t('mifi.pickup.byHand')}</h2>
        <div className="field">
          <label htmlFor={snId}>{t('mifi.pickup.sn')}</label>
          <input id={snId} value={sn} onChange={(e) => setSn(e.target.value)} autoComplete="off" />
        </div>
        <button type="submit" className="button block">
          {t('mifi.pickup.bind')}
        </button>
      </form>
    </>
  );
}
