// A payment serves the one thing it was started for: a deposit hold (a rental's or a Wi-Fi box's) resumed as a
// wallet top-up is refused, whatever amount or currency is named; a return URL goes only to our own origins; a
// provider lacking a capability, a malformed card id, a date out of range and an unknown agent are clear 4xx.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { packagePrice } from '#core/mifi.ts';
import { build, cabinetsOnline, cardToken, ledgerBalanced, touristToken, type Built } from './helper.ts';

const API = '/cdb-app-api/v1/app';
let b: Built;
let n = 0;
beforeAll(async () => {
  b = await build();
  await cabinetsOnline(b, ['PWL-LIS-001', 'PWL-VNO-001']);
});
afterAll(async () => b?.close());

const post = async (token: string, url: string, payload: object, lang?: string) => {
  const r = await b.app.inject({
    method: 'POST',
    url: `${API}/${url}`,
    headers: { token, 'idempotency-key': `c-${n++}`, ...(lang ? { lang } : {}) },
    payload,
  });
  return {
    status: r.statusCode,
    body: r.json() as {
      code: number;
      msg: string;
      data: Record<string, unknown> & { action?: { clientSecret: string; paymentIntent: string } };
    },
  };
};
const payer = async (token: string, paymentId: string) =>
  ((await post(token, 'cdb/payment/method/payer', { paymentId })).body.data as { token: string }).token;
const userId = async (token: string) =>
  ((await b.app.inject({ method: 'GET', url: `${API}/userInfo`, headers: { token } })).json().data as { pId: number })
    .pId;
const wallets = async (token: string) =>
  (await b.app.inject({ method: 'GET', url: `${API}/cdb/user/wallet/new`, headers: { token } })).json().data as {
    pCurrencyType: string;
    pBalance: number;
    pDailiId: string;
  }[];
/** The customer approves on the sandbox's checkout page, then comes back through /payments/return. */
async function approve(clientSecret: string) {
  const action = JSON.parse(clientSecret.slice(4)) as { params?: Record<string, string>; url?: string };
  const page = action.params?.sandboxCheckout ?? action.url!;
  const answered = await b.app.inject({
    method: 'POST',
    url: page,
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: 'decision=approve',
  });
  expect(answered.statusCode).toBe(303);
  return b.app.inject({ method: 'GET', url: answered.headers.location as string });
}
const RETURN = 'http://localhost/#/confirm';

describe('a payment serves the purpose it was started for', () => {
  it('a rental deposit hold approved by its payer is never credited as a top-up (any amount, any currency)', async () => {
    const token = await touristToken(b.app);
    const started = await post(token, 'cdb/cabinet/useDepositToRent', {
      qrcode: 'PWL-VNO-001',
      paymentId: 'paypal:paypal',
      stripeToken: await payer(token, 'paypal:paypal'),
      returnUrl: RETURN,
    });
    expect(started.body.code, started.body.msg).toBe(0);
    const ref = started.body.data.action!.paymentIntent;
    await approve(started.body.data.action!.clientSecret);
    for (const [amount, currency] of [
      ['1000', 'USD'],
      ['25', 'EUR'],
    ] as const) {
      const r = await post(
        token,
        'cdb/payment/multicurrency/recharge',
        { amount, currency, paymentId: 'paypal:paypal', paymentIntent: ref },
        'lt-LT',
      );
      expect(r.status, r.body.msg).toBe(409);
      expect(r.body.msg).not.toMatch(/error\./);
    }
    expect((await wallets(token)).every((w) => w.pBalance === 0)).toBe(true);
    // The rental it was started for still takes it.
    const rent = await post(token, 'cdb/cabinet/useDepositToRent', {
      qrcode: 'PWL-VNO-001',
      paymentId: 'paypal:paypal',
      stripeToken: 'resume',
      paymentIntent: ref,
    });
    expect(rent.body.code, rent.body.msg).toBe(0);
    await ledgerBalanced(b.app);
  });

  it('a Wi-Fi box deposit hold is never credited as a top-up', async () => {
    const token = await touristToken(b.app);
    const order = await post(token, 'chargenow/mifi/rent', {
      paymentId: 'card-sandbox',
      stripeToken: await cardToken(b.app),
      orderSubmit: await orderSubmit(token),
    });
    expect(order.body.code, order.body.msg).toBe(0);
    const started = await post(token, 'chargenow/mifi/cabinetDisposit', {
      mifiOrderId: order.body.data.orderId,
      paymentId: 'paypal:paypal',
      stripeToken: await payer(token, 'paypal:paypal'),
      returnUrl: RETURN,
    });
    expect(started.body.code, started.body.msg).toBe(0);
    const ref = started.body.data.action!.paymentIntent;
    await approve(started.body.data.action!.clientSecret);
    const r = await post(token, 'cdb/payment/multicurrency/recharge', {
      amount: '1000',
      currency: 'USD',
      paymentId: 'paypal:paypal',
      paymentIntent: ref,
    });
    expect(r.status, r.body.msg).toBe(409);
    expect((await wallets(token)).every((w) => w.pBalance === 0)).toBe(true);
    const done = await post(token, 'chargenow/mifi/cabinetDisposit', {
      mifiOrderId: order.body.data.orderId,
      paymentId: 'paypal:paypal',
      paymentIntent: ref,
    });
    expect(done.body.code, done.body.msg).toBe(0);
    await ledgerBalanced(b.app);
  });

  it('a top-up is resumed only with the amount and currency it was started with, and only by its payer', async () => {
    const token = await touristToken(b.app);
    const started = await post(token, 'cdb/payment/multicurrency/recharge', {
      amount: '5',
      currency: 'EUR',
      paymentId: 'paypal:paypal',
      stripeToken: await payer(token, 'paypal:paypal'),
      returnUrl: RETURN,
    });
    const ref = started.body.data.action!.paymentIntent;
    await approve(started.body.data.action!.clientSecret);
    expect(
      (
        await post(token, 'cdb/payment/multicurrency/recharge', {
          amount: '500',
          currency: 'EUR',
          paymentId: 'paypal:paypal',
          paymentIntent: ref,
        })
      ).status,
    ).toBe(409);
    expect(
      (
        await post(await touristToken(b.app), 'cdb/payment/multicurrency/recharge', {
          amount: '5',
          currency: 'EUR',
          paymentId: 'paypal:paypal',
          paymentIntent: ref,
        })
      ).status,
    ).toBe(422);
    const ok = await post(token, 'cdb/payment/multicurrency/recharge', {
      amount: '5',
      currency: 'EUR',
      paymentId: 'paypal:paypal',
      paymentIntent: ref,
    });
    expect(ok.body).toMatchObject({ code: 0, data: { pBalance: 5, pCurrencyType: 'EUR' } });
    // A top-up is not a rental deposit either.
    const rent = await post(token, 'cdb/cabinet/useDepositToRent', {
      qrcode: 'PWL-VNO-001',
      paymentId: 'paypal:paypal',
      stripeToken: 'resume',
      paymentIntent: ref,
    });
    expect(rent.status).toBeGreaterThanOrEqual(400);
    expect(rent.status).toBeLessThan(500);
    await ledgerBalanced(b.app);
  });
});

describe('a debt payment', () => {
  /** An order whose deduction failed, leaving `debt` (CNY minor units) to pay with payType FK. */
  async function orderWithDebt(token: string, debt: number) {
    const user = await b.app.powerly.auth.authenticate(token);
    const orderId = `PO${Date.now()}${n++}`;
    await b.db.query(
      `insert into orders (id, user_id, cabinet_id, venue_id, zujie, settled, deposit_type, currency, plan, wire_strategy, deposit, created_at, debt)
       select $1, $2, c.id, c.venue_id, 2, true, 1, 'CNY', '{}', '{}', 0, now(), $3 from cabinets c where c.id = 'PWL-SH-001'`,
      [orderId, user.id, debt],
    );
    return orderId;
  }

  it('approved but not yet resumed, pays only the order it was started for, never a top-up', async () => {
    const token = await touristToken(b.app);
    const [first, second] = [await orderWithDebt(token, 600), await orderWithDebt(token, 600)];
    const started = await post(token, 'cdb/payment/stripe/multicurrency/payOrder', {
      outTradeNo: first,
      paymentId: 'alipay:ALIPAY',
      stripeToken: await payer(token, 'alipay:ALIPAY'),
      returnUrl: RETURN,
    });
    expect(started.body.code, started.body.msg).toBe(0);
    const ref = started.body.data.action!.paymentIntent;
    await approve(started.body.data.action!.clientSecret);
    expect(
      (
        await post(token, 'cdb/payment/multicurrency/recharge', {
          amount: '6',
          currency: 'CNY',
          paymentId: 'alipay:ALIPAY',
          paymentIntent: ref,
        })
      ).status,
    ).toBe(409);
    expect(
      (
        await post(token, 'cdb/payment/stripe/multicurrency/payOrder', {
          outTradeNo: second,
          paymentId: 'alipay:ALIPAY',
          paymentIntent: ref,
        })
      ).status,
    ).toBe(409);
    const paid = await post(token, 'cdb/payment/stripe/multicurrency/payOrder', {
      outTradeNo: first,
      paymentId: 'alipay:ALIPAY',
      paymentIntent: ref,
    });
    expect(paid.body).toMatchObject({ code: 0, data: { outTradeNo: first } });
    expect((await wallets(token)).every((w) => w.pBalance === 0)).toBe(true);
    await ledgerBalanced(b.app);
  });
});

describe('return URLs', () => {
  it("are refused at the start unless they are the app's own; the return never leaves for another site", async () => {
    const token = await touristToken(b.app);
    for (const returnUrl of [
      'http://app.invalid//evil.example/phish',
      'https://evil.example/#/confirm',
      'http://localhost.evil.example/',
    ]) {
      const r = await post(token, 'cdb/payment/multicurrency/recharge', {
        amount: '5',
        currency: 'EUR',
        paymentId: 'paypal:paypal',
        stripeToken: await payer(token, 'paypal:paypal'),
        returnUrl,
      });
      expect(r.status, returnUrl).toBe(400);
      expect(r.body.msg).toContain('returnUrl');
    }
    const ok = await post(token, 'cdb/payment/multicurrency/recharge', {
      amount: '5',
      currency: 'EUR',
      paymentId: 'paypal:paypal',
      stripeToken: await payer(token, 'paypal:paypal'),
      returnUrl: 'http://localhost//evil.example/phish',
    });
    expect(ok.body.code, ok.body.msg).toBe(0);
    const back = await approve(ok.body.data.action!.clientSecret);
    expect(back.statusCode).toBe(303);
    const location = back.headers.location as string;
    expect(location.startsWith('/')).toBe(true);
    expect(location.startsWith('//')).toBe(false);
    expect(location.startsWith('/\\')).toBe(false);
  });
});

describe('clear refusals on the money paths', () => {
  it('resuming a payment with a provider that cannot resume one says so (4xx, not 500)', async () => {
    const token = await touristToken(b.app);
    const r = await post(
      token,
      'cdb/cabinet/useDepositToRent',
      { qrcode: 'PWL-VNO-001', paymentId: 'card-sandbox', stripeToken: 'x', paymentIntent: 'pi_nothing_here' },
      'es-ES',
    );
    expect(r.status).toBeGreaterThanOrEqual(400);
    expect(r.status).toBeLessThan(500);
  });

  it('a provider lacking a capability answers 422 saying what is not possible', async () => {
    const token = await touristToken(b.app);
    // An Idempotency-Key the provider's reference can carry on the wire (the sandbox derives the reference from it).
    const paid = (
      await b.app.inject({
        method: 'POST',
        url: `${API}/cdb/payment/multicurrency/recharge`,
        headers: { token, 'idempotency-key': `cap${n++}` },
        payload: { amount: '5', currency: 'EUR', paymentId: 'card-sandbox', stripeToken: await cardToken(b.app) },
      })
    ).json() as { code: number; msg: string; data: { outTradeNo: string } };
    expect(paid.code, paid.msg).toBe(0);
    const { rows } = await b.db.query<{ provider_ref: string }>(
      'select provider_ref from payments where order_id = $1',
      [paid.data.outTradeNo],
    );
    // The sandbox card provider never asks the customer to act, so it cannot resume a payment.
    const r = await post(
      token,
      'cdb/payment/multicurrency/recharge',
      { amount: '5', currency: 'EUR', paymentId: 'card-sandbox', paymentIntent: rows[0]!.provider_ref },
      'pt-PT',
    );
    expect(r.status, `${rows[0]!.provider_ref} ${r.body.msg}`).toBe(422);
    expect(r.body.msg).toBe(
      'Este método de pagamento não pode continuar um pagamento iniciado antes. Pague novamente.',
    );
    expect((await wallets(token)).find((w) => w.pCurrencyType === 'EUR')?.pBalance).toBe(5);
  });

  it('a card id that is not text is a 400 naming it', async () => {
    const token = await touristToken(b.app);
    for (const cardId of [{ a: 1 }, ['x', 'y']]) {
      const r = await post(token, 'cdb/payment/multicurrency/recharge', {
        amount: '5',
        currency: 'EUR',
        paymentId: 'card-sandbox',
        cardId,
      });
      expect(r.status).toBe(400);
      expect(r.body.msg).toContain('cardId');
    }
  });

  it('a date out of range is a 400 naming the field, never sent to the database', async () => {
    const token = await touristToken(b.app);
    for (const reserverStartTime of ['+275760-09-13T00:00:00Z', '1900-01-01T00:00:00Z', 8.64e15]) {
      const sub = await orderSubmit(token);
      const r = await post(token, 'chargenow/mifi/rent', {
        paymentId: 'wallet',
        orderSubmit: { ...sub, submitDtlDtoList: [{ ...sub.submitDtlDtoList[0], reserverStartTime }] },
      });
      expect(r.status, String(reserverStartTime)).toBe(400);
      expect(r.body.msg).toContain('reserverStartTime');
    }
  });

  it('a top-up into an agent that does not exist is refused, and no wallet is made for it', async () => {
    const token = await touristToken(b.app);
    const r = await post(token, 'cdb/payment/multicurrency/recharge', {
      amount: '5',
      currency: 'EUR',
      agentId: 'no-such-agent-<b>x</b>',
      paymentId: 'card-sandbox',
      stripeToken: await cardToken(b.app),
    });
    expect(r.status).toBeGreaterThanOrEqual(400);
    expect(r.status).toBeLessThan(500);
    expect(r.body.msg).not.toContain('<b>');
    const me = await userId(token);
    const { rows } = await b.db.query(
      `select 1 from ledger_accounts where owner_type = 'user' and owner_id = $1 and agent_id like $2`,
      [String(me), 'no-such%'],
    );
    expect(rows).toEqual([]);
    expect((await wallets(token)).some((w) => w.pDailiId.startsWith('no-such'))).toBe(false);
  });
});

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
  return {
    orderType: 2,
    currency: 'EUR',
    totalAmount: total,
    submitDtlDtoList: [
      { skuId, selectDays: v.Day } as { skuId: string; selectDays: number; reserverStartTime?: string | number },
    ],
  };
}
