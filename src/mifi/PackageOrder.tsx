// Route '/packageOrder' [type=GM|XG]: the order summary: the package, its start and end in the package
// country's time zone, the optional box rental (GM only, with its deposit), the total by the rule the server
// checks, and Buy now, which pays through /confirm (payType mifi).
import { useId } from 'react';
import { useStore } from '@nanostores/react';
import { useT } from '../i18n/index.ts';
import { $route, back, href, navigate } from '../stores/router.ts';
import { $mifiOrder } from '../stores/mifi.ts';
import { ORDER_TYPE, endTime, orderTotal, orderTypeFor, startTime, zonedText } from '../core/mifi.ts';
import { toMajor, toDecimalText } from '../core/money.ts';
import { useMountEffect } from '../ui/hooks.ts';
import { MifiScreen, useMoney } from './common.tsx';

export default function PackageOrder() {
  return (
    <MifiScreen title="mifi.order.title" className="package-order">
      {() => <Summary />}
    </MifiScreen>
  );
}

function Summary() {
  const t = useT();
  const money = useMoney();
  const { query } = useStore($route);
  const o = useStore($mifiOrder);
  const deviceId = useId();
  const type = query.get('type') === 'XG' ? 'XG' : 'GM';
  // Nothing chosen (a reload after paying, a stale link): back to the mall.
  useMountEffect(() => {
    if (!$mifiOrder.get()) back({ fallback: '/wifiMall' });
  });
  if (!o) return null;
  const orderType = orderTypeFor(o.mallType, o.withDevice);
  const days = o.isPackage ? o.Day : o.selectDays;
  const now = Date.now();
  const start = startTime(o.startTime, now, orderType !== ORDER_TYPE.renewal);
  const zone = o.timeZoneList[0] ?? 'UTC';
  const price = orderTotal({ isPackage: o.isPackage, price: o.price, selectDays: days }, 0, false);
  const total = orderTotal(
    { isPackage: o.isPackage, price: o.price, selectDays: days },
    o.depositAmount,
    orderType === ORDER_TYPE.devicePackage,
  );
  const c = o.currency;

  const buy = () => {
    const deposit = orderType === ORDER_TYPE.devicePackage ? toDecimalText(o.depositAmount, c) : undefined;
    navigate(
      href('/confirm', {
        payType: 'mifi',
        price: toDecimalText(total, c),
        currency: c,
        deposit,
        qrcode: o.qrcode || undefined,
      }),
    );
  };

  return (
    <>
      <section className="mifi-card" aria-labelledby="po-name">
        <h2 id="po-name" className="mifi-card-title">
          {o.packageName}
        </h2>
        <dl className="mifi-facts">
          <div>
            <dt>{t('mifi.order.kind')}</dt>
            <dd>{t(`mifi.order.type${orderType}`)}</dd>
          </div>
          <div>
            <dt>{t('mifi.mall.days')}</dt>
            <dd>{days}</dd>
          </div>
          {orderType === ORDER_TYPE.renewal ? (
            <div>
              <dt>{t('mifi.order.start')}</dt>
              <dd>{t('mifi.mall.renewalStart')}</dd>
            </div>
          ) : (
            <>
              <div>
                <dt>{t('mifi.order.start')}</dt>
                <dd data-testid="order-start">{zonedText(start, zone)}</dd>
              </div>
              <div>
                <dt>{t('mifi.order.end')}</dt>
                <dd data-testid="order-end">{zonedText(endTime(start, days), zone)}</dd>
              </div>
              <div>
                <dt>{t('mifi.order.zone')}</dt>
                <dd>{zone}</dd>
              </div>
            </>
          )}
          <div>
            <dt>{t('mifi.order.packagePrice')}</dt>
            <dd>{money(c, toMajor(price, c))}</dd>
          </div>
          {orderType === ORDER_TYPE.devicePackage ? (
            <div>
              <dt>{t('mifi.order.deposit')}</dt>
              <dd>{money(c, toMajor(o.depositAmount, c))}</dd>
            </div>
          ) : null}
        </dl>
      </section>
      {type === 'GM' && o.mallType !== 'QR' ? (
        <label htmlFor={deviceId} className="mifi-check">
          <input
            id={deviceId}
            type="checkbox"
            checked={o.withDevice}
            onChange={(e) => $mifiOrder.set({ ...o, withDevice: e.target.checked })}
          />
          {t('mifi.order.withDevice', { amount: money(c, toMajor(o.depositAmount, c)) })}
        </label>
      ) : null}
      <p className="mifi-total" data-testid="order-total">
        {t('mifi.mall.total', { amount: money(c, toMajor(total, c)) })}
      </p>
      <button type="button" className="button primary block" onClick={buy}>
        {t('mifi.order.buyNow')}
      </button>
    </>
  );
}
