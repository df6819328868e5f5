// Route '/invoiceOrderDtl?orderId={id}': the order's receipt and the box to e-mail it.
import { useEffect, useState } from 'react';
import { useStore } from '@nanostores/react';
import { useLatest } from '../ui/hooks.ts';
import { useT, errorText, $activeLang } from '../i18n/index.ts';
import { $route } from '../stores/router.ts';
import { invoiceCheck, type Receipt } from '../api/content.ts';
import { formatMoney, toMinor } from '../core/money.ts';
import { dateTime } from '../ui/format.ts';
import { PageHeader } from '../ui/PageHeader.tsx';
import { Loading } from '../ui/Loading.tsx';
import { InvoiceEmailBox } from './InvoiceEmailBox.tsx';
import './info.css';

export default function InvoiceOrderDtl() {
  const t = useT();
  const lang = useStore($activeLang);
  const orderId = useStore($route).query.get('orderId') ?? '';
  const [state, setState] = useState<
    { kind: 'loading' } | { kind: 'ok'; r: Receipt | null } | { kind: 'error'; text: string }
  >({ kind: 'loading' });

  const latestT = useLatest(t);
  useEffect(() => {
    if (!orderId) return;
    let live = true;
    invoiceCheck(orderId)
      .then((r) => live && setState({ kind: 'ok', r }))
      .catch((e: unknown) => live && setState({ kind: 'error', text: errorText(e, latestT.current) }));
    return () => {
      live = false;
    };
  }, [orderId, latestT]);

  const money = (r: Receipt, major: number) => formatMoney(toMinor(major, r.currency), r.currency, lang);
  return (
    <>
      <PageHeader title={t('invoice.title')} />
      <main className="page">
        {!orderId ? (
          <p className="notice">{t('invoice.noOrder')}</p>
        ) : state.kind === 'loading' ? (
          <Loading label={t('common.loading')} />
        ) : state.kind === 'error' ? (
          <p className="notice" role="alert">
            {state.text}
          </p>
        ) : !state.r ? (
          <p className="notice">{t('invoice.notReady')}</p>
        ) : (
          <>
            <section className="info-card receipt" aria-labelledby="receipt-title">
              <h2 id="receipt-title">{t('invoice.receipt')}</h2>
              <dl>
                <dt>{t('invoice.orderNo')}</dt>
                <dd>{state.r.orderId}</dd>
                <dt>{t('orders.device')}</dt>
                <dd>
                  {t(`devices.${state.r.deviceType ?? 'cdb'}`)}
                  {state.r.deviceId ? ` · ${state.r.deviceId}` : ''}
                </dd>
                <dt>{t('invoice.venue')}</dt>
                <dd>{state.r.shopName}</dd>
                <dt>{t('invoice.borrowed')}</dt>
                <dd>{dateTime(state.r.borrowTime, lang)}</dd>
                <dt>{t('invoice.returned')}</dt>
                <dd>{state.r.ended ? dateTime(state.r.returnTime, lang) : t('invoice.inUse')}</dd>
                <dt>{state.r.ended ? t('invoice.charged') : t('invoice.estimated')}</dt>
                <dd>{money(state.r, state.r.amount)}</dd>
                <dt>{t('invoice.deposit')}</dt>
                <dd>{money(state.r, state.r.deposit)}</dd>
              </dl>
            </section>
            <InvoiceEmailBox orderId={state.r.orderId} initial={state.r.lastEmail ?? ''} />
          </>
        )}
      </main>
    </>
  );
}
