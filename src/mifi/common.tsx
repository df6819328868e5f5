// What the Wi-Fi screens share: the strings gate, a package's card with its status and buttons, money
// and time texts, and the copy button.
import { useMemo, useState, type ReactNode } from 'react';
import { useStore } from '@nanostores/react';
import { $activeLang, errorText, useT, type T } from '../i18n/index.ts';
import { packageActions, trafficText, zonedText } from '../core/mifi.ts';
import { formatAmount } from '../core/money.ts';
import { cancelPackage, type MifiPackage } from '../api/mifi.ts';
import { PageHeader } from '../ui/PageHeader.tsx';
import { href } from '../stores/router.ts';
import { Loading } from '../ui/Loading.tsx';
import { confirmDialog, toast } from '../ui/feedback.tsx';
import { useMifiStrings } from './strings.ts';
import './mifi.css';

/** A Wi-Fi screen: its header, and its body once the Wi-Fi strings are in (both render functions, so they read them then). */
export function MifiScreen({
  title,
  end,
  className,
  children,
}: {
  title: string;
  end?: () => ReactNode;
  className: string;
  children: () => ReactNode;
}) {
  const t = useT();
  const ready = useMifiStrings();
  return (
    <>
      <PageHeader title={ready ? t(title) : ''} end={ready && end ? end() : null} />
      <main className={`page mifi ${className}`}>{ready ? children() : <Loading label={t('common.loading')} />}</main>
    </>
  );
}

/** The continents a catalogue's regions usually are (their names are the Wi-Fi strings'; any other keeps its own). */
const CONTINENTS = new Set(['africa', 'americas', 'asia', 'europe', 'oceania']);

/**
 * Country names (ISO codes) in the current language through Intl.DisplayNames, region names from the Wi-Fi
 * strings; the catalogue's own name where the runtime has none or the region is not a continent.
 */
export function usePlaceNames() {
  const lang = useStore($activeLang);
  const t = useT();
  return useMemo(() => {
    let names: Intl.DisplayNames | null = null;
    try {
      names = new Intl.DisplayNames([lang], { type: 'region', fallback: 'none' });
    } catch {
      names = null;
    }
    const country = (code: string, fallback: string) => {
      try {
        return (/^[A-Z]{2}$/i.test(code) && names?.of(code.toUpperCase())) || fallback;
      } catch {
        return fallback;
      }
    };
    return {
      country,
      region: (id: string, fallback: string) => (CONTINENTS.has(id) ? t(`mifi.region.${id}`) : fallback),
    };
  }, [lang, t]);
}

/**
 * A package named in the rider's language: its place (a country through Intl.DisplayNames, a region from the
 * strings), its own name (the operator's, per language) and its plan in words. The catalogue's SKU name
 * ("Portugal-Daily-Unlimited") only where the parts are missing (a package bought before they were sent).
 */
export function usePackageTitle() {
  const t = useT();
  const places = usePlaceNames();
  const plan = (p: { planKind?: string; planValue?: number }) =>
    p.planKind === 'unlimited'
      ? t('mifi.plan.unlimited')
      : t(p.planKind === 'mb' ? 'mifi.plan.mb' : 'mifi.plan.days', { n: p.planValue ?? 0 });
  const title = (p: {
    packageName: string;
    name?: string;
    planKind?: string;
    planValue?: number;
    country: string;
    region?: string;
    countryName?: string;
  }) => {
    if (!p.name || !p.planKind) return p.packageName;
    const where =
      p.country.length === 2
        ? places.country(p.country, p.countryName ?? '')
        : places.region(p.region || p.country, p.countryName ?? '');
    return [where, p.name, plan(p)].filter(Boolean).join(' · ');
  };
  return { title, plan };
}

/** A wire amount (major units) of a currency in the current language. */
export function useMoney() {
  const lang = useStore($activeLang);
  return (currency: string, major: number) => formatAmount(major, currency, lang);
}

export function statusText(t: T, status: number): string {
  return t(`mifi.status.s${status}`);
}

/** The package's period in its country's time zone (/packageOrder). */
export function periodText(t: T, p: { reserverStartTime: string; reserverEndTime: string; timeZone: string }): string {
  const zone = p.timeZone || 'UTC';
  return t('mifi.period', {
    start: zonedText(Date.parse(p.reserverStartTime), zone),
    end: zonedText(Date.parse(p.reserverEndTime), zone),
    zone,
  });
}

/** A country's or region's flag; nothing where the catalogue has none. `alt` is empty where its name follows. */
export function Flag({ src, alt }: { src?: string; alt: string }) {
  if (!src) return null;
  return <img className="mifi-flag" src={src} width={32} height={24} alt={alt} />;
}

export function CopyButton({ value, label }: { value: string; label: string }) {
  const t = useT();
  const [done, setDone] = useState(false);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(value);
      setDone(true);
      toast(t('mifi.copied'));
    } catch {
      toast(t('mifi.copyFailed'));
    }
  };
  return (
    <button type="button" className="button small" aria-label={label} onClick={() => void copy()}>
      {done ? t('mifi.copiedShort') : t('mifi.copy')}
    </button>
  );
}

/** Cancel a package after the user confirms it: the package as the server left it, or null (kept, or refused: said). */
export async function cancelConfirmed(t: T, p: MifiPackage): Promise<MifiPackage | null> {
  if (
    !(await confirmDialog({
      title: t('mifi.orders.cancelTitle'),
      text: t('mifi.orders.cancelText', { name: p.packageName }),
    }))
  )
    return null;
  try {
    const cancelled = await cancelPackage(p.orderId);
    toast(t('mifi.orders.cancelled'));
    return cancelled;
  } catch (e) {
    toast(errorText(e, t));
    return null;
  }
}

/** Continue payment of an unpaid (33) package: /confirm with payType mifi. */
export function continuePayHref(p: MifiPackage): string {
  return href('/confirm', {
    payType: 'mifi',
    mifiOrderId: p.orderId,
    price: String(p.totalAmount),
    currency: p.currency,
    deposit: String(p.depositAmount),
  });
}

/** The box deposit of a package bought without a box (deviceOrderStatus 0): /confirm with payType mifi and mifiDeposit. */
export function depositPayHref(p: MifiPackage, deposit: number): string {
  return href('/confirm', {
    payType: 'mifi',
    mifiOrderId: p.orderId,
    mifiDeposit: '1',
    price: String(deposit),
    currency: p.currency,
  });
}

export interface PackageButtons {
  onPickup?: (p: MifiPackage) => void;
  onPickupQr?: (p: MifiPackage) => void;
  onContinuePay?: (p: MifiPackage) => void;
  onTraffic?: (p: MifiPackage) => void;
  onCancel?: (p: MifiPackage) => void;
  onRenew?: (p: MifiPackage) => void;
  onRentAgain?: (p: MifiPackage) => void;
}

/** The card's buttons in their order: shown when packageActions allows it and the screen handles it. */
const CARD_BUTTONS: {
  when: keyof ReturnType<typeof packageActions>;
  on: keyof PackageButtons;
  label: string;
  primary?: boolean;
}[] = [
  { when: 'pickup', on: 'onPickup', label: 'mifi.pickupScan', primary: true },
  { when: 'pickupByQr', on: 'onPickupQr', label: 'mifi.pickupQr' },
  { when: 'continuePay', on: 'onContinuePay', label: 'mifi.continuePay', primary: true },
  { when: 'traffic', on: 'onTraffic', label: 'mifi.trafficDetail' },
  { when: 'renew', on: 'onRenew', label: 'mifi.detail.renew', primary: true },
  { when: 'rentAgain', on: 'onRentAgain', label: 'mifi.rentAgain', primary: true },
  { when: 'cancel', on: 'onCancel', label: 'mifi.cancel' },
];

/** One package: name, status, period, price, traffic, and exactly the buttons its status allows. */
export function PackageCard({
  p,
  buttons = {},
  children,
}: {
  p: MifiPackage;
  buttons?: PackageButtons;
  children?: ReactNode;
}) {
  const t = useT();
  const money = useMoney();
  const a = packageActions(p);
  const headingId = `pkg-${p.orderId}`;
  return (
    <article className="mifi-card" aria-labelledby={headingId} data-status={p.packageStatus}>
      <div className="mifi-card-head">
        <Flag src={p.flagUrl} alt={p.country} />
        <h3 id={headingId} className="mifi-card-title">
          {p.packageName}
        </h3>
        <span className="badge">{statusText(t, p.packageStatus)}</span>
      </div>
      <dl className="mifi-facts">
        <div>
          <dt>{t('mifi.orderNo')}</dt>
          <dd>{p.orderId}</dd>
        </div>
        <div>
          <dt>{t('mifi.periodLabel')}</dt>
          <dd>{periodText(t, p)}</dd>
        </div>
        <div>
          <dt>{t('mifi.paid')}</dt>
          <dd>{money(p.currency, p.totalAmount)}</dd>
        </div>
        {p.productSendSn ? (
          <div>
            <dt>{t('mifi.serial')}</dt>
            <dd>{p.productSendSn}</dd>
          </div>
        ) : null}
        {a.showUsed ? (
          <div>
            <dt>{t('mifi.used')}</dt>
            <dd data-testid="used-traffic">{trafficText(p.usedBytes)}</dd>
          </div>
        ) : null}
      </dl>
      {children}
      <div className="mifi-card-actions">
        {CARD_BUTTONS.filter((b) => a[b.when] && buttons[b.on]).map((b) => (
          <button
            key={b.on}
            type="button"
            className={b.primary ? 'button small primary' : 'button small'}
            onClick={() => buttons[b.on]!(p)}
          >
            {t(b.label)}
          </button>
        ))}
      </div>
    </article>
  );
}
