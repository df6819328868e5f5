// Route '/result' [tradeNo, payMode, payType, outTradeNo, …]: polls every 1 s with a countdown, then success with
// its picture (a tick in a circle), or the error with a reload button. WeChat Pay score's authorisation ends here.
import { useStore } from '@nanostores/react';
import { useT } from '../i18n/index.ts';
import { $route } from '../stores/router.ts';
import { PageHeader } from '../ui/PageHeader.tsx';
import { OrderCheck } from './OrderCheck.tsx';

export const RESULT_POLL_MS = 1000;
/** Payment execution retries until 30 s. */
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
        <OrderCheck
          key={tradeNo}
          tradeNo={tradeNo}
          payMode={payMode}
          intervalMs={RESULT_POLL_MS}
          maxMs={RESULT_MAX_MS}
          successIcon={<SuccessIcon />}
        />
      </main>
    </>
  );
}

/** The success picture: a tick in a circle in the success colour. */
function SuccessIcon() {
  return (
    <svg viewBox="0 0 64 64" width="72" height="72" focusable="false" data-testid="success-icon">
      <circle cx="32" cy="32" r="28" fill="#17753a" />
      <path
        d="M19 33l9 9 17-19"
        fill="none"
        stroke="#fff"
        strokeWidth="6"
        strokeLinecap="round"
        strokeLinejoin="round"
      />
    </svg>
  );
}
