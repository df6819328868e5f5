// The flutterwave adapter against the Flutterwave v3 test server (server/test/providers/flutterwave.ts), and the live
// card form through the product's API (payer endpoint with the card fields, sealed token, paying call, paid).
import { createDecipheriv } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ProviderError, type StartInput } from '../../src/modules/payments/methods/adapter.ts';
import type { MethodProvider } from '../../src/modules/payments/methods/external.ts';
import { flutterwaveDefinition, toMajor, toMinor } from '../../src/modules/payments/methods/flutterwave.ts';
import { FakeFlutterwave } from '../providers/flutterwave.ts';
import { build, cabinetsOnline, touristToken, waitFor, type Built } from '../helper.ts';
import { checkLedger } from '../../src/modules/wallet/reconcile.ts';
import { loggerOptions } from '../../src/lib/logger.ts';
import { cardSealKey, openCard, sealCard, sealContext } from '../../src/modules/payments/methods/card-seal.ts';

const KEYS = {
  secretKey: 'FLWSECK_TEST-0123456789abcdef0123456789abcdef-X',
  encryptionKey: 'FLWSECK_TEST0123456789ab',
  secretHash: 'powerly-webhook-hash-7f3a',
};
let fake: FakeFlutterwave;
let flw: MethodProvider;
let seq = 0;

const make = (over: Partial<typeof KEYS & { apiBase: string }> = {}) =>
  flutterwaveDefinition.create(
    { ...KEYS, apiBase: fake.base, ...over },
    { fetch: globalThis.fetch, now: () => new Date() },
  );

function input(over: Partial<StartInput> = {}): StartInput {
  const outTradeNo = `PW${Date.now().toString(36)}${++seq}`;
  return {
    outTradeNo,
    amount: 125050,
    currency: 'NGN',
    description: 'Power bank rental',
    capture: 'automatic',
    returnUrl: `https://powerly.example/result?o=${outTradeNo}`,
    cancelUrl: 'https://powerly.example/cancel',
    notifyUrl: 'https://powerly.example/webhooks/methods/flutterwave',
    idempotencyKey: `key-${outTradeNo}`,
    payType: 'Flutterwave',
    payer: { userId: 7, email: 'rider@powerly.example', phone: '2348030000000' },
    card: { number: '4187427415564246', cvv: '828', expMonth: '9', expYear: '2032' },
    ...over,
  };
}
const card = (number: string, cvv: string, expMonth = '09', expYear = '32') => ({
  card: { number, cvv, expMonth, expYear },
});
const call = { idempotencyKey: 'k' };

async function providerError(p: Promise<unknown>): Promise<ProviderError> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ProviderError);
  return err as ProviderError;
}

beforeAll(async () => {
  fake = await new FakeFlutterwave(KEYS).start();
  flw = make();
});
afterAll(async () => {
  await fake.stop();
});

describe('flutterwave: definition', () => {
  it('declares its pay types, capabilities, config keys and the documented test cards', () => {
    expect(flutterwaveDefinition.payTypes).toEqual([
      { type: 'Flutterwave', kind: 'card', label: 'Card', directCard: true },
      { type: 'Flutterwave_Mobile', kind: 'push', label: 'Mobile money' },
    ]);
    expect(flutterwaveDefinition.capabilities).toEqual({
      hold: true,
      partialCapture: true,
      offSession: false,
      refund: true,
      payout: true,
      webhook: true,
    });
    expect(flutterwaveDefinition.required).toEqual(['secretKey', 'encryptionKey', 'secretHash']);
    expect(flutterwaveDefinition.testValues?.map((t) => t.value)).toContain('5531886652142950');
  });

  it('converts minor units for 2- and 0-decimal currencies', () => {
    expect(toMajor(125050, 'NGN')).toBe(1250.5);
    expect(toMajor(1500, 'UGX')).toBe(1500);
    expect(toMajor(2500, 'XOF')).toBe(2500);
    expect(toMinor(1250.5, 'NGN')).toBe(125050);
    expect(toMinor(19.99, 'USD')).toBe(1999);
    expect(toMinor(1500, 'RWF')).toBe(1500);
  });
});

describe('flutterwave: card', () => {
  it('encrypts the card payload with 3DES and sends the secret key; a 3-D Secure card redirects, then is paid', async () => {
    const i = input();
    const r = await flw.start(i);
    expect(r.state).toBe('pending');
    expect(r.action).toEqual({
      kind: 'redirect',
      url: expect.stringContaining(`${fake.base}/mockvbvpage?ref=FLW-MOCK-`),
    });
    const req = fake.requests.findLast((q) => q.path === '/v3/charges?type=card')!;
    // The wire carries only the ciphertext; decrypting it with the key gives Flutterwave's documented fields.
    const client = (req.body as { client: string }).client;
    expect(JSON.stringify(req.body)).not.toContain('4187427415564246');
    const d = createDecipheriv('des-ede3', Buffer.from(KEYS.encryptionKey), null);
    const plain = JSON.parse(Buffer.concat([d.update(Buffer.from(client, 'base64')), d.final()]).toString()) as Record<
      string,
      unknown
    >;
    expect(plain).toMatchObject({
      card_number: '4187427415564246',
      cvv: '828',
      expiry_month: '09',
      expiry_year: '32',
      currency: 'NGN',
      amount: 1250.5,
      email: 'rider@powerly.example',
      tx_ref: i.outTradeNo,
      redirect_url: i.returnUrl,
    });
    expect(plain.preauthorize).toBeUndefined();

    expect((await flw.status(r.ref, i.outTradeNo)).state).toBe('pending');
    fake.approve(i.outTradeNo);
    const s = await flw.complete!(r.ref, i.outTradeNo, {}, call);
    // Paid: Flutterwave's card token (with the charge's e-mail) is the card to save, if the payer asked.
    const cardToken = fake.byTxRef(i.outTradeNo)!.cardToken!;
    expect(s).toEqual({
      ref: r.ref,
      state: 'paid',
      amount: 125050,
      currency: 'NGN',
      reusableCard: { cardRef: `${cardToken} rider@powerly.example`, brand: 'VISA', last4: '4246', expiry: '09/32' },
    });
  });

  it('a card without customer authentication is paid at once; 0-decimal currencies go as whole units', async () => {
    const i = input({ amount: 1500, currency: 'UGX', ...card('5061460166976054667', '564', '10', '29') });
    const r = await flw.start(i);
    expect(r).toMatchObject({ state: 'paid', action: { kind: 'none' } });
    expect(fake.byTxRef(i.outTradeNo)!.amount).toBe(1500);
    expect(await flw.status(r.ref, i.outTradeNo)).toMatchObject({ state: 'paid', amount: 1500, currency: 'UGX' });
  });

  it('a PIN card (and an AVS card) fails with authorization_required: our form collects neither', async () => {
    const pin = await flw.start(input(card('5531886652142950', '564')));
    expect(pin).toMatchObject({ state: 'failed', failureCode: 'authorization_required' });
    const avs = await flw.start(input(card('4556052704172643', '899')));
    expect(avs).toMatchObject({ state: 'failed', failureCode: 'authorization_required' });
  });

  it('declined and insufficient-funds test cards fail with their reason', async () => {
    const declined = input(card('5143010522339965', '276', '08', '31'));
    expect(await flw.start(declined)).toMatchObject({ state: 'failed', failureCode: 'declined' });
    expect(await flw.status(`tx:${declined.outTradeNo}`, declined.outTradeNo)).toMatchObject({
      state: 'failed',
      failureCode: 'declined',
    });
    const poor = input(card('5258585922666506', '883', '09', '31'));
    expect(await flw.start(poor)).toMatchObject({ state: 'failed', failureCode: 'insufficient_funds' });
    expect(await flw.start(input(card('5590131743294314', '887', '11', '32')))).toMatchObject({
      state: 'failed',
      failureCode: 'fraudulent',
    });
  });

  it('an OTP card is validated with complete({otp}); a wrong OTP is refused', async () => {
    fake.extraCards['5399000000000001'] = { auth: 'otp', outcome: 'ok', cvv: '123', brand: 'MASTERCARD' };
    const i = input(card('5399000000000001', '123'));
    const r = await flw.start(i);
    expect(r).toMatchObject({
      state: 'pending',
      action: { kind: 'form', url: '#/CardOtp', fields: { outTradeNo: i.outTradeNo } },
    });
    const bad = await providerError(flw.complete!(r.ref, i.outTradeNo, { otp: '00000' }, call));
    expect(bad.code).toBe('incorrect_otp');
    const s = await flw.complete!(r.ref, i.outTradeNo, { otp: '12345' }, call);
    expect(s).toMatchObject({ state: 'paid', amount: 125050 });
    expect(fake.requests.findLast((q) => q.path === '/v3/validate-charge')!.body).toEqual({
      otp: '12345',
      flw_ref: fake.byTxRef(i.outTradeNo)!.flw_ref,
      type: 'card',
    });
    // A replay once validated sends no second validate-charge and reads the same state.
    const sent = fake.requests.filter((q) => q.path === '/v3/validate-charge').length;
    expect(await flw.complete!(r.ref, i.outTradeNo, { otp: '12345' }, call)).toMatchObject({ state: 'paid' });
    expect(fake.requests.filter((q) => q.path === '/v3/validate-charge')).toHaveLength(sent);
  });

  it('a paid amount or currency other than the one asked is failed (amount_mismatch), even after a restart', async () => {
    const i = input(card('5061460166976054667', '564', '10', '29'));
    const r = await flw.start(i);
    fake.verifyAmountOverride = 1.0;
    expect(await flw.status(r.ref, i.outTradeNo)).toMatchObject({
      state: 'failed',
      failureCode: 'amount_mismatch',
      amount: 100,
    });
    // A fresh instance (no memory of the start) reads what we asked from the charge's meta.
    fake.verifyAmountOverride = 1.0;
    expect(await make().status(r.ref, i.outTradeNo)).toMatchObject({ state: 'failed', failureCode: 'amount_mismatch' });
    expect(await make().status(r.ref, i.outTradeNo)).toMatchObject({ state: 'paid', amount: 125050 });
  });

  it('a retried start (same outTradeNo) does not charge twice: Flutterwave refuses the tx_ref, the adapter reports the charge', async () => {
    const i = input(card('5061460166976054667', '564', '10', '29'));
    const first = await flw.start(i);
    const again = await flw.start(i);
    expect(again).toMatchObject({ ref: first.ref, state: 'paid' });
    expect([...fake.txs.values()].filter((t) => t.tx_ref === i.outTradeNo)).toHaveLength(1);
  });
});

describe('flutterwave: hold, capture, void, refund', () => {
  it('a manual card payment is a preauthorisation; capturing less charges only that', async () => {
    const i = input({ capture: 'manual', amount: 500000, ...card('5377283645077450', '789', '09', '31') });
    const r = await flw.start(i);
    expect(r).toMatchObject({ state: 'authorized' });
    expect(fake.byTxRef(i.outTradeNo)!.charge_type).toBe('preauth');
    expect(await flw.status(r.ref, i.outTradeNo)).toMatchObject({ state: 'authorized', amount: 500000 });
    const over = await providerError(flw.capturePayment!(r.ref, 600000, call));
    expect(over.status).toBe(400);
    await flw.capturePayment!(r.ref, 320050, call);
    const tx = fake.byTxRef(i.outTradeNo)!;
    expect(fake.requests.findLast((q) => q.path.endsWith('/capture'))!).toMatchObject({
      path: `/v3/charges/${tx.flw_ref}/capture`,
      body: { amount: 3200.5 },
    });
    expect(tx).toMatchObject({ status: 'successful', amount: 3200.5 });
    // What we asked was a hold of 5000.00: the captured 3200.50 is the capture, not a mismatch of an authorisation.
    expect(await flw.status(r.ref, i.outTradeNo)).toMatchObject({
      ref: r.ref,
      state: 'paid',
      amount: 320050,
      currency: 'NGN',
    });
    // …but a capture above the hold reported by the provider is not what we asked.
    fake.verifyAmountOverride = 5000.01;
    expect(await flw.status(r.ref, i.outTradeNo)).toMatchObject({ state: 'failed', failureCode: 'amount_mismatch' });
    // A captured preauth is refunded through the preauth refund endpoint.
    await flw.refundPayment(r.ref, 20000, call);
    expect(fake.requests.findLast((q) => q.path.endsWith('/refund'))!.path).toBe(`/v3/charges/${tx.flw_ref}/refund`);
    expect(tx.refunded).toBe(200);
  });

  it('a hold is voided', async () => {
    const i = input({ capture: 'manual', ...card('5377283645077450', '789', '09', '31') });
    const r = await flw.start(i);
    await flw.voidPayment!(r.ref, call);
    expect(await flw.status(r.ref, i.outTradeNo)).toMatchObject({ state: 'cancelled' });
    expect((await providerError(flw.capturePayment!(r.ref, 100, call))).status).toBe(400);
  });

  it('refunds partially; more than is left is refused', async () => {
    const i = input(card('5061460166976054667', '564', '10', '29'));
    const r = await flw.start(i);
    await flw.refundPayment(r.ref, 25050, call);
    expect(fake.requests.findLast((q) => q.path.endsWith('/refund'))).toMatchObject({
      path: `/v3/transactions/${r.ref}/refund`,
      body: { amount: 250.5 },
    });
    await flw.refundPayment(r.ref, 50000, call);
    const err = await providerError(flw.refundPayment(r.ref, 50001, call));
    expect(err.code).toBe('amount_too_large');
    expect(fake.byTxRef(i.outTradeNo)!.refunded).toBe(750.5);
  });
});

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

describe('flutterwave: payouts', () => {
  it('an M-Pesa transfer (bank MPS) with our idempotency key as reference; a reused reference is refused; its webhook', async () => {
    const p = {
      amount: 100000,
      currency: 'KES',
      destination: { kind: 'channel' as const, channel: 'mpesa', account: { phone: '254709929220' } },
      idempotencyKey: `payout-${++seq}`,
    };
    const { ref } = await flw.payout!(p);
    expect(fake.requests.findLast((q) => q.path === '/v3/transfers')!.body).toMatchObject({
      account_bank: 'MPS',
      account_number: '254709929220',
      amount: 1000,
      currency: 'KES',
      reference: p.idempotencyKey,
    });
    expect((await providerError(flw.payout!(p))).code).toBe('duplicate_reference');
    expect(fake.transfers.size).toBeGreaterThanOrEqual(1);
    fake.completeTransfer(Number(ref), true);
    const n = await flw.readNotification(fake.webhook('transfer.completed', Number(ref)));
    expect(n).toMatchObject({
      eventId: `${ref}:transfer.completed:successful`,
      ref,
      outTradeNo: p.idempotencyKey,
      state: 'paid',
      amount: 100000,
      currency: 'KES',
    });
  });

  it('a payout back to a card payment is a refund of that charge', async () => {
    const r = await flw.start(input(card('5061460166976054667', '564', '10', '29')));
    const { ref } = await flw.payout!({
      amount: 10000,
      currency: 'NGN',
      destination: { kind: 'card_refund', paymentRef: r.ref },
      idempotencyKey: `payout-${++seq}`,
    });
    expect(fake.refunds.find((x) => String(x.id) === ref)).toMatchObject({
      id: Number(ref),
      tx_id: Number(r.ref),
      amount_refunded: 100,
      status: 'completed',
    });
  });

  it('a bank transfer needs account_bank and account_number', async () => {
    const { ref } = await flw.payout!({
      amount: 500000,
      currency: 'NGN',
      destination: { kind: 'channel', channel: 'bank', account: { account_bank: '044', account_number: '0690000040' } },
      idempotencyKey: `payout-${++seq}`,
    });
    expect(fake.transfers.get(Number(ref))).toMatchObject({ bank_code: '044', amount: 5000, status: 'NEW' });
    const err = await providerError(
      flw.payout!({
        amount: 1,
        currency: 'NGN',
        destination: { kind: 'channel', channel: 'bank', account: {} },
        idempotencyKey: 'x',
      }),
    );
    expect(err.code).toBe('invalid_destination');
  });
});

describe('flutterwave: webhooks', () => {
  async function paid() {
    const i = input(card('5061460166976054667', '564', '10', '29'));
    const r = await flw.start(i);
    return { i, r, id: Number(r.ref) };
  }

  it('a genuine charge.completed is accepted and answered 200; a redelivery has the same eventId', async () => {
    const { i, r, id } = await paid();
    const d = fake.webhook('charge.completed', id);
    const n = await flw.readNotification(d);
    expect(n).toEqual({
      eventId: `${id}:charge.completed:successful`,
      ref: r.ref,
      outTradeNo: i.outTradeNo,
      state: 'paid',
      amount: 125050,
      currency: 'NGN',
      ack: { status: 200, contentType: 'text/plain', body: 'OK' },
    });
    expect((await flw.readNotification(fake.webhook('charge.completed', id)))!.eventId).toBe(n!.eventId);
  });

  it('either header alone verifies (legacy verif-hash; flutterwave-signature HMAC of the body)', async () => {
    const { id } = await paid();
    const d = fake.webhook('charge.completed', id);
    const legacy = { ...d, headers: { 'verif-hash': d.headers['verif-hash']! } };
    const signed = { ...d, headers: { 'flutterwave-signature': d.headers['flutterwave-signature']! } };
    expect(await flw.readNotification(legacy)).not.toBeNull();
    expect(await flw.readNotification(signed)).not.toBeNull();
  });

  it('a tampered body, a wrong secret hash or no signature is refused (null)', async () => {
    const { id } = await paid();
    const d = fake.webhook('charge.completed', id);
    const tampered = { ...d, rawBody: d.rawBody.replace('"amount":1250.5', '"amount":9250.5') };
    expect(tampered.rawBody).not.toBe(d.rawBody);
    expect(await flw.readNotification(tampered)).toBeNull();
    expect(await flw.readNotification(fake.webhook('charge.completed', id, 'not-the-hash'))).toBeNull();
    expect(
      await flw.readNotification({
        ...d,
        headers: { 'verif-hash': 'not-the-hash', 'flutterwave-signature': d.headers['flutterwave-signature']! },
      }),
    ).toBeNull();
    expect(await flw.readNotification({ ...d, headers: {} })).toBeNull();
  });
});

describe('flutterwave: transport and credentials', () => {
  it('a lost connection or an unreachable host is a network ProviderError', async () => {
    fake.dropNext = 1;
    expect((await providerError(flw.start(input()))).code).toBe('network');
    const down = make({ apiBase: 'http://127.0.0.1:1' });
    expect((await providerError(down.status('123', 'PWX'))).code).toBe('network');
  });

  it('a wrong secret key is refused by Flutterwave (401 unauthorized)', async () => {
    const err = await providerError(make({ secretKey: 'FLWSECK_TEST-wrong-X' }).start(input()));
    expect(err).toMatchObject({ code: 'unauthorized', status: 401 });
  });

  it('a wrong encryption key cannot be decrypted by Flutterwave', async () => {
    const err = await providerError(make({ encryptionKey: 'FLWSECK_TESTwrongwrongab' }).start(input()));
    expect(err.status).toBe(400);
  });
});

describe('flutterwave: the live card form through the API (payer endpoint → paying call → paid)', () => {
  const API = '/cdb-app-api/v1/app';
  const METHOD = 'flutterwave:Flutterwave';
  const logLines: string[] = [];
  let b: Built;
  let n = 0;
  const post = (url: string, token: string, body: Record<string, string>, lang = 'en-US') =>
    b.app.inject({
      method: 'POST',
      url: `${API}/${url}`,
      headers: { token, lang, 'idempotency-key': `flw-${n++}` },
      payload: body,
    });
  const verve = {
    cardNumber: '5061 4601 6697 6054 667',
    expiryMonth: '10',
    expiryYear: '29',
    cvv: '564',
    email: 'ada@powerly.example',
  };
  const tokens = async () =>
    (
      await b.db.query<{ id: string; details: Record<string, unknown>; used_at: Date | null; expires_at: Date | null }>(
        'select * from external_method_tokens',
      )
    ).rows;

  beforeAll(async () => {
    b = await build({
      publicUrl: 'https://powerly.example',
      appOrigins: ['https://app.powerly.example'],
      paymentMethods: { powerly: { flutterwave: { ...KEYS, apiBase: fake.base } } },
      // What the production server logs, at the most talkative level, into this test.
      logger: { ...loggerOptions('trace'), stream: { write: (line: string) => void logLines.push(line) } },
    });
    await cabinetsOnline(b, ['PWL-VNO-001']);
  }, 60_000);
  afterAll(async () => b?.close());

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

  it("saveCardFlag: saved once paid (the verify's card token), once; paid with again through tokenized charges, only by its owner; a decline; removed", async () => {
    const token = await touristToken(b.app);
    const other = await touristToken(b.app);
    const get = (url: string, who: string) =>
      b.app.inject({ method: 'GET', url: `${API}/${url}`, headers: { token: who } });
    const cardsOf = async (who: string) =>
      (await get('cdb/user/card', who)).json().data as {
        pId: string;
        pCardnumber: string;
        brand: string;
        paymentId?: string;
      }[];
    const savedRows = async () =>
      (
        await b.db.query<{ id: string; payment_method_ref: string; user_id: string }>(
          "select id, payment_method_ref, user_id from saved_cards where provider = 'flutterwave' and removed_at is null",
        )
      ).rows;
    // Without the flag nothing is saved (the verve top-up above); with it, on a 3-D Secure card, only once paid.
    const before = (await savedRows()).length;
    const t = await post('cdb/payment/method/payer', token, {
      paymentId: METHOD,
      cardNumber: '4187427415564246',
      expiryMonth: '09',
      expiryYear: '32',
      cvv: '828',
      email: 'ada@powerly.example',
      saveCardFlag: true,
    } as never);
    expect(t.json(), t.body).toMatchObject({ code: 0 });
    const stored = (await tokens()).find((x) => x.id === t.json().data.token)!;
    expect(stored.details).toMatchObject({ saveCard: true });
    const started = await post('cdb/payment/multicurrency/recharge', token, {
      amount: '3000',
      currency: 'NGN',
      paymentId: METHOD,
      stripeToken: t.json().data.token,
      returnUrl: 'https://app.powerly.example/#/wallet',
    });
    const pi = (started.json().data.action as { paymentIntent: string }).paymentIntent;
    const pending = await post('cdb/payment/multicurrency/recharge', token, {
      amount: '3000',
      currency: 'NGN',
      paymentId: METHOD,
      paymentIntent: pi,
    });
    expect(pending.json().data.action, pending.body).toBeDefined();
    expect(await savedRows()).toHaveLength(before); // no token before the charge is successful
    const tx = fake.approve(pi);
    // The webhook and the app's resume both see it paid: the card is saved once.
    const hook = fake.webhook('charge.completed', tx.id);
    expect(
      (
        await b.app.inject({
          method: 'POST',
          url: '/webhooks/methods/flutterwave',
          headers: hook.headers,
          payload: hook.rawBody,
        })
      ).statusCode,
    ).toBeLessThan(500);
    const done = await post('cdb/payment/multicurrency/recharge', token, {
      amount: '3000',
      currency: 'NGN',
      paymentId: METHOD,
      paymentIntent: pi,
    });
    expect(done.json(), done.body).toMatchObject({ code: 0, data: { pBalance: 3000 } });
    await post('cdb/payment/multicurrency/recharge', token, {
      amount: '3000',
      currency: 'NGN',
      paymentId: METHOD,
      paymentIntent: pi,
    });
    const rows = await savedRows();
    expect(rows).toHaveLength(before + 1);
    const row = rows.find((r) => r.id === `card_${pi}`)!;
    const flwToken = fake.byTxRef(pi)!.cardToken!;
    expect(flwToken).toMatch(/^flw-t1nf-/);
    // What is kept: Flutterwave's token with the charge's e-mail (a tokenized charge names it), no card number or CVV.
    expect(row.payment_method_ref).toBe(
      `msc:user-${row.user_id}:${encodeURIComponent(`${flwToken} ada@powerly.example`)}`,
    );
    // (Flutterwave's token is random hex and may hold the CVV's digits by chance: what we add around it may not.)
    for (const clear of ['4187427415564246', '828'])
      expect(row.payment_method_ref.replace(flwToken, '')).not.toContain(clear);
    const mine = await cardsOf(token);
    expect(mine).toContainEqual(
      expect.objectContaining({ pId: row.id, pCardnumber: '**** **** **** 4246', paymentId: METHOD }),
    );

    // Paid with again: a tokenized charge (no card fields, no customer step).
    const again = await post('cdb/payment/multicurrency/recharge', token, {
      amount: '1200',
      currency: 'NGN',
      paymentId: METHOD,
      cardId: row.id,
    });
    expect(again.json(), again.body).toMatchObject({ code: 0, data: { pBalance: 4200 } });
    const sent = fake.requests.findLast((q) => q.path === '/v3/tokenized-charges')!.body as Record<string, unknown>;
    expect(sent).toMatchObject({
      token: flwToken,
      email: 'ada@powerly.example',
      currency: 'NGN',
      amount: 1200,
      tx_ref: expect.any(String),
    });
    expect(sent).not.toHaveProperty('card_number');
    // Another user cannot pay with it: not their card (nothing sent to Flutterwave).
    const n0 = fake.requests.filter((q) => q.path === '/v3/tokenized-charges').length;
    const stolen = await post('cdb/payment/multicurrency/recharge', other, {
      amount: '1200',
      currency: 'NGN',
      paymentId: METHOD,
      cardId: row.id,
    });
    expect(stolen.json().code, stolen.body).not.toBe(0);
    const forged = await post('cdb/payment/multicurrency/recharge', other, {
      amount: '1200',
      currency: 'NGN',
      paymentId: METHOD,
      stripeToken: row.payment_method_ref,
    });
    expect(forged.json().code, forged.body).toBe(422);
    expect(fake.requests.filter((q) => q.path === '/v3/tokenized-charges')).toHaveLength(n0);
    // A rental with it: the deposit is held by a tokenized charge (preauthorize), the rental starts.
    const rent = await post('cdb/cabinet/savedCardToRent', token, {
      qrcode: 'PWL-VNO-001',
      cardId: row.id,
      paymentId: METHOD,
    });
    const orderNo = rent.json().data?.outTradeNo as string;
    expect(orderNo, rent.body).toMatch(/^PO/);
    expect(fake.requests.findLast((q) => q.path === '/v3/tokenized-charges')!.body).toMatchObject({
      token: flwToken,
      preauthorize: true,
      amount: 25,
      currency: 'EUR',
    });
    const held = await b.db.query<{ purpose: string; status: string }>(
      'select purpose, status from payments where order_id = $1',
      [orderNo],
    );
    expect(held.rows).toEqual([{ purpose: 'deposit_preauth', status: 'authorized' }]);
    // The card has since run out of funds: Flutterwave declines the tokenized charge; nothing credited.
    fake.tokenOutcome(flwToken, 'insufficient');
    const poor = await post(
      'cdb/payment/multicurrency/recharge',
      token,
      { amount: '500', currency: 'NGN', paymentId: METHOD, cardId: row.id },
      'lt-LT',
    );
    expect(poor.json()).toMatchObject({ code: 422, msg: 'Jūsų kortelėje nepakanka lėšų.' });
    // Removed: ours alone (Flutterwave keeps no card object for a token); it cannot pay any more.
    expect((await get(`cdb/user/card/remove/${row.id}`, token)).json()).toMatchObject({ code: 0 });
    expect((await cardsOf(token)).find((c) => c.pId === row.id)).toBeUndefined();
    const gone = await post('cdb/payment/multicurrency/recharge', token, {
      amount: '500',
      currency: 'NGN',
      paymentId: METHOD,
      cardId: row.id,
    });
    expect(gone.json().code).not.toBe(0);
    const wallets = (await get('cdb/user/wallet/new', token)).json().data as {
      pCurrencyType: string;
      pBalance: number;
    }[];
    expect(wallets.find((w) => w.pCurrencyType === 'NGN')?.pBalance).toBe(4200);
    expect(await checkLedger(b.db)).toEqual([]);
    // Never logged: neither the card nor Flutterwave's token.
    expect(logLines.join('')).not.toContain(flwToken);
  });

  it("a declined card and a card without funds: refused in the user's language, nothing credited", async () => {
    const token = await touristToken(b.app);
    const pay = async (card: Record<string, string>, lang: string) => {
      const t = (
        await post('cdb/payment/method/payer', token, { paymentId: METHOD, email: 'ada@powerly.example', ...card })
      ).json().data.token as string;
      return post(
        'cdb/payment/multicurrency/recharge',
        token,
        { amount: '800', currency: 'NGN', paymentId: METHOD, stripeToken: t },
        lang,
      );
    };
    const declined = await pay(
      { cardNumber: '5143010522339965', expiryMonth: '08', expiryYear: '31', cvv: '276' },
      'es-ES',
    );
    expect(declined.json()).toMatchObject({ code: 422, msg: 'Tu tarjeta ha sido rechazada.' });
    const poor = await pay(
      { cardNumber: '5258585922666506', expiryMonth: '09', expiryYear: '31', cvv: '883' },
      'lt-LT',
    );
    expect(poor.json()).toMatchObject({ code: 422, msg: 'Jūsų kortelėje nepakanka lėšų.' });
    const wallets = (
      await b.app.inject({ method: 'GET', url: `${API}/cdb/user/wallet/new`, headers: { token } })
    ).json().data as { pCurrencyType: string; pBalance: number }[];
    expect(wallets.find((w) => w.pCurrencyType === 'NGN')?.pBalance ?? 0).toBe(0);
    expect(await checkLedger(b.db)).toEqual([]);
  });

  it('a card token waits at most 10 minutes; an expired one is refused, then swept with its sealed card', async () => {
    const token = await touristToken(b.app);
    const id = (await post('cdb/payment/method/payer', token, { paymentId: METHOD, ...verve })).json().data
      .token as string;
    b.clock.advance(10 * 60_000 + 1);
    const late = await post(
      'cdb/payment/multicurrency/recharge',
      token,
      { amount: '1500', currency: 'NGN', paymentId: METHOD, stripeToken: id },
      'en-US',
    );
    expect(late.json()).toMatchObject({
      code: 422,
      msg: 'The card details have expired or were already used. Please enter your card again.',
    });
    expect((await tokens()).find((x) => x.id === id)?.details.sealedCard).toBeDefined();
    await b.app.powerly.retention.sweep();
    expect((await tokens()).find((x) => x.id === id)).toBeUndefined();
  });

  it('a sealed card opens only for its own token, user and key', () => {
    const key = cardSealKey('flutterwave', flutterwaveDefinition, KEYS)!;
    const card = { number: '5061460166976054667', expMonth: '10', expYear: '29', cvv: '564' };
    const sealed = sealCard(key, card, sealContext('mt_a', 7, 'flutterwave'));
    expect(openCard(key, sealed, sealContext('mt_a', 7, 'flutterwave'))).toEqual(card);
    expect(openCard(key, sealed, sealContext('mt_b', 7, 'flutterwave'))).toBeUndefined();
    expect(openCard(key, sealed, sealContext('mt_a', 8, 'flutterwave'))).toBeUndefined();
    expect(
      openCard(
        cardSealKey('flutterwave.go9', flutterwaveDefinition, KEYS)!,
        sealed,
        sealContext('mt_a', 7, 'flutterwave'),
      ),
    ).toBeUndefined();
    expect(
      openCard(
        cardSealKey('flutterwave', flutterwaveDefinition, { ...KEYS, encryptionKey: 'FLWSECK_TESTrotatedkey12' })!,
        sealed,
        sealContext('mt_a', 7, 'flutterwave'),
      ),
    ).toBeUndefined();
    // Methods without a direct card type have no sealing key (they never take card fields).
    expect(
      cardSealKey(
        'monri',
        { payTypes: [{ type: 'Monri_WebPay', kind: 'card', label: 'Card' }], required: ['merchantKey'] },
        { merchantKey: 'k' },
      ),
    ).toBeUndefined();
  });
});
