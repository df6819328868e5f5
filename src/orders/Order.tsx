// Routes '/order' and '/pastOrder': paged rental orders (page size 10), tabs In use / Ended.
import { useCallback, useState } from 'react';
import { useStore } from '@nanostores/react';
import { useMountEffect } from '../ui/hooks.ts';
import { useT, errorText, $activeLang } from '../i18n/index.ts';
import { listOrders, ORDER_PAGE_SIZE, type Order as OrderRow } from '../api/orders.ts';
import { isOngoing, ongoingFirst, orderActions } from '../core/orders.ts';
import { href, navigate } from '../stores/router.ts';
import { PageHeader } from '../ui/PageHeader.tsx';
import { LangSelect } from '../ui/LangSelect.tsx';
import { Loading } from '../ui/Loading.tsx';
import { dateTime, money } from '../ui/format.ts';
import { chargeStandard } from './orderText.ts';

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

  const sorted = ongoingFirst(orders);
  const inUse = sorted.filter(isOngoing);
  const ended = sorted.filter((o) => !isOngoing(o));
  const current: Tab = tab ?? (inUse.length > 0 || orders.length === 0 ? 'inUse' : 'ended');
  const shown = current === 'inUse' ? inUse : ended;
  const more = orders.length < total;

  return (
    <>
      <PageHeader title={t('orders.title')} end={<LangSelect />} />
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
        <span className={`badge ${ongoing ? 'badge-live' : ''}`}>{ongoing ? t('orders.underLease') : t('orders.end')}</span>
      </header>
      <dl className="order-fields">
        <dt>{t('orders.rented')}</dt>
        <dd>
          {o.pShopName} · {dateTime(o.pBorrowtime, lang)}
        </dd>
        <dt>{t('orders.returned')}</dt>
        <dd>{o.pGhtime ? `${o.pGhShopName ?? ''} · ${dateTime(o.pGhtime, lang)}` : t('orders.notReturned')}</dd>
        <dt>{t('orders.chargeStandard')}</dt>
        <dd>{chargeStandard(o, t)}</dd>
        <dt>{t('orders.powerBank')}</dt>
        <dd>{o.pPowerbankId || '—'}</dd>
        <dt>{ongoing ? t('orders.estimated') : t('orders.fee')}</dt>
        <dd className="fee">{money(o.pCurrencyName, fee)}</dd>
      </dl>
      {orderActions(o).payAgain ? (
        // Only an order whose deduction failed (spec §4): pay what it owes with payType FK.
        <button
          type="button"
          className="button primary"
          onClick={() => navigate(href('/confirm', { payType: 'FK', outTradeNo: o.pOrderid, orderId: o.pOrderid, price: o.debtAmount || o.pJiesuan || 0, currency: o.pCurrency }))}
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
