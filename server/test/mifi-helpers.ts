// What the Wi-Fi package tests (mifi.test.ts, mifi-payment.test.ts) share: the app's calls under
// chargenow/mifi, a package as the order list shows it, a purchase priced from the catalogue, the ledger's balance.
import { expect } from 'vitest';
import { packagePrice } from '#core/mifi.ts';
import { build, cabinetsOnline, cardToken, type Built } from './helper.ts';

export const API = '/cdb-app-api/v1/app';

/** The app with the simulator, its Lisbon, Shanghai, New York and Vilnius cabinets online. */
export async function startMifi(): Promise<Built> {
  const b = await build();
  await cabinetsOnline(b, ['PWL-LIS-001', 'PWL-SH-001', 'PWL-NYC-001', 'PWL-VNO-001']);
  return b;
}

/** The calls and reads of the Wi-Fi package tests, on the app `rig` gives once started. */
export function mifiCalls(rig: () => Built) {
  const post = async (token: string, url: string, payload: unknown) =>
    (
      await rig().app.inject({
        method: 'POST',
        url: `${API}/chargenow/mifi/${url}`,
        headers: { token },
        payload: payload as object,
      })
    ).json();
  const get = async (token: string, url: string) =>
    (await rig().app.inject({ method: 'GET', url: `${API}/chargenow/mifi/${url}`, headers: { token } })).json();
  const query = async (token: string, url: string, data: unknown) =>
    JSON.parse((await post(token, 'query', { requestMethod: 'POST', url, data: JSON.stringify(data) })).data);
  const pkg = async (token: string, id: string) =>
    (
      (await post(token, 'orderList', { current: 1, size: 100 })).data.records as {
        orderId: string;
        packageStatus: number;
      }[]
    ).find((p) => p.orderId === id)!;

  async function ledgerBalanced() {
    const audit = await rig().app.powerly.ledger.audit();
    expect(audit.accountsOutOfStep).toEqual([]);
    for (const c of audit.byCurrency) expect(Number(c.net), c.currency).toBe(0);
  }

  async function buy(
    token: string,
    opts: {
      skuId: string;
      days?: number;
      type?: number;
      card?: boolean | string;
      mifiOrderId?: string;
      currency?: string;
    },
  ) {
    const currency = opts.currency ?? 'EUR';
    const v = (
      (await query(token, 'packageDtlListBySkuId', { skuId: opts.skuId, currency })) as {
        skuId: string;
        price: number;
        isPackage: boolean;
        depositAmount: number;
        Day: number;
      }[]
    ).find((x) => x.skuId === opts.skuId);
    const days = opts.days ?? v!.Day;
    const type = opts.type ?? 0;
    const total =
      Math.round(packagePrice({ isPackage: v!.isPackage, price: v!.price * 100, selectDays: days })) / 100 +
      (type === 0 ? v!.depositAmount : 0);
    return post(token, 'rent', {
      paymentId: 'card-sandbox',
      stripeToken:
        opts.card === false
          ? undefined
          : await cardToken(rig().app, typeof opts.card === 'string' ? opts.card : undefined),
      ejectOrNot: 0,
      orderSubmit: {
        orderType: type,
        currency,
        totalAmount: total,
        submitDtlDtoList: [{ skuId: opts.skuId, selectDays: days, mifiOrderId: opts.mifiOrderId }],
      },
    });
  }
  return { post, get, query, pkg, ledgerBalanced, buy };
}
