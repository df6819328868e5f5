// A card SDK screen (/MonriPay, /MercadoPago) opened without the paying call's parameters: says so, offers back.
import { useT } from '../i18n/index.ts';
import { back } from '../stores/router.ts';
import { PageHeader } from '../ui/PageHeader.tsx';

export function SdkInvalidLink({ title }: { title: string }) {
  const t = useT();
  return (
    <>
      <PageHeader title={title} />
      <main className="page">
        <p role="alert">{t('sdkPay.invalidLink')}</p>
        <button type="button" className="button block" onClick={() => back()}>
          {t('common.back')}
        </button>
      </main>
    </>
  );
}
