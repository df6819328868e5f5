// The pure rules of the live card SDK screens (src/pay/sdk.ts): what /MonriPay and /MercadoPago accept from their
// query, Monri's billing details, MercadoPago.js's locale, and the providers' error texts.
import { describe, expect, it } from 'vitest';
import { parseMonriBilling, monriBillingText } from '../../src/core/monriBilling.ts';
import {
  approvedNavigation,
  leaveApproved,
  mercadoPagoLocale,
  monriTransaction,
  storedMonriBilling,
  readMercadoPagoQuery,
  readMonriQuery,
  sdkErrorText,
  sdkScriptUrl,
} from '../../src/pay/sdk.ts';
import { payerFields } from '../../src/pay/external.ts';

const qs = (o: Record<string, string>) => new URLSearchParams(o);

describe('card SDK screens', () => {
  it('loads only the SDK file itself from a host: no query, no credentials, no other path', () => {
    expect(sdkScriptUrl('monri', 'https://ipgtest.monri.com/dist/components.js')).toBe(
      'https://ipgtest.monri.com/dist/components.js',
    );
    expect(sdkScriptUrl('monri', 'http://127.0.0.1:4100/dist/components.js')).toBe(
      'http://127.0.0.1:4100/dist/components.js',
    );
    expect(sdkScriptUrl('mercadopago', 'https://sdk.mercadopago.com/js/v2')).toBe('https://sdk.mercadopago.com/js/v2');
    for (const bad of [
      'https://www.google.com/complete/search?jsonp=x/dist/components.js',
      'https://user@ipg.monri.com/dist/components.js',
      'javascript:alert(1)//dist/components.js',
      'https://ipg.monri.com/dist/components.js?x=1',
      '/dist/components.js',
      'https://sdk.mercadopago.com/js/v2',
    ])
      expect(sdkScriptUrl('monri', bad), bad).toBeNull();
    expect(sdkScriptUrl('mercadopago', 'https://ipg.monri.com/dist/components.js')).toBeNull();
    expect(sdkScriptUrl('mercadopago', null)).toBeNull();
  });

  it("reads /MonriPay's query (monri.ts start's action), null when anything is off", () => {
    const ok = {
      authenticityToken: 'a6d4109598',
      clientSecret: 'cs_123',
      scriptUrl: 'https://ipg.monri.com/dist/components.js',
      outTradeNo: 'PABC123',
      amount: '1500',
      currency: 'EUR',
    };
    expect(readMonriQuery(qs(ok))).toEqual({ ...ok, amount: 1500 });
    expect(readMonriQuery(qs({ ...ok, amount: '15.5' }))).toBeNull();
    expect(readMonriQuery(qs({ ...ok, amount: '0' }))).toBeNull();
    expect(readMonriQuery(qs({ ...ok, outTradeNo: '../x' }))).toBeNull();
    expect(readMonriQuery(qs({ ...ok, clientSecret: '' }))).toBeNull();
    expect(readMonriQuery(qs({ ...ok, scriptUrl: 'https://evil.example/x.js' }))).toBeNull();
  });

  it("reads /MercadoPago's query (mercadopago.ts start's action), null when anything is off", () => {
    const ok = {
      publicKey: 'APP_USR-1a2b',
      sdkUrl: 'https://sdk.mercadopago.com/js/v2',
      outTradeNo: 'PABC',
      amount: '20.00',
      currency: 'BRL',
    };
    expect(readMercadoPagoQuery(qs(ok))).toEqual(ok);
    expect(readMercadoPagoQuery(qs({ ...ok, amount: '2500' }))?.amount).toBe('2500');
    expect(readMercadoPagoQuery(qs({ ...ok, amount: '-1' }))).toBeNull();
    expect(readMercadoPagoQuery(qs({ ...ok, amount: '0.00' }))).toBeNull();
    expect(readMercadoPagoQuery(qs({ ...ok, currency: 'brl' }))).toBeNull();
    expect(readMercadoPagoQuery(qs({ ...ok, publicKey: 'a b' }))).toBeNull();
    // Save this card: offered when the action names the method; a saved card (its id) is paid with its CVV only.
    expect(readMercadoPagoQuery(qs({ ...ok, paymentId: 'mercadopago:MercadoPago' }))?.paymentId).toBe(
      'mercadopago:MercadoPago',
    );
    expect(readMercadoPagoQuery(qs({ ...ok, paymentId: 'bad id' }))?.paymentId).toBeUndefined();
    expect(readMercadoPagoQuery(qs({ ...ok, cardId: '1234567890', paymentId: 'mercadopago:MercadoPago' }))).toEqual({
      ...ok,
      cardId: '1234567890',
    });
    expect(readMercadoPagoQuery(qs({ ...ok, cardId: '12ab' }))).toBeNull();
  });

  it('Monri approved: a new window on Android (a GET of the return URL), the same window elsewhere or when none opens', async () => {
    const android =
      'Mozilla/5.0 (Linux; Android 14; Pixel 8; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/124.0 Mobile Safari/537.36';
    const iphone =
      'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148';
    expect(approvedNavigation(android)).toBe('newWindow');
    expect(approvedNavigation('Mozilla/5.0 (Linux; android 10) Chrome/120')).toBe('newWindow');
    expect(approvedNavigation(iphone)).toBe('sameWindow');
    expect(approvedNavigation('Mozilla/5.0 (Windows NT 10.0; Win64; x64) Chrome/124.0')).toBe('sameWindow');
    expect(approvedNavigation('AndroidX-like')).toBe('sameWindow');
    const opened: string[] = [];
    expect(await leaveApproved('PABC123', android, (url) => (opened.push(url), {} as Window))).toBe('newWindow');
    expect(opened).toEqual(['/payments/return/PABC123?status=approved']);
    // The web-view refuses a new window (null): the same window's return (a form POST, never a second window).
    const submitted: string[] = [];
    const submit = HTMLFormElement.prototype.submit;
    HTMLFormElement.prototype.submit = function (this: HTMLFormElement) {
      submitted.push(
        `${this.method.toLowerCase()} ${new URL(this.action, 'http://x').pathname} ${new URLSearchParams(new FormData(this) as unknown as Record<string, string>).toString()}`,
      );
    };
    try {
      expect(await leaveApproved('PABC124', android, () => null)).toBe('sameWindow');
      expect(
        await leaveApproved('PABC125', iphone, () => {
          throw new Error('no window elsewhere');
        }),
      ).toBe('sameWindow');
    } finally {
      HTMLFormElement.prototype.submit = submit;
    }
    expect(submitted).toEqual([
      'post /payments/return/PABC124 status=approved',
      'post /payments/return/PABC125 status=approved',
    ]);
  });

  it("Monri's stored billing (user/more monriBilling): one rule for the server and the screen", () => {
    expect(parseMonriBilling('{"email":" ana@example.ba ","city":"Mostar"}')).toEqual({
      billing: { email: 'ana@example.ba', city: 'Mostar' },
    });
    expect(parseMonriBilling('nope')).toEqual({ fault: 'notJson' });
    expect(parseMonriBilling('null')).toEqual({ fault: 'notObject' });
    expect(parseMonriBilling('{"pan":"4111"}')).toEqual({ fault: 'unknownField', field: 'pan' });
    expect(parseMonriBilling('{"zip":"1234567890"}')).toEqual({ fault: 'fieldTooLong', field: 'zip', max: 9 });
    expect(parseMonriBilling('{"email":"x"}')).toEqual({ fault: 'email' });
    expect(parseMonriBilling(JSON.stringify({ address: 'a'.repeat(2000) }))).toEqual({ fault: 'tooLong' });
    expect(monriBillingText({ orderInfo: 'Powerly', email: 'a@b.ba' })).toBe(
      '{"email":"a@b.ba","orderInfo":"Powerly"}',
    );
    // The screen: the stored address, city, zip and phone go with the payment; the name is still the e-mail, the country BA.
    const saved = storedMonriBilling(
      JSON.stringify({
        address: 'Titova 1',
        city: 'Sarajevo',
        zip: '71000',
        phone: '38761000000',
        country: 'HR',
        fullName: 'Old',
        email: 'old@example.ba',
      }),
    );
    expect(monriTransaction('ana@example.ba', 'Powerly', saved)).toEqual({
      address: 'Titova 1',
      fullName: 'ana@example.ba',
      city: 'Sarajevo',
      zip: '71000',
      phone: '38761000000',
      country: 'BA',
      email: 'ana@example.ba',
      orderInfo: 'Powerly',
    });
    expect(storedMonriBilling('{"bad":1}')).toEqual({});
    expect(storedMonriBilling(null)).toEqual({});
  });

  it("Monri's billing: the full name is the billing e-mail (30 characters at most), the country BA", () => {
    expect(monriTransaction(' ana@example.ba ')).toEqual({
      address: '',
      fullName: 'ana@example.ba',
      city: '',
      zip: '',
      phone: '',
      country: 'BA',
      email: 'ana@example.ba',
      orderInfo: 'Powerly',
    });
    expect(monriTransaction('a.very.long.name.of.someone@example.com').fullName).toHaveLength(30);
  });

  it("MercadoPago.js's locale: Spanish of the account's country, Portuguese of Brazil, else English", () => {
    expect(mercadoPagoLocale('es-ES', 'MXN')).toBe('es-MX');
    expect(mercadoPagoLocale('es-ES', 'BRL')).toBe('es-AR');
    expect(mercadoPagoLocale('pt-PT', 'BRL')).toBe('pt-BR');
    expect(mercadoPagoLocale('lt-LT', 'ARS')).toBe('en-US');
    expect(mercadoPagoLocale('zh-CN', 'CLP')).toBe('en-US');
  });

  it("shows the provider's own words: an Error, MercadoPago.js's causes, {message}; else ours", () => {
    expect(sdkErrorText(new Error('Invalid CVV'), 'x')).toBe('Invalid CVV');
    expect(
      sdkErrorText(
        [{ message: 'cardNumber is invalid.', cause: 'E301' }, { message: 'securityCode is invalid.' }],
        'x',
      ),
    ).toBe('cardNumber is invalid. securityCode is invalid.');
    expect(sdkErrorText({ message: '' }, 'fallback')).toBe('fallback');
    expect(sdkErrorText(undefined, 'fallback')).toBe('fallback');
  });

  it('a live SDK card method asks for no card (nor Monri e-mail) before the paying call; test mode does', () => {
    expect(payerFields({ kind: 'card', pPaymentType: 'Monri_WebPay', sdk: true }, false)).toMatchObject({
      email: false,
      card: false,
    });
    expect(payerFields({ kind: 'card', pPaymentType: 'MercadoPago', sdk: true }, false).card).toBe(false);
    expect(payerFields({ kind: 'card', pPaymentType: 'MercadoPago' }, false).card).toBe(true);
  });
});
