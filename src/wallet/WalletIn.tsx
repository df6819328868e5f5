// Route '/wallet_in': top-up. Query price, pbalance (and the wallet's currency, agentId). The amount
// input is read-only; the presets 10, 30, 50, 100, 300, 500 choose it (default 10, or ?price). Pays with a new card
// or a saved card through the payment provider (payType CZ); a new card may be saved for the next payments ("save
// this card": the server lists it once paid). Success dialog, then the wallet.
import { useEffect, useRef, useState } from 'react';
import { useStore } from '@nanostores/react';
import { useLatest } from '../ui/hooks.ts';
import { useT, errorText } from '../i18n/index.ts';
import { listCards, recharge, walletPaymentMethods, type SavedCard } from '../api/wallet.ts';
import type { PaymentMethod } from '../api/payment.ts';
import { SavedCardSelect } from '../ui/SavedCardSelect.tsx';
import { DEFAULT_TOPUP, TOPUP_PRESETS } from '../core/wallet.ts';
import { toDecimalText, toMinor } from '../core/money.ts';
import { CardForm } from '../pay/CardForm.tsx';
import { SandboxCardsHint } from '../pay/SandboxHint.tsx';
import { usePayStrings } from '../pay/strings.ts';
import { rechargeFailureKey } from '../pay/rechargeFailure.ts';
import { cardProviderFor, pickCardMethod, type CardDetails } from '../pay/provider.ts';
import { $route, href, navigate } from '../stores/router.ts';
import { randomId } from '../stores/session.ts';
import { $wallet } from '../stores/wallet.ts';
import { showMessage } from '../ui/feedback.tsx';
import { PageHeader } from '../ui/PageHeader.tsx';
import { money } from '../ui/format.ts';
import '../pay/pay.css';
import './wallet.css';

export default function WalletIn() {
  const t = useT();
  usePayStrings();
  const route = useStore($route);
  const wallet = useStore($wallet);
  const q = route.query;
  const currency = q.get('currency') || wallet?.pCurrencyType || 'USD';
  const agentId = q.get('agentId') || wallet?.pDailiId || undefined;
  const initial = Number(q.get('price'));
  const [amount, setAmount] = useState<number>(Number.isFinite(initial) && initial > 0 ? initial : DEFAULT_TOPUP);
  const [balance, setBalance] = useState<number | null>(
    q.get('pbalance') != null ? Number(q.get('pbalance')) : (wallet?.pBalance ?? null),
  );
  const [methods, setMethods] = useState<PaymentMethod[] | null>(null);
  const [cards, setCards] = useState<SavedCard[]>([]);
  /** The card chosen: a saved card's pId, '' a new card; at first the latest saved card. */
  const [cardChoice, setCardId] = useState<string | null>(null);
  const [saveCard, setSaveCard] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState('');
  /** Which step failed ("Failed to create recharge order" / "Failed to initiate recharge payment"), above the reason. */
  const [errorTitle, setErrorTitle] = useState('');
  /** One top-up action: its key and card token are reused when a retry follows an unknown outcome. */
  const pending = useRef<{ key: string; token?: string; amount: number; cardId?: string } | null>(null);

  const latestT = useLatest(t);
  useEffect(() => {
    void (async () => {
      try {
        setMethods(await walletPaymentMethods(currency, agentId));
        setCards(await listCards(agentId));
      } catch (e) {
        setError(errorText(e, latestT.current));
        setMethods([]);
      }
    })();
  }, [currency, agentId, latestT]);

  const method = methods ? pickCardMethod(methods) : undefined;
  // A card saved with a method beyond the card provider (Mercado Pago) pays only through that method (the confirm screen).
  const usable = cards.filter((c) => !c.paymentId || !methods?.some((m) => m.kind && m.pId === c.paymentId));
  const provider = method ? cardProviderFor(method) : null;
  const cardId = cardChoice ?? usable[0]?.pId ?? '';

  const pay = async (card: CardDetails | null) => {
    if (!method) return;
    setBusy(true);
    setError('');
    try {
      if (
        !pending.current ||
        pending.current.amount !== amount ||
        pending.current.cardId !== (card ? undefined : cardId)
      ) {
        const token = card && provider ? (await provider.tokenize(card)).id : undefined;
        pending.current = { key: randomId(), token, amount, cardId: card ? undefined : cardId };
      }
      const p = pending.current;
      const r = await recharge(
        {
          amount: toDecimalText(toMinor(amount, currency), currency),
          currency,
          agentId,
          paymentId: method.pId,
          stripeToken: p.token,
          cardId: p.cardId,
          ...(p.token && saveCard ? { saveCard: true } : {}),
        },
        p.key,
      );
      pending.current = null;
      setBalance(r.pBalance);
      if (wallet && wallet.pCurrencyType === currency) $wallet.set({ ...wallet, pBalance: r.pBalance });
      // After CZ success the dialog leads to /mine.
      void showMessage({
        title: t('wallet.in.successTitle'),
        text: t('wallet.in.success', { amount: money(currency, amount) }),
      }).then(() => navigate('/mine', { replace: true, from: '/wallet_in' }));
    } catch (e) {
      // A business refusal is final for this action; a network error keeps the key for the retry.
      if (!(
        e instanceof Error &&
        'kind' in e &&
        ((e as { kind: string }).kind === 'network' || (e as { kind: string }).kind === 'timeout')
      ))
        pending.current = null;
      setErrorTitle(t(rechargeFailureKey(e)));
      setError(e instanceof Error && !('kind' in e) ? e.message : errorText(e, t));
    } finally {
      setBusy(false);
    }
  };

  return (
    <>
      <PageHeader title={t('wallet.in.title')} />
      <main className="page wallet-in">
        {balance != null ? (
          <p>
            {t('wallet.balance')}: <strong>{money(currency, balance)}</strong>
          </p>
        ) : null}
        <div className="field">
          <label htmlFor="topup-amount">{t('wallet.in.amount', { currency })}</label>
          <input id="topup-amount" className="topup-amount" readOnly value={amount} aria-describedby="topup-hint" />
          <p id="topup-hint" className="hint">
            {t('wallet.in.chooseHint')}
          </p>
        </div>
        <div className="presets" role="group" aria-label={t('wallet.in.presets')}>
          {TOPUP_PRESETS.map((p) => (
            <button key={p} type="button" className="button" aria-pressed={amount === p} onClick={() => setAmount(p)}>
              {money(currency, p)}
            </button>
          ))}
        </div>
        {methods === null ? (
          <p role="status">{t('common.loading')}</p>
        ) : !method ? (
          <p role="alert">{t('wallet.in.noMethod')}</p>
        ) : (
          <>
            {usable.length > 0 ? (
              <SavedCardSelect id="topup-card" cards={usable} value={cardId} onChange={setCardId} />
            ) : null}
            {cardId ? (
              <button type="button" className="button primary block" disabled={busy} onClick={() => void pay(null)}>
                {t('wallet.in.pay', { amount: money(currency, amount) })}
              </button>
            ) : !provider ? (
              // A Stripe method (live keys): the confirm screen takes the payment (Stripe.js, 3-D Secure, wallets).
              <button
                type="button"
                className="button primary block"
                onClick={() =>
                  navigate(
                    href('/confirm', {
                      payType: 'CZ',
                      price: toDecimalText(toMinor(amount, currency), currency),
                      currency,
                      agentId,
                      paymentId: method.pId,
                    }),
                  )
                }
              >
                {t('wallet.in.pay', { amount: money(currency, amount) })}
              </button>
            ) : (
              <>
                {provider.sandbox ? <SandboxCardsHint /> : null}
                <CardForm
                  submitLabel={t('wallet.in.pay', { amount: money(currency, amount) })}
                  busy={busy}
                  onSubmit={(c) => void pay(c)}
                  onEdit={() => {
                    pending.current = null;
                  }}
                >
                  <label className="check-row">
                    <input type="checkbox" checked={saveCard} onChange={(e) => setSaveCard(e.target.checked)} />
                    <span>{t('sdkPay.saveCard')}</span>
                  </label>
                </CardForm>
              </>
            )}
          </>
        )}
        {error ? (
          <p role="alert" className="form-error">
            <strong>{errorTitle}</strong>
            <br />
            {error}
          </p>
        ) : null}
      </main>
    </>
  );
}
