// Wi-Fi package orders with the wallet and coupons (chargenow/mifi/rent and confirm: useWallet, couponNo): the
// wallet pays what it can and the card only the rest; a coupon lowers the packages' price (never a box deposit),
// its use redeemed with the payment; a refused coupon is a 422 in the user's language and nothing is charged; a
// cancelled package gives back what was paid for it, the card's part to the card and the wallet's to the wallet,
// and the coupon's discount back to the discount account. The ledger sums to zero after each step.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { packagePrice } from '#core/mifi.ts';
import { build, cardToken, ledgerBalanced, touristToken, waitFor, type Built } from './helper.ts';

const API = '/cdb-app-api/v1/app';
let b: Built;
let n = 0;
let price = 0; // fr-3d's package price, minor units of EUR
beforeAll(async () => {
  b = await build({ simulator: false });
  const token = await touristToken(b.app);
  const v = (
    JSON.parse(
      (
        await post(token, 'chargenow/mifi/query', {
          requestMethod: 'POST',
          url: 'packageDtlListBySkuId',
          data: JSON.stringify({ skuId: 'fr-3d', currency: 'EUR' }),
        })
      ).body.data as unknown as string,
    ) as { skuId: string; price: number; isPackage: boolean; Day: number }[]
  ).find((x) => x.skuId === 'fr-3d')!;
  price = packagePrice({ isPackage: v.isPackage, price: Math.round(v.price * 100), selectDays: v.Day });
  days = v.Day;
});
afterAll(async () => b?.close());
let days = 0;

const DAY = 24 * 3600_000;
async function post(token: string, url: string, payload: object, lang = 'en-US') {
  const r = await b.app.inject({
    method: 'POST',
    url: `${API}/${url}`,
    headers: { token, lang, 'idempotency-key': `mc-${n++}` },
    payload,
  });
  return { status: r.statusCode, body: r.json() as { code: number; msg: string; data: Record<string, unknown> } };
}
async function coupon(
  c: { kind: 'percent'; percent: number } | { kind: 'fixed'; amount: number; currency: string },
  extra: { limitTotal?: number } = {},
) {
  const code = `WIFI${n++}`;
  const at = (ms: number) => new Date(b.clock.now().getTime() + ms).toISOString();
  await b.app.powerly.coupons.create({ kind: 'all' }, null, {
    validFrom: at(-DAY),
    validTo: at(DAY),
    reason: 'test',
    code,
    ...c,
    ...extra,
  });
  return code;
}
const rider = async () => {
  const token = await touristToken(b.app);
  const user = await b.app.powerly.auth.authenticate(token);
  return { token, id: user.id };
};
async function topUp(token: string, minor: number) {
  const r = await post(token, 'cdb/payment/multicurrency/recharge', {
    amount: (minor / 100).toFixed(2),
    currency: 'EUR',
    paymentId: 'card-sandbox',
    stripeToken: await cardToken(b.app),
  });
  expect(r.body.code, r.body.msg).toBe(0);
}
const rent = async (token: string, extra: Record<string, unknown>, card = true) =>
  post(token, 'chargenow/mifi/rent', {
    paymentId: 'card-sandbox',
    ...(card ? { stripeToken: await cardToken(b.app) } : {}),
    ejectOrNot: 0,
    orderSubmit: {
      orderType: 2,
      currency: 'EUR',
      totalAmount: price / 100,
      submitDtlDtoList: [{ skuId: 'fr-3d', selectDays: days }],
    },
    ...extra,
  });
const balance = async (userId: number) => (await b.app.powerly.ledger.walletOf(userId, 'EUR')).balance;
const cardPayments = async (orderNo: string) =>
  (
    await b.db.query<{ amount: string; refunded_amount: string }>(
      `select amount, refunded_amount from payments where order_id = $1 and purpose = 'mifi'`,
      [orderNo],
    )
  ).rows.map((p) => ({ amount: Number(p.amount), refunded: Number(p.refunded_amount) }));
const discounts = async () =>
  Number(
    (
      await b.db.query<{ d: string }>(
        `select coalesce(sum(debits_posted - credits_posted), 0) as d from ledger_accounts where owner_type = 'platform' and kind = 'discount' and currency = 'EUR'`,
      )
    ).rows[0]!.d,
  );
const status = async (token: string, id: string) =>
  (
    (
      await b.app.inject({ method: 'GET', url: `${API}/chargenow/mifi/package?mifiOrderId=${id}`, headers: { token } })
    ).json().data as { packageStatus: number }
  ).packageStatus;

describe('a Wi-Fi package paid with the wallet and the card', () => {
  it('the wallet pays what it has, the card only the rest; a cancellation gives each its own part back', async () => {
    const { token, id } = await rider();
    await topUp(token, price - 100);
    const r = await rent(token, { useWallet: 1 });
    expect(r.body.code, r.body.msg).toBe(0);
    const orderNo = String(r.body.data.out_trade_no);
    expect(await cardPayments(orderNo)).toEqual([{ amount: 100, refunded: 0 }]);
    expect(await balance(id)).toBe(0);
    await ledgerBalanced(b.app);

    const pkgId = String(r.body.data.orderId);
    expect((await post(token, 'chargenow/mifi/cancel', { mifiOrderId: pkgId })).body.code).toBe(0);
    await b.app.powerly.jobs.runDue();
    expect(await status(token, pkgId)).toBe(4);
    expect(await cardPayments(orderNo)).toEqual([{ amount: 100, refunded: 100 }]);
    expect(await balance(id)).toBe(price - 100);
    await ledgerBalanced(b.app);
  });

  it('without useWallet the card pays it all (the wallet is kept); with a balance that covers it the wallet alone pays', async () => {
    const { token, id } = await rider();
    await topUp(token, price + 50);
    const card = await rent(token, {});
    expect(card.body.code, card.body.msg).toBe(0);
    expect(await cardPayments(String(card.body.data.out_trade_no))).toEqual([{ amount: price, refunded: 0 }]);
    expect(await balance(id)).toBe(price + 50);
    const wallet = await rent(token, { useWallet: 1 });
    expect(wallet.body.code, wallet.body.msg).toBe(0);
    expect(await cardPayments(String(wallet.body.data.out_trade_no))).toEqual([]);
    expect(await balance(id)).toBe(50);
    await ledgerBalanced(b.app);
  });
});

describe('a coupon on a Wi-Fi package', () => {
  it('lowers the charge, is redeemed with it, and a cancellation refunds what was paid and reverses the discount', async () => {
    const code = await coupon({ kind: 'percent', percent: 20 });
    const { token, id } = await rider();
    const discount = Math.floor((price * 20) / 100);
    expect(
      (await post(token, 'chargenow/mifi/coupon', { couponNo: code, currency: 'EUR', amount: price })).body.data,
    ).toEqual({ discount });
    const before = await discounts();
    const r = await rent(token, { couponNo: code });
    expect(r.body.code, r.body.msg).toBe(0);
    const orderNo = String(r.body.data.out_trade_no);
    expect(await cardPayments(orderNo)).toEqual([{ amount: price - discount, refunded: 0 }]);
    expect(await discounts()).toBe(before + discount);
    const c = (await b.app.powerly.coupons.repo.byCode(code))!;
    expect((await b.app.powerly.coupons.repo.stats([c.id])).get(c.id)).toMatchObject({ redeemed: 1, reserved: 0 });
    await ledgerBalanced(b.app);

    const pkgId = String(r.body.data.orderId);
    expect((await post(token, 'chargenow/mifi/cancel', { mifiOrderId: pkgId })).body.code).toBe(0);
    await b.app.powerly.jobs.runDue();
    expect(await cardPayments(orderNo)).toEqual([{ amount: price - discount, refunded: price - discount }]);
    expect(await discounts()).toBe(before);
    expect(await balance(id)).toBe(0);
    await ledgerBalanced(b.app);
  });

  it('with the wallet: a coupon and a balance that together cover it need no card', async () => {
    const code = await coupon({ kind: 'fixed', amount: 100, currency: 'EUR' });
    const { token, id } = await rider();
    await topUp(token, price - 100);
    const r = await rent(token, { couponNo: code, useWallet: 1 });
    expect(r.body.code, r.body.msg).toBe(0);
    expect(await cardPayments(String(r.body.data.out_trade_no))).toEqual([]);
    expect(await balance(id)).toBe(0);
    await ledgerBalanced(b.app);
  });

  it("refuses an unknown, other-currency or used-up coupon with a 422 in the rider's language; nothing is charged and the order stays unpaid", async () => {
    const { token } = await rider();
    const unknown = await rent(token, { couponNo: 'NO-SUCH-COUPON' }, true);
    expect(unknown.status).toBe(422);
    const usd = await coupon({ kind: 'fixed', amount: 100, currency: 'USD' });
    const other = await post(
      token,
      'chargenow/mifi/coupon',
      { couponNo: usd, currency: 'EUR', amount: price },
      'pt-PT',
    );
    expect(other.status).toBe(422);
    expect(other.body.msg).toMatch(/USD/);
    const once = await coupon({ kind: 'percent', percent: 10 }, { limitTotal: 1 });
    expect((await rent(token, { couponNo: once })).body.code).toBe(0);
    const second = await rider();
    const usedUp = await rent(second.token, { couponNo: once });
    expect(usedUp.status).toBe(422);
    const orders = (
      await b.db.query<{ status: number }>(`select status from mifi_orders where user_id = $1`, [second.id])
    ).rows;
    expect(orders.map((o) => Number(o.status))).toEqual([33]);
    expect((await b.db.query(`select 1 from payments where user_id = $1`, [second.id])).rows).toEqual([]);
    await ledgerBalanced(b.app);
  });

  it("a process that dies after the charge: the guard refunds the charge and releases the coupon's use with it", async () => {
    const code = await coupon({ kind: 'percent', percent: 50 }, { limitTotal: 1 });
    const { token, id: userId } = await rider();
    const first = await rent(token, {}, false);
    expect(first.body.code).not.toBe(0); // an empty wallet: the order is made and stays unpaid
    // This rider's unpaid order (the test clock stands still, so creation times do not tell orders apart).
    const orderNo = String(
      (await b.db.query<{ id: string }>(`select id from mifi_orders where status = 33 and user_id = $1`, [userId]))
        .rows[0]!.id,
    );
    const pkgId = `${orderNo}-1`;
    let crash!: (e: Error) => void;
    const dead = new Promise<never>((_, reject) => (crash = reject));
    const paying = (b.app.powerly.mifi as unknown as { s: { paying: { settleCard: () => Promise<void> } } }).s.paying;
    const settle = paying.settleCard;
    paying.settleCard = () => dead;
    try {
      const inFlight = post(token, 'chargenow/mifi/confirm', {
        mifiOrderId: pkgId,
        paymentId: 'card-sandbox',
        stripeToken: await cardToken(b.app),
        couponNo: code,
      });
      const intent = await waitFor(
        async () =>
          (
            await b.db.query<{ id: string; amount: string }>(
              `select id, amount from sandbox_intents where id like $1 and status = 'captured'`,
              [`pi_mifi_${orderNo}_%`],
            )
          ).rows[0],
        'charged',
      );
      expect(Number(intent.amount)).toBe(price - Math.floor(price / 2));
      const c = (await b.app.powerly.coupons.repo.byCode(code))!;
      expect((await b.app.powerly.coupons.repo.stats([c.id])).get(c.id)).toMatchObject({ reserved: 1 });
      b.clock.advance(121_000);
      await b.app.powerly.jobs.runDue();
      expect(await b.app.powerly.sandbox.status(intent.id)).toBe('refunded');
      expect((await b.app.powerly.coupons.repo.stats([c.id])).get(c.id)).toMatchObject({ reserved: 0, redeemed: 0 });
      crash(new Error('process died'));
      expect((await inFlight).body.code).not.toBe(0);
    } finally {
      paying.settleCard = settle;
    }
    // The coupon is free again: the rider pays with it now.
    const again = await post(token, 'chargenow/mifi/confirm', {
      mifiOrderId: pkgId,
      paymentId: 'card-sandbox',
      stripeToken: await cardToken(b.app),
      couponNo: code,
    });
    expect(again.body.code, again.body.msg).toBe(0);
    await ledgerBalanced(b.app);
  });
});
