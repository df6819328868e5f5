// Route '/confirm': payment confirmation. Query: price, payType, qrcode, cabinetID, yaJinType (+ later ones).
import { useCallback, useEffect, useRef, useState } from 'react';
import { useStore } from '@nanostores/react';
import { useT, errorText } from '../i18n/index.ts';
import { $route, back, href, navigate } from '../stores/router.ts';
import { $cabinet } from '../stores/cabinet.ts';
import { $qrcode } from '../stores/scan.ts';
import { randomId } from '../stores/session.ts';
import { listPaymentMethods, type PaymentMethod } from '../api/payment.ts';
import { rentWithDeposit } from '../api/cabinet.ts';
import { ApiError } from '../api/client.ts';
import { PageHeader } from '../ui/PageHeader.tsx';
import { Loading } from '../ui/Loading.tsx';
import { confirmDialog } from '../ui/feedback.tsx';
import { CardForm } from './CardForm.tsx';
import { emitHostEvent } from '../platform/hostEvents.ts';
import {
  CardProviderError,
  SANDBOX_TEST_CARDS,
  cardProviderFor,
  pickCardMethod,
  type CardDetails,
  type CardProvider,
} from './provider.ts';

const KNOWN_CARD_ERRORS = ['card_declined', 'insufficient_funds', 'incorrect_number', 'invalid_expiry', 'invalid_cvc', 'expired_card', 'network'];

/** A provider's error code as the embed's stable event code (letters only): card_declined → cardDeclined. */
const hostCode = (code: string) => {
  const c = code.replace(/_([a-z])/g, (_m, ch: string) => ch.toUpperCase());
  return /^[a-zA-Z]{1,40}$/.test(c) ? c : 'cardError';
};

export default function Confirm() {
  const t = useT();
  const { query } = useStore($route);
  const cabinet = useStore($cabinet);
  const storedQr = useStore($qrcode);
  const price = query.get('price') ?? '';
  const payType = query.get('payType') ?? 'YJ';
  const qrcode = query.get('qrcode') || storedQr;
  const preAuth = query.get('yaJinType') === '0';
  const symbol = cabinet?.currencyName ?? '';
  const amount = `${symbol}${price}`;

  const [methods, setMethods] = useState<PaymentMethod[] | null>(null);
  const [loadError, setLoadError] = useState('');
  const [busy, setBusy] = useState(false);
  /** One payment action: its Idempotency-Key and card token, reused when a retry follows an unknown outcome. */
  const pending = useRef<{ key: string; token: string } | null>(null);
  const lastCard = useRef<CardDetails | null>(null);

  const load = useCallback(async () => {
    setLoadError('');
    setMethods(null);
    try {
      setMethods(await listPaymentMethods(qrcode));
    } catch (e) {
      const text = errorText(e, t);
      setLoadError(text);
      // Retry loads again; Cancel (or Escape) goes back where the user came from.
      const retry = await confirmDialog({ title: t('confirm.methodsFailed'), text, okLabel: t('common.retry') });
      if (retry) void loadRef.current();
      else back({ from: '/confirm' });
    }
  }, [qrcode, t]);
  const loadRef = useRef(load);
  loadRef.current = load;

  // Loads per qrcode and language (method labels come localised).
  useEffect(() => {
    void load();
  }, [load]);

  const method = methods ? pickCardMethod(methods) : undefined;
  const provider: CardProvider | null = method ? cardProviderFor(method) : null;

  const pay = async (card: CardDetails) => {
    if (!provider || !method) return;
    lastCard.current = card;
    setBusy(true);
    try {
      if (!pending.current) {
        const token = await provider.tokenize(card);
        pending.current = { key: randomId(), token: token.id };
      }
      const r = await rentWithDeposit({ qrcode, stripeToken: pending.current.token, paymentId: method.pId }, pending.current.key);
      pending.current = null;
      if (!r?.outTradeNo) {
        void payFailed(t('confirm.noOrder'));
        return;
      }
      navigate(href('/borrowSuccess', { tradeNo: r.outTradeNo, payType }), { replace: true });
    } catch (e) {
      // Unknown outcome (network, timeout): keep key and token so the retry is the same action.
      const unknown = e instanceof ApiError && (e.kind === 'network' || e.kind === 'timeout');
      if (!unknown) pending.current = null;
      if (e instanceof CardProviderError) {
        void payFailed(KNOWN_CARD_ERRORS.includes(e.code) ? t(`card.providerErrors.${e.code}`) : e.message, hostCode(e.code));
      } else void payFailed(errorText(e, t), unknown ? 'network' : 'paymentFailed');
    } finally {
      setBusy(false);
    }
  };

  const payRef = useRef(pay);
  payRef.current = pay;
  /** The payment failed: Retry pays again with the same card (and, after an unknown outcome, the same key). */
  async function payFailed(text: string, code = 'paymentFailed') {
    emitHostEvent({ type: 'payment.failed', code, message: text.slice(0, 500) });
    const retry = await confirmDialog({ title: t('confirm.payFailed'), text, okLabel: t('common.retry') });
    if (retry && lastCard.current) void payRef.current(lastCard.current);
  }

  const purpose = payType === 'YJ' ? (preAuth ? t('confirm.purposePreAuth') : t('confirm.purposeDeposit')) : t('confirm.purposeOther');

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

        {loadError ? null : !methods ? (
          <Loading label={t('confirm.loadingMethods')} />
        ) : !method ? (
          <p role="alert">{t('confirm.noMethod')}</p>
        ) : !provider ? (
          <p role="alert">{t('confirm.methodUnavailable', { method: method.label ?? method.pPaymentType })}</p>
        ) : (
          <section aria-labelledby="card-title">
            <h2 id="card-title" className="section-title">
              {t('confirm.cardTitle')}
            </h2>
            {provider.sandbox ? (
              <aside className="sandbox-hint" aria-label={t('confirm.sandboxTitle')}>
                <p>
                  <strong>{t('confirm.sandboxTitle')}</strong> {t('confirm.sandboxText')}
                </p>
                <ul>
                  {SANDBOX_TEST_CARDS.map((c) => (
                    <li key={c.number}>
                      <code>{c.number}</code> — {t(`confirm.testCard.${c.outcome}`)}
                    </li>
                  ))}
                </ul>
              </aside>
            ) : null}
            <CardForm
              submitLabel={preAuth ? t('confirm.authorize', { amount }) : t('confirm.pay', { amount })}
              busy={busy}
              onSubmit={(c) => void pay(c)}
              onEdit={() => {
                pending.current = null;
              }}
            />
            <p className="muted small">{preAuth ? t('confirm.preAuthNote') : t('confirm.depositNote')}</p>
          </section>
        )}
      </main>
    </>
  );
}
