// Route '/pickUp' [orderId, qrcode]: pick up the box of a package at a cabinet (pickup {qrcode, pickOrderId}): the
// cabinet scanned last, another one's code, or one read by the camera (/scanQr, which comes back with qrcode and
// starts the pickup); the cabinet ejects a box, checkPickUp is polled every 2 s until the
// box is bound (→ /packageDetail) or the eject failed (the pickup failure dialog). A box handed over by
// hand is bound by its serial instead (bind sn it needs the serial, mifisn). A package bought without a
// box (deviceOrderStatus 0) first pays the box deposit through /confirm (payType mifi, mifiDeposit: any method the
// list offers; cabinetDisposit), which comes back here (deposit=paid).
import { useEffect, useId, useRef, useState, type FormEvent } from 'react';
import { useStore } from '@nanostores/react';
import { $activeLang, errorText, useT } from '../i18n/index.ts';
import { $route, href, navigate } from '../stores/router.ts';
import { $qrcode } from '../stores/scan.ts';
import { $cabinet } from '../stores/cabinet.ts';
import { $mifisn } from '../stores/mifi.ts';
import { bindSn, checkPickUp, packageInfo, packageVariants, pickup, type MifiPackage } from '../api/mifi.ts';
import { DEVICE_ORDER_STATUS, PICKUP_POLL_MS, canBind, canPickUp, pickupOutcome } from '../core/mifi.ts';
import { cabinetCodeFrom } from '../core/codeLink.ts';
import { showMessage, toast } from '../ui/feedback.tsx';
import { Loading } from '../ui/Loading.tsx';
import { depositPayHref, MifiScreen, useMoney } from './common.tsx';

export default function PickUp() {
  return (
    <MifiScreen title="mifi.pickup.title" className="pick-up">
      {() => <Pick />}
    </MifiScreen>
  );
}

/** The package and, when it has no box ordered yet, the box deposit it must pay first (major units). */
function usePackage(orderId: string) {
  const lang = useStore($activeLang);
  const [state, setState] = useState<{ p: MifiPackage; deposit: number | null } | { error: unknown } | null>(null);
  useEffect(() => {
    let live = true;
    if (!orderId) return;
    void (async () => {
      const p = await packageInfo(orderId);
      let deposit: number | null = null;
      if (p.deviceOrderStatus === DEVICE_ORDER_STATUS.none) {
        // The box deposit in the package's currency (the server's, as the mall shows it).
        const v = await packageVariants(p.skuId, p.country || undefined, p.currency);
        deposit = v.find((x) => x.skuId === p.skuId)?.depositAmount ?? v[0]?.depositAmount ?? null;
      }
      if (live) setState({ p, deposit });
    })().catch((error: unknown) => live && setState({ error }));
    return () => void (live = false);
  }, [orderId, lang]);
  return state;
}

function Pick() {
  const t = useT();
  const { query } = useStore($route);
  const orderId = query.get('orderId') ?? '';
  const pkg = usePackage(orderId);
  // No package chosen: the forms say so when submitted (pickup needs a chosen package).
  if (!orderId) return <PickForms orderId="" depositPaid={false} scanned="" />;
  if (!pkg) return <Loading label={t('common.loading')} />;
  if ('error' in pkg) return <p role="alert">{errorText(pkg.error, t)}</p>;
  if (pkg.p.deviceOrderStatus === DEVICE_ORDER_STATUS.none && pkg.deposit != null)
    return <DepositStep p={pkg.p} deposit={pkg.deposit} />;
  return (
    <PickForms orderId={orderId} depositPaid={query.get('deposit') === 'paid'} scanned={query.get('qrcode') ?? ''} />
  );
}

/** A package bought without a box: the box deposit first, paid with any method (held where the method can hold). */
function DepositStep({ p, deposit }: { p: MifiPackage; deposit: number }) {
  const t = useT();
  const money = useMoney();
  const id = useId();
  const amount = money(p.currency, deposit);
  return (
    <section className="actions" aria-labelledby={id}>
      <h2 id={id} className="section-title">
        {t('mifi.pickup.depositTitle')}
      </h2>
      <p>{t('mifi.pickup.depositText', { amount, order: p.orderId })}</p>
      <a className="button primary block" href={'#' + depositPayHref(p, deposit)}>
        {t('mifi.pickup.payDeposit', { amount })}
      </a>
    </section>
  );
}

function PickForms({ orderId, depositPaid, scanned }: { orderId: string; depositPaid: boolean; scanned: string }) {
  const t = useT();
  const stored = useStore($qrcode);
  const cabinet = useStore($cabinet);
  const codeId = useId();
  const snId = useId();
  const [code, setCode] = useState(scanned || stored || cabinet?.qrcode || '');
  const [sn, setSn] = useState('');
  const [state, setState] = useState<'idle' | 'ejecting'>('idle');
  const poll = useRef<AbortController | null>(null);
  // Leaving the screen ends the polling, also one a pickup answered after the user left starts.
  const gone = useRef(false);
  useEffect(() => {
    gone.current = false;
    return () => {
      gone.current = true;
      poll.current?.abort();
    };
  }, []);

  const wait = (ctl: AbortController) => {
    const timer = setTimeout(() => {
      if (ctl.signal.aborted) return;
      checkPickUp(orderId, ctl.signal).then(
        (r) => {
          if (ctl.signal.aborted) return;
          const o = pickupOutcome(r);
          if (o === 'success') {
            if (r.productSendSn) $mifisn.set(r.productSendSn);
            navigate(href('/packageDetail', { orderId }), { replace: true });
          } else if (o === 'failed') {
            setState('idle');
            void showMessage({ title: t('mifi.pickupFailed'), text: r.pickUp_msg ?? '', role: 'alertdialog' });
          } else wait(ctl);
        },
        () => !ctl.signal.aborted && wait(ctl),
      );
    }, PICKUP_POLL_MS);
    ctl.signal.addEventListener('abort', () => clearTimeout(timer), { once: true });
  };

  const start = async (text: string) => {
    if (!canPickUp({ orderId })) {
      toast(t('mifi.pickList.choose'));
      return;
    }
    const qrcode = text.trim();
    if (!cabinetCodeFrom(qrcode)) {
      toast(t('mifi.pickup.codeNeeded'));
      return;
    }
    setState('ejecting');
    try {
      await pickup(qrcode, orderId);
      if (gone.current) return;
      poll.current?.abort();
      const ctl = new AbortController();
      poll.current = ctl;
      wait(ctl);
    } catch (err) {
      setState('idle');
      void showMessage({ title: t('mifi.pickupFailed'), text: errorText(err, t), role: 'alertdialog' });
    }
  };

  const submit = (e: FormEvent) => {
    e.preventDefault();
    void start(code);
  };
  // A cabinet read by the camera (/scanQr): the pickup starts at once, as the scan asked.
  const started = useRef(false);
  useEffect(() => {
    if (!scanned || started.current) return;
    started.current = true;
    void start(scanned);
    // eslint-disable-next-line react-hooks/exhaustive-deps -- once, for the code the scan brought
  }, [scanned]);

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
      {depositPaid ? (
        <p className="notice notice-ok" role="status">
          {t('mifi.pickup.depositPaid')}
        </p>
      ) : null}
      <form onSubmit={submit} className="actions">
        <p>{t('mifi.pickup.hint', { order: orderId })}</p>
        <div className="field">
          <label htmlFor={codeId}>{t('mifi.pickup.code')}</label>
          <input id={codeId} value={code} onChange={(e) => setCode(e.target.value)} autoComplete="off" />
        </div>
        <button type="submit" className="button primary block" disabled={state === 'ejecting'}>
          {t('mifi.pickup.submit')}
        </button>
        <a className="button block" href={'#' + href('/scanQr', { orderId: orderId || undefined })}>
          {t('mifi.pickup.scan')}
        </a>
        <p role="status" aria-live="polite">
          {state === 'ejecting' ? t('mifi.pickup.ejecting') : ''}
        </p>
      </form>
      <form onSubmit={(e) => void bind(e)} className="actions" aria-labelledby={`${snId}-h`}>
        <h2 id={`${snId}-h`} className="section-title">
          {t('mifi.pickup.byHand')}
        </h2>
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
