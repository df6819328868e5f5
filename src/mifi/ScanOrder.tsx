// Route '/scanOrder': the user's package orders: pickup by scanning a cabinet (/pickUp), pickup by a QR
// code shown to the box (QrPickupDialog, checkPickUp every 2 s), continue payment for status 33 (/confirm,
// payType mifi), traffic detail for 2 and 9 (flowUsageList), and cancel an unused package without a box. The
// buttons per status are src/core/mifi.ts packageActions. After a payment (/confirm goes here with the
// orderId) it says how the payment of that package ended.
import { useCallback, useEffect, useState } from 'react';
import { useStore } from '@nanostores/react';
import { errorText, useT } from '../i18n/index.ts';
import { $route, href, navigate } from '../stores/router.ts';
import { $mifisn } from '../stores/mifi.ts';
import { flowUsageList, packageOrders, type MifiPackage } from '../api/mifi.ts';
import type { UsageRecord } from '../contract/mifi.ts';
import { BOX_LIVE_FALLBACK_MS, trafficText } from '../core/mifi.ts';
import { toast } from '../ui/feedback.tsx';
import { useLiveRefresh } from '../ui/live.ts';
import { Dialog } from '../ui/Dialog.tsx';
import { Loading } from '../ui/Loading.tsx';
import { dateTime } from '../ui/format.ts';
import { $activeLang } from '../i18n/index.ts';
import { cancelConfirmed, continuePayHref, MifiScreen, PackageCard } from './common.tsx';
import { QrPickupDialog } from './QrPickup.tsx';

export default function ScanOrder() {
  const t = useT();
  return (
    <MifiScreen
      title="mifi.orders.title"
      className="scan-order"
      end={() => (
        <a className="button small link" href={'#' + href('/wifiMall', { type: 'GM' })}>
          {t('mifi.orders.buy')}
        </a>
      )}
    >
      {() => <Orders />}
    </MifiScreen>
  );
}

function Orders() {
  const t = useT();
  const paidOrder = useStore($route).query.get('orderId');
  const [list, setList] = useState<MifiPackage[] | null>(null);
  const [qr, setQr] = useState<MifiPackage | null>(null);
  const [usage, setUsage] = useState<UsageRecord | null>(null);

  const load = useCallback(async () => {
    try {
      setList((await packageOrders({ current: 1, size: 100 })).records);
    } catch (e) {
      setList([]);
      toast(errorText(e, t));
    }
  }, [t]);
  useEffect(() => {
    void load();
  }, [load]);
  // A box bound, its reports and its return change the packages: shown as they happen (the server says so).
  useLiveRefresh(
    (e) => e.kind === 'order',
    () => void load(),
    BOX_LIVE_FALLBACK_MS,
  );

  const picked = (p: MifiPackage) => {
    setQr(null);
    if (p.productSendSn) $mifisn.set(p.productSendSn);
    navigate(href('/packageDetail', { orderId: p.orderId }));
  };

  const buttons = {
    onPickup: (p: MifiPackage) => navigate(href('/pickUp', { orderId: p.orderId })),
    onPickupQr: (p: MifiPackage) => setQr(p),
    onContinuePay: (p: MifiPackage) => navigate(continuePayHref(p)),
    onTraffic: (p: MifiPackage) => {
      flowUsageList(p.productSendSn).then(setUsage, (e: unknown) => toast(errorText(e, t)));
    },
    onCancel: async (p: MifiPackage) => {
      if (await cancelConfirmed(t, p)) await load();
    },
  };

  if (!list) return <Loading label={t('common.loading')} />;
  const outcome = paidOrder ? list.find((p) => p.orderId === paidOrder) : undefined;
  return (
    <>
      {outcome ? (
        <p
          className={outcome.packageStatus === 33 ? 'notice' : 'notice notice-ok'}
          role="status"
          data-testid="pay-outcome"
        >
          {t(outcome.packageStatus === 33 ? 'mifi.orders.unpaidNotice' : 'mifi.orders.paidNotice', {
            name: outcome.packageName,
          })}
        </p>
      ) : null}
      {list.length === 0 ? (
        <p className="muted">{t('mifi.orders.none')}</p>
      ) : (
        <ul className="mifi-list">
          {list.map((p) => (
            <li key={p.orderId}>
              <PackageCard p={p} buttons={{ ...buttons, onCancel: (x) => void buttons.onCancel(x) }}>
                <a
                  className="button small link"
                  href={'#' + href('/orderDetail', { orderId: p.orderId, type: 'mifi' })}
                  aria-label={t('mifi.detailsOf', { name: p.packageName })}
                >
                  {t('mifi.details')}
                </a>
                {p.productSendSn ? (
                  <a className="button small link" href={'#' + href('/packageDetail', { orderId: p.orderId })}>
                    {t('mifi.orders.device')}
                  </a>
                ) : null}
              </PackageCard>
            </li>
          ))}
        </ul>
      )}
      {qr ? (
        <QrPickupDialog pkg={qr} onClose={() => setQr(null)} onPicked={picked} onRefresh={() => void load()} />
      ) : null}
      {usage ? <UsageDialog usage={usage} onClose={() => setUsage(null)} /> : null}
    </>
  );
}

/** Traffic per package period of a box (Usage record). */
export function UsageDialog({ usage, onClose }: { usage: UsageRecord; onClose: () => void }) {
  const t = useT();
  const lang = $activeLang.get();
  return (
    <Dialog
      open
      title={t('mifi.traffic.title', { sn: usage.sn })}
      onClose={onClose}
      actions={
        <button type="button" className="button primary" onClick={onClose}>
          {t('mifi.qr.close')}
        </button>
      }
    >
      <p data-testid="traffic-total">{t('mifi.traffic.total', { amount: trafficText(usage.packageUsedTotal) })}</p>
      <ul className="mifi-usage">
        {usage.packageUsageDtlList.map((u) => (
          <li key={`${u.packageName}-${u.startTime}`}>
            <strong>{u.packageName}</strong>
            <span className="small">
              {dateTime(u.startTime, lang)} – {dateTime(u.endTime, lang)}
            </span>
            <span>
              {t('mifi.traffic.row', {
                amount: trafficText(u.totalUsage),
                minutes: Math.round(u.onlineTimeDuration / 60),
              })}
            </span>
          </li>
        ))}
      </ul>
    </Dialog>
  );
}
