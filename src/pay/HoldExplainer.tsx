// Before a card hold: what is held, when it is released, what is charged (docs/payments.md).
import { useT } from '../i18n/index.ts';
import { usePayStrings } from './strings.ts';

export function HoldExplainer({ amount }: { amount: string }) {
  const t = useT();
  usePayStrings();
  return (
    <aside className="hold-explainer" aria-labelledby="hold-title">
      <h3 id="hold-title" className="section-title">
        {t('hold.title')}
      </h3>
      <ul>
        <li>{t('hold.held', { amount })}</li>
        <li>{t('hold.released')}</li>
        <li>{t('hold.charged')}</li>
        <li>{t('hold.long')}</li>
      </ul>
    </aside>
  );
}
