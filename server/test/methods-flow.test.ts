// The methods beyond the card provider through the product's own flows, in test mode (every adapter's sandbox):
// the method list (currency, platform, hold), the payer's details, a wallet top-up and a rental paid on the
// provider's page and resumed on return, a cancelled payment, replays that never credit twice; then real adapters
// against their test servers (M-Pesa; Monri and Mercado Pago with their card SDK screens and the page's CSP).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { build, cabinetsOnline, cardToken, touristToken, waitFor, type Built, formBody } from './helper.ts';
import { checkLedger } from '../src/modules/wallet/reconcile.ts';
import { FakeDaraja } from './providers/mpesa.ts';
import { FakeMonri } from './providers/monri.ts';
import { FakeMercadoPago } from './providers/mercadopago.ts';

const API = '/cdb-app-api/v1/app';
let b: Built;
beforeAll(async () => {
  b = await build();
  await cabinetsOnline(b, ['PWL-SH-001']);
});
afterAll(async () => b?.close());

let n = 0;
const post = (url: string, token: string, body: Record<string, string | undefined>, lang?: string) =>
  b.app.inject({
    method: 'POST',
    url: `${API}/${url}`,
    headers: {
      token,
      'content-type': 'application/x-www-form-urlencoded',
      'idempotency-key': `m-${Date.now()}-${n++}`,
      ...(lang ? { lang } : {}),
    },
    payload: formBody(body),
  });
const get = (url: string, token: string) => b.app.inject({ method: 'GET', url: `${API}/${url}`, headers: { token } });

interface Methods {
  pId: string;
  pPaymentType: string;
  kind?: string;
  hold?: boolean;
  sandbox?: boolean;
  sdk?: boolean;
}
async function methods(token: string, query: string) {
  return (await get(`cdb/payment/method/list?${query}`, token)).json().data as Methods[];
}
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
      b.app.inject({
        method: 'POST',
        url: `${API}/cdb/user/card/saveToken`,
        headers: {
          token,
          'content-type': 'application/x-www-form-urlencoded',
          'idempotency-key': `sbs-${n++}`,
          ...(lang ? { lang } : {}),
        },
        payload: formBody(body),
      });
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

describe('a real adapter (M-Pesa, against the Daraja test server) through the product', () => {
  const SHORT = '174379';
  const PASSKEY = 'bfb279f9aa9bdbcf158e97dd71a467cd2e0c893059b10f78e6b72ada1ed2c919';
  let fake: FakeDaraja;
  let real: Built;
  beforeAll(async () => {
    fake = await new FakeDaraja({
      consumerKey: 'ck',
      consumerSecret: 'cs',
      shortCode: SHORT,
      passkey: PASSKEY,
      initiatorName: 'ops',
      initiatorPassword: 'Init!pw',
      b2cBalance: 10_000,
    }).start();
    real = await build({
      simulator: false,
      publicUrl: 'https://powerly.example',
      paymentMethods: {
        powerly: {
          mpesa: {
            consumerKey: 'ck',
            consumerSecret: 'cs',
            shortCode: SHORT,
            passkey: PASSKEY,
            callbackToken: 'cb-token',
            apiBase: fake.url,
            initiatorName: 'ops',
            initiatorPassword: 'Init!pw',
            certificate: fake.certificate,
            resultUrl: 'https://powerly.example/webhooks/methods/mpesa',
          },
        },
      },
    });
    // Daraja refuses a request timestamp far from its own time: the product's clock is the wall clock here.
    real.clock.advance(Date.now() - real.clock.now().getTime());
  });
  afterAll(async () => {
    await real?.close();
    await fake?.stop();
  });

  it('pushes to the phone, takes the verified callback once, and credits the wallet with what Daraja confirms', async () => {
    const call = (url: string, token: string, body: Record<string, string | undefined>) =>
      real.app.inject({
        method: 'POST',
        url: `${API}/${url}`,
        headers: { token, 'content-type': 'application/x-www-form-urlencoded', 'idempotency-key': `r-${n++}` },
        payload: formBody(body),
      });
    const token = await touristToken(real.app);
    const listed = (
      await real.app.inject({ method: 'GET', url: `${API}/cdb/payment/method/list?currency=KES`, headers: { token } })
    ).json().data as Methods[];
    // Configured: the real adapter, not test mode.
    expect(listed.find((m) => m.pPaymentType === 'M-PESA')).toMatchObject({
      pId: 'mpesa:M-PESA',
      kind: 'push',
      hold: false,
    });
    expect(listed.find((m) => m.pPaymentType === 'M-PESA')?.sandbox).toBeUndefined();
    const noPhone = await call('cdb/payment/method/payer', token, { paymentId: 'mpesa:M-PESA' });
    expect(noPhone.statusCode).toBe(400);
    const t = (
      await call('cdb/payment/method/payer', token, { paymentId: 'mpesa:M-PESA', phoneNumber: '254708374149' })
    ).json().data.token as string;
    const started = await call('cdb/payment/multicurrency/recharge', token, {
      amount: '50',
      currency: 'KES',
      paymentId: 'mpesa:M-PESA',
      stripeToken: t,
    });
    expect(started.json(), started.body).toMatchObject({ code: 0 });
    const action = started.json().data.action as { clientSecret: string; paymentIntent: string };
    expect(action.clientSecret).toBe('ext:{"kind":"push"}');
    const {
      rows: [row],
    } = await real.db.query<{ provider_ref: string }>(
      'select provider_ref from external_payments where out_trade_no = $1',
      [action.paymentIntent],
    );
    fake.approve(row!.provider_ref);
    const cb = fake.callback(row!.provider_ref);
    const path = `/webhooks/methods/mpesa?${new URLSearchParams(cb.query).toString()}`;
    // A forged delivery (no callback token) is refused; the genuine one is acknowledged as Daraja expects, once.
    const forged = await real.app.inject({
      method: 'POST',
      url: '/webhooks/methods/mpesa',
      headers: cb.headers,
      payload: cb.rawBody,
    });
    expect(forged.statusCode).toBe(400);
    const ok = await real.app.inject({ method: 'POST', url: path, headers: cb.headers, payload: cb.rawBody });
    expect(ok.statusCode).toBe(200);
    expect(ok.json()).toEqual({ ResultCode: 0, ResultDesc: 'Accepted' });
    const again = await real.app.inject({ method: 'POST', url: path, headers: cb.headers, payload: cb.rawBody });
    expect(again.statusCode).toBe(200);
    const { rows: events } = await real.db.query('select id from provider_events where provider = $1', ['mpesa']);
    expect(events).toHaveLength(1);
    const {
      rows: [after],
    } = await real.db.query<{ state: string }>('select state from external_payments where out_trade_no = $1', [
      action.paymentIntent,
    ]);
    expect(after!.state).toBe('paid');
    const done = await call('cdb/payment/multicurrency/recharge', token, {
      amount: '50',
      currency: 'KES',
      paymentId: 'mpesa:M-PESA',
      paymentIntent: action.paymentIntent,
    });
    expect(done.json()).toMatchObject({ code: 0, data: { pBalance: 50, pCurrencyType: 'KES' } });
    expect(await checkLedger(real.db)).toEqual([]);

    // Withdrawal to the phone: M-Pesa's channel (B2C) with its phone field; paid once Daraja's result is verified.
    const applied = (await call('cdb/mine/tixian/apply', token, { amount: '20', currency: 'KES' })).json().data as {
      refundTypes: number[];
      channels: { paymentId: string; channelName: string; payoutConfig: { fieldName: string }[] }[];
    };
    // Only configured methods pay out (Flutterwave, in test mode here, also takes KES but adds no channel).
    expect(applied.channels).toEqual([
      {
        channelName: 'M-Pesa',
        paymentId: 'mpesa:payout',
        payoutConfig: [{ fieldName: 'phone', fieldType: 'input', fieldDefauldValues: [] }],
      },
    ]);
    const wd = await call('cdb/mine/tixian/create', token, {
      refundType: '1',
      amount: '20',
      currency: 'KES',
      receiverAccount: JSON.stringify({ paymentId: 'mpesa:payout', accountData: { phone: '254708374149' } }),
    });
    const wdId = wd.json().data.tixianOrderId as string;
    expect(wd.json().data.pBalance).toBe(30);
    const result = fake.resultFor(wdId);
    const resultPath = `/webhooks/methods/mpesa?${new URLSearchParams(result.query).toString()}`;
    expect(
      (await real.app.inject({ method: 'POST', url: resultPath, headers: result.headers, payload: result.rawBody }))
        .statusCode,
    ).toBe(200);
    const {
      rows: [w],
    } = await real.db.query<{ status: string }>('select status from withdrawals where id = $1', [wdId]);
    expect(w!.status).toBe('paid');
    expect(await checkLedger(real.db)).toEqual([]);
  });
});

describe('the live card SDK screens (Monri Components, MercadoPago.js) through the product, against their test servers', () => {
  const MONRI_TOKEN = 'a6d41095984fc60fe81cd3d65ecafe56d4060ca9';
  const MONRI_KEY = 'key-942fe42f1cdbf1700b5b784532f6181c';
  let monri: FakeMonri;
  let mp: FakeMercadoPago;
  let live: Built;
  beforeAll(async () => {
    monri = await new FakeMonri(MONRI_TOKEN, MONRI_KEY).start();
    mp = await new FakeMercadoPago('TEST-access-1', 'TEST-pk-1', 'whsec-1').start();
    live = await build({
      simulator: false,
      paymentMethods: {
        powerly: {
          monri: { merchantKey: MONRI_KEY, authenticityToken: MONRI_TOKEN, apiBase: monri.url },
          mercadopago: {
            accessToken: 'TEST-access-1',
            publicKey: 'TEST-pk-1',
            webhookSecret: 'whsec-1',
            apiBase: mp.url,
            sdkUrl: `${mp.url}/js/v2`,
          },
        },
      },
    });
  });
  afterAll(async () => {
    await live?.close();
    await monri?.stop();
    await mp?.stop();
  });
  const call = (url: string, token: string, body: Record<string, string | undefined>) =>
    live.app.inject({
      method: 'POST',
      url: `${API}/${url}`,
      headers: { token, 'content-type': 'application/x-www-form-urlencoded', 'idempotency-key': `sdk-${n++}` },
      payload: formBody(body),
    });
  /** The customer's browser back from the SDK screen: a form POST to the return URL, answered 303 to the app. */
  const back = async (outTradeNo: string, fields: Record<string, string>) => {
    const r = await live.app.inject({
      method: 'POST',
      url: `/payments/return/${outTradeNo}`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: formBody(fields),
    });
    expect(r.statusCode).toBe(303);
    return r.headers.location as string;
  };
  async function topUp(token: string, paymentId: string, amount: string, currency: string) {
    const payerToken = (await call('cdb/payment/method/payer', token, { paymentId })).json().data.token as string;
    const r = await call('cdb/payment/multicurrency/recharge', token, {
      amount,
      currency,
      paymentId,
      stripeToken: payerToken,
      returnUrl: `http://localhost/#/confirm?payType=CZ&currency=${currency}&paymentId=${paymentId}`,
    });
    expect(r.json(), r.body).toMatchObject({ code: 0, data: { outTradeNo: '' } });
    const action = r.json().data.action as { clientSecret: string; paymentIntent: string };
    return {
      ...action,
      screen: JSON.parse(action.clientSecret.slice(4)) as { kind: string; url: string; fields: Record<string, string> },
    };
  }
  const balance = async (token: string, currency: string) =>
    (
      (await live.app.inject({ method: 'GET', url: `${API}/cdb/user/wallet/new`, headers: { token } })).json().data as {
        pCurrencyType: string;
        pBalance: number;
      }[]
    ).find((w) => w.pCurrencyType === currency)?.pBalance ?? 0;

  it("lists them as SDK card methods, and only this installation's page policy allows their hosts", async () => {
    const token = await touristToken(live.app);
    const eur = (
      await live.app.inject({ method: 'GET', url: `${API}/cdb/payment/method/list?currency=EUR`, headers: { token } })
    ).json().data as Methods[];
    expect(eur.find((m) => m.pPaymentType === 'Monri_WebPay')).toMatchObject({
      pId: 'monri:Monri_WebPay',
      kind: 'card',
      sdk: true,
    });
    const csp = String((await live.app.inject({ method: 'GET', url: '/healthz' })).headers['content-security-policy']);
    const directive = (name: string) => csp.split(/;\s*/).find((d) => d.startsWith(`${name} `)) ?? '';
    expect(directive('script-src')).toContain(monri.url);
    expect(directive('script-src')).toContain(mp.url);
    expect(directive('frame-src')).toContain(monri.url);
    expect(directive('connect-src')).toContain(mp.url);
    // Test mode (every method in its sandbox): 'self' and the card provider's only.
    const sandboxCsp = String(
      (await b.app.inject({ method: 'GET', url: '/healthz' })).headers['content-security-policy'],
    );
    expect(sandboxCsp).not.toMatch(/monri|mercadopago|127\.0\.0\.1/);
  });

  it("Monri: no card before the paying call; /MonriPay confirms in Monri's frame; the return resumes and credits what Monri says", async () => {
    const token = await touristToken(live.app);
    const { paymentIntent, screen } = await topUp(token, 'monri:Monri_WebPay', '15', 'EUR');
    expect(screen).toMatchObject({
      kind: 'form',
      url: '#/MonriPay',
      fields: {
        authenticityToken: MONRI_TOKEN,
        scriptUrl: `${monri.url}/dist/components.js`,
        outTradeNo: paymentIntent,
        amount: '1500',
        currency: 'EUR',
      },
    });
    // Back before paying (the customer's word is not enough): still waiting, nothing credited.
    await back(paymentIntent, { status: 'approved' });
    const early = await call('cdb/payment/multicurrency/recharge', token, {
      amount: '15',
      currency: 'EUR',
      paymentId: 'monri:Monri_WebPay',
      paymentIntent,
    });
    expect(early.json().data.action.paymentIntent).toBe(paymentIntent);
    // What Monri Components' confirmPayment does in the card frame.
    const confirmed = await fetch(`${monri.url}/components/confirm`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        authenticity_token: MONRI_TOKEN,
        client_secret: screen.fields.clientSecret,
        pan: '4058400000000005',
        transaction: { fullName: 'ana@example.ba', email: 'ana@example.ba', country: 'BA' },
      }),
    }).then((r) => r.json() as Promise<{ result: { status: string } }>);
    expect(confirmed.result.status).toBe('approved');
    // A cancel posted now (forged, or a late click) does not lose the payment: Monri is asked first.
    const location = await back(paymentIntent, { cancel: '1' });
    expect(location).toBe(
      `/#/confirm?payType=CZ&currency=EUR&paymentId=monri:Monri_WebPay&payment_intent=${paymentIntent}`,
    );
    const done = await call('cdb/payment/multicurrency/recharge', token, {
      amount: '15',
      currency: 'EUR',
      paymentId: 'monri:Monri_WebPay',
      paymentIntent,
    });
    expect(done.json()).toMatchObject({ code: 0, data: { pBalance: 15, pCurrencyType: 'EUR' } });
    expect(await checkLedger(live.db)).toEqual([]);
  });

  it('Monri: a declined card is failed at the resume, nothing credited', async () => {
    const token = await touristToken(live.app);
    const { paymentIntent, screen } = await topUp(token, 'monri:Monri_WebPay', '7', 'EUR');
    const r = await fetch(`${monri.url}/components/confirm`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        authenticity_token: MONRI_TOKEN,
        client_secret: screen.fields.clientSecret,
        pan: '4111111111111111',
        transaction: { fullName: 'ana@example.ba', email: 'ana@example.ba' },
      }),
    }).then((x) => x.json() as Promise<{ result: { status: string; errors: string[] } }>);
    expect(r.result).toMatchObject({ status: 'declined', errors: ['card suspicious: declined'] });
    await back(paymentIntent, {});
    const failed = await call('cdb/payment/multicurrency/recharge', token, {
      amount: '7',
      currency: 'EUR',
      paymentId: 'monri:Monri_WebPay',
      paymentIntent,
    });
    expect(failed.statusCode).toBe(422);
    expect(await balance(token, 'EUR')).toBe(0);
  });

  it("Mercado Pago: the screen's card token comes back through the return and the resume charges it once", async () => {
    const token = await touristToken(live.app);
    const { paymentIntent, screen } = await topUp(token, 'mercadopago:MercadoPago', '20', 'BRL');
    expect(screen).toEqual({
      kind: 'form',
      url: '#/MercadoPago',
      fields: {
        publicKey: 'TEST-pk-1',
        sdkUrl: `${mp.url}/js/v2`,
        outTradeNo: paymentIntent,
        amount: '20.00',
        currency: 'BRL',
        paymentId: 'mercadopago:MercadoPago',
      },
    });
    const cardToken = await mp.cardToken({ number: '5031 4332 1540 6351', holder: 'APRO' });
    await back(paymentIntent, {
      token: cardToken,
      paymentMethodId: 'master',
      issuerId: '24',
      installments: '1',
      email: 'ana@example.com.br',
      identificationType: 'CPF',
      identificationNumber: '12345678909',
    });
    const done = await call('cdb/payment/multicurrency/recharge', token, {
      amount: '20',
      currency: 'BRL',
      paymentId: 'mercadopago:MercadoPago',
      paymentIntent,
    });
    expect(done.json()).toMatchObject({ code: 0, data: { pBalance: 20, pCurrencyType: 'BRL' } });
    const again = await call('cdb/payment/multicurrency/recharge', token, {
      amount: '20',
      currency: 'BRL',
      paymentId: 'mercadopago:MercadoPago',
      paymentIntent,
    });
    expect(again.json().data.pBalance).toBe(20);
    expect([...mp.payments.values()].filter((p) => p.external_reference === paymentIntent)).toHaveLength(1);
    expect(await checkLedger(live.db)).toEqual([]);
  });

  it("Mercado Pago saved card: saved from the screen's token, listed, paid later with a fresh token of the card (its CVV), only by its owner, removed", async () => {
    const token = await touristToken(live.app);
    const save = (body: Record<string, string | undefined>, t = token, lang?: string) =>
      live.app.inject({
        method: 'POST',
        url: `${API}/cdb/user/card/saveToken`,
        headers: {
          token: t,
          'content-type': 'application/x-www-form-urlencoded',
          'idempotency-key': `sv-${n++}`,
          ...(lang ? { lang } : {}),
        },
        payload: formBody(body),
      });
    // The screen tokenises the card twice: one token saves it, the other pays (a card token is single-use).
    const saved = await save({
      paymentId: 'mercadopago:MercadoPago',
      token: await mp.cardToken({ number: '5031 4332 1540 6351', holder: 'APRO' }),
      paymentMethodId: 'master',
      issuerId: '24',
      email: 'lia@example.com.br',
      currency: 'BRL',
    });
    expect(saved.json(), saved.body).toMatchObject({ code: 0, data: { pId: expect.stringMatching(/^card_/) } });
    const cardId = saved.json().data.pId as string;
    const cards = (await live.app.inject({ method: 'GET', url: `${API}/cdb/user/card`, headers: { token } })).json()
      .data as { pId: string; pCardnumber: string; brand: string; currencyName: string }[];
    expect(cards).toContainEqual({
      pId: cardId,
      pCardnumber: '**** **** **** 6351',
      brand: 'master',
      currencyName: 'BRL',
      paymentId: 'mercadopago:MercadoPago',
    });
    const customer = [
      ...new Set(
        mp.requests.filter((r) => /^\/v1\/customers\/[^/]+\/cards$/.test(r.path)).map((r) => r.path.split('/')[3]!),
      ),
    ].at(-1)!;
    expect(mp.cardsOf(customer)).toHaveLength(1);
    // A spent token, a bad e-mail, a method that saves no cards: clear errors in the user's language.
    const spent = mp.requests.filter((r) => r.path.endsWith('/cards')).at(-1)!.body as { token: string };
    expect(
      (
        await save(
          { paymentId: 'mercadopago:MercadoPago', token: spent.token, email: 'lia@example.com.br' },
          token,
          'pt-PT',
        )
      ).json(),
    ).toMatchObject({ code: 422 });
    expect(
      (await save({ paymentId: 'mercadopago:MercadoPago', token: 'x1234567', email: 'nope' })).json(),
    ).toMatchObject({ code: 400 });
    expect(
      (await save({ paymentId: 'monri:Monri_WebPay', token: 'x1234567', email: 'lia@example.com.br' })).json(),
    ).toMatchObject({ code: 422 });

    // Paying with it: the screen gets the card's id and asks only its security code.
    const r = await call('cdb/payment/multicurrency/recharge', token, {
      amount: '12',
      currency: 'BRL',
      paymentId: 'mercadopago:MercadoPago',
      cardId,
      returnUrl: 'http://localhost/#/confirm?payType=CZ&currency=BRL',
    });
    expect(r.json(), r.body).toMatchObject({ code: 0, data: { outTradeNo: '' } });
    const { paymentIntent, clientSecret } = r.json().data.action as { clientSecret: string; paymentIntent: string };
    const screen = JSON.parse(clientSecret.slice(4)) as { url: string; fields: Record<string, string> };
    expect(screen.url).toBe('#/MercadoPago');
    expect(screen.fields).toMatchObject({ cardId: mp.cardsOf(customer)[0]!.id, amount: '12.00' });
    expect(screen.fields.paymentId).toBeUndefined(); // nothing to save: it is saved
    await back(paymentIntent, { token: await mp.savedCardToken(screen.fields.cardId!, '123') });
    const done = await call('cdb/payment/multicurrency/recharge', token, {
      amount: '12',
      currency: 'BRL',
      paymentId: 'mercadopago:MercadoPago',
      paymentIntent,
    });
    expect(done.json(), done.body).toMatchObject({ code: 0, data: { pBalance: 12, pCurrencyType: 'BRL' } });
    const charge = mp.requests.filter((x) => x.path === '/v1/payments' && x.method === 'POST').at(-1)!;
    expect(charge.body).toMatchObject({ payer: { type: 'customer', id: customer }, external_reference: paymentIntent });

    // Another user: neither the card id nor its reference pays anything.
    const other = await touristToken(live.app);
    const theirs = await call('cdb/payment/multicurrency/recharge', other, {
      amount: '12',
      currency: 'BRL',
      paymentId: 'mercadopago:MercadoPago',
      cardId,
    });
    expect(theirs.json().code).toBe(404);
    const forged = await call('cdb/payment/multicurrency/recharge', other, {
      amount: '12',
      currency: 'BRL',
      paymentId: 'mercadopago:MercadoPago',
      stripeToken: `msc:${customer}:${screen.fields.cardId}`,
    });
    expect(forged.statusCode).toBe(422);
    expect(await balance(other, 'BRL')).toBe(0);
    // The card with another method (the card provider's): not that method's card, nothing charged.
    expect(
      (
        await call('cdb/payment/multicurrency/recharge', token, {
          amount: '12',
          currency: 'BRL',
          paymentId: 'card-sandbox',
          cardId,
        })
      ).json().code,
    ).toBe(404);
    expect(
      (
        await call('cdb/cabinet/savedCardToRent', token, { qrcode: 'PWL-SH-001', paymentId: 'card-sandbox', cardId })
      ).json().code,
    ).toBe(404);

    // Removed: gone from the list and from the customer at Mercado Pago.
    expect(
      (
        await live.app.inject({ method: 'GET', url: `${API}/cdb/user/card/remove/${cardId}`, headers: { token } })
      ).json(),
    ).toMatchObject({ code: 0 });
    expect(mp.cardsOf(customer)).toHaveLength(0);
    expect(await checkLedger(live.db)).toEqual([]);
  });
});
