// Route '/orderDetail?type=mifi&orderId=' (/orderDetail: "copy order number; renew or rent again for mifi;
// pay-again button; usage help"): one package order of the user. Renew while its box is in hand (the mall's order
// renewal, type DDXG, for the box), rent again once it is over (the mall, GM: a package and optionally a box),
// continue payment while unpaid (33), cancel while unused; the buttons per status are packageActions.
import { useCallback, useEffect, useState } from 'react';
import { useStore } from '@nanostores/react';
import { errorText, useT } from '../i18n/index.ts';
import { $route, href, navigate } from '../stores/router.ts';
import { packageInfo, type MifiPackage } from '../api/mifi.ts';
import { Loading } from '../ui/Loading.tsx';
import { cancelConfirmed, continuePayHref, CopyButton, MifiScreen, PackageCard } from './common.tsx';

export default function MifiOrderDetail() {
  return (
    <MifiScreen title="detail.title" className="mifi-order-detail">
      {() => <Detail />}
    </MifiScreen>
  );
}

function Detail() {
  const t = useT();
  const orderId = useStore($route).query.get('orderId') ?? '';
  const [p, setP] = useState<MifiPackage | null>(null);
  const [error, setError] = useState('');

  const load = useCallback(async () => {
    setError('');
    try {
      setP(await packageInfo(orderId));
    } catch (e) {
      setError(errorText(e, t));
    }
  }, [orderId, t]);
  useEffect(() => {
    void load();
  }, [load]);

  if (error) {
    return (
      <div className="notice" role="alert">
        <p>{error}</p>
        <button type="button" className="button" onClick={() => void load()}>
          {t('common.retry')}
        </button>
      </div>
    );
  }
  if (!p) return <Loading label={t('common.loading')} />;
  return (
    <>
      <PackageCard
        p={p}
        buttons={{
          onRenew: () => navigate(href('/wifiMall', { type: 'DDXG', sn: p.productSendSn })),
          onRentAgain: () => navigate(href('/wifiMall', { type: 'GM' })),
          onContinuePay: () => navigate(continuePayHref(p)),
          onCancel: () => void cancelConfirmed(t, p).then((c) => c && setP(c)),
        }}
      >
        <div className="mifi-card-actions">
          <CopyButton value={p.orderId} label={t('detail.copy')} />
          {p.productSendSn ? (
            <a className="button small link" href={'#' + href('/packageDetail', { orderId: p.orderId })}>
              {t('mifi.orders.device')}
            </a>
          ) : null}
        </div>
      </PackageCard>
      <a className="button link block" href="#/usage">
        {t('mifi.detail.howTo')}
      </a>
    </>
  );
}
