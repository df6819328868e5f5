// What the tests of Wi-Fi packages paid beyond a plain card share (mifi-methods.test.ts, mifi-3ds.test.ts): the
// app's calls with an Idempotency-Key, the order as the mall submits it, the provider's checkout page, the payments.
import { expect } from 'vitest';
import { packagePrice } from '#core/mifi.ts';
import type { Built } from './helper.ts';

export const API = '/cdb-app-api/v1/app';
export const RETURN = 'http://localhost/#/confirm?payType=mifi&currency=EUR';
let n = 0;

export interface Answer<T = Record<string, unknown>> {
  status: number;
  code: number;
  msg: string;
  data: T;
}
export interface Action {
  clientSecret: string;
  paymentIntent: string;
}
export interface Order {
  orderId: string;
  orderStatus: number;
  buyOrderNo: string;
  action?: Action;
}
export interface Pkg {
  orderId: string;
  buyOrderNo: string;
  packageStatus: number;
  deviceOrderStatus: number;
  action?: Action;
}

/** The app's calls against one build (JSON, a fresh Idempotency-Key each unless one is given). */
export function calls(b: Built) {
  const post = async <T>(token: string, url: string, payload: object, key = `k-${n++}`): Promise<Answer<T>> => {
    const r = await b.app.inject({
      method: 'POST',
      url: `${API}/${url}`,
      headers: { token, 'idempotency-key': key },
      payload,
    });
    return { status: r.statusCode, ...(r.json() as { code: number; msg: string; data: T }) };
  };
  const variant = async (token: string, skuId: string) => {
    const r = await post<string>(token, 'chargenow/mifi/query', {
      requestMethod: 'POST',
      url: 'packageDtlListBySkuId',
      data: JSON.stringify({ skuId, currency: 'EUR' }),
    });
    return (JSON.parse(r.data) as { skuId: string; price: number; isPackage: boolean; Day: number }[]).find(
      (v) => v.skuId === skuId,
    )!;
  };
  /** A package-only order (type 2) of `skuId` in EUR, as the mall submits it. */
  const orderSubmit = async (token: string, skuId = 'fr-3d') => {
    const v = await variant(token, skuId);
    const total = packagePrice({ isPackage: v.isPackage, price: Math.round(v.price * 100), selectDays: v.Day }) / 100;
    return { orderType: 2, currency: 'EUR', totalAmount: total, submitDtlDtoList: [{ skuId, selectDays: v.Day }] };
  };
  return {
    post,
    orderSubmit,
    rent: (token: string, body: object, key?: string) => post<Order>(token, 'chargenow/mifi/rent', body, key),
    confirm: (token: string, body: object) => post<Pkg>(token, 'chargenow/mifi/confirm', body),
    deposit: (token: string, body: object) => post<Pkg>(token, 'chargenow/mifi/cabinetDisposit', body),
    payer: async (token: string, paymentId: string) =>
      (await post<{ token: string }>(token, 'cdb/payment/method/payer', { paymentId })).data.token,
    pkg: async (token: string, id: string) =>
      (
        await b.app.inject({
          method: 'GET',
          url: `${API}/chargenow/mifi/package?mifiOrderId=${id}`,
          headers: { token },
        })
      ).json().data as Pkg,
    userId: async (token: string) =>
      (
        (await b.app.inject({ method: 'GET', url: `${API}/userInfo`, headers: { token } })).json().data as {
          pId: number;
        }
      ).pId,
    payments: async (orderNo: string) =>
      (
        await b.db.query<{
          purpose: string;
          status: string;
          amount: string;
          provider: string;
          provider_ref: string;
          failure_code: string | null;
        }>(
          'select purpose, status, amount, provider, provider_ref, failure_code from payments where order_id = $1 order by created_at',
          [orderNo],
        )
      ).rows.map((r) => ({ ...r, amount: Number(r.amount) })),
    /** The customer on the sandbox's checkout page (approve or cancel), then the provider's return to us: where the app resumes. */
    onProviderPage: async (clientSecret: string, decision: 'approve' | 'cancel') => {
      expect(clientSecret.startsWith('ext:')).toBe(true);
      const action = JSON.parse(clientSecret.slice(4)) as { params?: Record<string, string>; url?: string };
      const page = action.params?.sandboxCheckout ?? action.url!;
      expect((await b.app.inject({ method: 'GET', url: page })).statusCode).toBe(200);
      const answered = await b.app.inject({
        method: 'POST',
        url: page,
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: `decision=${decision}`,
      });
      expect(answered.statusCode).toBe(303);
      const back = await b.app.inject({ method: 'GET', url: answered.headers.location as string });
      expect(back.statusCode).toBe(303);
      return back.headers.location as string;
    },
  };
}
