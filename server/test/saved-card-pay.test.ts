// A saved card pays a debt (payType FK) and a Wi-Fi package (rent, continue payment) as it pays a rental's deposit
// and a top-up: the card's provider ref in place of a new card's token, through the same charge and ledger. Another
// rider's card is not found (nothing charged); a card and a new token at once is a 400. Saving a card: with a top-up
// or a chosen payment method, listed by agent, deleted; a declined card is not saved.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { packagePrice } from '#core/mifi.ts';
import {
  build,
  cardToken,
  failNextKeyCompletionOutsideTx,
  ledgerBalanced,
  touristToken,
  type Built,
} from './helper.ts';
import { walletCalls } from './wallet-helpers.ts';

const API = '/cdb-app-api/v1/app';
let b: Built;
let n = 0;
beforeAll(async () => {
  b = await build();
  // A registered agent (the embed's agents): a top-up names only an agent that exists.
  await b.app.powerly.embed.saveAgent({ id: 'agent-7', name: 'Agent 7', origins: [] });
});
afterAll(async () => b?.close());

const post = async (token: string, url: string, payload: object) => {
  const r = await b.app.inject({
    method: 'POST',
    url: `${API}/${url}`,
    headers: { token, 'idempotency-key': `sc-${n++}` },
    payload,
  });
  return { status: r.statusCode, body: r.json() as { code: number; msg: string; data: Record<string, unknown> } };
};
const payments = async (orderId: string) =>
  (
    await b.db.query<{ amount: string; status: string }>('select amount, status from payments where order_id = $1', [
      orderId,
    ])
  ).rows.map((p) => ({ amount: Number(p.amount), status: p.status }));

/** A rider with one card saved (a top-up that asked to save it): their token and the card's pId. */
async function riderWithCard() {
  const token = await touristToken(b.app);
  const saved = await post(token, 'cdb/payment/multicurrency/recharge', {
    amount: '1',
    currency: 'EUR',
    paymentId: 'card-sandbox',
    stripeToken: await cardToken(b.app, '5555 5555 5555 4444'),
    saveCard: true,
  });
  expect(saved.body.code, saved.body.msg).toBe(0);
  const cards = (
    await b.app.inject({ method: 'GET', url: `${API}/cdb/user/card?userEnd=web`, headers: { token } })
  ).json().data as { pId: string }[];
  expect(cards).toHaveLength(1);
  return { token, cardId: cards[0]!.pId };
}

async function orderWithDebt(token: string, debt: number) {
  const user = await b.app.powerly.auth.authenticate(token);
  const orderId = `PSC${Date.now()}${n++}`;
  await b.db.query(
    `insert into orders (id, user_id, cabinet_id, venue_id, zujie, settled, deposit_type, currency, plan, wire_strategy, deposit, created_at, debt)
     select $1, $2, c.id, c.venue_id, 2, true, 1, 'EUR', '{}', '{}', 0, now(), $3 from cabinets c where c.id = 'PWL-LIS-001'`,
    [orderId, user.id, debt],
  );
  return orderId;
}

/** A package-only order (type 2) of `skuId` in EUR, as the mall submits it. */
async function orderSubmit(token: string, skuId = 'fr-3d') {
  const r = await post(token, 'chargenow/mifi/query', {
    requestMethod: 'POST',
    url: 'packageDtlListBySkuId',
    data: JSON.stringify({ skuId, currency: 'EUR' }),
  });
  const v = (
    JSON.parse(r.body.data as unknown as string) as { skuId: string; price: number; isPackage: boolean; Day: number }[]
  ).find((x) => x.skuId === skuId)!;
  const total = packagePrice({ isPackage: v.isPackage, price: Math.round(v.price * 100), selectDays: v.Day }) / 100;
  return { orderType: 2, currency: 'EUR', totalAmount: total, submitDtlDtoList: [{ skuId, selectDays: v.Day }] };
}

describe('a saved card at payment', () => {
  it('pays a debt (FK): charged once, the debt settled, the ledger balanced', async () => {
    const { token, cardId } = await riderWithCard();
    const order = await orderWithDebt(token, 450);
    const r = await post(token, 'cdb/payment/stripe/multicurrency/payOrder', {
      outTradeNo: order,
      paymentId: 'card-sandbox',
      cardId,
    });
    expect(r.body.code, r.body.msg).toBe(0);
    expect(r.body.data.outTradeNo).toBe(order);
    expect(await payments(order)).toEqual([{ amount: 450, status: 'captured' }]);
    await ledgerBalanced(b.app);
  });

  it('pays a Wi-Fi package bought in the mall, and one left unpaid (continue payment)', async () => {
    const { token, cardId } = await riderWithCard();
    const bought = await post(token, 'chargenow/mifi/rent', {
      paymentId: 'card-sandbox',
      cardId,
      orderSubmit: await orderSubmit(token),
    });
    expect(bought.body.code, bought.body.msg).toBe(0);
    expect(bought.body.data.orderStatus).toBe(0);
    // Unpaid first (a declined card), then paid with the saved card.
    const declined = await post(token, 'chargenow/mifi/rent', {
      paymentId: 'card-sandbox',
      stripeToken: await cardToken(b.app, '4000 0000 0000 0002'),
      orderSubmit: await orderSubmit(token),
    });
    expect(declined.status).toBe(422);
    const unpaid = (
      await b.db.query<{ id: string }>(
        `select p.id from mifi_packages p where p.user_id = $1 and p.status = 33 order by p.created_at desc limit 1`,
        [(await b.app.powerly.auth.authenticate(token)).id],
      )
    ).rows[0]!.id;
    const paid = await post(token, 'chargenow/mifi/confirm', {
      mifiOrderId: unpaid,
      paymentId: 'card-sandbox',
      cardId,
    });
    expect(paid.body.code, paid.body.msg).toBe(0);
    expect(paid.body.data.packageStatus).not.toBe(33);
    await ledgerBalanced(b.app);
  });

  it('another rider’s card is not found and nothing is charged; a card and a new token at once is a 400', async () => {
    const { cardId } = await riderWithCard();
    const other = await touristToken(b.app);
    const order = await orderWithDebt(other, 300);
    const r = await post(other, 'cdb/payment/stripe/multicurrency/payOrder', {
      outTradeNo: order,
      paymentId: 'card-sandbox',
      cardId,
    });
    expect(r.status).toBe(404);
    expect(await payments(order)).toEqual([]);
    const mine = await riderWithCard();
    const both = await post(mine.token, 'chargenow/mifi/rent', {
      paymentId: 'card-sandbox',
      cardId: mine.cardId,
      stripeToken: await cardToken(b.app),
      orderSubmit: await orderSubmit(mine.token),
    });
    expect(both.status).toBe(400);
  });
});

describe('saved cards', () => {
  const { post, get, key, topUp, wallet, invariants } = walletCalls(() => b);

  it('a top-up that asks to save its card lists the card once paid, and the card pays the next top-up; one that does not, saves none', async () => {
    const token = await touristToken(b.app);
    expect((await topUp(token, '10', 'EUR')).json().code).toBe(0);
    expect((await get('cdb/user/card?userEnd=web', token)).json().data).toEqual([]);
    const saveKey = key();
    const body = {
      amount: '10',
      currency: 'EUR',
      paymentId: 'card-sandbox',
      stripeToken: await cardToken(b.app, '5555 5555 5555 4444'),
      saveCard: true,
    } as unknown as Record<string, string>;
    expect((await post('cdb/payment/multicurrency/recharge', token, body, saveKey)).json().code).toBe(0);
    // The same request again (a retry) replays; the card is listed once.
    expect((await post('cdb/payment/multicurrency/recharge', token, body, saveKey)).json().code).toBe(0);
    const cards = (await get('cdb/user/card?userEnd=web', token)).json().data;
    expect(cards).toEqual([
      {
        pId: expect.stringMatching(/^card_/),
        pCardnumber: '**** **** **** 4444',
        currencyName: 'EUR',
        brand: 'mastercard',
        paymentId: 'card-sandbox',
      },
    ]);
    expect((await topUp(token, '10', 'EUR', { cardId: cards[0].pId })).json().code).toBe(0);
    expect((await wallet(token, 'EUR'))?.pBalance).toBe(30);
    // A declined card is not saved.
    const declined = await post(
      'cdb/payment/multicurrency/recharge',
      token,
      { ...body, stripeToken: await cardToken(b.app, '4000 0000 0000 0002') },
      key(),
    );
    expect(declined.json().code).toBe(422);
    expect((await get('cdb/user/card?userEnd=web', token)).json().data).toHaveLength(1);
    await invariants();
  });

  it('saves with a chosen payment method, lists by agent, tops up with the saved card, deletes', async () => {
    const token = await touristToken(b.app);
    const methods = (await get('cdb/payment/method/list?currency=EUR', token)).json().data;
    expect(methods[0]).toMatchObject({ pId: 'card-sandbox', pCurrencyType: 'EUR' });
    const noMethod = await b.app.inject({ method: 'POST', url: `${API}/cdb/user/card/save`, headers: { token } });
    expect(noMethod.statusCode).toBe(400);
    const setup = await b.app.inject({
      method: 'POST',
      url: `${API}/cdb/user/card/save?paymentId=card-sandbox&agentId=agent-7&currency=EUR`,
      headers: { token },
    });
    expect(setup.json()).toMatchObject({
      code: 0,
      data: { paymentId: expect.stringMatching(/^seti_/), clientSecret: expect.any(String) },
    });
    const { paymentId, clientSecret } = setup.json().data;
    // The process stops after the card was saved, before the response was stored: the retry replays it.
    const confirmKey = key();
    const paymentMethod = await cardToken(b.app, '5555 5555 5555 4444');
    failNextKeyCompletionOutsideTx(b);
    expect(
      (await post('cdb/user/card/confirm', token, { paymentId, clientSecret, paymentMethod }, confirmKey)).statusCode,
    ).toBe(500);
    const conf = await post('cdb/user/card/confirm', token, { paymentId, clientSecret, paymentMethod }, confirmKey);
    expect(conf.json()).toMatchObject({ code: 0, data: { pId: expect.stringMatching(/^card_/) } });
    expect(conf.headers['idempotent-replayed']).toBe('true');
    const cardId = conf.json().data.pId;
    expect((await get('cdb/user/card?userEnd=web&agentId=agent-7', token)).json().data).toEqual([
      {
        pId: cardId,
        pCardnumber: '**** **** **** 4444',
        currencyName: 'EUR',
        brand: 'mastercard',
        paymentId: 'card-sandbox',
      },
    ]);
    expect((await get('cdb/user/card?userEnd=web', token)).json().data).toEqual([]); // other agent
    // The saved card is reusable (twice), for its own agent only.
    for (let i = 0; i < 2; i++)
      expect((await topUp(token, '10', 'EUR', { cardId, agentId: 'agent-7' })).json().code).toBe(0);
    expect((await wallet(token, 'EUR', 'agent-7'))?.pBalance).toBe(20);
    expect((await topUp(token, '10', 'EUR', { cardId })).json().code).toBe(404);
    expect((await get(`cdb/user/card/remove/${cardId}`, token)).json().code).toBe(0);
    expect((await get('cdb/user/card?agentId=agent-7', token)).json().data).toEqual([]);
    expect((await get(`cdb/user/card/remove/${cardId}`, token)).json().code).toBe(404);
    expect((await topUp(token, '10', 'EUR', { cardId, agentId: 'agent-7' })).json().code).toBe(404);
    // A declined card is not saved.
    const r2 = await b.app.inject({
      method: 'POST',
      url: `${API}/cdb/user/card/save?paymentId=card-sandbox`,
      headers: { token },
    });
    expect(r2.json().code, r2.body).toBe(0);
    const s2 = r2.json().data;
    const bad = await post(
      'cdb/user/card/confirm',
      token,
      { ...s2, paymentMethod: await cardToken(b.app, '4000 0000 0000 0002') },
      key(),
    );
    expect(bad.json(), JSON.stringify(s2)).toMatchObject({ code: 422 });
    await invariants();
  });
});
