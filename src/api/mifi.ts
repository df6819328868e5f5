// Wi-Fi box and data-package calls (chargenow/mifi/*). Shapes are the contract's (src/contract/mifi.ts).
import { api } from './client.ts';
import type {
  CataloguePage,
  CheckPickUpResult,
  DepositBody,
  MifiConfirmBody,
  MifiCouponBody,
  MifiCouponResult,
  MifiDevice,
  MifiOrderPage,
  MifiOrderResult,
  MifiPackage,
  MifiPackagePaid,
  MifiRentBody,
  Region,
  TrafficResult,
  UsageRecord,
  Variant,
} from '../contract/mifi.ts';

export type { CatalogueItem, MifiDevice, MifiPackage, Region, Variant } from '../contract/mifi.ts';

/** POST chargenow/mifi/query {requestMethod, url, data}: the catalogue proxy; its answer is JSON text. */
async function query<T>(
  url: 'packagePage' | 'regionList' | 'packageDtlListBySkuId',
  data: Record<string, unknown>,
  signal?: AbortSignal,
): Promise<T> {
  const text = await api.post<string>('chargenow/mifi/query', {
    body: { requestMethod: 'POST', url, data: JSON.stringify(data) },
    json: true,
    signal,
  });
  return JSON.parse(text) as T;
}

/** packagePage: page size 6, a search and an optional country or region. */
export function packagePage(
  p: {
    current: number;
    size: number;
    searchKeywords?: string;
    sn?: string;
    country?: string;
    region?: string;
    currency?: string;
  },
  signal?: AbortSignal,
) {
  return query<CataloguePage>('packagePage', p, signal);
}
export const regionList = () => query<Region[]>('regionList', {});
export const packageVariants = (skuId: string, country?: string, currency?: string) =>
  query<Variant[]>('packageDtlListBySkuId', { skuId, country, currency });

/**
 * POST chargenow/mifi/rent (JSON): submit and pay an order (payType mifi). `action`: the order is made (33) and the
 * customer finishes the payment; the call with paymentIntent (orderSubmit not needed then) resumes it.
 */
export function rentPackage(body: MifiRentBody, idempotencyKey: string): Promise<MifiOrderResult> {
  return api.post<MifiOrderResult>('chargenow/mifi/rent', { body, json: true, idempotencyKey });
}
/** POST chargenow/mifi/confirm (JSON): pay an unpaid (33) order again (continue payment); `action` as rent's. */
export function confirmPackage(body: MifiConfirmBody, idempotencyKey: string): Promise<MifiPackagePaid> {
  return api.post<MifiPackagePaid>('chargenow/mifi/confirm', { body, json: true, idempotencyKey });
}
/** POST chargenow/mifi/orderList: the user's packages (size 100; isPicked 0 = not picked up yet). */
export function packageOrders(p: { current?: number; size?: number; isPicked?: 0 | 1 } = {}): Promise<MifiOrderPage> {
  return api.post<MifiOrderPage>('chargenow/mifi/orderList', {
    body: { current: p.current ?? 1, size: p.size ?? 100, isPicked: p.isPicked },
    json: true,
  });
}
/** GET chargenow/mifi/orderDetail?orderId: the box of a package (network, battery, signal, packages). */
/** One package order of the user (the order detail screen). */
export const packageInfo = (mifiOrderId: string) =>
  api.get<MifiPackage>('chargenow/mifi/package', { query: { mifiOrderId } });

export const deviceDetail = (q: { orderId?: string; sn?: string }) =>
  api.get<MifiDevice>('chargenow/mifi/orderDetail', { query: q });
/** GET chargenow/mifi/checkPickUp?mifiOrderId: the QR pickup poll. */
export const checkPickUp = (mifiOrderId: string, signal?: AbortSignal) =>
  api.get<CheckPickUpResult>('chargenow/mifi/checkPickUp', { query: { mifiOrderId }, signal });
/** POST chargenow/mifi/pickup {qrcode, pickOrderId}: the scanned cabinet ejects a box. */
export const pickup = (qrcode: string, pickOrderId: string) =>
  api.post<{ orderId: string }>('chargenow/mifi/pickup', { body: { qrcode, pickOrderId }, json: true });
/** POST chargenow/mifi/bindSn {sn, mifiOrderId}. */
export const bindSn = (sn: string, mifiOrderId: string) =>
  api.post<{ orderId: string }>('chargenow/mifi/bindSn', { body: { sn, mifiOrderId }, json: true });
/** POST chargenow/mifi/trafficUsage {sn, packageStartTime, packageEndTime} (seconds). */
export const trafficUsage = (sn: string, from: number, to: number) =>
  api.post<TrafficResult>('chargenow/mifi/trafficUsage', {
    body: { sn, packageStartTime: from, packageEndTime: to },
    json: true,
  });
/** POST chargenow/mifi/flowUsageList {sn}: usage per package period. */
export const flowUsageList = (sn: string) =>
  api.post<UsageRecord>('chargenow/mifi/flowUsageList', { body: { sn }, json: true });
/** POST chargenow/mifi/cancel {mifiOrderId}. */
export const cancelPackage = (mifiOrderId: string) =>
  api.post<MifiPackage>('chargenow/mifi/cancel', { body: { mifiOrderId }, json: true });
/** POST chargenow/mifi/cabinetDisposit: the box deposit of a package bought without a device (held where the method can hold); `action` as rent's. */
export function payBoxDeposit(body: DepositBody, idempotencyKey: string): Promise<MifiPackagePaid> {
  return api.post<MifiPackagePaid>('chargenow/mifi/cabinetDisposit', { body, json: true, idempotencyKey });
}
/** POST chargenow/mifi/coupon: what a coupon takes off a package price now (422 with the reason when it does not apply). */
export const couponDiscount = (body: MifiCouponBody) =>
  api.post<MifiCouponResult>('chargenow/mifi/coupon', { body, json: true });
