// The card provider's card form offers the person's saved cards first: the latest saved card is chosen, and paying
// with it is one button; "A new card" brings the card form back. Rentals and top-ups take a saved card.
import { useEffect, useState, type ReactNode } from 'react';
import { listCards, type SavedCard } from '../api/wallet.ts';
import { SavedCardSelect } from '../ui/SavedCardSelect.tsx';
import { useT } from '../i18n/index.ts';

/**
 * The user's cards saved with the method `methodId` (none while `methodId` is empty); `unnamed`: also the cards
 * saved before cards named their method (the card provider's).
 */
export function useSavedCards(methodId: string, agentId: string | undefined, unnamed: boolean): SavedCard[] {
  const [cards, setCards] = useState<SavedCard[]>([]);
  useEffect(() => {
    if (!methodId) return setCards([]);
    let live = true;
    listCards(agentId).then(
      (all) => live && setCards(all.filter((c) => c.paymentId === methodId || (unnamed && !c.paymentId))),
      () => live && setCards([]),
    );
    return () => {
      live = false;
    };
  }, [methodId, agentId, unnamed]);
  return cards;
}

export function SavedCardPay({
  id,
  cards,
  submitLabel,
  busy,
  onPay,
  children,
}: {
  id: string;
  cards: SavedCard[];
  submitLabel: string;
  busy: boolean;
  onPay: (cardId: string) => void;
  /** The new card's form. */
  children: ReactNode;
}) {
  const t = useT();
  const [choice, setChoice] = useState<string | null>(null);
  const cardId = choice ?? cards[0]?.pId ?? '';
  if (!cards.length) return <>{children}</>;
  return (
    <>
      <SavedCardSelect id={id} cards={cards} value={cardId} onChange={setChoice} disabled={busy} />
      {cardId ? (
        <button
          type="button"
          className="button primary block"
          aria-disabled={busy}
          aria-busy={busy}
          onClick={() => !busy && onPay(cardId)}
        >
          {busy ? t('confirm.paying') : submitLabel}
        </button>
      ) : (
        children
      )}
    </>
  );
}
