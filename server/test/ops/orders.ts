// Orders as the support desk's tests need them: a rental paid with the test card, returned by the cabinet's simulator
// hours later, its money settled (the staff's sessions kept signed in while the test clock moves); a Wi-Fi package.
import { expect } from 'vitest';
import { MINUTE_MS } from '#core/pricing.ts';
import { cabinetsOnline, cardToken, touristToken, waitFor, type Built } from '../helper.ts';

const API = '/cdb-app-api/v1/app';
const HOUR = 60 * MINUTE_MS;

/** The test clock moved hours: the staff's sessions stay signed in (as if each had kept working). */
export const keepSignedIn = (b: Built) =>
  b.db.query(`update staff_sessions set last_seen_at = $1, expires_at = $1::timestamptz + interval '1 hour'`, [
    b.clock.now(),
  ]);

/**
 * A rental paid with the test card at `cabinet`, returned into it `hours` later, its money settled. Vilnius (the
 * default): €1 per started hour past 10 free minutes, cap €5, deposit €25 held on the card; 3 h → €3. Shanghai takes
 * the deposit into the wallet.
 */
export async function settledRental(b: Built, device: string, cabinet = 'PWL-VNO-001', hours = 3) {
  await cabinetsOnline(b, [cabinet]);
  const token = await touristToken(b.app, device);
  const res = await b.app.inject({
    method: 'POST',
    url: `${API}/cdb/cabinet/useDepositToRent`,
    headers: { token },
    payload: { qrcode: cabinet, stripeToken: await cardToken(b.app), paymentId: 'card-sandbox' },
  });
  expect(res.json().code, res.body).toBe(0);
  const orderId: string = res.json().data.outTradeNo;
  const detail = async () =>
    (
      await b.app.inject({ method: 'GET', url: `${API}/cdb/mine/order/detail?orderId=${orderId}`, headers: { token } })
    ).json().data;
  const popped = await waitFor(async () => ((await detail()).pZujie === 1 ? detail() : null), 'popped');
  b.clock.advance(hours * HOUR);
  await keepSignedIn(b);
  // The cabinet's simulator takes it back (its 'returned' event carries the cabinet's own time).
  await b.fleet!.get(cabinet)!.insert(popped.pPowerbankId);
  await waitFor(async () => (await detail()).pZujie === 3, 'returned');
  await waitFor(async () => {
    await b.app.powerly.jobs.runDue();
    const { rows } = await b.db.query<{ status: string }>(
      `select status from payments where order_id = $1 and status <> 'declined'`,
      [orderId],
    );
    return rows.length > 0 && rows.every((p) => p.status !== 'authorized');
  }, 'money settled');
  const { rows } = await b.db.query<{ user_id: string }>('select user_id from orders where id = $1', [orderId]);
  return { orderId, token, userId: Number(rows[0]!.user_id), powerbankId: popped.pPowerbankId as string, detail };
}

/** A Wi-Fi package (no box) bought with `card` (through the app of `agent`, when given). */
export async function boughtPackage(b: Built, device: string, card: string, agent?: string) {
  const token = await touristToken(b.app, device);
  const mifi = async (url: string, payload: unknown) =>
    (
      await b.app.inject({
        method: 'POST',
        url: `${API}/chargenow/mifi/${url}`,
        headers: { token, ...(agent ? { agentOpenId: agent } : {}) },
        payload: payload as object,
      })
    ).json();
  const variants = JSON.parse(
    (
      await mifi('query', {
        requestMethod: 'POST',
        url: 'packageDtlListBySkuId',
        data: JSON.stringify({ skuId: 'pt-unl', currency: 'EUR' }),
      })
    ).data,
  ) as Array<{ skuId: string; price: number; Day: number }>;
  const v = variants.find((x) => x.skuId === 'pt-unl')!;
  const res = await mifi('rent', {
    paymentId: 'card-sandbox',
    stripeToken: await cardToken(b.app, card),
    ejectOrNot: 0,
    orderSubmit: {
      orderType: 2,
      currency: 'EUR',
      totalAmount: v.price,
      submitDtlDtoList: [{ skuId: 'pt-unl', selectDays: v.Day }],
    },
  });
  expect(res.code, JSON.stringify(res)).toBe(0);
  const { rows } = await b.db.query<{ id: string; order_id: string; user_id: string }>(
    'select k.id, k.order_id, k.user_id from mifi_packages k join users u on u.id = k.user_id where u.device_code = $1',
    [device],
  );
  expect(rows).toHaveLength(1);
  return { packageId: rows[0]!.id, orderId: rows[0]!.order_id, userId: Number(rows[0]!.user_id) };
}
