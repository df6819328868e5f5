// The live card SDK screens through the product's flows: Monri Components and MercadoPago.js against their test
// servers in server/test/providers/: the method list and the page's CSP, the screen's fields, the return and the
// resume (credited once, what the provider says), a declined card, and Mercado Pago's saved cards.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { build, formBody, touristToken, type Built } from './helper.ts';
import { checkLedger } from '../src/modules/wallet/reconcile.ts';
import { API, formPost, methods } from './methods-flow-helpers.ts';
import { FakeMonri } from './providers/monri.ts';
import { FakeMercadoPago } from './providers/mercadopago.ts';

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
    formPost(live.app, url, token, body);
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
    const eur = await methods(live.app, token, 'currency=EUR');
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
    // Test mode's page policy (every method in its sandbox) allows none of them: methods-flow.test.ts.
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
      formPost(live.app, 'cdb/user/card/saveToken', t, body, lang);
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
