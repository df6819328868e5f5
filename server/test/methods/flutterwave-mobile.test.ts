// The flutterwave adapter's mobile money against the Flutterwave v3 test server (server/test/providers/flutterwave.ts).
import { describe, expect, it } from 'vitest';
import { call, fake, flw, input, providerError, useFlutterwave } from './flutterwave-helpers.ts';

useFlutterwave();

describe('flutterwave: mobile money', () => {
  it('M-Pesa: the customer confirms on the phone (push), then it is paid; without an answer it stays pending', async () => {
    const i = input({
      payType: 'Flutterwave_Mobile',
      currency: 'KES',
      amount: 15000,
      card: undefined,
      payer: { userId: 3, email: 'a@b.example', phone: '254709929220' },
    });
    const r = await flw.start(i);
    expect(r).toMatchObject({ state: 'pending', action: { kind: 'push' } });
    expect(fake.requests.findLast((q) => q.path.startsWith('/v3/charges'))).toMatchObject({
      path: '/v3/charges?type=mpesa',
      body: { tx_ref: i.outTradeNo, amount: 150, currency: 'KES', phone_number: '254709929220', email: 'a@b.example' },
    });
    expect((await flw.status(r.ref, i.outTradeNo)).state).toBe('pending');
    fake.approve(i.outTradeNo);
    expect(await flw.status(r.ref, i.outTradeNo)).toEqual({
      ref: r.ref,
      state: 'paid',
      amount: 15000,
      currency: 'KES',
    });
  });

  it('a customer who declines on the phone: failed', async () => {
    const i = input({
      payType: 'Flutterwave_Mobile',
      currency: 'TZS',
      amount: 500000,
      card: undefined,
      payer: { userId: 3, email: 'a@b.example', phone: '255744000000' },
    });
    const r = await flw.start(i);
    expect(fake.requests.findLast((q) => q.path.startsWith('/v3/charges'))!.body).toMatchObject({
      network: 'VODAFONE',
    });
    fake.decline(i.outTradeNo, 'Insufficient funds in wallet');
    expect(await flw.status(r.ref, i.outTradeNo)).toMatchObject({ state: 'failed', failureCode: 'insufficient_funds' });
  });

  it('Ghana answers with a redirect and no transaction yet; status then finds it by tx_ref and gives its id', async () => {
    const i = input({
      payType: 'Flutterwave_Mobile',
      currency: 'GHS',
      amount: 2000,
      card: undefined,
      payer: { userId: 3, email: 'a@b.example', phone: '233547099292' },
    });
    const r = await flw.start(i);
    expect(r).toMatchObject({
      ref: `tx:${i.outTradeNo}`,
      state: 'pending',
      action: { kind: 'redirect', url: expect.stringContaining('/captcha/verify/') },
    });
    expect(fake.requests.findLast((q) => q.path.startsWith('/v3/charges'))).toMatchObject({
      path: '/v3/charges?type=mobile_money_ghana',
      body: { network: 'MTN', amount: 20 },
    });
    fake.approve(i.outTradeNo);
    const s = await flw.status(r.ref, i.outTradeNo);
    expect(s).toMatchObject({ ref: String(fake.byTxRef(i.outTradeNo)!.id), state: 'paid', amount: 2000 });
    await flw.refundPayment(s.ref, 500, call);
  });

  it('francophone mobile money sends the country; a currency without mobile money, no phone, or a hold is refused', async () => {
    const i = input({
      payType: 'Flutterwave_Mobile',
      currency: 'XOF',
      amount: 2500,
      card: undefined,
      payer: { userId: 3, email: 'a@b.example', phone: '221763456789' },
    });
    await flw.start(i);
    expect(fake.requests.findLast((q) => q.path.startsWith('/v3/charges'))).toMatchObject({
      path: '/v3/charges?type=mobile_money_franco',
      body: { country: 'SN', amount: 2500 },
    });
    expect(
      (await providerError(flw.start(input({ payType: 'Flutterwave_Mobile', currency: 'USD', card: undefined })))).code,
    ).toBe('currency_not_supported');
    expect(
      (
        await providerError(
          flw.start(
            input({
              payType: 'Flutterwave_Mobile',
              currency: 'KES',
              card: undefined,
              payer: { userId: 1, email: 'a@b.example' },
            }),
          ),
        )
      ).code,
    ).toBe('phone_required');
    expect(
      (
        await providerError(
          flw.start(input({ payType: 'Flutterwave_Mobile', currency: 'KES', capture: 'manual', card: undefined })),
        )
      ).code,
    ).toBe('hold_not_supported');
  });
});
