// Route '/MonriPay': a live Monri payment's card step in Monri Components. Reads authenticityToken and
// clientSecret (with the script URL, our reference and the amount: the action of monri.ts start()), mounts Monri's
// card form with an e-mail field; on submit the billing full name is the e-mail and
// `monri.confirmPayment(card, {address, fullName, city, zip, phone, country: 'BA', email, orderInfo})` runs in
// Monri's frame. Monri's errors show in the card-errors area. Approved (or a decline the customer acknowledges)
// goes back through /payments/return/<outTradeNo> to the screen that paid, whose resume asks Monri for the outcome:
// the /result?status=approved step is that resume (the server never takes this screen's word). On Android the
// approved payment's result opens in a new window (the same window when the web-view refuses one).
// The billing (user/more monriBilling) is read when the screen opens (the e-mail filled in, the stored
// address, city, zip and phone sent to Monri) and saved once Monri approves.
import { useEffect, useId, useRef, useState, type FormEvent } from 'react';
import './pay.css';
import { useStore } from '@nanostores/react';
import { useT } from '../i18n/index.ts';
import { useLatest } from '../ui/hooks.ts';
import { $route } from '../stores/router.ts';
import { PageHeader } from '../ui/PageHeader.tsx';
import { Loading } from '../ui/Loading.tsx';
import { money } from '../ui/format.ts';
import { toMajor } from '../core/money.ts';
import { EMAIL } from '../core/email.ts';
import {
  leaveApproved,
  loadSdk,
  monriTransaction,
  readMonriQuery,
  returnToApp,
  storedMonriBilling,
  titleFrames,
} from './sdk.ts';
import { getUserMore, setUserMore } from '../api/payScreens.ts';
import { monriBillingText, type MonriBilling } from '../core/monriBilling.ts';
import { usePayStrings } from './strings.ts';
import { SdkInvalidLink } from './SdkInvalidLink.tsx';

interface MonriCard {
  mount(id: string): void;
  onChange?(cb: (e: { error?: { message?: string } | null }) => void): void;
}
interface MonriResult {
  error?: { message?: string } | null;
  result?: { status?: string; errors?: string[] | null } | null;
}
interface Monri {
  components(o: { clientSecret: string }): { create(type: 'card', options?: Record<string, unknown>): MonriCard };
  confirmPayment(card: MonriCard, params: ReturnType<typeof monriTransaction>): Promise<MonriResult>;
}
type MonriFactory = (authenticityToken: string, options?: { locale?: string }) => Monri;

const HOST_ID = 'monri-card-element';

export default function MonriPay() {
  const t = useT();
  usePayStrings();
  const id = useId();
  const { query } = useStore($route);
  const q = readMonriQuery(query);
  const tNow = useLatest(t);
  const [sdk, setSdk] = useState<{ monri: Monri; card: MonriCard } | null | undefined>(undefined);
  const [email, setEmail] = useState('');
  const [error, setError] = useState('');
  /** ready → paying → (approved: leaving) | declined (this payment is over: back to the payment screen). */
  const [step, setStep] = useState<'ready' | 'paying' | 'leaving' | 'declined' | 'opened'>('ready');
  const host = useRef<HTMLDivElement>(null);
  /** The user's stored billing (user/more monriBilling): fills the e-mail in, and the billing Monri gets. */
  const saved = useRef<MonriBilling>({});

  useEffect(() => {
    let live = true;
    getUserMore('monriBilling').then(
      (r) => {
        if (!live) return;
        saved.current = storedMonriBilling(r.monriBilling);
        const stored = saved.current.email;
        if (stored) setEmail((e) => e || stored);
      },
      () => undefined,
    );
    return () => {
      live = false;
    };
  }, []);

  const token = q?.authenticityToken;
  const secret = q?.clientSecret;
  const script = q?.scriptUrl;
  useEffect(() => {
    if (!token || !secret || !script) return;
    let live = true;
    void loadSdk(script, () => (window as unknown as { Monri?: MonriFactory }).Monri, tNow.current).then((factory) => {
      if (!live) return;
      if (!factory) return setSdk(null);
      // Monri Components' languages (hr, sr, en, …) share only English with the app's five.
      const monri = factory(token, { locale: 'en' });
      const card = monri.components({ clientSecret: secret }).create('card', { style: { base: { fontSize: '16px' } } });
      card.mount(HOST_ID);
      card.onChange?.((e) => setError(e.error?.message ?? ''));
      setSdk({ monri, card });
    });
    return () => {
      live = false;
    };
  }, [token, secret, script, tNow]);

  useEffect(
    () => (host.current ? titleFrames(host.current, tNow.current('stripe.cardLabel')) : undefined),
    [sdk, tNow],
  );

  if (!q) return <SdkInvalidLink title={t('routes.monriPay')} />;

  const amount = money(q.currency, toMajor(q.amount, q.currency));
  const leave = (fields: Record<string, string>) => {
    setStep('leaving');
    void returnToApp(q.outTradeNo, fields);
  };

  const submit = async (ev: FormEvent) => {
    ev.preventDefault();
    if (!sdk || step !== 'ready') return;
    if (!EMAIL.test(email.trim())) {
      setError(t('external.emailRequired'));
      document.getElementById(`${id}-email`)?.focus();
      return;
    }
    setError('');
    setStep('paying');
    const billing = monriTransaction(email, 'Powerly', saved.current);
    const r: MonriResult = await sdk.monri
      .confirmPayment(sdk.card, billing)
      .catch((e: unknown) => ({ error: { message: String((e as Error)?.message ?? '') } }));
    if (r.error || !r.result) {
      // Not a transaction (invalid card details, a network fault): the customer corrects and submits again.
      setError(r.error?.message || t('sdkPay.failed'));
      setStep('ready');
      return;
    }
    if (r.result.status === 'approved') {
      setStep('leaving');
      // Kept for the next payment (user/more monriBilling); a failure to keep it never holds the payment up.
      await setUserMore({ monriBilling: monriBillingText(billing) }).catch(() => undefined);
      const went = await leaveApproved(q.outTradeNo, navigator.userAgent);
      if (went === 'newWindow') setStep('opened');
      return;
    }
    setError(r.result.errors?.filter(Boolean).join(' ') || t('card.providerErrors.card_declined'));
    setStep('declined');
  };

  return (
    <>
      <PageHeader title={t('routes.monriPay')} />
      <main className="page confirm">
        <section className="amount-card" aria-labelledby={`${id}-amount`}>
          <p id={`${id}-amount`} className="muted">
            {t('confirm.amountLabel')}
          </p>
          <p className="amount">{amount}</p>
        </section>
        <form
          className="card-form"
          noValidate
          onSubmit={(e) => void submit(e)}
          aria-busy={step === 'paying' || step === 'leaving'}
        >
          <div className="field">
            <label htmlFor={`${id}-email`}>{t('external.email')}</label>
            <input
              id={`${id}-email`}
              type="email"
              autoComplete="email"
              maxLength={254}
              value={email}
              readOnly={step !== 'ready'}
              onChange={(e) => setEmail(e.target.value)}
            />
          </div>
          <div className="field">
            <span id={`${id}-card`} className="field-label">
              {t('stripe.cardLabel')}
            </span>
            {sdk === undefined ? <Loading label={t('stripe.loadingProvider')} /> : null}
            {sdk === null ? <p role="alert">{t('stripe.unavailable')}</p> : null}
            <div
              id={HOST_ID}
              ref={host}
              className="sdk-card"
              role="group"
              aria-labelledby={`${id}-card`}
              aria-describedby="card-errors"
            />
          </div>
          <p id="card-errors" className="field-error" role="alert">
            {error}
          </p>
          <p className="muted small">{t('sdkPay.secureNote', { provider: 'Monri' })}</p>
          {step === 'opened' ? (
            <>
              <p role="status">{t('sdkPay.resultOpened')}</p>
              <button type="button" className="button primary block" onClick={() => leave({ status: 'approved' })}>
                {t('sdkPay.continueHere')}
              </button>
            </>
          ) : step === 'declined' ? (
            <button type="button" className="button primary block" onClick={() => leave({})}>
              {t('sdkPay.back')}
            </button>
          ) : (
            <>
              <button
                type="submit"
                className="button primary block"
                aria-disabled={step !== 'ready' || !sdk}
                aria-busy={step === 'paying'}
              >
                {step === 'ready' ? t('confirm.pay', { amount }) : t('confirm.paying')}
              </button>
              <button
                type="button"
                className="button block"
                disabled={step !== 'ready'}
                onClick={() => leave({ cancel: '1' })}
              >
                {t('sdkPay.cancel')}
              </button>
            </>
          )}
        </form>
      </main>
    </>
  );
}
