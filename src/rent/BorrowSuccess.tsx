// Route '/borrowSuccess' [tradeNo, payMode, payType, …]: polls every 3 s; download-app button.
import { useStore } from '@nanostores/react';
import { translate, useT } from '../i18n/index.ts';
import { loadActivePayStrings } from '../pay/strings.ts';
import { $route, navigate } from '../stores/router.ts';
import { showMessage } from '../ui/feedback.tsx';
import { useMountEffect } from '../ui/hooks.ts';
import { PageHeader } from '../ui/PageHeader.tsx';
import { OrderCheck } from './OrderCheck.tsx';
import { BatteryIcon } from '../scan/HomeScan.tsx';
import { currentSystem, storeFor } from '../platform/device.ts';
import { TouristInvoice } from '../info/TouristInvoice.tsx';

export const BORROW_POLL_MS = 3000;
export const BORROW_MAX_MS = 90_000;

export default function BorrowSuccess() {
  const t = useT();
  const { query } = useStore($route);
  const tradeNo = query.get('tradeNo') ?? '';
  const payMode = query.get('payMode') || query.get('payType') || 'YJ';
  const { store, url } = storeFor(currentSystem());
  // payType FK paid an existing order (no eject to wait for): confirm, then the order list.
  useMountEffect(() => {
    if (payMode !== 'FK') return;
    void loadActivePayStrings()
      .then(() => showMessage({ title: translate('fk.paidTitle'), text: translate('fk.paid') }))
      .then(() => navigate('/order', { replace: true }));
  });
  if (payMode === 'FK') return <PageHeader title={t('check.borrowTitle')} />;
  return (
    <>
      <PageHeader title={t('check.borrowTitle')} />
      <main className="page center">
        <OrderCheck
          icon={<BatteryIcon />}
          key={tradeNo}
          tradeNo={tradeNo}
          payMode={payMode}
          intervalMs={BORROW_POLL_MS}
          maxMs={BORROW_MAX_MS}
          successExtra={
            <>
              <a className="button block" href={url} target="_blank" rel="noopener noreferrer">
                {store === 'appStore' ? t('landing.appStore') : t('landing.googlePlay')}
              </a>
              <TouristInvoice orderId={tradeNo} />
            </>
          }
        />
      </main>
    </>
  );
}
