// Saving a card with Stripe: a SetupIntent on the user's Stripe customer (cdb/user/card/save), confirmed by
// Stripe.js with the Elements card field (3-D Secure in place), then recorded (cdb/user/card/confirm).
import { useEffect, useId, useRef, useState, type FormEvent } from 'react';
import type { StripeCardElement } from '@stripe/stripe-js';
import { useStore } from '@nanostores/react';
import { useT } from '../i18n/index.ts';
import { $lang } from '../stores/locale.ts';
import type { PaymentMethod } from '../api/payment.ts';
import { Loading } from '../ui/Loading.tsx';
import { stripeLocale } from './stripe.ts';
import { usePayStrings } from './strings.ts';
import { useStripe } from './useStripe.ts';

export interface StripeCardSetupProps {
  method: PaymentMethod;
  submitLabel: string;
  /** Starts the setup on our server: its id and client secret. */
  start: () => Promise<{ paymentId: string; clientSecret: string }>;
  /** Records the confirmed card on our server. */
  record: (setup: { paymentId: string; clientSecret: string; paymentMethod: string }) => Promise<void>;
  onError: (message: string) => void;
}

export function StripeCardSetup(p: StripeCardSetupProps) {
  const t = useT();
  usePayStrings();
  const lang = useStore($lang);
  const id = useId();
  const host = useRef<HTMLDivElement>(null);
  const card = useRef<StripeCardElement | null>(null);
  const [busy, setBusy] = useState(false);
  const [fieldError, setFieldError] = useState('');
  const key = p.method.publicKey;
  const stripe = useStripe(key, t, lang);
  useEffect(() => {
    if (!stripe || !host.current) return;
    const el = stripe.elements({ locale: stripeLocale(lang) as 'auto' }).create('card', { hidePostalCode: true });
    el.on('change', (e) => setFieldError(e.error?.message ?? ''));
    el.mount(host.current);
    card.current = el;
    return () => el.destroy();
  }, [stripe, lang]);

  const submit = async (ev: FormEvent) => {
    ev.preventDefault();
    if (!stripe || !card.current || busy) return;
    setBusy(true);
    try {
      const setup = await p.start();
      const r = await stripe.confirmCardSetup(setup.clientSecret, { payment_method: { card: card.current } });
      if (r.error || !r.setupIntent) {
        p.onError(r.error?.message ?? t('stripe.cardIncomplete'));
        return;
      }
      const pm = r.setupIntent.payment_method;
      await p.record({ ...setup, paymentMethod: typeof pm === 'string' ? pm : (pm?.id ?? '') });
    } catch (e) {
      p.onError(e instanceof Error ? e.message : String(e));
    } finally {
      setBusy(false);
    }
  };

  if (stripe === undefined) return <Loading label={t('stripe.loadingProvider')} />;
  if (stripe === null) return <p role="alert">{t('stripe.unavailable')}</p>;
  return (
    <form className="card-form stripe-card" noValidate onSubmit={(e) => void submit(e)} aria-busy={busy}>
      <div className={`field${fieldError ? ' invalid' : ''}`}>
        <label id={`${id}-label`}>{t('stripe.cardLabel')}</label>
        <div
          ref={host}
          className="stripe-element"
          role="group"
          aria-labelledby={`${id}-label`}
          aria-describedby={`${id}-error`}
        />
        <p id={`${id}-error`} className="field-error" aria-live="polite">
          {fieldError}
        </p>
      </div>
      <button type="submit" className="btn primary block" disabled={busy}>
        {busy ? t('confirm.paying') : p.submitLabel}
      </button>
    </form>
  );
}
