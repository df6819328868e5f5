// Route '/orderStatus' [orderId, sign] (public): the token-less order detail — status, live elapsed
// time, estimated amount (src/core/pricing.ts, the rule the server charges with), fee rule, and buying the
// power bank (which needs a session: without one the screen says so and offers to sign in).
import { useCallback, useEffect, useRef, useState } from 'react';
import '../ui/badge.css';
import './orders.css';
import { useStore } from '@nanostores/react';
import { useT, errorText, $activeLang } from '../i18n/index.ts';
import { $route, navigate } from '../stores/router.ts';
import { $loginPath, $token, randomId } from '../stores/session.ts';
import { afterPaymentPath } from '../core/payTypes.ts';
import { buyOrder, getPublicOrder, type PublicOrder } from '../api/orders.ts';
import { isOngoing } from '../core/orders.ts';
import { countedMs, pausesOf, rentalFee } from '../core/pricing.ts';
import { toMajor } from '../core/money.ts';
import { loginPathFor } from '../core/navigation.ts';
import { halfHours } from '../core/duration.ts';
import { PageHeader } from '../ui/PageHeader.tsx';
import { Loading } from '../ui/Loading.tsx';
import { confirmDialog, toast, withLoading } from '../ui/feedback.tsx';
import { dateTime, money } from '../ui/format.ts';
import { chargeStandard, elapsedText } from './orderText.ts';

/** Elapsed ms of an open order at `nowMs` of this device, given the server's clock when it answered. */
export function elapsedMs(o: Pick<PublicOrder, 'pBorrowtime' | 'serverTime'>, loadedAt: number, nowMs: number): number {
  const start = Date.parse(o.pBorrowtime ?? '');
  const server = Date.parse(o.serverTime);
  if (Number.isNaN(start) || Number.isNaN(server)) return 0;
  return Math.max(0, server - start + (nowMs - loadedAt));
}

export default function OrderStatus() {
  const t = useT();
  const lang = useStore($activeLang);
  const token = useStore($token);
  const route = useStore($route);
  const orderId = route.query.get('orderId') ?? '';
  const sign = route.query.get('sign') ?? '';
  const [order, setOrder] = useState<PublicOrder | null>(null);
  const [loadedAt, setLoadedAt] = useState(0);
  const [now, setNow] = useState(() => Date.now());
  const [error, setError] = useState('');
  const buyKey = useRef<string | null>(null);

  const load = useCallback(async () => {
    setError('');
    if (!orderId || !sign) {
      setError(t('orderStatus.badLink'));
      return;
    }
    try {
      const o = await getPublicOrder(orderId, sign);
      setOrder(o);
      setLoadedAt(Date.now());
      setNow(Date.now());
    } catch (e) {
      setError(errorText(e, t));
    }
  }, [orderId, sign, t]);

  useEffect(() => {
    void load();
  }, [load]);

  const ongoing = order ? isOngoing(order) : false;
  useEffect(() => {
    if (!ongoing) return;
    const id = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(id);
  }, [ongoing]);

  const buy = async () => {
    if (!order) return;
    buyKey.current ??= randomId();
    try {
      await withLoading(() => buyOrder(order.pOrderid, buyKey.current!));
      buyKey.current = null;
      toast(t('orderActions.bought'));
      // As after any purchase of the power bank: its receipt.
      navigate(afterPaymentPath('overbuy', order.pOrderid));
    } catch (e) {
      toast(errorText(e, t));
    }
  };

  const signIn = () => {
    $loginPath.set(loginPathFor(route.path, route.query));
    navigate('/login');
  };

  const ms = order && ongoing ? elapsedMs(order, loadedAt, now) : (order?.pUseMins ?? 0) * 60_000;
  // State 4 (fault): the charge stops at the fault report (the clock of the rental keeps running).
  const faultMs = order?.faultAt
    ? Math.max(0, Date.parse(order.faultAt) - Date.parse(order.pBorrowtime ?? ''))
    : Infinity;
  const wall = Math.min(ms, Number.isNaN(faultMs) ? Infinity : faultMs);
  // A grace period does not count (the server's rule, src/core/pricing.ts).
  const start = Date.parse(order?.pBorrowtime ?? '');
  const charged = order && Number.isFinite(start) ? countedMs(start, start + wall, pausesOf(order.grace)) : wall;
  const amount = order
    ? ongoing
      ? toMajor(rentalFee(order.plan, charged), order.pCurrency ?? order.plan.currency)
      : (order.pJiesuan ?? 0)
    : 0;
  const buyAmount = money(order?.pCurrency, order?.buyOutAmount ?? order?.overtimeAmount ?? 0);
  const askBuy = async () => {
    const yes = await confirmDialog({
      title: t('orderActions.buyTitle'),
      text: t('orderActions.buyText', { amount: buyAmount }),
      okLabel: t('orderActions.buyConfirm', { amount: buyAmount }),
      cancelLabel: t('orderActions.cancel'),
      role: 'dialog',
    });
    if (yes) await buy();
  };
  const askSignIn = async () => {
    const yes = await confirmDialog({
      title: t('orderStatus.signInTitle'),
      text: t('orderStatus.signInText'),
      okLabel: t('orderStatus.signIn'),
      cancelLabel: t('orderActions.cancel'),
      role: 'dialog',
    });
    if (yes) signIn();
  };

  return (
    <>
      <PageHeader title={t('orderStatus.title')} />
      <main className="page detail">
        {error ? (
          <div className="notice" role="alert">
            <p>{error}</p>
            {orderId && sign ? (
              <button type="button" className="button" onClick={() => void load()}>
                {t('common.retry')}
              </button>
            ) : null}
          </div>
        ) : !order ? (
          <Loading label={t('common.loading')} />
        ) : (
          <>
            <section className="detail-head" aria-labelledby="os-status">
              <p className="badge-line">
                <span id="os-status" className={`badge ${ongoing ? 'badge-live' : ''}`}>
                  {t(`detail.zujie.${order.pZujie}`)}
                </span>
              </p>
              <p className="amount" data-testid="os-amount">
                {money(order.pCurrency, amount)}
              </p>
              <p className="muted">{ongoing ? t('orders.estimated') : t('orders.fee')}</p>
            </section>
            <dl className="order-fields">
              <dt>{t('orders.number')}</dt>
              <dd>{order.pOrderid}</dd>
              <dt>{ongoing ? t('orderStatus.elapsed') : t('detail.usage')}</dt>
              <dd data-testid="os-elapsed">
                <span role="timer" aria-live="off">
                  {elapsedText(ms)}
                </span>
                {/* The half-hour rounding, for a rental still running and once there is a half hour to show. */}
                {ongoing && halfHours(ms / 60_000) > 0 ? (
                  <span className="muted">
                    {' '}
                    ·{' '}
                    {t('orderStatus.aboutHours', { hours: new Intl.NumberFormat(lang).format(halfHours(ms / 60_000)) })}
                  </span>
                ) : null}
              </dd>
              <dt>{t('orders.rented')}</dt>
              <dd>
                {order.pShopName} · {dateTime(order.pBorrowtime, lang)}
              </dd>
              {order.pGhtime ? (
                <>
                  <dt>{t('orders.returned')}</dt>
                  <dd>{`${order.pGhShopName ?? ''} · ${dateTime(order.pGhtime, lang)}`}</dd>
                </>
              ) : null}
              <dt>{t('orderStatus.feeRule')}</dt>
              <dd>{chargeStandard(order, t)}</dd>
              {order.plan.freeMinutes > 0 ? (
                <>
                  <dt>{t('orderStatus.free')}</dt>
                  <dd>{t('orderStatus.freeValue', { n: order.plan.freeMinutes })}</dd>
                </>
              ) : null}
            </dl>
            {order.boughtOut ? (
              <p className="notice" role="status">
                {t('orderActions.boughtOut')}
              </p>
            ) : null}
            <div className="actions">
              {ongoing && !order.boughtOut ? (
                <button
                  type="button"
                  className="button primary block"
                  onClick={() => void (token ? askBuy() : askSignIn())}
                >
                  {t('orderActions.buy')}
                </button>
              ) : null}
            </div>
          </>
        )}
      </main>
    </>
  );
}
