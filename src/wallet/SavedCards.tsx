// Saved cards of one agent: list, save with a chosen payment method (setup → card token →
// confirm), delete. Saving requires login (the route guard) and a selected payment method.
import { useCallback, useEffect, useRef, useState } from 'react';
import { useT, errorText } from '../i18n/index.ts';
import {
  confirmSaveCard,
  listCards,
  removeCard,
  startSaveCard,
  walletPaymentMethods,
  type SavedCard,
  type Wallet,
} from '../api/wallet.ts';
import type { PaymentMethod } from '../api/payment.ts';
import { CardForm } from '../pay/CardForm.tsx';
import { cardProviderFor, type CardDetails } from '../pay/provider.ts';
import { StripeCardSetup } from '../pay/StripeCardSetup.tsx';
import { stripeKind } from '../pay/stripe.ts';
import { randomId } from '../stores/session.ts';
import { Dialog } from '../ui/Dialog.tsx';
import { confirmDialog, toast } from '../ui/feedback.tsx';

/**
 * The methods a card is saved with: the card provider's card type (never PayPal or another method of the payment
 * list, which saves no card here); the debit-only type only where it is the one card type.
 */
export function cardSavingMethods(methods: PaymentMethod[]): PaymentMethod[] {
  const own = methods.filter((m) => !m.kind);
  const cards = own.filter((m) => m.pPaymentType === 'STRIPE_CARD');
  return cards.length ? cards : own.filter((m) => stripeKind(m.pPaymentType) === 'card');
}

/** `preferred`: the method /wallet was opened for (its paymentId or pmid), chosen when it saves cards. */
export function SavedCards({ wallet, canAdd, preferred }: { wallet: Wallet; canAdd: boolean; preferred?: string }) {
  const t = useT();
  const [cards, setCards] = useState<SavedCard[] | null>(null);
  const [methods, setMethods] = useState<PaymentMethod[]>([]);
  const [methodId, setMethodId] = useState('');
  const [adding, setAdding] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState('');
  const key = useRef(randomId());

  const load = useCallback(async () => {
    try {
      setCards(await listCards(wallet.pDailiId));
    } catch (e) {
      setError(errorText(e, t));
    }
  }, [wallet.pDailiId, t]);

  useEffect(() => {
    void load();
  }, [load]);

  const openAdd = async () => {
    setError('');
    try {
      const m = cardSavingMethods(await walletPaymentMethods(wallet.pCurrencyType, wallet.pDailiId));
      setMethods(m);
      const wanted = m.find((x) => String(x.pId) === preferred);
      setMethodId(wanted ? String(wanted.pId) : m.length === 1 ? String(m[0]!.pId) : '');
      key.current = randomId();
      setAdding(true);
    } catch (e) {
      toast(errorText(e, t));
    }
  };

  const save = async (card: CardDetails) => {
    const method = methods.find((m) => String(m.pId) === methodId);
    if (!method) {
      setError(t('wallet.cards.chooseMethod'));
      return;
    }
    const provider = cardProviderFor(method);
    if (!provider) {
      setError(t('wallet.cards.chooseMethod'));
      return;
    }
    setBusy(true);
    setError('');
    try {
      const setup = await startSaveCard(method.pId, wallet.pDailiId, wallet.pCurrencyType);
      const token = await provider.tokenize(card);
      await confirmSaveCard(
        { paymentId: setup.paymentId, clientSecret: setup.clientSecret, paymentMethod: token.id },
        key.current,
      );
      setAdding(false);
      toast(t('wallet.cards.saved'));
      await load();
    } catch (e) {
      setError(e instanceof Error && !('kind' in e) ? e.message : errorText(e, t));
      key.current = randomId();
    } finally {
      setBusy(false);
    }
  };

  // A Stripe card method (live keys): Stripe.js confirms the SetupIntent; the sandbox keeps its own card form.
  const chosenMethod = methods.find((m) => String(m.pId) === methodId);
  const stripeMethod =
    chosenMethod && !cardProviderFor(chosenMethod) && stripeKind(chosenMethod.pPaymentType) === 'card'
      ? chosenMethod
      : null;

  const remove = async (c: SavedCard) => {
    const ok = await confirmDialog({
      title: t('wallet.cards.removeTitle'),
      text: c.pCardnumber,
      okLabel: t('wallet.cards.remove'),
    });
    if (!ok) return;
    try {
      await removeCard(c.pId);
      toast(t('wallet.cards.removed'));
      await load();
    } catch (e) {
      toast(errorText(e, t));
    }
  };

  return (
    <section aria-labelledby="saved-cards-title" className="saved-cards-section">
      <h2 id="saved-cards-title">{t('wallet.cards.title')}</h2>
      {cards && cards.length === 0 ? <p className="hint">{t('wallet.cards.none')}</p> : null}
      <ul className="saved-cards">
        {(cards ?? []).map((c) => (
          <li key={c.pId} className="saved-card">
            <span>
              {c.brand ? `${c.brand.toUpperCase()} ` : ''}
              {c.pCardnumber} · {c.currencyName}
            </span>
            <button
              type="button"
              className="button small"
              onClick={() => void remove(c)}
              aria-label={t('wallet.cards.removeLabel', { card: c.pCardnumber })}
            >
              {t('wallet.cards.remove')}
            </button>
          </li>
        ))}
      </ul>
      {canAdd ? (
        <button type="button" className="button block" onClick={() => void openAdd()}>
          {t('wallet.cards.add')}
        </button>
      ) : null}
      <Dialog
        open={adding}
        title={t('wallet.cards.add')}
        onClose={() => setAdding(false)}
        actions={
          <button type="button" className="button" onClick={() => setAdding(false)}>
            {t('common.cancel')}
          </button>
        }
      >
        {/* Asked only when there is a choice to make. */}
        {methods.length > 1 ? (
          <div className="field">
            <label htmlFor="card-method">{t('wallet.cards.method')}</label>
            <select id="card-method" value={methodId} onChange={(e) => setMethodId(e.target.value)}>
              <option value="">{t('wallet.cards.chooseMethod')}</option>
              {methods.map((m) => (
                <option key={String(m.pId)} value={String(m.pId)}>
                  {m.label ?? m.pPaymentType}
                </option>
              ))}
            </select>
          </div>
        ) : null}
        {stripeMethod ? (
          <StripeCardSetup
            method={stripeMethod}
            submitLabel={t('wallet.cards.save')}
            start={() => startSaveCard(stripeMethod.pId, wallet.pDailiId, wallet.pCurrencyType)}
            record={async (s) => {
              await confirmSaveCard(s, key.current);
              setAdding(false);
              toast(t('wallet.cards.saved'));
              await load();
            }}
            onError={(m) => {
              setError(m);
              key.current = randomId();
            }}
          />
        ) : (
          <CardForm
            submitLabel={t('wallet.cards.save')}
            busy={busy}
            onSubmit={(c) => void save(c)}
            onEdit={() => setError('')}
          />
        )}
        {error ? (
          <p role="alert" className="form-error">
            {error}
          </p>
        ) : null}
      </Dialog>
    </section>
  );
}
