// "Pay with": a saved card of the user's, or a new card (''): the wallet top-up and the external methods' payer
// step offer the same choice.
import type { SavedCard } from '../api/wallet.ts';
import { useT } from '../i18n/index.ts';

export function SavedCardSelect({
  id,
  cards,
  value,
  onChange,
  disabled,
}: {
  id: string;
  cards: SavedCard[];
  value: string;
  onChange: (cardId: string) => void;
  disabled?: boolean;
}) {
  const t = useT();
  return (
    <div className="field">
      <label htmlFor={id}>{t('wallet.in.payWith')}</label>
      <select id={id} value={value} disabled={disabled} onChange={(e) => onChange(e.target.value)}>
        <option value="">{t('wallet.in.newCard')}</option>
        {cards.map((c) => (
          <option key={c.pId} value={c.pId}>
            {c.pCardnumber}
          </option>
        ))}
      </select>
    </div>
  );
}
