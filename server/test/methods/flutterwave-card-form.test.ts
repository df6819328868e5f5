// The flutterwave live card form through the product's API (payer endpoint with the card fields, sealed token, paying
// call, paid) against the Flutterwave v3 test server: the form, a top-up, a rental's hold, an OTP card (saved cards,
// declines, expiry and sealing: flutterwave-saved-card.test.ts).
import { describe, expect, it } from 'vitest';
import { touristToken, waitFor } from '../helper.ts';
import { checkLedger } from '../../src/modules/wallet/reconcile.ts';
import { API, METHOD, b, fake, logLines, post, tokens, useLiveApp, verve } from './flutterwave-helpers.ts';

describe('flutterwave: the live card form through the API (payer endpoint → paying call → paid)', () => {
  useLiveApp();

  it("offers the live card form (directCard, not test mode) and checks the card fields in the user's language; nothing is stored", async () => {
    const token = await touristToken(b.app);
    const list = (
      await b.app.inject({ method: 'GET', url: `${API}/cdb/payment/method/list?currency=NGN`, headers: { token } })
    ).json().data as Record<string, unknown>[];
    const m = list.find((x) => x.pId === METHOD)!;
    expect(m).toMatchObject({ pPaymentType: 'Flutterwave', kind: 'card', directCard: true, hold: true });
    expect(m.sandbox).toBeUndefined();
    const before = (await tokens()).length;
    const payer = async (over: Record<string, string>, lang: string) => {
      const body = Object.fromEntries(
        Object.entries({ paymentId: METHOD, ...verve, ...over }).filter(([, v]) => v !== ''),
      ) as Record<string, string>;
      const r = await post('cdb/payment/method/payer', token, body, lang);
      expect(r.statusCode, r.body).toBe(400);
      return r.json().msg as string;
    };
    expect(await payer({ cardNumber: '' }, 'en-US')).toBe('Enter the card number');
    expect(await payer({ cardNumber: '50614601669760546670' }, 'en-US')).toBe('The card number has 12 to 19 digits');
    expect(await payer({ cardNumber: '5061460166976054668' }, 'es-ES')).toBe('Este número de tarjeta no es válido');
    expect(await payer({ expiryMonth: '' }, 'zh-CN')).toBe('请输入有效期月份');
    expect(await payer({ expiryMonth: '9' }, 'lt-LT')).toBe('Galiojimo mėnuo – 2 skaitmenys, nuo 01 iki 12');
    expect(await payer({ expiryMonth: '13' }, 'en-US')).toBe('The expiry month has 2 digits, 01 to 12');
    expect(await payer({ expiryYear: '2029' }, 'pt-PT')).toBe('O ano de validade tem 2 dígitos');
    expect(await payer({ expiryMonth: '10', expiryYear: '26' }, 'en-US')).toBe('This card has expired'); // the clock: November 2026
    expect(await payer({ cvv: '' }, 'en-US')).toBe('Enter the CVV');
    expect(await payer({ cvv: '5640' }, 'lt-LT')).toBe('CVV turi 3 skaitmenis');
    expect(await payer({ email: '' }, 'en-US')).toBe('Please enter your e-mail');
    expect(await payer({ phoneNumber: '12', areaCode: '234' }, 'en-US')).toBe('Please enter a valid phone number.');
    // Card fields reach only a live direct card charge: mobile money refuses them (and keeps nothing).
    const mobile = await post('cdb/payment/method/payer', token, {
      paymentId: 'flutterwave:Flutterwave_Mobile',
      phoneNumber: '254709929220',
      ...verve,
    });
    expect(mobile.json()).toMatchObject({ code: 400, msg: 'Card details cannot be sent for this payment method.' });
    expect(await tokens()).toHaveLength(before);
  });

  it('a wallet top-up: the card is sealed in the token, sent to Flutterwave only 3DES-encrypted, deleted on use, never logged', async () => {
    const token = await touristToken(b.app);
    const t = await post('cdb/payment/method/payer', token, {
      paymentId: METHOD,
      ...verve,
      phoneNumber: '803 000 0000',
      areaCode: '234',
    });
    expect(t.json(), t.body).toMatchObject({ code: 0 });
    const id = t.json().data.token as string;
    const row = (await tokens()).find((x) => x.id === id)!;
    // At rest: no card number, CVV or expiry in clear, only the sealed card (AES-256-GCM); the token lives 10 minutes.
    const stored = JSON.stringify(row.details);
    for (const clear of ['5061460166976054667', '6054667', '"564"', '"cvv"', '"number"'])
      expect(stored).not.toContain(clear);
    expect(row.details).toMatchObject({ email: 'ada@powerly.example', phone: '2348030000000', sealedCard: { v: 1 } });
    expect(row.expires_at!.getTime() - b.clock.now().getTime()).toBe(10 * 60_000);

    const r = await post('cdb/payment/multicurrency/recharge', token, {
      amount: '1500',
      currency: 'NGN',
      paymentId: METHOD,
      stripeToken: id,
    });
    expect(r.json(), r.body).toMatchObject({ code: 0, data: { pBalance: 1500, pCurrencyType: 'NGN' } });
    const charge = fake.requests.findLast((q) => q.path === '/v3/charges?type=card')!;
    expect(JSON.stringify(charge.body)).not.toContain('5061460166976054667');
    expect(charge.payload).toMatchObject({
      card_number: '5061460166976054667',
      cvv: '564',
      expiry_month: '10',
      expiry_year: '29',
      amount: 1500,
      currency: 'NGN',
      email: 'ada@powerly.example',
      phone_number: '2348030000000',
    });
    // Used: the sealed card is gone from the row, and the token cannot pay again.
    const used = (await tokens()).find((x) => x.id === id)!;
    expect(used.used_at).not.toBeNull();
    expect(used.details.sealedCard).toBeUndefined();
    const again = await post('cdb/payment/multicurrency/recharge', token, {
      amount: '1500',
      currency: 'NGN',
      paymentId: METHOD,
      stripeToken: id,
    });
    expect(again.statusCode).toBe(422);
    expect(await checkLedger(b.db)).toEqual([]);
    // The log (trace level: every request) shows no card number or CVV; card fields logged by mistake are redacted.
    b.app.log.error(
      { body: { cardNumber: '5061460166976054667', cvv: '564' }, card: { number: '5061460166976054667' } },
      'redaction check',
    );
    const log = logLines.join('');
    expect(log).toContain('redaction check');
    expect(log).not.toContain('6054667');
    expect(log).toContain('"cardNumber":"[redacted]"');
  });

  it('a rental: the deposit is held on a 3-D Secure card (pre-authorisation), paid once the customer is back from the bank page', async () => {
    const token = await touristToken(b.app);
    const t = (
      await post('cdb/payment/method/payer', token, {
        paymentId: METHOD,
        cardNumber: '4187427415564246',
        expiryMonth: '09',
        expiryYear: '32',
        cvv: '828',
        email: 'ada@powerly.example',
      })
    ).json().data.token as string;
    const started = await post('cdb/cabinet/useDepositToRent', token, {
      qrcode: 'PWL-VNO-001',
      paymentId: METHOD,
      stripeToken: t,
      returnUrl: 'https://app.powerly.example/#/confirm?qrcode=PWL-VNO-001',
    });
    expect(started.json(), started.body).toMatchObject({ code: 0, data: { outTradeNo: '' } });
    const action = started.json().data.action as { clientSecret: string; paymentIntent: string };
    const to = JSON.parse(action.clientSecret.slice(4)) as { kind: string; url: string };
    expect(to).toMatchObject({ kind: 'redirect', url: expect.stringContaining(`${fake.base}/mockvbvpage?ref=`) });
    const sent = fake.requests.findLast((q) => q.path === '/v3/charges?type=card')!.payload!;
    expect(sent).toMatchObject({
      preauthorize: true,
      amount: 25,
      currency: 'EUR',
      redirect_url: `https://powerly.example/payments/return/${action.paymentIntent}`,
    });
    // The customer passes 3-D Secure (OTP 12345 on the bank page) and Flutterwave sends them back to us.
    const tx = fake.approve(action.paymentIntent);
    const back = await b.app.inject({
      method: 'GET',
      url: `/payments/return/${action.paymentIntent}?status=successful&tx_ref=${action.paymentIntent}&transaction_id=${tx.id}`,
    });
    expect(back.statusCode).toBe(303);
    expect(back.headers.location).toBe(`/#/confirm?qrcode=PWL-VNO-001&payment_intent=${action.paymentIntent}`);
    const done = await post('cdb/cabinet/useDepositToRent', token, {
      qrcode: 'PWL-VNO-001',
      paymentId: METHOD,
      stripeToken: 'resume',
      paymentIntent: action.paymentIntent,
    });
    const orderNo = done.json().data.outTradeNo as string;
    expect(orderNo, done.body).toMatch(/^PO/);
    await waitFor(
      async () =>
        (
          await b.app.inject({ method: 'POST', url: `${API}/cdb/mine/order/check/${orderNo}/YJ`, headers: { token } })
        ).json().code === 0,
      'rental started',
    );
    const { rows } = await b.db.query<{ purpose: string; status: string; provider: string }>(
      'select purpose, status, provider from payments where order_id = $1',
      [orderNo],
    );
    expect(rows).toEqual([{ purpose: 'deposit_preauth', status: 'authorized', provider: 'flutterwave' }]);
    expect(fake.byTxRef(action.paymentIntent)).toMatchObject({
      status: 'pending-capture',
      charge_type: 'preauth',
      held: 25,
    });
  });

  it("an OTP card: the app's OTP screen; a wrong code is refused in the user's language and the payment waits; the right one pays once; a replay sends nothing", async () => {
    fake.extraCards['5399000000000008'] = { auth: 'otp', outcome: 'ok', cvv: '123', brand: 'MASTERCARD' };
    const token = await touristToken(b.app);
    const other = await touristToken(b.app);
    const t = (
      await post('cdb/payment/method/payer', token, {
        paymentId: METHOD,
        cardNumber: '5399000000000008',
        expiryMonth: '09',
        expiryYear: '32',
        cvv: '123',
        email: 'ada@powerly.example',
      })
    ).json().data.token as string;
    const started = await post('cdb/payment/multicurrency/recharge', token, {
      amount: '2000',
      currency: 'NGN',
      paymentId: METHOD,
      stripeToken: t,
      returnUrl: 'https://app.powerly.example/#/confirm?payType=CZ&currency=NGN',
    });
    const action = started.json().data.action as { clientSecret: string; paymentIntent: string };
    expect(action, started.body).toBeDefined();
    const pi = action.paymentIntent;
    expect(JSON.parse(action.clientSecret.slice(4))).toEqual({
      kind: 'form',
      url: '#/CardOtp',
      fields: { outTradeNo: pi },
    });
    const otp = (who: string, code: string, lang = 'en-US') =>
      post('cdb/payment/method/otp', who, { outTradeNo: pi, otp: code }, lang);
    const validations = () => fake.requests.filter((q) => q.path === '/v3/validate-charge').length;
    const before = validations();
    // Malformed: refused before any call. Another user: not their payment.
    expect((await otp(token, '12a', 'lt-LT')).json()).toMatchObject({
      code: 400,
      msg: 'Kodas neteisingas. Patikrinkite banko atsiųstą kodą ir bandykite dar kartą.',
    });
    expect((await otp(other, '12345')).json()).toMatchObject({
      code: 400,
      msg: 'This payment is not waiting for a code.',
    });
    expect(validations()).toBe(before);
    // A wrong code: Flutterwave refuses it; the payment still waits (nothing credited) and the right code can follow.
    const wrong = await otp(token, '54321', 'es-ES');
    expect(wrong.json()).toMatchObject({
      code: 422,
      msg: 'El código no es correcto. Revisa el código que te envió tu banco e inténtalo de nuevo.',
    });
    expect(validations()).toBe(before + 1);
    expect(fake.byTxRef(pi)).toMatchObject({ status: 'pending', awaiting: 'otp' });
    const waiting = await post('cdb/payment/multicurrency/recharge', token, {
      amount: '2000',
      currency: 'NGN',
      paymentId: METHOD,
      paymentIntent: pi,
    });
    expect(waiting.json().data.action.paymentIntent, waiting.body).toBe(pi);
    const right = await otp(token, ' 12345 ');
    expect(right.json(), right.body).toEqual({
      code: 0,
      msg: expect.any(String),
      data: { state: 'paid', next: `/#/confirm?payType=CZ&currency=NGN&payment_intent=${pi}` },
    });
    expect(fake.requests.findLast((q) => q.path === '/v3/validate-charge')!.body).toEqual({
      otp: '12345',
      flw_ref: fake.byTxRef(pi)!.flw_ref,
      type: 'card',
    });
    // A replay (a double tap, a retried request): answered from our record, nothing sent to Flutterwave.
    expect((await otp(token, '12345')).json().data).toMatchObject({ state: 'paid' });
    expect(validations()).toBe(before + 2);
    // The app resumes on its screen: credited once.
    const done = await post('cdb/payment/multicurrency/recharge', token, {
      amount: '2000',
      currency: 'NGN',
      paymentId: METHOD,
      paymentIntent: pi,
    });
    expect(done.json(), done.body).toMatchObject({ code: 0, data: { pBalance: 2000, pCurrencyType: 'NGN' } });
    const again = await post('cdb/payment/multicurrency/recharge', token, {
      amount: '2000',
      currency: 'NGN',
      paymentId: METHOD,
      paymentIntent: pi,
    });
    expect(again.json().data?.pBalance ?? 2000).toBe(2000);
    const wallets = (
      await b.app.inject({ method: 'GET', url: `${API}/cdb/user/wallet/new`, headers: { token } })
    ).json().data as { pCurrencyType: string; pBalance: number }[];
    expect(wallets.find((w) => w.pCurrencyType === 'NGN')?.pBalance).toBe(2000);
    expect(await checkLedger(b.db)).toEqual([]);
  });
});
