// Routes '/order' and '/pastOrder': paged rental orders (page size 10), tabs In use / Ended.
import { deviceOf } from '../core/devices.ts';
import { useCallback, useState } from 'react';
import '../ui/tabs.css';
import '../ui/badge.css';
import './orders.css';
import { useStore } from '@nanostores/react';
import { useLatest, useLatestLoad, useMountEffect } from '../ui/hooks.ts';
import { useLiveRefresh } from '../ui/live.ts';
import { toast } from '../ui/feedback.tsx';
import { useT, errorText, $activeLang } from '../i18n/index.ts';
import { listOrders, ORDER_PAGE_SIZE, type Order as OrderRow } from '../api/orders.ts';
import { isOngoing, ongoingFirst, orderActions, ORDER_STATE } from '../core/orders.ts';
import { href, navigate } from '../stores/router.ts';
import { PageHeader } from '../ui/PageHeader.tsx';
import { Loading } from '../ui/Loading.tsx';
import { dateTime, money } from '../ui/format.ts';
import { chargeStandard, OPEN_ORDER_POLL_MS, returnSummary } from './orderText.ts';

type Tab = 'inUse' | 'ended';

export default function Order() {
  const t = useT();
  const lang = useStore($activeLang);
  const [orders, setOrders] = useState<OrderRow[]>([]);
  const [total, setTotal] = useState(0);
  const [page, setPage] = useState(0);
  const [loading, setLoading] = useState(true);
  const [error, setError] = useState('');
  const [tab, setTab] = useState<Tab | null>(null);

  const load = useCallback(
    async (next: number) => {
      setLoading(true);
      setError('');
      try {
        const r = await listOrders(next, ORDER_PAGE_SIZE);
        const records = r?.page?.records;
        if (!Array.isArray(records)) throw new Error('no page');
        setOrders((prev) => {
          const seen = new Set(next === 1 ? [] : prev.map((o) => o.pOrderid));
          return [...(next === 1 ? [] : prev), ...records.filter((o) => !seen.has(o.pOrderid))];
        });
        setTotal(r.page.total ?? records.length);
        setPage(next);
      } catch (e) {
        setError(e instanceof Error && e.message === 'no page' ? t('orders.noPage') : errorText(e, t));
      } finally {
        setLoading(false);
      }
    },
    [t],
  );

  // The first page once per visit (a language change does not reload the list).
  useMountEffect(() => {
    void load(1);
  });

  // Live: an order changed (popped, failed, returned): refetch the first page quietly and merge it in; a rental that
  // just ended says what it cost. Polling only while the stream is down and a rental is open.
  const latest = useLatest({ orders, t });
  const beginRefresh = useLatestLoad();
  const refresh = useCallback(async () => {
    const isLatest = beginRefresh();
    try {
      const r = await listOrders(1, ORDER_PAGE_SIZE);
      const records = r?.page?.records;
      if (!Array.isArray(records) || !isLatest()) return;
      const prev = latest.current.orders;
      const byId = new Map(records.map((o) => [o.pOrderid, o]));
      for (const o of prev) {
        const n = byId.get(o.pOrderid);
        const summary = n && !isSettled(o) && isSettled(n) ? returnSummary(n, latest.current.t) : null;
        if (summary) toast(summary);
      }
      const known = new Set(prev.map((o) => o.pOrderid));
      setOrders([...records.filter((o) => !known.has(o.pOrderid)), ...prev.map((o) => byId.get(o.pOrderid) ?? o)]);
      setTotal(r.page.total ?? records.length);
    } catch {
      // The next event or poll tries again; the list on screen stays.
    }
  }, [latest, beginRefresh]);
  const open = orders.some((o) => !isSettled(o));
  useLiveRefresh(
    (e) => e.kind === 'order',
    () => void refresh(),
    open ? OPEN_ORDER_POLL_MS : undefined,
  );

  const sorted = ongoingFirst(orders);
  const inUse = sorted.filter(isOngoing);
  const ended = sorted.filter((o) => !isOngoing(o));
  const current: Tab = tab ?? (inUse.length > 0 || orders.length === 0 ? 'inUse' : 'ended');
  const shown = current === 'inUse' ? inUse : ended;
  const more = orders.length < total;

  return (
    <>
      <PageHeader title={t('orders.title')} />
      <main className="page orders">
        <div role="tablist" aria-label={t('orders.title')} className="tabs">
          {(['inUse', 'ended'] as Tab[]).map((k) => (
            <button
              key={k}
              type="button"
              role="tab"
              id={`tab-${k}`}
              aria-selected={current === k}
              aria-controls="orders-panel"
              className="tab"
              tabIndex={current === k ? 0 : -1}
              onClick={() => setTab(k)}
              onKeyDown={(e) => {
                // ARIA tabs: arrows move between the two tabs.
                if (e.key !== 'ArrowLeft' && e.key !== 'ArrowRight') return;
                const next: Tab = k === 'inUse' ? 'ended' : 'inUse';
                setTab(next);
                document.getElementById(`tab-${next}`)?.focus();
              }}
            >
              {t(`orders.tab.${k}`)} ({k === 'inUse' ? inUse.length : ended.length})
            </button>
          ))}
        </div>
        <section id="orders-panel" role="tabpanel" aria-labelledby={`tab-${current}`}>
          {shown.length === 0 && !loading && !error ? <p className="empty">{t(`orders.empty.${current}`)}</p> : null}
          <ul className="order-list">
            {shown.map((o) => (
              <li key={o.pOrderid}>
                <OrderCard o={o} lang={lang} />
              </li>
            ))}
          </ul>
          {error ? (
            <div className="notice" role="alert">
              <p>{error}</p>
              <button type="button" className="button" onClick={() => void load(page + 1 || 1)}>
                {t('common.retry')}
              </button>
            </div>
          ) : null}
          {loading ? <Loading label={t('common.loading')} /> : null}
          {!loading && !error && more ? (
            <button type="button" className="button block" onClick={() => void load(page + 1)}>
              {t('orders.loadMore')}
            </button>
          ) : null}
        </section>
      </main>
    </>
  );
}

function OrderCard({ o, lang }: { o: OrderRow; lang: string }) {
  const t = useT();
  const ongoing = isOngoing(o);
  const fee = ongoing ? (o.estimatedAmount ?? o.pJiesuan ?? 0) : (o.pJiesuan ?? 0);
  return (
    <article className="order-card" aria-labelledby={`order-${o.pOrderid}`}>
      <header className="order-head">
        <h2 id={`order-${o.pOrderid}`} className="order-no">
          {t('orders.number')} {o.pOrderid}
        </h2>
        <OrderBadge o={o} />
      </header>
      <dl className="order-fields">
        <dt>{t('orders.rented')}</dt>
        <dd>
          {o.pShopName} · {dateTime(o.pBorrowtime, lang)}
        </dd>
        {o.pZujie === ORDER_STATE.cancelled ? (
          <>
            <dt>{t('orders.outcome')}</dt>
            <dd>{t('orders.cancelledNote')}</dd>
          </>
        ) : (
          <>
            <dt>{t('orders.returned')}</dt>
            <dd>{o.pGhtime ? `${o.pGhShopName ?? ''} · ${dateTime(o.pGhtime, lang)}` : t('orders.notReturned')}</dd>
          </>
        )}
        <dt>{t('orders.chargeStandard')}</dt>
        <dd>{chargeStandard(o, t)}</dd>
        <dt>{t('orders.device')}</dt>
        <dd data-testid="order-device">{t(`devices.${deviceOf(o)}`)}</dd>
        <dt>{deviceOf(o) === 'cdb' ? t('orders.powerBank') : t('orders.deviceId')}</dt>
        <dd>{o.pPowerbankId || '—'}</dd>
        <dt>{ongoing ? t('orders.estimated') : t('orders.fee')}</dt>
        <dd className="fee">{money(o.pCurrency, fee)}</dd>
      </dl>
      {orderActions(o).payAgain ? (
        // Only an order whose deduction failed: pay what it owes with payType FK.
        <button
          type="button"
          className="button primary"
          onClick={() =>
            navigate(
              href('/confirm', {
                payType: 'FK',
                outTradeNo: o.pOrderid,
                orderId: o.pOrderid,
                price: o.debtAmount || o.pJiesuan || 0,
                currency: o.pCurrency,
              }),
            )
          }
        >
          {t('orderActions.payAgain')}
        </button>
      ) : null}
      <button
        type="button"
        className="button link"
        aria-label={t('orders.detailsOf', { id: o.pOrderid })}
        onClick={() => navigate(href('/orderDetail', { orderId: o.pOrderid }))}
      >
        {t('orders.details')}
      </button>
    </article>
  );
}

/** Settled: returned, cancelled or bought out (nothing more will happen to it without the user). */
function isSettled(o: OrderRow): boolean {
  return o.pJiesuanid === 1 || o.pZujie === ORDER_STATE.cancelled;
}

/** The order's state as a badge: under lease, waiting for the cabinet, cancelled (nothing came out), ended. */
export function OrderBadge({ o }: { o: Pick<OrderRow, 'pZujie' | 'pJiesuanid'> }) {
  const t = useT();
  if (isOngoing(o)) return <span className="badge badge-live">{t('orders.underLease')}</span>;
  if (o.pZujie === ORDER_STATE.pending) return <span className="badge badge-live">{t('orders.waiting')}</span>;
  if (o.pZujie === ORDER_STATE.cancelled) return <span className="badge badge-bad">{t('orders.cancelled')}</span>;
  return <span className="badge">{t('orders.end')}</span>;
}
