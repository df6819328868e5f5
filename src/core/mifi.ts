// Wi-Fi package rules (spec §4 package status, §5 start time, §9 package price). Pure: the flows and the server
// both use them, so the price the mall shows is the price the server charges.
import { toMinor } from './money.ts';

/** Package status (spec §4). */
export const PACKAGE_STATUS = {
  unused: 0, toBeActivated: 1, activated: 2, revoked: 3, refunded: 4, ended: 9, unpaid: 33, cancelled: 88,
} as const;
export type PackageStatus = (typeof PACKAGE_STATUS)[keyof typeof PACKAGE_STATUS];

/** Device order status of a package: no device ordered, waiting for pickup, with the user, returned. */
export const DEVICE_ORDER_STATUS = { none: 0, withUser: 1, returned: 3, awaitingPickup: 5 } as const;

/** Order types (spec §3 Mifi order submit). */
export const ORDER_TYPE = { devicePackage: 0, renewal: 1, packageOnly: 2, deviceOnly: 3 } as const;
export type OrderType = (typeof ORDER_TYPE)[keyof typeof ORDER_TYPE];

/** The orderRemark values of the operator contract for each order type. */
export const ORDER_REMARK: Record<OrderType, string> = { 0: '设备+套餐', 1: '续购套餐', 2: '仅套餐', 3: '仅设备' };

/** The legal transitions of the package state machine (docs/payments.md "Wi-Fi packages"). */
export const PACKAGE_TRANSITIONS: Record<number, readonly number[]> = {
  33: [0, 1, 88],
  0: [1, 2, 3],
  1: [2, 3, 9],
  2: [9, 4],
  3: [4],
  4: [],
  9: [],
  88: [],
};
export function canMove(from: number, to: number): boolean {
  return PACKAGE_TRANSITIONS[from]?.includes(to) ?? false;
}

/** Spec §9: a 'Days' package costs its price; otherwise price × selectDays, to 2 decimals (here in minor units). */
export function packagePrice(p: { isPackage: boolean; price: number; selectDays: number }): number {
  return p.isPackage ? p.price : p.price * Math.max(1, Math.floor(p.selectDays));
}
/** The same on the wire's major units: 2 decimals. */
export function packagePriceMajor(p: { isPackage: boolean; price: number; selectDays: number }): number {
  return Math.round(packagePrice(p) * 100) / 100;
}

export const DAY_MS = 86_400_000;
/** Spec §5/§9: a new order starts 20 minutes ahead when no time is chosen. */
export const DEFAULT_START_AHEAD_MS = 20 * 60_000;

/** Spec §5: the start time is at least now; default now, or 20 minutes ahead for a new order when none is chosen. */
export function startTime(chosen: number | null | undefined, now: number, newOrder: boolean): number {
  if (chosen == null || !Number.isFinite(chosen)) return newOrder ? now + DEFAULT_START_AHEAD_MS : now;
  return Math.max(chosen, now);
}
/** end = start + selectDays. */
export function endTime(start: number, days: number): number {
  return start + Math.max(1, Math.floor(days)) * DAY_MS;
}

/** The buttons of a package (spec §4). */
export function packageActions(p: { packageStatus: number; deviceOrderStatus: number; productSendSn?: string | null }) {
  const noDevice = !p.productSendSn;
  const pickup = noDevice && (p.deviceOrderStatus === 5 || p.deviceOrderStatus === 0) && p.packageStatus !== 33
    && [0, 1, 2].includes(p.packageStatus);
  return {
    pickup,
    pickupByQr: pickup && p.deviceOrderStatus !== 0,
    continuePay: p.packageStatus === 33,
    traffic: p.packageStatus === 2 || p.packageStatus === 9,
    showUsed: p.packageStatus === 2,
    cancel: p.packageStatus === 0 && noDevice,
  };
}

/** packageName is dash-separated: region, name, plan (NDays, Unlimited or NMB). */
export function packageName(region: string, name: string, plan: { kind: 'days' | 'unlimited' | 'mb'; value: number }): string {
  const p = plan.kind === 'days' ? `${plan.value}Days` : plan.kind === 'mb' ? `${plan.value}MB` : 'Unlimited';
  return `${region}-${name}-${p}`;
}

/** A wire price (major units) in minor units of its currency. */
export function minorPrice(major: number, currency: string): number {
  return toMinor(major, currency);
}

/** A time as the wall clock of a time zone, "YYYY-MM-DD HH:mm" (the package country's time, spec §2 /packageOrder). */
export function zonedText(ms: number, timeZone: string): string {
  const parts = new Intl.DateTimeFormat('en-CA', {
    timeZone, year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', hourCycle: 'h23',
  }).formatToParts(new Date(ms));
  const get = (t: string) => parts.find((p) => p.type === t)?.value ?? '';
  return `${get('year')}-${get('month')}-${get('day')} ${get('hour')}:${get('minute')}`;
}

/** Bytes as a short traffic text (MB / GB). */
export function trafficText(bytes: number): string {
  const mb = bytes / 1_048_576;
  return mb >= 1024 ? `${(mb / 1024).toFixed(2)} GB` : `${mb.toFixed(1)} MB`;
}
