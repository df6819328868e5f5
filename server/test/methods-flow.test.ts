// The methods beyond the card provider through the product's own flows, in test mode (every adapter's sandbox):
// the method list (currency, platform, hold, the page's CSP), the payer's details, a wallet top-up and a rental paid
// on the provider's page and resumed on return, a cancelled payment, replays that never credit twice. The real
// adapters against their test servers: methods-mpesa-flow.test.ts (M-Pesa), methods-sdk-flow.test.ts (Monri and
// Mercado Pago with their card SDK screens).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { build, cabinetsOnline, cardToken, touristToken, waitFor, type Built } from './helper.ts';
import { checkLedger } from '../src/modules/wallet/reconcile.ts';
import { API, formPost, methods as methodList, type Methods } from './methods-flow-helpers.ts';

let b: Built;
beforeAll(async () => {
  b = await build();
  await cabinetsOnline(b, ['PWL-SH-001']);
});
afterAll(async () => b?.close());

const post = (url: string, token: string, body: Record<string, string | undefined>, lang?: string) =>
  formPost(b.app, url, token, body, lang);
const get = (url: string, token: string) => b.app.inject({ method: 'GET', url: `${API}/${url}`, headers: { token } });

const methods = (token: string, query: string) => methodList(b.app, token, query);
async function payer(token: string, body: Record<string, string | undefined>, lang?: string) {
  return post('cdb/payment/method/payer', token, body, lang);
}
/** The customer on the sandbox's checkout page: approve or cancel, then the provider's return to us. */
async function onProviderPage(clientSecret: string, decision: 'approve' | 'cancel') {
  expect(clientSecret.startsWith('ext:')).toBe(true);
  const action = JSON.parse(clientSecret.slice(4)) as { kind: string; params?: Record<string, string>; url?: string };
  const page = action.params?.sandboxCheckout ?? action.url!;
  const html = await b.app.inject({ method: 'GET', url: page, headers: { 'accept-language': 'lt-LT' } });
  expect(html.statusCode).toBe(200);
  expect(html.body).toContain('bandomasis režimas');
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
}

describe('the method list', () => {
  it('offers a method where its currency and platform fit, with what it can do and its test mode', async () => {
    const token = await touristToken(b.app);
    const inAlipay = await methods(token, 'currency=CNY&platform=alipay');
    expect(inAlipay.find((m) => m.pPaymentType === 'ALIPAY')).toMatchObject({
      pId: 'alipay:ALIPAY',
      kind: 'jsapi',
      hold: true,
      sandbox: true,
    });
    // The Alipay bridge exists only in the Alipay browser; and Alipay takes CNY only.
    expect((await methods(token, 'currency=CNY&platform=web')).some((m) => m.pPaymentType === 'ALIPAY')).toBe(false);
    expect((await methods(token, 'currency=EUR&platform=alipay')).some((m) => m.pPaymentType === 'ALIPAY')).toBe(false);
    // The card is still there, first.
    expect(inAlipay[0]?.pPaymentType).toBe('STRIPE_CARD');
  });

  it("in test mode (every method in its sandbox), the page's policy allows 'self' and the card provider's only", async () => {
    const sandboxCsp = String(
      (await b.app.inject({ method: 'GET', url: '/healthz' })).headers['content-security-policy'],
    );
    expect(sandboxCsp).not.toMatch(/monri|mercadopago|127\.0\.0\.1/);
  });
});

describe('a wallet top-up paid on the provider page', () => {
  it('credits the wallet once the customer approved and came back, once however often the app resumes', async () => {
    const token = await touristToken(b.app);
    const t = (await payer(token, { paymentId: 'alipay:ALIPAY' })).json().data.token as string;
    const started = await post('cdb/payment/multicurrency/recharge', token, {
      amount: '12',
      currency: 'CNY',
      paymentId: 'alipay:ALIPAY',
      stripeToken: t,
      returnUrl: 'http://localhost:8080/#/confirm?payType=CZ&currency=CNY',
    });
    const action = started.json().data.action as { clientSecret: string; paymentIntent: string };
    expect(started.json().data.outTradeNo).toBe('');
    // Not paid yet: resuming now answers the same action again, nothing is credited.
    const early = await post('cdb/payment/multicurrency/recharge', token, {
      amount: '12',
      currency: 'CNY',
      paymentId: 'alipay:ALIPAY',
      paymentIntent: action.paymentIntent,
    });
    expect(early.json().data.action.paymentIntent).toBe(action.paymentIntent);
    const back = await onProviderPage(action.clientSecret, 'approve');
    expect(back).toBe(`/#/confirm?payType=CZ&currency=CNY&payment_intent=${action.paymentIntent}`);
    const done = await post('cdb/payment/multicurrency/recharge', token, {
      amount: '12',
      currency: 'CNY',
      paymentId: 'alipay:ALIPAY',
      paymentIntent: action.paymentIntent,
    });
    expect(done.json()).toMatchObject({ code: 0, data: { pBalance: 12, pCurrencyType: 'CNY' } });
    const again = await post('cdb/payment/multicurrency/recharge', token, {
      amount: '12',
      currency: 'CNY',
      paymentId: 'alipay:ALIPAY',
      paymentIntent: action.paymentIntent,
    });
    expect(again.json().data.outTradeNo).toBe(done.json().data.outTradeNo);
    expect(again.json().data.pBalance).toBe(12);
    // The payer token was single-use; another user cannot resume this payment.
    const reuse = await post('cdb/payment/multicurrency/recharge', token, {
      amount: '12',
      currency: 'CNY',
      paymentId: 'alipay:ALIPAY',
      stripeToken: t,
    });
    expect(reuse.statusCode).toBe(422);
    const other = await touristToken(b.app);
    const stolen = await post('cdb/payment/multicurrency/recharge', other, {
      amount: '12',
      currency: 'CNY',
      paymentId: 'alipay:ALIPAY',
      paymentIntent: action.paymentIntent,
    });
    expect(stolen.statusCode).toBe(422);
    expect(await checkLedger(b.db)).toEqual([]);
  });

  it('a payment the customer cancelled on the provider page credits nothing', async () => {
    const token = await touristToken(b.app);
    const t = (await payer(token, { paymentId: 'alipay:ALIPAY' })).json().data.token as string;
    const started = await post('cdb/payment/multicurrency/recharge', token, {
      amount: '5',
      currency: 'CNY',
      paymentId: 'alipay:ALIPAY',
      stripeToken: t,
      returnUrl: 'http://localhost/#/wallet',
    });
    const action = started.json().data.action as { clientSecret: string; paymentIntent: string };
    await onProviderPage(action.clientSecret, 'cancel');
    const r = await post('cdb/payment/multicurrency/recharge', token, {
      amount: '5',
      currency: 'CNY',
      paymentId: 'alipay:ALIPAY',
      paymentIntent: action.paymentIntent,
    });
    expect(r.statusCode).toBe(422);
    // Said as a cancel, not as a declined card.
    expect(r.json().msg).toBe("You cancelled the payment on the provider's page. Nothing was charged.");
    const wallets = (await get('cdb/user/wallet/new', token)).json().data as {
      pCurrencyType: string;
      pBalance: number;
    }[];
    expect(wallets.find((w) => w.pCurrencyType === 'CNY')?.pBalance ?? 0).toBe(0);
  });

  it('refuses a method of no provider and a method id of another kind, in the user language', async () => {
    const token = await touristToken(b.app);
    const bad = await payer(token, { paymentId: 'nope:ALIPAY' }, 'es-ES');
    expect(bad.statusCode).toBe(400);
    const card = await payer(token, { paymentId: 'card-sandbox' });
    expect(card.statusCode).toBe(400);
  });
});

describe("Flutterwave's card form in test mode", () => {
  it('is the same form (directCard) but pays with the sandbox card token; card fields are refused, never kept', async () => {
    const token = await touristToken(b.app);
    const m = (await methods(token, 'currency=NGN')).find((x) => x.pId === 'flutterwave:Flutterwave') as Methods & {
      directCard?: boolean;
      publicKey?: string;
    };
    expect(m).toMatchObject({ kind: 'card', directCard: true, sandbox: true });
    const raw = await payer(
      token,
      {
        paymentId: 'flutterwave:Flutterwave',
        email: 'ada@powerly.example',
        cardNumber: '4242424242424242',
        expiryMonth: '12',
        expiryYear: '34',
        cvv: '123',
      },
      'pt-PT',
    );
    expect(raw.json()).toMatchObject({
      code: 400,
      msg: 'Não é possível enviar os dados do cartão para este método de pagamento.',
    });
    const card = (
      await b.app.inject({
        method: 'POST',
        url: '/sandbox-pay/v1/tokens',
        payload: { publicKey: m.publicKey, number: '4242424242424242', expMonth: '12', expYear: '34', cvc: '123' },
      })
    ).json().id as string;
    // The form's e-mail is required here too (Flutterwave needs one on every charge).
    expect((await payer(token, { paymentId: 'flutterwave:Flutterwave', cardToken: card })).json()).toMatchObject({
      code: 400,
      msg: 'Please enter your e-mail',
    });
    const t = (
      await payer(token, {
        paymentId: 'flutterwave:Flutterwave',
        cardToken: card,
        email: 'ada@powerly.example',
        phoneNumber: '8030000000',
        areaCode: '234',
      })
    ).json().data.token as string;
    const r = await post('cdb/payment/multicurrency/recharge', token, {
      amount: '700',
      currency: 'NGN',
      paymentId: 'flutterwave:Flutterwave',
      stripeToken: t,
    });
    expect(r.json(), r.body).toMatchObject({ code: 0, data: { pBalance: 700, pCurrencyType: 'NGN' } });
  });
});

describe("Mercado Pago's saved cards in test mode", () => {
  it("saves the sandbox card form's card, lists it, pays with it (its test card decides), refuses a declined card", async () => {
    const token = await touristToken(b.app);
    const save = (body: Record<string, string | undefined>, lang?: string) =>
      formPost(b.app, 'cdb/user/card/saveToken', token, body, lang);
    // The method list says which methods save cards (the confirm screen offers their saved cards).
    const list = (await methods(token, 'currency=BRL')) as (Methods & { savesCards?: boolean })[];
    expect(list.find((m) => m.pId === 'mercadopago:MercadoPago')).toMatchObject({ kind: 'card', savesCards: true });
    expect(list.filter((m) => m.savesCards).map((m) => m.pId)).toEqual(['mercadopago:MercadoPago']);
    const declined = await save(
      {
        paymentId: 'mercadopago:MercadoPago',
        token: await cardToken(b.app, '4000 0000 0000 0002'),
        email: 'lia@example.com.br',
        currency: 'BRL',
      },
      'es-ES',
    );
    expect(declined.json()).toMatchObject({ code: 422, msg: expect.any(String) });
    const ok = await save({
      paymentId: 'mercadopago:MercadoPago',
      token: await cardToken(b.app),
      email: 'lia@example.com.br',
      currency: 'BRL',
    });
    expect(ok.json(), ok.body).toMatchObject({ code: 0 });
    const cardId = ok.json().data.pId as string;
    const cards = (await get('cdb/user/card', token)).json().data as { pId: string; pCardnumber: string }[];
    expect(cards).toContainEqual(expect.objectContaining({ pId: cardId, pCardnumber: '**** **** **** 4242' }));
    const paid = await post('cdb/payment/multicurrency/recharge', token, {
      amount: '9',
      currency: 'BRL',
      paymentId: 'mercadopago:MercadoPago',
      cardId,
    });
    expect(paid.json(), paid.body).toMatchObject({ code: 0, data: { pBalance: 9, pCurrencyType: 'BRL' } });
    // As the sandbox card provider's own card saving: a card its test values decline is not saved.
    const poor = await save(
      {
        paymentId: 'mercadopago:MercadoPago',
        token: await cardToken(b.app, '4000 0000 0000 9995'),
        email: 'lia@example.com.br',
        currency: 'BRL',
      },
      'pt-PT',
    );
    expect(poor.json()).toMatchObject({ code: 422 });
    // A single-use token saves once.
    const once = await cardToken(b.app);
    expect(
      (await save({ paymentId: 'mercadopago:MercadoPago', token: once, email: 'lia@example.com.br' })).json().code,
    ).toBe(0);
    expect(
      (await save({ paymentId: 'mercadopago:MercadoPago', token: once, email: 'lia@example.com.br' })).json().code,
    ).toBe(422);
    expect((await get(`cdb/user/card/remove/${cardId}`, token)).json()).toMatchObject({ code: 0 });
    const after = await post('cdb/payment/multicurrency/recharge', token, {
      amount: '9',
      currency: 'BRL',
      paymentId: 'mercadopago:MercadoPago',
      cardId,
    });
    expect(after.statusCode).toBe(404);
    expect(await checkLedger(b.db)).toEqual([]);
  });
});

describe('a rental paid with a method beyond the card', () => {
  it('starts the rental once the provider says paid (the deposit goes into the wallet, then is held)', async () => {
    const token = await touristToken(b.app);
    const t = (await payer(token, { paymentId: 'alipay:ALIPAY' })).json().data.token as string;
    const started = await post('cdb/cabinet/useDepositToRent', token, {
      qrcode: 'PWL-SH-001',
      paymentId: 'alipay:ALIPAY',
      stripeToken: t,
      returnUrl: 'http://localhost/#/confirm?qrcode=PWL-SH-001',
    });
    expect(started.json().code).toBe(0);
    const action = started.json().data.action as { clientSecret: string; paymentIntent: string };
    await onProviderPage(action.clientSecret, 'approve');
    const done = await post('cdb/cabinet/useDepositToRent', token, {
      qrcode: 'PWL-SH-001',
      paymentId: 'alipay:ALIPAY',
      stripeToken: 'resume',
      paymentIntent: action.paymentIntent,
    });
    const orderNo = done.json().data.outTradeNo as string;
    expect(orderNo).toMatch(/^PO/);
    await waitFor(async () => {
      const r = await b.app.inject({
        method: 'POST',
        url: `${API}/cdb/mine/order/check/${orderNo}/YJ`,
        headers: { token },
      });
      return r.json().code === 0 ? r : null;
    }, 'rental started');
    const { rows } = await b.db.query<{ purpose: string; status: string; provider: string }>(
      'select purpose, status, provider from payments where order_id = $1',
      [orderNo],
    );
    expect(rows).toEqual([{ purpose: 'deposit_topup', status: 'captured', provider: 'alipay' }]);
    expect(await checkLedger(b.db)).toEqual([]);
  });
});
