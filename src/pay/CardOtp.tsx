// Route '/CardOtp': a card charge whose issuer sent the customer a one-time code (Flutterwave's validate-charge flow:
// the charge answered `meta.authorization.mode: otp`; the paying call's action names our reference, `outTradeNo`).
// The code is checked as the server checks it (src/core/card.ts validateOtp), posted once to
// POST cdb/payment/method/otp, which passes it to Flutterwave; a wrong code shows the server's message under the
// field and the payment keeps waiting for the right one. Then the app resumes the payment on the screen it left
// (the server's `next`, with payment_intent), exactly as after a provider's page. "Cancel payment" goes through the
// return URL with cancel=1 (the server asks Flutterwave first).
import { useId, useRef, useState, type FormEvent } from 'react';
import './pay.css';
import { useStore } from '@nanostores/react';
import { useT } from '../i18n/index.ts';
import { $route } from '../stores/router.ts';
import { PageHeader } from '../ui/PageHeader.tsx';
import { validateOtp } from '../core/card.ts';
import { submitCardOtp } from '../api/payScreens.ts';
import { randomId } from '../stores/session.ts';
import { returnToApp } from './sdk.ts';
import { usePayStrings } from './strings.ts';
import { SdkInvalidLink } from './SdkInvalidLink.tsx';

const REF = /^[A-Za-z0-9]{1,40}$/;

export default function CardOtp() {
  const t = useT();
  usePayStrings();
  const id = useId();
  const { query } = useStore($route);
  const ref = query.get('outTradeNo') ?? '';
  const outTradeNo = REF.test(ref) ? ref : '';
  const [otp, setOtp] = useState('');
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  const input = useRef<HTMLInputElement>(null);

  if (!outTradeNo) return <SdkInvalidLink title={t('routes.cardOtp')} />;

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (busy) return;
    const fault = validateOtp(otp);
    if (fault) {
      setError(t(`cardOtp.${fault}`));
      input.current?.focus();
      return;
    }
    setBusy(true);
    setError('');
    try {
      const r = await submitCardOtp({ outTradeNo, otp: otp.replace(/\s+/g, '') }, randomId());
      window.location.assign(r.next);
    } catch (err) {
      setBusy(false);
      setError(err instanceof Error && err.message ? err.message : t('sdkPay.failed'));
      input.current?.focus();
    }
  };

  return (
    <>
      <PageHeader title={t('routes.cardOtp')} />
      <main className="page confirm">
        <form className="card-form" noValidate onSubmit={(e) => void submit(e)} aria-busy={busy}>
          <p id={`${id}-text`}>{t('cardOtp.text')}</p>
          <div className="field">
            <label htmlFor={`${id}-otp`}>{t('cardOtp.label')}</label>
            <input
              ref={input}
              id={`${id}-otp`}
              type="text"
              inputMode="numeric"
              autoComplete="one-time-code"
              maxLength={12}
              value={otp}
              aria-invalid={error ? true : undefined}
              aria-describedby={`${id}-text ${id}-error`}
              onChange={(e) => setOtp(e.target.value)}
            />
            <p id={`${id}-error`} className="field-error" role="alert">
              {error}
            </p>
          </div>
          <button type="submit" className="button primary block" aria-disabled={busy} aria-busy={busy}>
            {busy ? t('cardOtp.checking') : t('cardOtp.submit')}
          </button>
          <button type="button" className="button block" disabled={busy} onClick={() => void returnToApp(outTradeNo, { cancel: '1' })}>
            {t('sdkPay.cancel')}
          </button>
        </form>
      </main>
    </>
  );
}
