// Route '/packageDetail' [orderId]: the Wi-Fi box of a package: serial, Wi-Fi name and password with
// copy, battery, signal, its package orders and renewals, the traffic used per package period, and Renew
// (/wifiMall?type=XG&sn). Without an orderId the box last seen (mifisn). Errors: "Device not
// activated" (no box yet), "Failed to retrieve the device".
import { useCallback, useEffect, useState } from 'react';
import { useStore } from '@nanostores/react';
import { ApiError } from '../api/client.ts';
import { errorText, useT } from '../i18n/index.ts';
import { $route, href, navigate } from '../stores/router.ts';
import { $mificode } from '../stores/scan.ts';
import { $mifisn } from '../stores/mifi.ts';
import { deviceDetail, flowUsageList, type MifiDevice } from '../api/mifi.ts';
import type { UsageRecord } from '../contract/mifi.ts';
import { BOX_LIVE_FALLBACK_MS, boxReturned, mifiSnFrom, trafficText } from '../core/mifi.ts';
import { toast } from '../ui/feedback.tsx';
import { useLiveRefresh } from '../ui/live.ts';
import { Loading } from '../ui/Loading.tsx';
import { CopyButton, MifiScreen, PackageCard } from './common.tsx';
import { UsageDialog } from './ScanOrder.tsx';

export default function PackageDetail() {
  return (
    <MifiScreen title="mifi.detail.title" className="package-detail">
      {() => <Detail />}
    </MifiScreen>
  );
}

function Detail() {
  const t = useT();
  const { query } = useStore($route);
  const orderId = query.get('orderId') ?? '';
  // Without an orderId: a box code just scanned (mificode) before the box last seen; read once per visit.
  const [sn] = useState(() => mifiSnFrom($mificode.get()) || $mifisn.get());
  const [device, setDevice] = useState<MifiDevice | null>(null);
  const [error, setError] = useState('');
  const [usage, setUsage] = useState<UsageRecord | null>(null);
  const [shownUsage, setShownUsage] = useState(false);

  const load = useCallback(async () => {
    if (!orderId && !sn) {
      setError(t('mifi.detail.notActivated'));
      return;
    }
    try {
      const d = await deviceDetail(orderId ? { orderId } : { sn });
      setDevice(d);
      setError('');
      $mifisn.set(d.sn);
      // The box is back in a cabinet: its stored code no longer sends the home screens here ('wifi.' rule).
      if (boxReturned(d.packageDtlList) && mifiSnFrom($mificode.get()) === d.sn) $mificode.set('');
      setUsage(await flowUsageList(d.sn));
    } catch (e) {
      // A scanned box that is not this user's: its code must not keep sending the home screens here.
      if (!orderId && mifiSnFrom($mificode.get()) === sn) $mificode.set('');
      // The server's own text where it answered (its "Device not activated" for a package without a box);
      // "Failed to retrieve the device" when the box could not be read at all.
      setError(e instanceof ApiError && e.kind === 'business' ? errorText(e, t) : t('mifi.detail.notFound'));
    }
  }, [orderId, sn, t]);
  useEffect(() => {
    void load();
  }, [load]);
  // The box's battery, signal, network and traffic, and its return, as it reports them (the server says so).
  useLiveRefresh(
    (e) => e.kind === 'order',
    () => void load(),
    BOX_LIVE_FALLBACK_MS,
  );

  if (error) {
    return (
      <>
        <p role="alert">{error}</p>
        <a className="button block" href="#/scanOrder">
          {t('mifi.orders.title')}
        </a>
      </>
    );
  }
  if (!device) return <Loading label={t('common.loading')} />;
  const j = device.deviceJson;
  const signal = Math.max(0, Math.min(5, j.lastKnownVsimSignalStrength));
  return (
    <>
      <section className="mifi-card" aria-labelledby="dev-title">
        <h2 id="dev-title" className="mifi-card-title">
          {t('mifi.detail.box')}
        </h2>
        <dl className="mifi-facts">
          <div>
            <dt>{t('mifi.serial')}</dt>
            <dd data-testid="device-sn">{device.sn}</dd>
          </div>
          <div>
            <dt>{t('mifi.detail.ssid')}</dt>
            <dd className="mifi-copy">
              <span data-testid="wifi-ssid">{j.wifiSSID}</span>
              <CopyButton value={j.wifiSSID} label={t('mifi.detail.copySsid')} />
            </dd>
          </div>
          <div>
            <dt>{t('mifi.detail.password')}</dt>
            <dd className="mifi-copy">
              <span data-testid="wifi-password">{j.wifiPassword}</span>
              <CopyButton value={j.wifiPassword} label={t('mifi.detail.copyPassword')} />
            </dd>
          </div>
          <div>
            <dt>{t('mifi.detail.battery')}</dt>
            <dd data-testid="battery">{t('mifi.detail.percent', { n: device.dianliang })}</dd>
          </div>
          <div>
            <dt>{t('mifi.detail.signal')}</dt>
            <dd>
              <meter min={0} max={5} value={signal} aria-label={t('mifi.detail.signalOf', { n: signal })} />{' '}
              {t('mifi.detail.signalOf', { n: signal })}
            </dd>
          </div>
          <div>
            <dt>{t('mifi.detail.online')}</dt>
            <dd>{device.online ? t('mifi.detail.isOnline') : t('mifi.detail.isOffline')}</dd>
          </div>
          {usage ? (
            <div>
              <dt>{t('mifi.detail.usedTotal')}</dt>
              <dd data-testid="traffic-used">{trafficText(usage.packageUsedTotal)}</dd>
            </div>
          ) : null}
        </dl>
        <div className="mifi-card-actions">
          <button
            type="button"
            className="button small primary"
            onClick={() => navigate(href('/wifiMall', { type: 'XG', sn: device.sn }))}
          >
            {t('mifi.detail.renew')}
          </button>
          <button
            type="button"
            className="button small"
            onClick={() => void load().then(() => toast(t('mifi.detail.refreshed')))}
          >
            {t('mifi.detail.refresh')}
          </button>
          <a className="button small link" href="#/usage">
            {t('mifi.detail.howTo')}
          </a>
        </div>
      </section>
      <section aria-labelledby="dev-packages">
        <h2 id="dev-packages" className="section-title">
          {t('mifi.detail.packages')}
        </h2>
        <ul className="mifi-list">
          {device.packageDtlList.map((p) => (
            <li key={p.orderId}>
              <PackageCard p={p} buttons={{ onTraffic: () => setShownUsage(true) }}>
                {p.renewalOf ? (
                  <p className="small muted">{t('mifi.detail.renewalOf', { order: p.renewalOf })}</p>
                ) : null}
              </PackageCard>
            </li>
          ))}
        </ul>
      </section>
      {shownUsage && usage ? <UsageDialog usage={usage} onClose={() => setShownUsage(false)} /> : null}
    </>
  );
}
