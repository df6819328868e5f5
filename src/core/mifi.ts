// Wi-Fi package rules (package status, start time, package price). Pure: the flows and the server
// both use them, so the price the mall shows is the price the server charges.
import { toMajor, toMinor } from './money.ts';
import type { MifiOrderSubmit } from '../contract/mifi.ts';

/** Package status. */
export const PACKAGE_STATUS = {
  unused: 0,
  toBeActivated: 1,
  activated: 2,
  revoked: 3,
  refunded: 4,
  ended: 9,
  unpaid: 33,
  cancelled: 88,
} as const;
export type PackageStatus = (typeof PACKAGE_STATUS)[keyof typeof PACKAGE_STATUS];

/** Device order status of a package: no device ordered, waiting for pickup, with the user, returned. */
export const DEVICE_ORDER_STATUS = { none: 0, withUser: 1, returned: 3, awaitingPickup: 5 } as const;

/** Order types (Mifi order submit). */
export const ORDER_TYPE = { devicePackage: 0, renewal: 1, packageOnly: 2, deviceOnly: 3 } as const;
export type OrderType = (typeof ORDER_TYPE)[keyof typeof ORDER_TYPE];

/** The orderRemark values of the operator contract for each order type. */
export const ORDER_REMARK: Record<OrderType, string> = { 0: '设备+套餐', 1: '续购套餐', 2: '仅套餐', 3: '仅设备' };

/**
 * The transitions of the package state machine, each made in one place of server/src/modules/mifi/ (its use-case files)
 * (docs/payments.md "Wi-Fi packages"); the repository refuses any other. 33 → 0 paid, waiting for its box;
 * 33 → 1 a paid renewal of a box in hand; 33 → 88 cancelled unpaid; 0 → 1 box bound; 0 → 3 cancelled unused;
 * 1 → 2 start time or first traffic; 1 → 9 box returned before the start; 1 → 3 a renewal not started when the
 * box came back (refunded); 2 → 9 end time; 2 → 4 box returned;
 * 3 → 4 refund done.
 */
export const PACKAGE_TRANSITIONS: Record<number, readonly number[]> = {
  33: [0, 1, 88],
  0: [1, 3],
  1: [2, 9, 3],
  2: [9, 4],
  3: [4],
  4: [],
  9: [],
  88: [],
};
export function canMove(from: number, to: number): boolean {
  return PACKAGE_TRANSITIONS[from]?.includes(to) ?? false;
}

/** A 'Days' package costs its price; otherwise price × selectDays, to 2 decimals (here in minor units). */
export function packagePrice(p: { isPackage: boolean; price: number; selectDays: number }): number {
  return p.isPackage ? p.price : p.price * Math.max(1, Math.floor(p.selectDays));
}
/** The same on the wire's major units: 2 decimals. */
export function packagePriceMajor(p: { isPackage: boolean; price: number; selectDays: number }): number {
  return Math.round(packagePrice(p) * 100) / 100;
}

export const DAY_MS = 86_400_000;
/** A new order starts 20 minutes ahead when no time is chosen. */
export const DEFAULT_START_AHEAD_MS = 20 * 60_000;

/** The start time is at least now; default now, or 20 minutes ahead for a new order when none is chosen. */
export function startTime(chosen: number | null | undefined, now: number, newOrder: boolean): number {
  if (chosen == null || !Number.isFinite(chosen)) return newOrder ? now + DEFAULT_START_AHEAD_MS : now;
  return Math.max(chosen, now);
}
/** end = start + selectDays. */
export function endTime(start: number, days: number): number {
  return start + Math.max(1, Math.floor(days)) * DAY_MS;
}

/** The buttons of a package. */
export function packageActions(p: { packageStatus: number; deviceOrderStatus: number; productSendSn?: string | null }) {
  const noDevice = !p.productSendSn;
  const pickup =
    noDevice &&
    (p.deviceOrderStatus === 5 || p.deviceOrderStatus === 0) &&
    p.packageStatus !== 33 &&
    [0, 1, 2].includes(p.packageStatus);
  return {
    pickup,
    pickupByQr: pickup && p.deviceOrderStatus !== 0,
    continuePay: p.packageStatus === 33,
    traffic: p.packageStatus === 2 || p.packageStatus === 9,
    showUsed: p.packageStatus === 2,
    cancel: p.packageStatus === 0 && noDevice,
    // The order detail (/orderDetail "renew or rent again for mifi"): renew while the box is in hand and
    // the package has not ended; rent again once it is over (ended, returned, revoked or cancelled).
    renew:
      !noDevice &&
      p.deviceOrderStatus === DEVICE_ORDER_STATUS.withUser &&
      (p.packageStatus === 1 || p.packageStatus === 2),
    rentAgain: [3, 4, 9, 88].includes(p.packageStatus),
  };
}

/** packageName is dash-separated: region, name, plan (NDays, Unlimited or NMB). */
export function packageName(
  region: string,
  name: string,
  plan: { kind: 'days' | 'unlimited' | 'mb'; value: number },
): string {
  const p = plan.kind === 'days' ? `${plan.value}Days` : plan.kind === 'mb' ? `${plan.value}MB` : 'Unlimited';
  return `${region}-${name}-${p}`;
}

/** A wire price (major units) in minor units of its currency. */
export function minorPrice(major: number, currency: string): number {
  return toMinor(major, currency);
}

/** A time as the wall clock of a time zone, "YYYY-MM-DD HH:mm" (the package country's time /packageOrder). */
export function zonedText(ms: number, timeZone: string): string {
  const parts = new Intl.DateTimeFormat('en-CA', {
    timeZone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
  }).formatToParts(new Date(ms));
  const get = (t: string) => parts.find((p) => p.type === t)?.value ?? '';
  return `${get('year')}-${get('month')}-${get('day')} ${get('hour')}:${get('minute')}`;
}

/** Bytes as a short traffic text (MB / GB). */
export function trafficText(bytes: number): string {
  const mb = bytes / 1_048_576;
  return mb >= 1024 ? `${(mb / 1024).toFixed(2)} GB` : `${mb.toFixed(1)} MB`;
}

// ---- the Wi-Fi screens' rules (/wifiMall, /packageOrder, /scanOrder; the QR pickup) -----------------

/** Package page size, search debounce, scroll throttle; the QR pickup poll. */
export const PACKAGE_PAGE_SIZE = 6;
export const SEARCH_DEBOUNCE_MS = 250;
export const SCROLL_THROTTLE_MS = 500;
export const PICKUP_POLL_MS = 2000;
/** A box's screens follow it through the live stream; without the stream they read it again at this interval. */
export const BOX_LIVE_FALLBACK_MS = 30_000;
/** The QR pickup dialog stops waiting for the box after this long. */
export const QR_PICKUP_TIMEOUT_MS = 3 * 60_000;

/**
 * Where the mall was opened from (/wifiMall type): QR a cabinet scan (package with a box from that
 * cabinet), XG / BXG / DDXG a renewal (of the box in hand, of a bound box, of an order), GM a purchase.
 */
export const MALL_TYPES = ['QR', 'XG', 'BXG', 'DDXG', 'GM'] as const;
export type MallType = (typeof MALL_TYPES)[number];
export function mallType(v: unknown): MallType {
  return (MALL_TYPES as readonly unknown[]).includes(v) ? (v as MallType) : 'GM';
}
/**
 * Where the mall opens: a cabinet's mall (QR) on the scanned cabinet's country (ISO 3166 alpha-2, the scan result's
 * `country`); any other mall, or a cabinet without a country, on all packages.
 */
export function mallOpeningPlace(t: MallType, cabinetCountry: unknown): { country?: string } {
  return t === 'QR' && typeof cabinetCountry === 'string' && /^[A-Z]{2}$/i.test(cabinetCountry)
    ? { country: cabinetCountry.toUpperCase() }
    : {};
}
/** Renewal mall types buy a renewal (order type 1) and go to /packageOrder?type=XG. */
export function isRenewal(t: MallType): boolean {
  return t === 'XG' || t === 'BXG' || t === 'DDXG';
}
/** The "my packages" link (/scanPickUpOrder?type=) shows for QR, XG, BXG and DDXG. */
export function showsMyPackages(t: MallType): boolean {
  return t !== 'GM';
}
/** The order type of a purchase: a renewal; a package with its box (a cabinet scan, or GM with a box rented); a package only. */
export function orderTypeFor(t: MallType, withDevice: boolean): OrderType {
  if (isRenewal(t)) return ORDER_TYPE.renewal;
  return t === 'QR' || withDevice ? ORDER_TYPE.devicePackage : ORDER_TYPE.packageOnly;
}

/** The day stepper of a 'Days' package is disabled (its days are fixed); otherwise 1 … max. */
export function stepDays(current: number, delta: number, p: { isPackage: boolean; Day: number }, max = 365): number {
  if (p.isPackage) return Math.max(1, p.Day);
  return Math.min(max, Math.max(1, Math.floor(current) + delta));
}

/** A pickup needs a chosen package with an orderId; binding a box needs its serial (mifisn). */
export function canPickUp(chosen: { orderId?: string | null } | null | undefined): boolean {
  return Boolean(chosen?.orderId && chosen.orderId.trim());
}
export function canBind(
  sn: string | null | undefined,
  chosen: { orderId?: string | null } | null | undefined,
): boolean {
  return Boolean(sn?.trim()) && canPickUp(chosen);
}

/** QR pickup poll: pickUp_msg fails (the dialog closes), 0 waits, 1 loading, 2 success, anything else refreshes. */
export type PickupOutcome = 'failed' | 'waiting' | 'loading' | 'success' | 'refresh';
export function pickupOutcome(r: { status: number; pickUp_msg?: string | null }): PickupOutcome {
  if (r.pickUp_msg) return 'failed';
  if (r.status === 0) return 'waiting';
  if (r.status === 1) return 'loading';
  if (r.status === 2) return 'success';
  return 'refresh';
}

/** The total of a purchase in minor units: the package price plus the box deposit when a box is rented. */
export function orderTotal(
  p: { isPackage: boolean; price: number; selectDays: number },
  deposit: number,
  withDevice: boolean,
): number {
  return packagePrice(p) + (withDevice ? deposit : 0);
}

/** The wall-clock value of a `datetime-local` input for a time (local time of this device). */
export function localInputValue(ms: number): string {
  const d = new Date(ms);
  const p = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}T${p(d.getHours())}:${p(d.getMinutes())}`;
}

/** A purchase being made ("Mifi order (client)"), kept between the mall, the order summary and payment. Money in minor units. */
export interface PendingPackageOrder {
  mallType: MallType;
  skuId: string;
  skuPriceId: string;
  packageName: string;
  country: string;
  isPackage: boolean;
  Day: number;
  price: number;
  currency: string;
  timeZoneList: string[];
  depositAmount: number;
  selectDays: number;
  /** The chosen start (ms), or null: now, or 20 minutes ahead for a new order. */
  startTime: number | null;
  withDevice: boolean;
  /** The cabinet scanned (QR): the box is picked up there. */
  qrcode: string;
  /** A renewal: the package it extends (mifiOrderId). */
  renewalOf: string;
}

/** The "Mifi order submit" body of a pending purchase, priced by the rule the server checks. */
export function orderSubmit(o: PendingPackageOrder, now: number): MifiOrderSubmit {
  const type = orderTypeFor(o.mallType, o.withDevice);
  const start = startTime(o.startTime, now, type !== ORDER_TYPE.renewal);
  const days = o.isPackage ? o.Day : o.selectDays;
  const price = packagePrice({ isPackage: o.isPackage, price: o.price, selectDays: days });
  const deposit = type === ORDER_TYPE.devicePackage ? o.depositAmount : 0;
  return {
    orderType: type,
    currency: o.currency,
    totalAmount: toMajor(price + deposit, o.currency),
    orderRemark: ORDER_REMARK[type],
    submitDtlDtoList: [
      {
        skuId: o.skuId,
        skuPriceId: o.skuPriceId,
        packageName: o.packageName,
        packagePrice: toMajor(price, o.currency),
        depositAmount: toMajor(deposit, o.currency),
        selectDays: days,
        timeZoneList: o.timeZoneList.slice(0, 10),
        // Unchosen: the server applies the same default with its own clock.
        ...(o.startTime == null || type === ORDER_TYPE.renewal
          ? {}
          : { reserverStartTime: start, reserverEndTime: endTime(start, days) }),
        ...(o.renewalOf ? { mifiOrderId: o.renewalOf, pickUpOrderId: o.renewalOf } : {}),
      },
    ],
  };
}

/** The box serial of a stored Wi-Fi code (mificode): what follows 'wifi.' up to a path, query or hash end. */
export function mifiSnFrom(code: string): string {
  const i = code.lastIndexOf('wifi.');
  if (i < 0) return '';
  return (code.slice(i + 5).split(/[/?#&]/)[0] ?? '').trim();
}

/** Every package of the box has its box back (device order status 3): the box is no longer the user's. */
export function boxReturned(packages: { deviceOrderStatus: number }[]): boolean {
  return packages.length > 0 && packages.every((p) => p.deviceOrderStatus === DEVICE_ORDER_STATUS.returned);
}
