// Paying through Stripe on a payment screen: card entry with Stripe Elements (the card never touches our
// server), Apple Pay / Google Pay with the Express Checkout Element where the device supports them, iDEAL and
// WeChat Pay as redirect / QR methods. 3-D Secure and other customer actions are handled in place by
// payWithStripe (Stripe.js's own modal; in the embed frame, Stripe.js opens the challenge in its own frame and
// falls back to a redirect back to this screen with ?payment_intent, docs/embed.md).
import { useEffect, useId, useRef, useState, type FormEvent } from 'react';
import type { Stripe, StripeCardElement, StripeElements } from '@stripe/stripe-js';
import { useStore } from '@nanostores/react';
import { useT } from '../i18n/index.ts';
import { $lang } from '../stores/locale.ts';
import { showMessage } from '../ui/feedback.tsx';
import { useLatest } from '../ui/hooks.ts';
import type { PaymentMethod } from '../api/payment.ts';
import { Loading } from '../ui/Loading.tsx';
import { payWithStripe, stripeKind, stripeLocale, StripePayError, type PayAnswer } from './stripe.ts';
import { usePayStrings } from './strings.ts';
import { useStripe } from './useStripe.ts';

export interface StripePayProps {
  method: PaymentMethod;
  /** Amount in minor units and currency (the Express Checkout Element shows it in the wallet sheet). */
  amount: number;
  currency: string;
  submitLabel: string;
  /** Sends the payment method (or the finished payment intent) to our server. */
  call: (input: { stripeToken?: string; paymentIntent?: string }) => Promise<PayAnswer>;
  onDone: (orderNo: string) => void;
  onError: (e: unknown) => void;
}

export function StripePay(props: StripePayProps) {
  const t = useT();
  usePayStrings();
  const lang = useStore($lang);
  const key = props.method.publicKey;
  const stripe = useStripe(key, t, lang);
  if (stripe === undefined) return <Loading label={t('stripe.loadingProvider')} />;
  if (stripe === null) return <p role="alert">{t('stripe.unavailable')}</p>;
  const kind = stripeKind(props.method.pPaymentType);
  if (kind === 'wallet') return <ExpressCheckout stripe={stripe} {...props} />;
  if (kind === 'redirect') return <RedirectMethod stripe={stripe} {...props} />;
  return <CardEntry stripe={stripe} lang={lang} {...props} />;
}

async function run(p: StripePayProps & { stripe: Stripe }, paymentMethod: string) {
  try {
    p.onDone(await payWithStripe(p.stripe, p.call, paymentMethod));
  } catch (e) {
    p.onError(e);
  }
}

function CardEntry(p: StripePayProps & { stripe: Stripe; lang: string }) {
  const t = useT();
  const id = useId();
  const host = useRef<HTMLDivElement>(null);
  const card = useRef<StripeCardElement | null>(null);
  const [error, setError] = useState('');
  const [complete, setComplete] = useState(false);
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    const elements: StripeElements = p.stripe.elements({ locale: stripeLocale(p.lang) as 'auto' });
    const el = elements.create('card', { hidePostalCode: true });
    el.on('change', (e) => {
      setError(e.error?.message ?? '');
      setComplete(e.complete);
    });
    el.mount(host.current!);
    card.current = el;
    return () => {
      el.destroy();
      card.current = null;
    };
  }, [p.stripe, p.lang]);

  const submit = async (ev: FormEvent) => {
    ev.preventDefault();
    if (busy || !card.current) return;
    if (!complete) {
      setError(t('stripe.cardIncomplete'));
      return;
    }
    setBusy(true);
    const r = await p.stripe.createPaymentMethod({ type: 'card', card: card.current });
    if (r.error || !r.paymentMethod) {
      setError(r.error?.message ?? t('stripe.cardIncomplete'));
      setBusy(false);
      return;
    }
    await run(p, r.paymentMethod.id);
    setBusy(false);
  };

  return (
    <form className="card-form stripe-card" noValidate onSubmit={(e) => void submit(e)} aria-busy={busy}>
      <div className={`field${error ? ' invalid' : ''}`}>
        <label id={`${id}-label`}>{t('stripe.cardLabel')}</label>
        <div
          ref={host}
          className="stripe-element"
          role="group"
          aria-labelledby={`${id}-label`}
          aria-describedby={`${id}-error`}
          data-testid="stripe-card"
        />
        <p id={`${id}-error`} className="field-error" aria-live="polite">
          {error}
        </p>
      </div>
      <button type="submit" className="btn primary block" disabled={busy}>
        {busy ? t('confirm.paying') : p.submitLabel}
      </button>
    </form>
  );
}

function ExpressCheckout(p: StripePayProps & { stripe: Stripe }) {
  const t = useT();
  const host = useRef<HTMLDivElement>(null);
  const latest = useLatest(p);
  // The texts through a ref: a string table arriving changes `t`, and must not tear down and remount the wallet button.
  const tNow = useLatest(t);
  const [ready, setReady] = useState(false);
  useEffect(() => {
    const elements = p.stripe.elements({
      mode: 'payment',
      amount: p.amount,
      currency: p.currency.toLowerCase(),
      paymentMethodCreation: 'manual',
    });
    const el = elements.create('expressCheckout', {});
    el.on('ready', (e) => {
      setReady(true);
      // "Stripe wallet unsupported": neither Apple Pay nor Google Pay works on this device.
      if (!e.availablePaymentMethods)
        void showMessage({
          title: tNow.current('stripe.walletUnsupportedTitle'),
          text: tNow.current('stripe.walletUnsupported'),
        });
    });
    el.on('confirm', () => {
      void (async () => {
        const submitted = await elements.submit();
        if (submitted.error)
          return latest.current.onError(
            new StripePayError(submitted.error.code ?? 'wallet', submitted.error.message ?? ''),
          );
        const r = await p.stripe.createPaymentMethod({ elements });
        if (r.error || !r.paymentMethod)
          return latest.current.onError(new StripePayError(r.error?.code ?? 'wallet', r.error?.message ?? ''));
        await run({ ...latest.current, stripe: p.stripe }, r.paymentMethod.id);
      })();
    });
    el.mount(host.current!);
    return () => el.destroy();
  }, [p.stripe, p.amount, p.currency, tNow, latest]);
  return (
    <div>
      {ready ? null : <Loading label={t('stripe.loadingProvider')} />}
      <div ref={host} className="stripe-express" data-testid="stripe-express" />
    </div>
  );
}

function RedirectMethod(p: StripePayProps & { stripe: Stripe }) {
  const t = useT();
  const [busy, setBusy] = useState(false);
  const type = p.method.pPaymentType === 'STRIPE_IDEAL' ? 'ideal' : 'wechat_pay';
  const go = async () => {
    setBusy(true);
    const r = await p.stripe.createPaymentMethod({ type } as never);
    if (r.error || !r.paymentMethod) p.onError(new StripePayError(r.error?.code ?? 'redirect', r.error?.message ?? ''));
    else await run(p, r.paymentMethod.id);
    setBusy(false);
  };
  return (
    <>
      <p className="muted small">{t(type === 'ideal' ? 'stripe.idealNote' : 'stripe.wechatNote')}</p>
      <button type="button" className="btn primary block" disabled={busy} onClick={() => void go()}>
        {busy ? t('confirm.paying') : p.submitLabel}
      </button>
    </>
  );
}
