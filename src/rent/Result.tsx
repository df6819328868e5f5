// Route '/result' [tradeNo, payMode, payType, outTradeNo, …]: polls every 1 s with a countdown.
import { useStore } from '@nanostores/react';
import { useT } from '../i18n/index.ts';
import { $route } from '../stores/router.ts';
import { PageHeader } from '../ui/PageHeader.tsx';
import { OrderCheck } from './OrderCheck.tsx';

export const RESULT_POLL_MS = 1000;
/** Spec §4: payment execution retries until 30 s. */
export const RESULT_MAX_MS = 30_000;

export default function Result() {
  const t = useT();
  const { query } = useStore($route);
  const tradeNo = query.get('tradeNo') || query.get('outTradeNo') || '';
  const payMode = query.get('payMode') || query.get('payType') || 'YJ';
  return (
    <>
      <PageHeader title={t('check.resultTitle')} />
      <main className="page center">
        <OrderCheck key={tradeNo} tradeNo={tradeNo} payMode={payMode} intervalMs={RESULT_POLL_MS} maxMs={RESULT_MAX_MS} />
      </main>
    </>
  );
}
