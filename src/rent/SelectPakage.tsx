// Route '/selectPakage' [deviceType, cabinetshow]: the borrow screen after a scan — device type (where a cabinet
// has both), price, deposit, free minutes, the fee table, the pricing-tip popup with a slider and a live fee
// preview (src/core/pricing.ts, the same rule the server charges with), privacy and terms, language selector.
// Without a scanned cabinet it goes back a page.
import { lazy, Suspense, useEffect, useId, useState } from 'react';
import { useStore } from '@nanostores/react';
import { useT, errorText, $activeLang, type T } from '../i18n/index.ts';
import { formatDuration } from '../core/duration.ts';
import { $cabinet } from '../stores/cabinet.ts';
import { $qrcode } from '../stores/scan.ts';
import { $route, back, href, navigate } from '../stores/router.ts';
import { checkCabinet, type Cabinet } from '../api/cabinet.ts';
import { MINUTE_MS, planFromWire, rentalFee, sliderMaxMinutes, type PricePlan } from '../core/pricing.ts';
import { toMajor } from '../core/money.ts';
import { PageHeader } from '../ui/PageHeader.tsx';
import { LangSelect } from '../ui/LangSelect.tsx';
import { Dialog } from '../ui/Dialog.tsx';
import { showMessage, toast } from '../ui/feedback.tsx';
import { money } from '../ui/format.ts';
import { perUnitText, unitText } from '../ui/price.ts';
import { useMifiStrings } from '../mifi/strings.ts';
import { useClientValue } from '../ui/hydration.ts';
import './rent.css';

/** Only an empty or offline cabinet lists the nearest ones with stock: loaded then, not with the screen (size budgets). */
const NearestStock = lazy(() => import('../map/NearestStock.tsx').then((m) => ({ default: m.NearestStock })));

/** The slider's duration in the current language, without zero parts (src/core/duration.ts). */
export function durationText(minutes: number): string {
  return formatDuration(minutes * 60_000, $activeLang.get());
}

/** The fee rows shown in the table: the tiers of a tiered plan, else a few typical durations. */
export function feeRows(plan: PricePlan): { label: { from: number; to: number } | number; fee: number }[] {
  if (plan.kind === 'tiered' && plan.tiers.length) {
    return plan.tiers.map((r) => ({
      label: { from: r.startMinute, to: r.endMinute },
      fee: toMajor(r.totalFee, plan.currency),
    }));
  }
  return [30, 60, 180, 1440, 2880].map((m) => ({
    label: m,
    fee: toMajor(rentalFee(plan, m * MINUTE_MS), plan.currency),
  }));
}

export default function SelectPakage() {
  const t = useT();
  const cabinet = useStore($cabinet);
  const qrcode = useStore($qrcode);
  const scanned = Boolean(cabinet && (qrcode || cabinet.qrcode));

  useEffect(() => {
    if (scanned) return;
    back({ fallback: '/' });
  }, [scanned]);

  if (!cabinet || !scanned) return <PageHeader title={t('rentPricing.title')} />;
  return <Borrow cabinet={cabinet} t={t} />;
}

type Offer = 'cdb' | 'station' | 'mifi';

const isMounted = () => true;

/** What the cabinet offers: power bank always, a power station and a Wi-Fi box where it has them. */
export function offers(c: Pick<Cabinet, 'haveMifiBattery' | 'energyStorageFlag' | 'haveStationCount'>): Offer[] {
  const out: Offer[] = ['cdb'];
  if (c.energyStorageFlag || (c.haveStationCount ?? 0) > 0) out.push('station');
  if (c.haveMifiBattery) out.push('mifi');
  return out;
}

function Borrow({ cabinet: c, t }: { cabinet: Cabinet; t: T }) {
  const route = useStore($route);
  // The Wi-Fi box's card speaks with the Wi-Fi strings (loaded with them, not in the first load).
  const boxStrings = useMifiStrings();
  const currency = c.currency ?? 'CNY';
  const plan = planFromWire(c.priceStrategy, currency, c);
  const available = offers(c);
  const asked = route.query.get('deviceType');
  const [device, setDevice] = useState<Offer>(
    asked === 'mifi' && available.includes('mifi')
      ? 'mifi'
      : c.deviceType === 'station' && available.includes('station')
        ? 'station'
        : 'cdb',
  );
  // A power bank and a power station have their own plans: the scan is asked again for the chosen kind, and the
  // screen (and the cabinet home and the rent after it) shows that kind's price, deposit and stock.
  const choose = (d: Offer) => {
    setDevice(d);
    if (d === 'mifi' || d === (c.deviceType ?? 'cdb')) return;
    checkCabinet(c.qrcode, undefined, d)
      .then((next) => $cabinet.set(next))
      .catch((e: unknown) => toast(errorText(e, t)));
  };
  const [tipOpen, setTipOpen] = useState(false);
  const showDoc = (doc: 'privacy' | 'terms') =>
    void showMessage({
      title: doc === 'terms' ? t('rentPricing.terms') : t('rentPricing.privacy'),
      text: doc === 'terms' ? t('rentPricing.termsText') : t('rentPricing.privacyText'),
      okLabel: t('rentPricing.tipClose'),
    });
  const max = sliderMaxMinutes(plan);
  const [minutes, setMinutes] = useState(Math.min(60, max));
  const sliderId = useId();
  const deposit = toMajor(plan.deposit, currency);
  const preview = toMajor(rentalFee(plan, minutes * MINUTE_MS), currency);

  const mounted = useClientValue(false, isMounted);
  const offline = c.online === false;
  const empty = offline || (device !== 'mifi' && (c.haveBatteryCount ?? 0) <= 0);
  const next = () => {
    if (device === 'mifi') navigate(href('/wifiMall', { type: 'QR', sn: '' }));
    else navigate('/home');
  };

  return (
    <>
      <PageHeader title={t('rentPricing.title')} />
      <main className="page select-pakage">
        {c.shopname ? <h2 className="venue-name">{c.shopname}</h2> : null}
        {/* Stock and return slots first: an empty cabinet says so here, with where to go instead. */}
        <p className={`availability${empty ? ' empty' : ''}`} role="status" data-testid="stock">
          {offline
            ? t('rentPricing.offline')
            : empty
              ? t('rentPricing.empty')
              : device === 'mifi'
                ? boxStrings && t('mifi.borrow.boxStock', { n: c.mifiBatteryCount ?? 0 })
                : `${t(c.deviceType === 'station' ? 'rentPricing.stationStock' : 'rentPricing.stock', { n: c.haveBatteryCount ?? 0 })} · ${t('rentPricing.slots', { n: c.freeSlots ?? 0 })}`}
        </p>
        {/* Once mounted: the server's render of this screen (a code link) and its hydration leave the list out. */}
        {empty && mounted ? (
          <Suspense fallback={null}>
            <NearestStock at={{ lat: c.lat, lng: c.lng }} exclude={c.shopid} />
          </Suspense>
        ) : null}

        {available.length > 1 ? (
          <fieldset className="device-choice">
            <legend>{t('rentPricing.deviceType')}</legend>
            {available.map((d) => (
              <label key={d} className={`device-option${device === d ? ' selected' : ''}`}>
                <input type="radio" name="deviceType" value={d} checked={device === d} onChange={() => choose(d)} />
                {d === 'cdb'
                  ? t('rentPricing.powerBank')
                  : d === 'station'
                    ? t('rentPricing.powerStation')
                    : t('rentPricing.wifiBox')}
              </label>
            ))}
          </fieldset>
        ) : null}

        {device === 'mifi' && !boxStrings ? null : device === 'mifi' ? (
          // A Wi-Fi box is paid by its data package (chosen next, in the mall) and the box's own deposit.
          <section className="price-card" aria-labelledby="sp-price" data-testid="box-price">
            <h2 id="sp-price" className="price">
              {t('mifi.borrow.boxTitle')}
            </h2>
            <dl className="price-facts">
              <div>
                <dt>{t('mifi.borrow.boxDeposit')}</dt>
                <dd>{money(currency, c.mifiDeposit ?? 0)}</dd>
              </div>
            </dl>
            <p className="muted small">{t('mifi.borrow.boxNote')}</p>
          </section>
        ) : (
          <section className="price-card" aria-labelledby="sp-price">
            <h2 id="sp-price" className="price">
              {perUnitText(t, currency, toMajor(plan.unitPrice, currency), plan.unitMinutes)}
            </h2>
            <dl className="price-facts">
              <div>
                <dt>{t('rentPricing.deposit')}</dt>
                <dd>{money(currency, deposit)}</dd>
              </div>
              <div>
                <dt>{t('rentPricing.freeMinutes')}</dt>
                <dd>{t('rentPricing.minutes', { n: plan.freeMinutes })}</dd>
              </div>
              {plan.dailyCap > 0 ? (
                <div>
                  <dt>{t('rentPricing.dailyCap')}</dt>
                  <dd>{money(currency, toMajor(plan.dailyCap, currency))}</dd>
                </div>
              ) : null}
              <div>
                <dt>{t('rentPricing.overtime')}</dt>
                <dd>
                  {t('rentPricing.overtimeValue', {
                    amount: money(currency, toMajor(plan.overtimeAmount, currency)),
                    days: plan.overtimeDays,
                  })}
                </dd>
              </div>
            </dl>
            <table className="fee-table">
              <caption>{t('rentPricing.feeTable')}</caption>
              <thead>
                <tr>
                  <th scope="col">{t('rentPricing.duration')}</th>
                  <th scope="col">{t('rentPricing.fee')}</th>
                </tr>
              </thead>
              <tbody>
                {feeRows(plan).map((r) => (
                  <tr key={typeof r.label === 'number' ? r.label : `${r.label.from}-${r.label.to}`}>
                    <td>
                      {typeof r.label === 'number'
                        ? durationText(r.label)
                        : t('rentPricing.tierRange', { from: r.label.from, to: r.label.to })}
                    </td>
                    <td>{money(currency, r.fee)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
            <button type="button" className="button link" onClick={() => setTipOpen(true)}>
              {t('rentPricing.tipOpen')}
            </button>
          </section>
        )}

        <div className="actions">
          <button type="button" className={`button block${empty ? '' : ' primary'}`} onClick={next}>
            {t('rentPricing.next')}
          </button>
          <p className="legal">
            {t('rentPricing.agree')}{' '}
            <button type="button" className="button link inline" onClick={() => showDoc('privacy')}>
              {t('rentPricing.privacy')}
            </button>{' '}
            {t('rentPricing.and')}{' '}
            <button type="button" className="button link inline" onClick={() => showDoc('terms')}>
              {t('rentPricing.terms')}
            </button>
          </p>
          {/* This screen has a language selector; it sits at the foot so the title keeps its room. */}
          <div className="page-foot-lang">
            <LangSelect />
          </div>
        </div>
      </main>

      <Dialog
        open={tipOpen}
        title={t('rentPricing.tipTitle')}
        onClose={() => setTipOpen(false)}
        actions={
          <button type="button" className="button primary" onClick={() => setTipOpen(false)}>
            {t('rentPricing.tipClose')}
          </button>
        }
      >
        <ul className="tip-rules">
          <li>
            {t('rentPricing.ruleUnit', {
              price: perUnitText(t, currency, toMajor(plan.unitPrice, currency), plan.unitMinutes),
            })}
          </li>
          {plan.freeMinutes > 0 ? <li>{t('rentPricing.ruleFree', { n: plan.freeMinutes })}</li> : null}
          {plan.dailyCap > 0 ? (
            <li>{t('rentPricing.ruleCap', { amount: money(currency, toMajor(plan.dailyCap, currency)) })}</li>
          ) : null}
          <li>{t('rentPricing.ruleDeposit', { amount: money(currency, deposit) })}</li>
          <li>
            {t('rentPricing.ruleOvertime', {
              days: plan.overtimeDays,
              amount: money(currency, toMajor(plan.overtimeAmount, currency)),
            })}
          </li>
        </ul>
        <label htmlFor={sliderId} className="slider-label">
          {t('rentPricing.sliderLabel')}
        </label>
        <input
          id={sliderId}
          className="fee-slider"
          type="range"
          min={0}
          max={max}
          step={1}
          value={minutes}
          aria-valuetext={durationText(minutes)}
          onChange={(e) => setMinutes(Number(e.target.value))}
        />
        <output htmlFor={sliderId} className="fee-preview" aria-live="polite" data-testid="fee-preview">
          {t('rentPricing.preview', { duration: durationText(minutes), amount: money(currency, preview) })}
        </output>
        <p className="muted small">{t('rentPricing.unitNote', { unit: unitText(t, plan.unitMinutes) })}</p>
      </Dialog>
    </>
  );
}
