// Route '/payment_card': the saved cards of the current wallet's agent (list, add, remove).
import { useStore } from '@nanostores/react';
import { useT } from '../i18n/index.ts';
import { $wallet } from '../stores/wallet.ts';
import { PageHeader } from '../ui/PageHeader.tsx';
import { SavedCards } from '../wallet/SavedCards.tsx';
import { usePayStrings } from './strings.ts';

export default function PaymentCard() {
  const t = useT();
  usePayStrings();
  const wallet = useStore($wallet);
  return (
    <>
      <PageHeader title={t('routes.paymentCard')} />
      <main className="page">
        {wallet ? <SavedCards wallet={wallet} canAdd /> : <p role="status">{t('paymentCard.noWallet')}</p>}
      </main>
    </>
  );
}
