// Route '/confirm': payment confirmation. Query: price, payType, outTradeNo, cabinetID, mifiOrderId,
// paymentId, pmid, formId, yaJinType, paymentWay, pType, orderId, qrcode, payment_intent. payType YJ rents (deposit
// hold or top-up), FK pays an existing order after a failed deduction (never a new rental), CZ tops up the
// wallet, overbuy buys the power bank; mifi pays a Wi-Fi package order (rent, or confirm for an unpaid one) or, with
// mifiDeposit, a package's box deposit (cabinetDisposit). Stripe methods go through StripePay (Stripe.js loaded here
// only), the methods beyond the card through ExternalPay; the sandbox card form stays for test mode. Every paying
// call may answer `action` (3-D Secure, a provider's page, a phone prompt) and is repeated with paymentIntent; back
// from a redirect (?payment_intent) this screen resumes it.
import { useEffect, useRef, useState } from 'react';
import './pay.css';
import { useStore } from '@nanostores/react';
import { useT, errorText } from '../i18n/index.ts';
import { useLatest } from '../ui/hooks.ts';
import { $route, href, navigate } from '../stores/router.ts';
import { $cabinet } from '../stores/cabinet.ts';
import { $qrcode } from '../stores/scan.ts';
import { $agentOpenId, randomId } from '../stores/session.ts';
import { money } from '../ui/format.ts';
import { ApiError } from '../api/client.ts';
import { rechargeFailureKey } from './rechargeFailure.ts';
import { toMajor, toMinor } from '../core/money.ts';
import { afterPaymentPath, CZ_FAILURE_BACK_MS, readConfirmQuery } from '../core/payTypes.ts';
import { showMessage } from '../ui/feedback.tsx';
import { StripePay } from './StripePay.tsx';
import { ExternalPay } from './ExternalPay.tsx';
import { SandboxCardsHint } from './SandboxHint.tsx';
import { reportToOpener, stripeKind, StripePayError } from './stripe.ts';
import { HoldExplainer } from './HoldExplainer.tsx';
import { PageHeader } from '../ui/PageHeader.tsx';
import { Loading } from '../ui/Loading.tsx';
import { confirmDialog, toast } from '../ui/feedback.tsx';
import { CardForm } from './CardForm.tsx';
import { emitHostEvent } from '../platform/hostEvents.ts';
import {
  CardProviderError,
  cardProviderFor,
  pickCardMethod,
  DEBIT_CARD_TYPE,
  type CardDetails,
  type CardProvider,
} from './provider.ts';
import { usePayStrings } from './strings.ts';
import { MifiPayOptions, type MifiChoice } from './MifiPayOptions.tsx';
import { SavedCardPay, useSavedCards } from './SavedCardPay.tsx';
import { payOnServer } from './confirmCall.ts';
import { useConfirmMethods } from './useConfirmMethods.ts';

const KNOWN_CARD_ERRORS = [
  'card_declined',
  'insufficient_funds',
  'incorrect_number',
  'invalid_expiry',
  'invalid_cvc',
  'expired_card',
  'network',
];

/** A provider's error code as the embed's stable event code (letters only): card_declined → cardDeclined. */
const hostCode = (code: string) => {
  const c = code.replace(/_([a-z])/g, (_m, ch: string) => ch.toUpperCase());
  return /^[a-zA-Z]{1,40}$/.test(c) ? c : 'cardError';
};

export default function Confirm() {
  const t = useT();
  usePayStrings();
  const { query } = useStore($route);
  const cabinet = useStore($cabinet);
  const storedQr = useStore($qrcode);
  const q = readConfirmQuery(query);
  const price = q.price;
  const payType = q.payType;
  const qrcode = q.qrcode || storedQr;
  // A rental deposit pre-authorisation (yajintype 0): held where the method can hold, and the hold explained.
  const preAuthPlan = payType === 'YJ' && q.yaJinType === '0';
  // A Wi-Fi box deposit (cabinetDisposit): held where the chosen method can hold, else paid into the wallet.
  const boxDeposit = payType === 'mifi' && q.mifiDeposit && Boolean(q.mifiOrderId);
  const symbol = cabinet?.currencyName ?? '';
  const currency = q.currency || cabinet?.currency || 'EUR';
  // Wi-Fi: the wallet and a coupon (MifiPayOptions) lower what the method is asked for (`due`).
  const [mifiChoice, setMifiChoice] = useState<MifiChoice | null>(null);
  // A Wi-Fi package is priced in the package's currency, which need not be the scanned cabinet's.
  // Buying the power bank (reached from its order, where no cabinet was scanned): in the order's currency.
  const amount =
    payType === 'mifi'
      ? money(currency, mifiChoice ? toMajor(mifiChoice.due, currency) : Number(price) || 0)
      : payType === 'overbuy'
        ? money(currency, Number(price) || 0)
        : `${symbol}${price}`;

  const [busy, setBusy] = useState(false);
  /** One payment action: its Idempotency-Key and card token, reused when a retry follows an unknown outcome. */
  const pending = useRef<{ key: string; token: string } | null>(null);
  /** A Wi-Fi purchase whose payment answered `action`: its order exists (unpaid), so another try pays that order. */
  const madeOrder = useRef<string | null>(null);
  const lastCard = useRef<CardDetails | null>(null);

  const { methods, loadError } = useConfirmMethods(payType, qrcode, currency, t);

  const chosen = methods?.find((m) => m.pId === q.paymentId);
  const method = chosen ?? (methods ? pickCardMethod(methods) : undefined);
  // A method beyond the card provider (M-Pesa, PayPal, WeChat Pay, …) pays through ExternalPay.
  const external = method?.kind ? method : null;
  const provider: CardProvider | null = method && !external ? cardProviderFor(method) : null;
  // The user's cards saved with this method (the card provider's, Mercado Pago's), for the payTypes whose call takes
  // one: a rental's deposit, a top-up, a debt (FK) and a Wi-Fi package (not its box deposit).
  const savedAgent = payType === 'CZ' ? query.get('agentId') || undefined : $agentOpenId.get() || undefined;
  const savesCards = Boolean(external?.savesCards || provider);
  const takesCard = payType === 'CZ' || payType === 'YJ' || payType === 'FK' || (payType === 'mifi' && !boxDeposit);
  const savedCards = useSavedCards(
    savesCards && method && takesCard && !q.paymentIntent ? method.pId : '',
    savedAgent,
    Boolean(provider),
  );
  const stripeMethod = method && !provider && stripeKind(method.pPaymentType) ? method : null;
  /** The debit-only card type (debitcard): the same card form, a note, and test mode's hint says which cards pass. */
  const debitOnly = method?.pPaymentType === DEBIT_CARD_TYPE;
  // The method holds the amount rather than charging it (the server decides the same: PaymentsService.methodHolds).
  const holds = Boolean(
    method && (method.kind ? method.hold === true : stripeKind(method.pPaymentType) !== 'redirect'),
  );
  const preAuth = preAuthPlan || (boxDeposit && holds);

  /** The server call of this payType (confirmCall.ts). */
  const serverCall = (input: { stripeToken?: string; paymentIntent?: string; cardId?: string }, key: string) =>
    payOnServer({ q, query, method, qrcode, currency, mifiChoice, boxDeposit, madeOrder, t }, input, key);

  /** What follows a payment (src/core/payTypes.ts). */
  const afterPaid = (orderNo: string) => {
    if (!orderNo) {
      void payFailed(t('confirm.noOrder'));
      return;
    }
    // The embed's 3-D Secure popup: the frame that opened it continues (docs/embed.md).
    if (q.paymentIntent && reportToOpener(q.paymentIntent, orderNo)) return;
    const score = external?.pPaymentType === 'WeChat_MP' && preAuthPlan && external.hold === true;
    const next = afterPaymentPath(payType, orderNo, { mifiDeposit: boxDeposit, score });
    if (payType === 'CZ') {
      void showMessage({ title: t('wallet.in.successTitle'), text: t('wallet.in.success', { amount }) }).then(() =>
        navigate(next, { replace: true, from: '/confirm' }),
      );
      return;
    }
    navigate(next, { replace: true });
  };
  const payError = (e: unknown) => {
    if (payType === 'CZ') {
      // A failed top-up goes back to the wallet after 1.5 s.
      toast(e instanceof StripePayError ? e.message || t('confirm.payFailed') : errorText(e, t));
      setTimeout(() => navigate('/wallet', { replace: true }), CZ_FAILURE_BACK_MS);
      return;
    }
    void payFailed(e instanceof StripePayError ? e.message || t('confirm.payFailed') : errorText(e, t));
  };

  // Back from a redirect method (iDEAL) or a 3-D Secure page outside the frame: resume that payment once.
  const resumed = useRef(false);
  const resumeOnce = useLatest(() => {
    if (!q.paymentIntent || resumed.current || !methods || external) return;
    resumed.current = true;
    void serverCall({ paymentIntent: q.paymentIntent }, randomId()).then(
      (a) => ('done' in a ? afterPaid(a.done) : payError(new StripePayError('authentication_failed', ''))),
      payError,
    );
  });
  useEffect(() => resumeOnce.current(), [methods, resumeOnce]);

  const pay = async (card: CardDetails) => {
    if (!provider || !method) return;
    lastCard.current = card;
    setBusy(true);
    try {
      if (!pending.current) {
        const token = await provider.tokenize(card);
        pending.current = { key: randomId(), token: token.id };
      }
      const r = await serverCall({ stripeToken: pending.current.token }, pending.current.key);
      pending.current = null;
      afterPaid('done' in r ? r.done : '');
    } catch (e) {
      // Unknown outcome (network, timeout): keep key and token so the retry is the same action.
      const unknown = e instanceof ApiError && (e.kind === 'network' || e.kind === 'timeout');
      if (!unknown) pending.current = null;
      // A top-up names its step: the order refused (a business answer other than a decline), else the payment.
      const title = payType !== 'CZ' ? undefined : t(rechargeFailureKey(e));
      if (e instanceof CardProviderError) {
        void payFailed(
          KNOWN_CARD_ERRORS.includes(e.code) ? t(`card.providerErrors.${e.code}`) : e.message,
          hostCode(e.code),
          title,
        );
      } else void payFailed(errorText(e, t), unknown ? 'network' : 'paymentFailed', title);
    } finally {
      setBusy(false);
    }
  };

  /** A saved card pays in one call (the server takes the card saved with this method). */
  const paySaved = (cardId: string) => {
    setBusy(true);
    void serverCall({ cardId }, randomId())
      .then((a) => afterPaid('done' in a ? a.done : ''), payError)
      .finally(() => setBusy(false));
  };
  const payRef = useRef(pay);
  payRef.current = pay;
  /** The payment failed: Retry pays again with the same card (and, after an unknown outcome, the same key). */
  async function payFailed(text: string, code = 'paymentFailed', title = t('confirm.payFailed')) {
    emitHostEvent({ type: 'payment.failed', code, message: text.slice(0, 500) });
    const retry = await confirmDialog({ title, text, okLabel: t('common.retry') });
    if (retry && lastCard.current) void payRef.current(lastCard.current);
  }

  const purpose =
    payType === 'YJ'
      ? preAuth
        ? t('confirm.purposePreAuth')
        : t('confirm.purposeDeposit')
      : boxDeposit
        ? t(holds ? 'payTypes.purposeBoxHold' : 'payTypes.purposeBoxDeposit')
        : payType === 'FK'
          ? t('payTypes.purposeDebt')
          : payType === 'CZ'
            ? t('payTypes.purposeTopUp')
            : t('confirm.purposeOther');
  // Any method the list offers (/payMethod chooses, then back here with paymentId), whichever form is shown.
  const changeMethod =
    methods && methods.length > 1 ? (
      <a className="button block" href={'#' + href('/payMethod', Object.fromEntries(query))}>
        {t('payMethod.change')}
      </a>
    ) : null;
  const minorOf = (major: string | null) => {
    try {
      return toMinor(Number(major) || 0, currency);
    } catch {
      return 0;
    }
  };
  const minor = minorOf(price);

  return (
    <>
      <PageHeader title={t('confirm.title')} />
      <main className="page confirm">
        <section className="amount-card" aria-labelledby="amount-label">
          <p id="amount-label" className="muted">
            {preAuth ? t('confirm.amountPreAuth') : t('confirm.amountLabel')}
          </p>
          <p className="amount">{amount}</p>
          <p>{purpose}</p>
          {cabinet?.shopname ? <p className="muted">{t('confirm.at', { venue: cabinet.shopname })}</p> : null}
        </section>

        {payType === 'mifi' && !q.paymentIntent ? (
          <MifiPayOptions
            currency={currency}
            total={minor}
            deposit={boxDeposit ? minor : minorOf(query.get('deposit'))}
            onChange={setMifiChoice}
          />
        ) : null}
        {payType === 'overbuy' || (payType === 'mifi' && mifiChoice?.due === 0) ? (
          <button
            type="button"
            className="button primary block"
            disabled={busy}
            onClick={() => {
              setBusy(true);
              void serverCall({}, randomId())
                .then((a) => afterPaid('done' in a ? a.done : ''), payError)
                .finally(() => setBusy(false));
            }}
          >
            {payType === 'overbuy' ? t('payTypes.buyOut', { amount }) : t('mifiPay.payWallet')}
          </button>
        ) : loadError ? null : !methods ? (
          <Loading label={t('confirm.loadingMethods')} />
        ) : !method ? (
          <p role="alert">{t('confirm.noMethod')}</p>
        ) : external ? (
          <section aria-labelledby="card-title">
            <h2 id="card-title" className="section-title">
              {external.label}
            </h2>
            {preAuthPlan && external.hold ? <HoldExplainer amount={amount} /> : null}
            <ExternalPay
              method={external}
              preAuth={preAuthPlan || boxDeposit}
              resumeRef={q.paymentIntent || undefined}
              submitLabel={
                (preAuthPlan || boxDeposit) && external.hold
                  ? t('confirm.authorize', { amount })
                  : t('confirm.pay', { amount })
              }
              call={(input) => serverCall(input, randomId())}
              savedCards={savedCards}
              onDone={afterPaid}
              onError={payError}
            />
            {changeMethod}
          </section>
        ) : stripeMethod ? (
          <section aria-labelledby="card-title">
            <h2 id="card-title" className="section-title">
              {stripeMethod.label}
            </h2>
            {preAuthPlan ? <HoldExplainer amount={amount} /> : null}
            {stripeMethod.pPaymentType === DEBIT_CARD_TYPE ? (
              <p className="debit-note">{t('confirm.debitOnlyNote')}</p>
            ) : null}
            <StripePay
              method={stripeMethod}
              amount={minor}
              currency={currency}
              submitLabel={preAuth ? t('confirm.authorize', { amount }) : t('confirm.pay', { amount })}
              call={(input) => serverCall(input, randomId())}
              onDone={afterPaid}
              onError={payError}
            />
            {changeMethod}
          </section>
        ) : !provider ? (
          <p role="alert">{t('confirm.methodUnavailable', { method: method.label ?? method.pPaymentType })}</p>
        ) : (
          <section aria-labelledby="card-title">
            <h2 id="card-title" className="section-title">
              {debitOnly ? t('confirm.debitTitle') : t('confirm.cardTitle')}
            </h2>
            {provider.sandbox ? <SandboxCardsHint debitOnly={debitOnly} /> : null}
            {debitOnly ? <p className="debit-note">{t('confirm.debitOnlyNote')}</p> : null}
            {preAuthPlan ? <HoldExplainer amount={amount} /> : null}
            <SavedCardPay
              id="confirm-saved-card"
              cards={savedCards}
              submitLabel={preAuth ? t('confirm.authorize', { amount }) : t('confirm.pay', { amount })}
              busy={busy}
              onPay={paySaved}
            >
              <CardForm
                submitLabel={preAuth ? t('confirm.authorize', { amount }) : t('confirm.pay', { amount })}
                busy={busy}
                onSubmit={(c) => void pay(c)}
                onEdit={() => {
                  pending.current = null;
                }}
              />
            </SavedCardPay>
            {boxDeposit ? null : (
              <p className="muted small">{preAuth ? t('confirm.preAuthNote') : t('confirm.depositNote')}</p>
            )}
            {changeMethod}
          </section>
        )}
      </main>
    </>
  );
}
