// The flutterwave adapter against the Flutterwave v3 test server (server/test/providers/flutterwave.ts): card payments,
// holds, payouts, webhooks and transport (mobile money: flutterwave-mobile.test.ts; the live card form through the
// product's API: flutterwave-card-form.test.ts, flutterwave-saved-card.test.ts).
import { createDecipheriv } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { flutterwaveDefinition, toMajor, toMinor } from '../../src/modules/payments/methods/flutterwave.ts';
import {
  KEYS,
  call,
  card,
  fake,
  flw,
  input,
  make,
  nextSeq,
  providerError,
  useFlutterwave,
} from './flutterwave-helpers.ts';

useFlutterwave();

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

describe('flutterwave: payouts', () => {
  it('an M-Pesa transfer (bank MPS) with our idempotency key as reference; a reused reference is refused; its webhook', async () => {
    const p = {
      amount: 100000,
      currency: 'KES',
      destination: { kind: 'channel' as const, channel: 'mpesa', account: { phone: '254709929220' } },
      idempotencyKey: `payout-${nextSeq()}`,
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
      idempotencyKey: `payout-${nextSeq()}`,
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
      idempotencyKey: `payout-${nextSeq()}`,
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
