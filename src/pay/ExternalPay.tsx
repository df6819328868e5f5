// Paying with a method beyond the card provider (docs/payments.md): the payer's details the method needs (a phone
// for M-Pesa and mobile money, an e-mail for Monri, a card for the card methods in test mode — and live for
// Flutterwave's own card form, whose fields go to our server —, the entrustment agreement for WeChat Pay
// score), then the server's action (the provider's page, the in-app bridge, a prompt on the phone, a live card
// method's SDK screen /MonriPay or /MercadoPago),
// then the wait for the provider's answer with its retries. Back from a provider's page, the confirm screen
// mounts this with `resumeRef` and it only waits.
import { useEffect, useId, useRef, useState, type FormEvent } from 'react';
import { useT } from '../i18n/index.ts';
import { EMAIL } from '../core/email.ts';
import { payerToken, type PaymentMethod } from '../api/payment.ts';
import type { PayerBody } from '../contract/payments.ts';
import { confirmDialog } from '../ui/feedback.tsx';
import { Loading } from '../ui/Loading.tsx';
import { CardForm } from './CardForm.tsx';
import { DirectCardForm, type DirectCard } from './DirectCardForm.tsx';
import { CARD_OTP_ACTION, CardOtpForm } from './CardOtp.tsx';
import { cardProviderFor, CardProviderError, type CardDetails } from './provider.ts';
import { SandboxCardsHint, SandboxHint } from './SandboxHint.tsx';
import { externalAction, payerFields, perform, pollPlan } from './external.ts';
import type { PayAnswer } from './stripe.ts';
import type { SavedCard } from '../api/wallet.ts';
import { SavedCardSelect } from '../ui/SavedCardSelect.tsx';

export interface ExternalPayProps {
  method: PaymentMethod;
  preAuth: boolean;
  submitLabel: string;
  /** The paying call of the screen's payType: with the payer token, a saved card, or the payment to resume. */
  call: (input: { stripeToken?: string; paymentIntent?: string; cardId?: string }) => Promise<PayAnswer>;
  /** The user's cards saved with this method (Mercado Pago), offered instead of a new card where the payType takes one. */
  savedCards?: SavedCard[];
  onDone: (orderNo: string) => void;
  onError: (e: unknown) => void;
  /** Back from the provider: wait for this payment's outcome. */
  resumeRef?: string;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export function ExternalPay({
  method,
  preAuth,
  submitLabel,
  call,
  onDone,
  onError,
  resumeRef,
  savedCards = [],
}: ExternalPayProps) {
  const t = useT();
  const id = useId();
  const need = payerFields(method, preAuth);
  const plan = pollPlan(method.pPaymentType, preAuth && method.hold === true);
  const [phone, setPhone] = useState('');
  const [email, setEmail] = useState('');
  const [agreed, setAgreed] = useState(false);
  /** A saved card chosen instead of a new one ('' = a new card). */
  const [cardId, setCardId] = useState('');
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  /** Waiting for the provider's answer about this payment (our outTradeNo). */
  const [waiting, setWaiting] = useState<string | null>(resumeRef ?? null);
  /** A card charge waiting for the issuer's one-time code (our outTradeNo): the OTP step shows. */
  const [otpFor, setOtpFor] = useState<string | null>(null);
  /** M-Pesa style: the customer says they have paid (or the button clicks itself after 20 s). */
  const [smsConfirm, setSmsConfirm] = useState(false);
  const alive = useRef(true);
  useEffect(() => () => void (alive.current = false), []);

  /** Asks the server until the payment is done, failed, or the tries are used up (then: retry or give up). */
  const poll = async (ref: string) => {
    for (;;) {
      for (let i = 0; i < plan.tries && alive.current; i++) {
        const a = await call({ paymentIntent: ref }).catch((e: unknown) => ({ error: e }));
        if ('error' in a) return onError(a.error);
        if ('done' in a) return onDone(a.done);
        await sleep(plan.intervalMs);
      }
      if (!alive.current) return;
      if (
        !(await confirmDialog({
          title: t('external.notYetTitle'),
          text: t('external.notYet'),
          okLabel: t('common.retry'),
        }))
      ) {
        setWaiting(null);
        return onError(new Error(t('external.notYet')));
      }
    }
  };
  const pollRef = useRef(poll);
  pollRef.current = poll;

  // Back from the provider (or after the prompt): wait, or for an SMS payment let the customer say they paid first.
  useEffect(() => {
    if (!waiting) return;
    if (plan.autoConfirmMs && !smsConfirm) {
      const timer = setTimeout(() => setSmsConfirm(true), plan.autoConfirmMs);
      return () => clearTimeout(timer);
    }
    void pollRef.current(waiting);
  }, [waiting, smsConfirm, plan.autoConfirmMs]);

  /** A card token of the card form's provider (the sandbox's in test mode; a card SDK's live). */
  const tokenise = async (card: CardDetails) => {
    const provider = cardProviderFor(method);
    if (!provider) throw new Error(t('confirm.methodUnavailable', { method: method.label }));
    return (await provider.tokenize(card)).id;
  };

  /**
   * 's Flutterwave card form: live, its fields go to our payer endpoint (which seals them for Flutterwave's
   * direct charge); in test mode the sandbox card provider tokenises the card first, as for any card method.
   */
  const directPayer = async (c: DirectCard): Promise<Partial<PayerBody>> => {
    const contact = { email: c.email, ...(c.phoneNumber ? { phoneNumber: c.phoneNumber, areaCode: c.areaCode } : {}) };
    if (!method.sandbox) {
      return {
        ...contact,
        cardNumber: c.cardNumber,
        expiryMonth: c.expiryMonth,
        expiryYear: c.expiryYear,
        cvv: c.cvv,
        ...(c.saveCard ? { saveCardFlag: true } : {}),
      };
    }
    const cardToken = await tokenise({
      number: c.cardNumber,
      expMonth: Number(c.expiryMonth),
      expYear: 2000 + Number(c.expiryYear),
      cvc: c.cvv,
    });
    return { ...contact, cardToken };
  };

  /** Starts the payment: the payer's details (`payer`: what a card form adds), the payer token, the paying call. */
  const start = async (payer?: () => Promise<Partial<PayerBody>>) => {
    setError('');
    if (need.phone && !phone.trim()) return setError(t('external.phoneRequired'));
    if (need.email && !EMAIL.test(email)) return setError(t('external.emailRequired'));
    if (need.agreement && !agreed) return setError(t('external.agreementRequired'));
    setBusy(true);
    try {
      const { token } = await payerToken({
        paymentId: method.pId,
        phoneNumber: phone || undefined,
        email: email || undefined,
        agreement: need.agreement ? agreed : undefined,
        hold: preAuth,
        ...(payer ? await payer() : {}),
      });
      await proceed(await call({ stripeToken: token }));
    } catch (e) {
      if (e instanceof CardProviderError) setError(e.message);
      else onError(e);
    } finally {
      setBusy(false);
    }
  };

  /** The paying call's answer: done, or the action the customer takes (a provider's page, a card SDK screen, a prompt). */
  const proceed = async (a: PayAnswer) => {
    if ('done' in a) return onDone(a.done);
    const action = externalAction(a.action.clientSecret);
    if (!action) throw new Error(t('confirm.payFailed'));
    if (action.kind === 'form' && action.url === CARD_OTP_ACTION) return setOtpFor(a.action.paymentIntent);
    if (!(await perform(action))) throw new Error(t('external.cancelled'));
    // Leaving for the provider's page: the return brings the customer back to this screen, which resumes.
    if (
      action.kind === 'redirect' ||
      action.kind === 'form' ||
      (action.kind === 'jsapi' && action.params.sandboxCheckout)
    )
      return;
    setWaiting(a.action.paymentIntent);
  };

  /** Pays with a saved card (live, the provider's screen asks its security code). */
  const paySaved = async () => {
    setError('');
    setBusy(true);
    try {
      await proceed(await call({ cardId }));
    } catch (e) {
      onError(e);
    } finally {
      setBusy(false);
    }
  };

  if (otpFor && !waiting) {
    const ref = otpFor;
    return <CardOtpForm outTradeNo={ref} onSent={() => setWaiting(ref)} />;
  }

  if (waiting) {
    return (
      <section className="external-wait" aria-live="polite">
        {plan.autoConfirmMs && !smsConfirm ? (
          <>
            <p>{t('external.smsSent')}</p>
            <button type="button" className="button primary block" onClick={() => setSmsConfirm(true)}>
              {t('external.smsPaid')}
            </button>
          </>
        ) : (
          <Loading label={method.kind === 'push' ? t('external.confirmOnPhone') : t('external.waiting')} />
        )}
      </section>
    );
  }

  const savedChoice = savedCards.length ? (
    <SavedCardSelect id={`${id}-saved`} cards={savedCards} value={cardId} onChange={setCardId} disabled={busy} />
  ) : null;
  if (cardId) {
    return (
      <form
        className="card-form"
        noValidate
        onSubmit={(e: FormEvent) => {
          e.preventDefault();
          if (!busy) void paySaved();
        }}
      >
        {savedChoice}
        {method.sdk ? <p className="muted">{t('external.sdkNote', { method: method.label })}</p> : null}
        {error ? (
          <p className="field-error" role="alert">
            {error}
          </p>
        ) : null}
        <button type="submit" className="button primary block" aria-disabled={busy} aria-busy={busy}>
          {busy ? t('confirm.paying') : submitLabel}
        </button>
      </form>
    );
  }

  const fields = (
    <>
      {savedChoice}
      {method.sandbox && need.card ? <SandboxCardsHint /> : null}
      {method.sandbox && method.testValues?.length ? (
        <SandboxHint
          text={t('external.sandboxText')}
          values={method.testValues.map((v) => ({ value: v.value, label: t(`external.outcome.${v.outcome}`) }))}
        />
      ) : null}
      {need.phone ? (
        <div className="field">
          <label htmlFor={`${id}-phone`}>{t('external.phone')}</label>
          <input
            id={`${id}-phone`}
            type="tel"
            inputMode="tel"
            autoComplete="tel"
            maxLength={20}
            value={phone}
            onChange={(e) => setPhone(e.target.value)}
          />
        </div>
      ) : null}
      {need.email ? (
        <div className="field">
          <label htmlFor={`${id}-email`}>{t('external.email')}</label>
          <input
            id={`${id}-email`}
            type="email"
            autoComplete="email"
            maxLength={254}
            value={email}
            onChange={(e) => setEmail(e.target.value)}
          />
        </div>
      ) : null}
      {need.agreement ? (
        <label className="check-row">
          <input type="checkbox" checked={agreed} onChange={(e) => setAgreed(e.target.checked)} />
          <span>{t('external.agreement')}</span>
        </label>
      ) : null}
      {error ? (
        <p className="field-error" role="alert">
          {error}
        </p>
      ) : null}
    </>
  );

  if (need.card && method.directCard) {
    return (
      <>
        {fields}
        <DirectCardForm
          submitLabel={submitLabel}
          busy={busy}
          canSave={method.savesCards === true && !method.sandbox}
          onSubmit={(c) => void start(() => directPayer(c))}
          onEdit={() => setError('')}
        />
      </>
    );
  }
  if (need.card) {
    return (
      <>
        {fields}
        <CardForm
          submitLabel={submitLabel}
          busy={busy}
          onSubmit={(c) => void start(async () => ({ cardToken: await tokenise(c) }))}
          onEdit={() => setError('')}
        />
      </>
    );
  }
  return (
    <form
      className="card-form"
      noValidate
      onSubmit={(e: FormEvent) => {
        e.preventDefault();
        if (!busy) void start();
      }}
    >
      {method.kind === 'redirect' || method.kind === 'form' ? (
        <p className="muted">
          {t(method.sandbox ? 'external.redirectNoteSandbox' : 'external.redirectNote', { method: method.label })}
        </p>
      ) : null}
      {method.sdk ? <p className="muted">{t('external.sdkNote', { method: method.label })}</p> : null}
      {fields}
      <button type="submit" className="button primary block" aria-disabled={busy} aria-busy={busy}>
        {busy ? t('confirm.paying') : submitLabel}
      </button>
    </form>
  );
}
