// Route '/orderDetail' [orderId]: one rental order; copy the order number. With type=mifi: a Wi-Fi package order
// (src/mifi/OrderDetail.tsx, in the Wi-Fi flow's chunk).
import { deviceOf } from '../core/devices.ts';
import { lazy, Suspense, useCallback, useEffect, useState } from 'react';
import '../ui/badge.css';
import './orders.css';
import { useStore } from '@nanostores/react';
import { useT, errorText, $activeLang } from '../i18n/index.ts';
import { $route } from '../stores/router.ts';
import { getOrder, shareOrder, type Order } from '../api/orders.ts';
import { isOngoing, ORDER_STATE, orderActions } from '../core/orders.ts';
import { href, navigate } from '../stores/router.ts';
import { PageHeader } from '../ui/PageHeader.tsx';
import { OrderBadge } from './Order.tsx';
import { Loading } from '../ui/Loading.tsx';
import { toast } from '../ui/feedback.tsx';
import { dateTime, money } from '../ui/format.ts';
import { chargeStandard, duration, OPEN_ORDER_POLL_MS, returnSummary } from './orderText.ts';
import { useLiveRefresh } from '../ui/live.ts';
import { useLatestLoad } from '../ui/hooks.ts';
import { MoneyTimeline } from './MoneyTimeline.tsx';
import { ReturnClaim } from './ReturnClaim.tsx';
import { Grace } from './Grace.tsx';

async function copyText(text: string): Promise<boolean> {
  try {
    if (navigator.clipboard?.writeText) {
      await navigator.clipboard.writeText(text);
      return true;
    }
  } catch {
    // fall through to the legacy way
  }
  const ta = document.createElement('textarea');
  ta.value = text;
  ta.setAttribute('readonly', '');
  ta.style.position = 'fixed';
  ta.style.opacity = '0';
  document.body.appendChild(ta);
  ta.select();
  let ok: boolean;
  try {
    ok = document.execCommand('copy');
  } catch {
    ok = false;
  }
  ta.remove();
  return ok;
}

/** Minutes from an ISO time until now (an open rental's time so far). */
function minutesSince(iso: string | undefined): number {
  const start = iso ? Date.parse(iso) : NaN;
  return Number.isNaN(start) ? 0 : Math.max(0, Math.floor((Date.now() - start) / 60_000));
}

const MifiOrderDetail = lazy(() => import('../mifi/screens.ts').then((m) => ({ default: m.mifiOrderDetail })));

export default function OrderDetail() {
  const t = useT();
  const { query } = useStore($route);
  if (query.get('type') !== 'mifi') return <RentalOrderDetail />;
  return (
    <Suspense fallback={<Loading label={t('common.loading')} />}>
      <MifiOrderDetail />
    </Suspense>
  );
}

function RentalOrderDetail() {
  const t = useT();
  const lang = useStore($activeLang);
  const { query } = useStore($route);
  const orderId = query.get('orderId') ?? '';
  const [order, setOrder] = useState<Order | null>(null);
  const [error, setError] = useState('');

  const beginLoad = useLatestLoad();
  const load = useCallback(async () => {
    const isLatest = beginLoad();
    setError('');
    if (!orderId) {
      setError(t('detail.noOrder'));
      return;
    }
    try {
      const o = await getOrder(orderId);
      if (isLatest()) setOrder(o);
    } catch (e) {
      if (isLatest()) setError(errorText(e, t));
    }
  }, [orderId, t, beginLoad]);

  useEffect(() => {
    void load();
  }, [load]);

  const ongoing = order ? isOngoing(order) : false;
  // The cabinet's answers and the return arrive over the live stream; polling only while it is down.
  useLiveRefresh(
    (e) => e.kind === 'order' && e.orderId === orderId,
    () => void load(),
    order && (ongoing || order.pZujie === ORDER_STATE.pending) ? OPEN_ORDER_POLL_MS : undefined,
  );
  const returned = order ? returnSummary(order, t) : null;
  const actions = order ? orderActions(order) : { buy: false, payAgain: false };
  /**
   * Buying the power bank is a payment of its own (payType overbuy): the confirm screen says what it costs and buys
   * it (settled from the rental's deposit), then leads to its receipt (/invoiceOrderDtl).
   */
  const buy = () => {
    if (!order) return;
    const price = order.buyOutAmount ?? order.overtimeAmount ?? 0;
    navigate(
      href('/confirm', {
        payType: 'overbuy',
        orderId: order.pOrderid,
        price: String(price),
        currency: order.pCurrency ?? '',
      }),
    );
  };
  const [shareUrl, setShareUrl] = useState('');
  /** The token-less detail's link: made by the server once, copied for the user to send. */
  const share = async () => {
    if (!order) return;
    try {
      const { sign } = await shareOrder(order.pOrderid);
      const url = `${location.origin}${location.pathname}#${href('/orderStatus', { orderId: order.pOrderid, sign })}`;
      setShareUrl(url);
      toast((await copyText(url)) ? t('orderStatus.shareCopied') : t('orderStatus.shareFailed'));
    } catch (e) {
      toast(errorText(e, t));
    }
  };
  return (
    <>
      <PageHeader title={t('detail.title')} />
      <main className="page detail">
        {error ? (
          <div className="notice" role="alert">
            <p>{error}</p>
            {orderId ? (
              <button type="button" className="button" onClick={() => void load()}>
                {t('common.retry')}
              </button>
            ) : null}
          </div>
        ) : !order ? (
          <Loading label={t('common.loading')} />
        ) : (
          <>
            <section className="detail-head">
              <p className="badge-line">
                <OrderBadge o={order} />
              </p>
              <p className="amount">
                {money(order.pCurrency, ongoing ? (order.estimatedAmount ?? 0) : (order.pJiesuan ?? 0))}
              </p>
              <p className="muted">{ongoing ? t('orders.estimated') : t('orders.fee')}</p>
            </section>
            {returned ? (
              <p className="notice notice-ok" role="status" data-testid="return-summary">
                {returned}
              </p>
            ) : null}
            <dl className="order-fields">
              <dt>{t('orders.number')}</dt>
              <dd className="order-no-row">
                <span>{order.pOrderid}</span>
                <button
                  type="button"
                  className="button small"
                  onClick={() =>
                    void copyText(order.pOrderid).then((ok) => toast(ok ? t('detail.copied') : t('detail.copyFailed')))
                  }
                >
                  {t('detail.copy')}
                </button>
              </dd>
              <dt>{t('detail.state')}</dt>
              <dd>{t(`detail.zujie.${order.pZujie}`)}</dd>
              <dt>{t('orders.rented')}</dt>
              <dd>
                {order.pShopName} · {dateTime(order.pBorrowtime, lang)}
              </dd>
              <dt>{t('orders.returned')}</dt>
              <dd>
                {order.pGhtime
                  ? `${order.pGhShopName ?? ''} · ${dateTime(order.pGhtime, lang)}`
                  : t('orders.notReturned')}
              </dd>
              <dt>{t('detail.usage')}</dt>
              <dd>{duration(ongoing ? minutesSince(order.pBorrowtime) : order.pUseMins)}</dd>
              <dt>{t('orders.chargeStandard')}</dt>
              <dd>{chargeStandard(order, t)}</dd>
              <dt>{t('detail.deposit')}</dt>
              <dd>{money(order.pCurrency, order.pYajin ?? 0)}</dd>
              <dt>{t('orders.device')}</dt>
              <dd data-testid="order-device">{t(`devices.${deviceOf(order)}`)}</dd>
              <dt>{deviceOf(order) === 'cdb' ? t('orders.powerBank') : t('orders.deviceId')}</dt>
              <dd>{order.pPowerbankId || '—'}</dd>
              <dt>{t('detail.cabinet')}</dt>
              <dd>{order.pCabinetid || '—'}</dd>
            </dl>
            {order.boughtOut ? (
              <p className="notice" role="status">
                {t('orderActions.boughtOut')}
              </p>
            ) : null}
            {ongoing && order.buyOutAt ? (
              <p className="muted">
                {t('orderActions.buyOutAt', {
                  time: dateTime(order.buyOutAt, lang),
                  amount: money(order.pCurrency, order.buyOutAmount ?? 0),
                })}
              </p>
            ) : null}
            <MoneyTimeline orderId={order.pOrderid} symbol={order.pCurrencyName} />
            <ReturnClaim
              orderId={order.pOrderid}
              canClaim={order.pZujie === ORDER_STATE.renting || order.pZujie === ORDER_STATE.fault}
              onSettled={() => void load()}
            />
            {order.pZujie === ORDER_STATE.renting && order.pJiesuanid === 0 && !order.boughtOut ? (
              <Grace order={order} onGranted={() => void load()} />
            ) : null}
            <p className="tip">{ongoing ? t('detail.ongoingTip') : t('detail.endedTip')}</p>
            <div className="actions">
              {actions.payAgain ? (
                <button
                  type="button"
                  className="button primary block"
                  onClick={() =>
                    navigate(
                      href('/confirm', {
                        payType: 'FK',
                        outTradeNo: order.pOrderid,
                        orderId: order.pOrderid,
                        price: order.debtAmount || order.pJiesuan || 0,
                        currency: order.pCurrency,
                      }),
                    )
                  }
                >
                  {t('orderActions.payAgain')}
                </button>
              ) : null}
              {actions.buy ? (
                <button type="button" className="button block" onClick={buy}>
                  {t('orderActions.buy')}
                </button>
              ) : null}
              <button type="button" className="button" onClick={() => void share()}>
                {t('orderStatus.share')}
              </button>
              {shareUrl ? (
                <p className="share-link">
                  <a href={shareUrl} aria-label={t('orderStatus.shareLinkLabel')}>
                    {shareUrl}
                  </a>
                </p>
              ) : null}
              <button type="button" className="button link" onClick={() => navigate('/cdbUsage')}>
                {t('orderActions.usageHelp')}
              </button>
            </div>
          </>
        )}
      </main>
    </>
  );
}
