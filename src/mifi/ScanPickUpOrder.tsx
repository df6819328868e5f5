// Route '/scanPickUpOrder' [type]: choose a package not picked up yet and confirm; the pickup needs a
// chosen package with an orderId, then goes to the pickup at a cabinet (/pickUp).
import { useEffect, useState } from 'react';
import { useStore } from '@nanostores/react';
import { errorText, useT } from '../i18n/index.ts';
import { $route, href, navigate } from '../stores/router.ts';
import { packageOrders, type MifiPackage } from '../api/mifi.ts';
import { canPickUp, packageActions } from '../core/mifi.ts';
import { toast } from '../ui/feedback.tsx';
import { Loading } from '../ui/Loading.tsx';
import { MifiScreen, periodText, statusText } from './common.tsx';

export default function ScanPickUpOrder() {
  return (
    <MifiScreen title="mifi.pickList.title" className="scan-pickup-order">
      {() => <Choose />}
    </MifiScreen>
  );
}

function Choose() {
  const t = useT();
  const { query } = useStore($route);
  const type = query.get('type') ?? '';
  const [list, setList] = useState<MifiPackage[] | null>(null);
  const [chosen, setChosen] = useState<MifiPackage | null>(null);
  useEffect(() => {
    packageOrders({ current: 1, size: 100, isPicked: 0 }).then(
      (r) => setList(r.records.filter((p) => packageActions(p).pickup)),
      (e: unknown) => {
        setList([]);
        toast(errorText(e, t));
      },
    );
  }, [t]);

  const confirm = () => {
    if (!canPickUp(chosen)) {
      toast(t('mifi.pickList.choose'));
      return;
    }
    navigate(href('/pickUp', { orderId: chosen!.orderId, type: type || undefined }));
  };

  if (!list) return <Loading label={t('common.loading')} />;
  if (list.length === 0) {
    return (
      <>
        <p className="muted">{t('mifi.pickList.none')}</p>
        <a className="button block primary" href={'#' + href('/wifiMall', { type: type || 'GM' })}>
          {t('mifi.orders.buy')}
        </a>
      </>
    );
  }
  return (
    <>
      <fieldset className="mifi-choose">
        <legend>{t('mifi.pickList.legend')}</legend>
        {list.map((p) => (
          <label key={p.orderId} className={`mifi-option${chosen?.orderId === p.orderId ? ' selected' : ''}`}>
            <input type="radio" name="package" checked={chosen?.orderId === p.orderId} onChange={() => setChosen(p)} />
            <span>
              <strong>{p.packageName}</strong> · {statusText(t, p.packageStatus)}
              <br />
              <span className="small muted">{periodText(t, p)}</span>
            </span>
          </label>
        ))}
      </fieldset>
      <button type="button" className="button primary block" onClick={confirm}>
        {t('mifi.pickList.confirm')}
      </button>
    </>
  );
}
