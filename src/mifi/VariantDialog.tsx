// The Wi-Fi mall's package-variant dialog (route '/wifiMall'): the SKU's plans, the start-time picker (minimum now;
// default 20 minutes ahead; none for a renewal) and the day stepper (disabled for day-type packages); "buy" keeps the
// choice in $mifiOrder and opens /packageOrder.
import { useEffect, useId, useState } from 'react';
import { errorText, useT } from '../i18n/index.ts';
import { href, navigate } from '../stores/router.ts';
import { $mifiOrder } from '../stores/mifi.ts';
import { packageVariants, type CatalogueItem, type Variant } from '../api/mifi.ts';
import {
  DEFAULT_START_AHEAD_MS,
  endTime,
  isRenewal,
  localInputValue,
  minorPrice,
  packagePrice,
  startTime,
  stepDays,
  zonedText,
  type MallType,
} from '../core/mifi.ts';
import { toMajor } from '../core/money.ts';
import { Dialog } from '../ui/Dialog.tsx';
import { toast } from '../ui/feedback.tsx';
import { Loading } from '../ui/Loading.tsx';
import { useMoney, usePackageTitle } from './common.tsx';

export function VariantDialog(props: {
  item: CatalogueItem;
  type: MallType;
  renewalOf: string;
  currency?: string;
  qrcode: string;
  onClose: () => void;
}) {
  const { item, type } = props;
  const t = useT();
  const money = useMoney();
  const { title } = usePackageTitle();
  const [variants, setVariants] = useState<Variant[] | null>(null);
  const [sel, setSel] = useState(0);
  const [days, setDays] = useState(1);
  const [start, setStart] = useState<number | null>(null);
  const startId = useId();
  const daysId = useId();
  const renewal = isRenewal(type);

  useEffect(() => {
    packageVariants(item.skuId, item.country || undefined, props.currency).then(
      (v) => {
        // The plan of the card chosen is the one selected (the SKU's plans all come back).
        const i = Math.max(
          0,
          v.findIndex((x) => x.packageName === item.packageName && x.isPackage === item.isPackage),
        );
        setVariants(v);
        setSel(i);
        setDays(v[i] ? Math.max(1, v[i].Day) : 1);
      },
      (e: unknown) => {
        toast(errorText(e, t));
        props.onClose();
      },
    );
    // eslint-disable-next-line react-hooks/exhaustive-deps -- loads once per package
  }, [item.skuId]);

  const v = variants?.[sel];
  const now = Date.now();
  const shownStart = startTime(start, now, true);
  const zone = v?.timeZoneList[0] ?? item.timeZone;
  const price = v
    ? packagePrice({ isPackage: v.isPackage, price: minorPrice(v.price, v.currency), selectDays: days })
    : 0;

  const buy = () => {
    if (!v) return;
    $mifiOrder.set({
      mallType: type,
      skuId: v.skuId,
      skuPriceId: v.skuPriceId,
      packageName: v.packageName,
      country: v.country,
      isPackage: v.isPackage,
      Day: v.Day,
      price: minorPrice(v.price, v.currency),
      currency: v.currency,
      timeZoneList: v.timeZoneList,
      depositAmount: minorPrice(v.depositAmount, v.currency),
      selectDays: stepDays(days, 0, v),
      startTime: start,
      withDevice: type === 'QR',
      qrcode: props.qrcode,
      renewalOf: props.renewalOf,
    });
    navigate(href('/packageOrder', { type: renewal ? 'XG' : 'GM' }));
  };

  return (
    <Dialog
      open
      title={title(item)}
      onClose={props.onClose}
      actions={
        <>
          <button type="button" className="button" onClick={props.onClose}>
            {t('common.cancel')}
          </button>
          <button type="button" className="button primary" disabled={!v || (renewal && !props.renewalOf)} onClick={buy}>
            {t('mifi.mall.buy')}
          </button>
        </>
      }
    >
      {!variants ? (
        <Loading label={t('common.loading')} />
      ) : (
        <>
          <fieldset className="mifi-variants">
            <legend>{t('mifi.mall.variant')}</legend>
            {variants.map((x, i) => (
              <label key={x.skuPriceId} className={`device-option${i === sel ? ' selected' : ''}`}>
                <input
                  type="radio"
                  name="variant"
                  checked={i === sel}
                  onChange={() => {
                    setSel(i);
                    setDays(Math.max(1, x.Day));
                  }}
                />
                {title(x)} ·{' '}
                {x.isPackage
                  ? t('mifi.mall.pricePackage', { amount: money(x.currency, x.price), days: x.Day })
                  : t('mifi.mall.pricePerDay', { amount: money(x.currency, x.price) })}
              </label>
            ))}
          </fieldset>
          {renewal ? (
            <p>{props.renewalOf ? t('mifi.mall.renewalStart') : t('mifi.mall.renewalNone')}</p>
          ) : (
            <div className="field">
              <label htmlFor={startId}>{t('mifi.mall.start')}</label>
              <input
                id={startId}
                type="datetime-local"
                min={localInputValue(now)}
                value={localInputValue(shownStart)}
                onChange={(e) => {
                  const ms = Date.parse(e.target.value);
                  setStart(Number.isFinite(ms) ? Math.max(ms, Date.now()) : null);
                }}
              />
              <p className="muted small">
                {start == null ? t('mifi.mall.startDefault', { minutes: DEFAULT_START_AHEAD_MS / 60_000 }) : null}
              </p>
            </div>
          )}
          {v ? (
            <div className="mifi-stepper" role="group" aria-labelledby={daysId}>
              <span id={daysId}>{t('mifi.mall.days')}</span>
              <button
                type="button"
                className="button small"
                aria-label={t('mifi.mall.fewerDays')}
                disabled={v.isPackage || days <= 1}
                onClick={() => setDays(stepDays(days, -1, v))}
              >
                −
              </button>
              <output aria-live="polite" data-testid="days">
                {v.isPackage ? v.Day : days}
              </output>
              <button
                type="button"
                className="button small"
                aria-label={t('mifi.mall.moreDays')}
                disabled={v.isPackage}
                onClick={() => setDays(stepDays(days, 1, v))}
              >
                +
              </button>
            </div>
          ) : null}
          {v && !renewal ? (
            <p className="small">
              {t('mifi.mall.until', { end: zonedText(endTime(shownStart, v.isPackage ? v.Day : days), zone), zone })}
            </p>
          ) : null}
          {v ? (
            <p className="mifi-price" data-testid="variant-price">
              {t('mifi.mall.total', { amount: money(v.currency, toMajor(price, v.currency)) })}
            </p>
          ) : null}
        </>
      )}
    </Dialog>
  );
}
