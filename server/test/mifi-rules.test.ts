// Wi-Fi rules around the box: a box only for a paid package with its deposit held, the deposit's currency, a box's
// data only for its current holder, a renewal not started refunded at the box's return, eject with the purchase.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { packagePrice } from '#core/mifi.ts';
import { build, cabinetsOnline, cardToken, ledgerBalanced, touristToken, waitFor, type Built } from './helper.ts';

const API = '/cdb-app-api/v1/app';
let b: Built;
beforeAll(async () => {
  b = await build();
  await cabinetsOnline(b, ['PWL-LIS-001', 'PWL-SH-001', 'PWL-NYC-001']);
}, 120_000);
afterAll(async () => b?.close());

const post = async (token: string, url: string, payload: unknown, lang?: string) =>
  (
    await b.app.inject({
      method: 'POST',
      url: `${API}/chargenow/mifi/${url}`,
      headers: { token, ...(lang ? { lang } : {}) },
      payload: payload as object,
    })
  ).json();
const get = async (token: string, url: string) =>
  (await b.app.inject({ method: 'GET', url: `${API}/chargenow/mifi/${url}`, headers: { token } })).json();
const query = async (token: string, url: string, data: unknown) =>
  JSON.parse((await post(token, 'query', { requestMethod: 'POST', url, data: JSON.stringify(data) })).data);
type Wire = { orderId: string; packageStatus: number; deviceOrderStatus: number; productSendSn: string };
const pkg = async (token: string, id: string) =>
  ((await post(token, 'orderList', { current: 1, size: 100 })).data.records as Wire[]).find((p) => p.orderId === id)!;

async function buy(
  token: string,
  o: {
    skuId: string;
    currency?: string;
    type?: number;
    card?: boolean;
    mifiOrderId?: string;
    qrcode?: string;
    eject?: boolean;
  },
) {
  const currency = o.currency ?? 'EUR';
  const v = (
    (await query(token, 'packageDtlListBySkuId', { skuId: o.skuId, currency })) as {
      skuId: string;
      price: number;
      isPackage: boolean;
      depositAmount: number;
      Day: number;
    }[]
  ).find((x) => x.skuId === o.skuId)!;
  const type = o.type ?? 0;
  const total =
    Math.round(packagePrice({ isPackage: v.isPackage, price: Math.round(v.price * 100), selectDays: v.Day })) / 100 +
    (type === 0 ? v.depositAmount : 0);
  return post(token, 'rent', {
    paymentId: 'card-sandbox',
    stripeToken: o.card === false ? undefined : await cardToken(b.app),
    ejectOrNot: o.eject ? 1 : 0,
    qrcode: o.qrcode,
    orderSubmit: {
      orderType: type,
      currency,
      totalAmount: total,
      submitDtlDtoList: [{ skuId: o.skuId, selectDays: v.Day, mifiOrderId: o.mifiOrderId }],
    },
  });
}
const sim = (id: string) => b.fleet!.get(id)!;
/** The box goes back into a cabinet; waits until the package holding it has let it go. */
async function giveBack(token: string, id: string, sn: string, cabinet = 'PWL-LIS-001') {
  await sim(cabinet).insert(sn);
  await waitFor(async () => ((await pkg(token, id)).deviceOrderStatus === 3 ? true : null), 'box returned');
}

describe('a box only for a paid package with its deposit held', () => {
  it('bindSn refuses an unpaid, a cancelled and a refunded package, as pickup does', async () => {
    const token = await touristToken(b.app);
    // Unpaid (33): no card, no balance.
    expect((await buy(token, { skuId: 'es-3d', card: false })).code).not.toBe(0);
    const unpaid = ((await post(token, 'orderList', { current: 1, size: 100 })).data.records as Wire[]).find(
      (p) => p.packageStatus === 33,
    )!;
    expect(unpaid.deviceOrderStatus).toBe(5);
    expect((await post(token, 'bindSn', { sn: 'MF-LIS-0001', mifiOrderId: unpaid.orderId })).code).toBe(409);
    expect((await post(token, 'pickup', { qrcode: 'PWL-LIS-001', pickOrderId: unpaid.orderId })).code).toBe(409);
    expect((await get(token, `orderDetail?orderId=${unpaid.orderId}`)).code).toBe(404);
    // Cancelled (88).
    expect((await post(token, 'cancel', { mifiOrderId: unpaid.orderId })).data.packageStatus).toBe(88);
    expect((await post(token, 'bindSn', { sn: 'MF-LIS-0001', mifiOrderId: unpaid.orderId })).code).toBe(409);
    // Paid, then cancelled and refunded (3 → 4): the box deposit went back with it.
    const paid = await buy(token, { skuId: 'es-3d' });
    expect(paid.code, JSON.stringify(paid)).toBe(0);
    await post(token, 'cancel', { mifiOrderId: paid.data.orderId });
    await b.app.powerly.jobs.runDue();
    expect((await pkg(token, paid.data.orderId)).packageStatus).toBe(4);
    expect((await post(token, 'bindSn', { sn: 'MF-LIS-0001', mifiOrderId: paid.data.orderId })).code).toBe(409);
    expect((await post(token, 'pickup', { qrcode: 'PWL-LIS-001', pickOrderId: paid.data.orderId })).code).toBe(409);
    expect((await pkg(token, paid.data.orderId)).productSendSn).toBe('');
    await ledgerBalanced(b.app);
  });
});

describe("the box deposit's currency", () => {
  it('a package with a box is not sold in a currency without a box deposit (CNY), and nothing is charged', async () => {
    const token = await touristToken(b.app);
    const r = await buy(token, { skuId: 'cn-3d', currency: 'CNY' });
    expect(r.code, JSON.stringify(r)).toBe(409);
    const only = await buy(token, { skuId: 'cn-3d', currency: 'CNY', type: 2 });
    expect(only.code, JSON.stringify(only)).toBe(0);
    const dep = await post(token, 'cabinetDisposit', {
      mifiOrderId: only.data.orderId,
      paymentId: 'card-sandbox',
      stripeToken: await cardToken(b.app),
    });
    expect(dep.code, JSON.stringify(dep)).toBe(409);
    await ledgerBalanced(b.app);
  });

  it("a box is picked up only at a cabinet in its deposit's currency: else a 409 in the user's language", async () => {
    const token = await touristToken(b.app);
    const r = await buy(token, { skuId: 'es-3d' });
    expect(r.code, JSON.stringify(r)).toBe(0);
    const there = await post(token, 'pickup', { qrcode: 'PWL-NYC-001', pickOrderId: r.data.orderId }, 'pt-PT');
    expect(there.code).toBe(409);
    expect(there.msg).toMatch(/EUR/);
    expect((await post(token, 'bindSn', { sn: 'MF-NYC-0001', mifiOrderId: r.data.orderId })).code).toBe(409);
    expect((await pkg(token, r.data.orderId)).productSendSn).toBe('');
  });
});

describe('a box handed from one holder to the next', () => {
  const sn = 'MF-LIS-0002';
  let a: string;
  let first: { code: number; data: { orderId: string } };
  it('a paid renewal not started when the box comes back is refunded to the card it was paid with (3 → 4)', async () => {
    a = await touristToken(b.app);
    first = await buy(a, { skuId: 'pt-unl' });
    expect(first.code, JSON.stringify(first)).toBe(0);
    expect((await post(a, 'bindSn', { sn, mifiOrderId: first.data.orderId })).code).toBe(0);
    await sim('PWL-LIS-001').takeOut(sn);
    await sim('PWL-LIS-001').boxTelemetry({ sn, bytesTotal: 1_000 });
    // A renewal paid by card, not started when the box comes back: refunded to the card.
    const ren = await buy(a, { skuId: 'pt-unl', type: 1, mifiOrderId: first.data.orderId });
    expect(ren.code, JSON.stringify(ren)).toBe(0);
    expect((await pkg(a, ren.data.orderId)).packageStatus).toBe(1);
    const walletBefore = (await b.app.inject({ method: 'GET', url: `${API}/userInfo`, headers: { token: a } })).json()
      .data;
    await giveBack(a, first.data.orderId, sn);
    await b.app.powerly.jobs.runDue();
    await waitFor(async () => ((await pkg(a, ren.data.orderId)).packageStatus === 4 ? true : null), 'renewal refunded');
    const refunds = await b.db.query<{ n: number }>(
      `select count(*)::int as n from payments where order_id = $1 and refunded_amount > 0`,
      [ren.data.buyOrderNo],
    );
    expect(refunds.rows[0]!.n).toBe(1);
    const walletAfter = (await b.app.inject({ method: 'GET', url: `${API}/userInfo`, headers: { token: a } })).json()
      .data;
    expect(walletAfter.pbalance).toBe(walletBefore.pbalance);
    await ledgerBalanced(b.app);
  });

  it("the former holder reads neither the next holder's traffic nor the box's detail (404)", async () => {
    expect((await pkg(a, first.data.orderId)).deviceOrderStatus).toBe(3);
    b.clock.advance(60_000);
    const nb = await touristToken(b.app);
    const second = await buy(nb, { skuId: 'pt-unl' });
    expect((await post(nb, 'bindSn', { sn, mifiOrderId: second.data.orderId })).code).toBe(0);
    await sim('PWL-LIS-001').takeOut(sn);
    const from = Math.floor(b.clock.now().getTime() / 1000);
    b.clock.advance(60_000);
    await sim('PWL-LIS-001').boxTelemetry({ sn, bytesTotal: 5_000, battery: 77 });
    await waitFor(
      async () =>
        (await post(nb, 'trafficUsage', { sn, packageStartTime: from, packageEndTime: from + 3600 })).data?.totalUsage >
        0
          ? true
          : null,
      'traffic',
    );
    expect((await get(nb, `orderDetail?sn=${sn}`)).data).toMatchObject({ sn, dianliang: 77 });
    // The former holder: nothing of the new holder's period, nor the box.
    expect((await post(a, 'trafficUsage', { sn, packageStartTime: from, packageEndTime: from + 3600 })).code).toBe(404);
    expect((await get(a, `orderDetail?sn=${sn}`)).code).toBe(404);
    expect((await get(a, `orderDetail?orderId=${first.data.orderId}`)).code).toBe(404);
  });
});

describe('ejectOrNot=1', () => {
  it('ejects the box with the purchase once it is paid', async () => {
    const token = await touristToken(b.app);
    const r = await buy(token, { skuId: 'pt-unl', qrcode: 'PWL-LIS-001', eject: true });
    expect(r.code, JSON.stringify(r)).toBe(0);
    const out = await waitFor(
      async () =>
        (await get(token, `checkPickUp?mifiOrderId=${r.data.orderId}`)).data.status === 2
          ? pkg(token, r.data.orderId)
          : null,
      'box out',
    );
    expect(out.productSendSn).toMatch(/^MF-LIS-/);
  });
});

describe('order type 3 (the box only)', () => {
  it('rents the box for a package bought without one: its box deposit is held, the package waits for its pickup', async () => {
    const token = await touristToken(b.app);
    const only = await buy(token, { skuId: 'pt-unl', type: 2 });
    expect(only.code, JSON.stringify(only)).toBe(0);
    const deposit = (
      (await query(token, 'packageDtlListBySkuId', { skuId: 'pt-unl', currency: 'EUR' })) as {
        skuId: string;
        depositAmount: number;
      }[]
    ).find((x) => x.skuId === 'pt-unl')!.depositAmount;
    const box = (total: number, who = token, id = only.data.orderId as string) =>
      b.app.inject({
        method: 'POST',
        url: `${API}/chargenow/mifi/rent`,
        headers: { token: who },
        payload: {
          paymentId: 'card-sandbox',
          stripeToken: 'x',
          orderSubmit: { orderType: 3, currency: 'EUR', totalAmount: total, submitDtlDtoList: [{ mifiOrderId: id }] },
        },
      });
    // A stale total is refused before anything is charged; another person's package is not found.
    expect((await box(deposit + 1)).statusCode).toBe(409);
    expect((await box(deposit, await touristToken(b.app))).statusCode).toBe(404);
    const r = await post(token, 'rent', {
      paymentId: 'card-sandbox',
      stripeToken: await cardToken(b.app),
      orderSubmit: {
        orderType: 3,
        currency: 'EUR',
        totalAmount: deposit,
        orderRemark: '仅设备',
        submitDtlDtoList: [{ mifiOrderId: only.data.orderId }],
      },
    });
    expect(r.code, JSON.stringify(r)).toBe(0);
    expect(r.data).toMatchObject({ orderId: only.data.orderId, orderStatus: 0, type: 'mifi' });
    expect((await pkg(token, only.data.orderId)).deviceOrderStatus).toBe(5);
    // The box's deposit once: a second box for the same package is refused.
    expect(
      (
        await post(token, 'rent', {
          paymentId: 'card-sandbox',
          stripeToken: await cardToken(b.app),
          orderSubmit: {
            orderType: 3,
            currency: 'EUR',
            totalAmount: deposit,
            submitDtlDtoList: [{ mifiOrderId: only.data.orderId }],
          },
        })
      ).code,
    ).toBe(409);
    await ledgerBalanced(b.app);
  });
});

describe('the Wi-Fi password rotates at each handover', () => {
  it('the next holder sees a new password once the box confirmed it (none while pending), sent again after the cabinet was away', async () => {
    const sn = 'MF-NYC-0001';
    const nyc = sim('PWL-NYC-001');
    const a = await touristToken(b.app);
    const first = await buy(a, { skuId: 'es-3d', currency: 'USD' });
    expect((await post(a, 'bindSn', { sn, mifiOrderId: first.data.orderId })).code).toBe(0);
    await nyc.takeOut(sn);
    const old = (await get(a, `orderDetail?sn=${sn}`)).data.deviceJson.wifiPassword as string;
    expect(old).not.toBe('');
    await giveBack(a, first.data.orderId, sn, 'PWL-NYC-001');
    // The cabinet is away when the command is first sent: nothing confirms it.
    await nyc.stop();
    await b.app.powerly.jobs.runDue();
    const next = await touristToken(b.app);
    const second = await buy(next, { skuId: 'es-3d', currency: 'USD' });
    expect((await post(next, 'bindSn', { sn, mifiOrderId: second.data.orderId })).code).toBe(0);
    expect((await get(next, `orderDetail?sn=${sn}`)).data.deviceJson.wifiPassword).toBe('');
    // Back online: the job sends the same command again, the box confirms, the holder sees the new password.
    await nyc.start();
    b.clock.advance(31_000);
    await b.app.powerly.jobs.runDue();
    const shown = await waitFor(async () => {
      const pw = (await get(next, `orderDetail?sn=${sn}`)).data.deviceJson.wifiPassword as string;
      return pw || null;
    }, 'password confirmed');
    expect(shown).not.toBe(old);
    expect(shown).toHaveLength(16);
    expect(nyc.wifiPassword(sn)).toBe(shown);
    expect((await get(a, `orderDetail?sn=${sn}`)).code).toBe(404);
  });
});
