// The OTP entry step of a card charge whose issuer sent the customer a one-time code (Flutterwave's validate-charge
// flow: the charge answered `meta.authorization.mode: otp`; the paying call's action is the form `#/CardOtp` with our
// reference). Shown in place by ExternalPay (the confirm screen's lazy chunk, never a first load). The code is
// checked as the server checks it (src/core/card.ts validateOtp), posted once to POST cdb/payment/method/otp, which
// passes it to Flutterwave; a wrong code shows the server's message under the field and the payment keeps waiting
// for the right one. Then the screen waits for the payment's outcome as after a provider's page. "Cancel payment"
// goes through the return URL with cancel=1 (the server asks Flutterwave first).
import { useId, useRef, useState, type FormEvent } from 'react';
import { useT } from '../i18n/index.ts';
import { validateOtp } from '../core/card.ts';
import { submitCardOtp } from '../api/payScreens.ts';
import { randomId } from '../stores/session.ts';
import { returnToApp } from './sdk.ts';

/** The action that asks for the code (server: payments/methods/flutterwave.ts OTP_SCREEN). */
export const CARD_OTP_ACTION = '#/CardOtp';

export function CardOtpForm({ outTradeNo, onSent }: { outTradeNo: string; onSent: () => void }) {
  const t = useT();
  const id = useId();
  const [otp, setOtp] = useState('');
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  const input = useRef<HTMLInputElement>(null);

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
      await submitCardOtp({ outTradeNo, otp: otp.replace(/\s+/g, '') }, randomId());
      onSent();
    } catch (err) {
      setBusy(false);
      setError(err instanceof Error && err.message ? err.message : t('sdkPay.failed'));
      input.current?.focus();
    }
  };

  return (
    <form
      className="card-form"
      noValidate
      onSubmit={(e) => void submit(e)}
      aria-busy={busy}
      aria-labelledby={`${id}-text`}
    >
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
          aria-describedby={`${id}-error`}
          onChange={(e) => setOtp(e.target.value)}
        />
        <p id={`${id}-error`} className="field-error" role="alert">
          {error}
        </p>
      </div>
      <button type="submit" className="button primary block" aria-disabled={busy} aria-busy={busy}>
        {busy ? t('cardOtp.checking') : t('cardOtp.submit')}
      </button>
      <button
        type="button"
        className="button block"
        disabled={busy}
        onClick={() => void returnToApp(outTradeNo, { cancel: '1' })}
      >
        {t('sdkPay.cancel')}
      </button>
    </form>
  );
}
