// The M-Pesa (Daraja) adapter against the Daraja-compatible test server in server/test/providers/mpesa.ts: OAuth
// token caching and renewal, the STK push (Password, Nairobi Timestamp, AccountReference), the customer's answers
// (paid, cancelled, insufficient funds, wrong PIN, no answer), the query's "being processed", callbacks (token in the
// URL, receipt into the ref, redelivery), reversals (whole only), B2C payouts and network failures. The fixtures:
// mpesa-helpers.ts.
import { describe, expect, it } from 'vitest';
import { mpesaDefinition, nairobiTimestamp } from '../../src/modules/payments/methods/mpesa.ts';
import { FakeDaraja, PHONE_INSUFFICIENT, PHONE_NO_ANSWER, PHONE_WRONG_PIN, TEST_MSISDN } from '../providers/mpesa.ts';
import {
  adapter,
  config,
  DARAJA,
  fake,
  forgedPaidCallback,
  input,
  NOTIFY,
  paid,
  PASSKEY,
  payout,
  rejects,
  SHORT,
  TOKEN,
  useDaraja,
  x509,
} from './mpesa-helpers.ts';

useDaraja();

describe('mpesa: STK push', () => {
  it('pushes to the phone with the documented request and answers a push action', async () => {
    const a = adapter();
    const inp = input(TEST_MSISDN, { amount: 12_300 });
    const before = new Date();
    const s = await a.start(inp);
    expect(s).toEqual({ ref: expect.stringMatching(/^ws_CO_\d+/), state: 'pending', action: { kind: 'push' } });
    const req = fake.requests.filter((r) => r.path === '/mpesa/stkpush/v1/processrequest').at(-1)!;
    expect(req.auth).toMatch(/^Bearer tok/);
    const b = req.body;
    expect(b).toMatchObject({
      BusinessShortCode: SHORT,
      TransactionType: 'CustomerPayBillOnline',
      Amount: 123,
      PartyA: TEST_MSISDN,
      PartyB: SHORT,
      PhoneNumber: TEST_MSISDN,
    });
    // Timestamp in Nairobi time (UTC+3), Password = base64(shortcode + passkey + timestamp)
    expect([nairobiTimestamp(before), nairobiTimestamp(new Date())]).toContain(b.Timestamp);
    expect(Buffer.from(String(b.Password), 'base64').toString()).toBe(`${SHORT}${PASSKEY}${String(b.Timestamp)}`);
    expect(String(b.AccountReference)).toBe(inp.outTradeNo.slice(-12));
    expect(String(b.TransactionDesc).length).toBeLessThanOrEqual(13);
    const cb = new URL(String(b.CallBackURL));
    expect(`${cb.origin}${cb.pathname}`).toBe(NOTIFY);
    expect(cb.searchParams.get('token')).toBe(TOKEN);
    expect(cb.searchParams.get('otn')).toBe(inp.outTradeNo);
    fake.cancel(s.ref); // frees the test phone for the next push
  });

  it('is pending while the customer has not answered, paid once they enter their PIN', async () => {
    const a = adapter();
    const s = await a.start(input(TEST_MSISDN));
    expect(await a.status(s.ref, '')).toEqual({ ref: s.ref, state: 'pending' });
    fake.approve(s.ref);
    expect(await a.status(s.ref, '')).toMatchObject({ ref: s.ref, state: 'paid' });
  });

  it('the sandbox answers the test MSISDN by itself (auto-confirm)', async () => {
    fake.autoAnswerMs = 50;
    try {
      const a = adapter();
      const s = await a.start(input(TEST_MSISDN));
      await new Promise((r) => setTimeout(r, 120));
      expect((await a.status(s.ref, '')).state).toBe('paid');
    } finally {
      fake.autoAnswerMs = 0;
    }
  });

  it('insufficient funds, wrong PIN, cancelled and no answer are failures with their codes', async () => {
    const a = adapter();
    const poor = await a.start(input(PHONE_INSUFFICIENT));
    fake.approve(poor.ref);
    expect(await a.status(poor.ref, '')).toEqual({ ref: poor.ref, state: 'failed', failureCode: 'insufficient_funds' });

    const pin = await a.start(input(PHONE_WRONG_PIN));
    fake.approve(pin.ref);
    expect(await a.status(pin.ref, '')).toEqual({ ref: pin.ref, state: 'failed', failureCode: 'wrong_pin' });

    const silent = await a.start(input(PHONE_NO_ANSWER));
    fake.approve(silent.ref); // the phone never answers
    expect((await a.status(silent.ref, '')).state).toBe('pending');
    fake.timeout(silent.ref);
    expect(await a.status(silent.ref, '')).toEqual({ ref: silent.ref, state: 'failed', failureCode: 'no_answer' });

    const other = await a.start(input('254712345678'));
    fake.cancel(other.ref);
    expect(await a.status(other.ref, '')).toEqual({
      ref: other.ref,
      state: 'cancelled',
      failureCode: 'cancelled_by_user',
    });
  });

  it('refuses what M-Pesa cannot take: cents, another currency, a non-Safaricom phone, a hold', async () => {
    const a = adapter();
    expect((await rejects(a.start(input(TEST_MSISDN, { amount: 5050 })))).code).toBe('invalid_amount');
    expect((await rejects(a.start(input(TEST_MSISDN, { currency: 'USD' })))).code).toBe('unsupported_currency');
    expect((await rejects(a.start(input('447700900123')))).code).toBe('invalid_phone');
    expect((await rejects(a.start(input(TEST_MSISDN, { capture: 'manual' })))).code).toBe('hold_unsupported');
  });

  it('a retried start (same key) does not push twice; a second push to a busy phone is refused by Daraja', async () => {
    const a = adapter();
    const inp = input('254712000001');
    const pushes = () => fake.requests.filter((r) => r.path === '/mpesa/stkpush/v1/processrequest').length;
    const n = pushes();
    const first = await a.start(inp);
    expect(await a.start(inp)).toEqual(first);
    expect(pushes()).toBe(n + 1);
    const e = await rejects(a.start(input('254712000001')));
    expect([e.code, e.status]).toEqual(['500.001.1001', 500]);
    expect(e.message).toMatch(/already in process/);
  });

  it('a wrong passkey or wrong consumer secret is Daraja’s error', async () => {
    const wrongPass = await rejects(adapter({ passkey: 'nope' }).start(input('254712000002')));
    expect([wrongPass.code, wrongPass.status, wrongPass.message]).toEqual([
      '500.001.1001',
      500,
      '[MerchantValidate] - Wrong credentials',
    ]);
    const wrongSecret = await rejects(adapter({ consumerSecret: 'nope' }).start(input('254712000003')));
    expect([wrongSecret.code, wrongSecret.status]).toEqual(['400.008.01', 400]);
  });

  it('caches the access token, and renews it once when Daraja no longer takes it', async () => {
    const a = adapter();
    const issued = fake.tokensIssued;
    const s = await a.start(input('254712000004'));
    await a.status(s.ref, '');
    await a.status(s.ref, '');
    expect(fake.tokensIssued).toBe(issued + 1);
    fake.revokeTokens();
    expect((await a.status(s.ref, '')).state).toBe('pending');
    expect(fake.tokensIssued).toBe(issued + 2);
  });

  it('an unanswered prompt lapses as no answer (1037) and frees the phone', async () => {
    const a = adapter();
    const s = await a.start(input('254712000011'));
    fake.promptMs = 0;
    try {
      await new Promise((r) => setTimeout(r, 5));
      expect(await a.status(s.ref, '')).toEqual({ ref: s.ref, state: 'failed', failureCode: 'no_answer' });
      expect((await a.start(input('254712000011'))).state).toBe('pending');
    } finally {
      fake.promptMs = 60_000;
    }
  });

  it('an unknown CheckoutRequestID is Daraja’s 400.002.02', async () => {
    const e = await rejects(adapter().status('ws_CO_000000', ''));
    expect([e.code, e.status]).toEqual(['400.002.02', 400]);
  });
});

describe('mpesa: callbacks', () => {
  it('a genuine callback is accepted with Daraja’s ack; its ref carries the receipt; redelivery has the same eventId', async () => {
    const a = adapter();
    const { inp, start, note } = await paid(a, TEST_MSISDN, 7000);
    const receipt = fake.stk.get(start.ref)!.receipt!;
    expect(note).toEqual({
      eventId: `${start.ref}:0`,
      ref: `${start.ref}.${receipt}.7000`,
      outTradeNo: inp.outTradeNo,
      state: 'paid',
      amount: 7000,
      currency: 'KES',
      ack: { status: 200, contentType: 'application/json', body: '{"ResultCode":0,"ResultDesc":"Accepted"}' },
    });
    const again = await a.readNotification(fake.callback(start.ref));
    expect(again?.eventId).toBe(note.eventId);
    // status() now answers the receipt-carrying ref (for a later reversal), from the plain ref too
    expect(await a.status(start.ref, inp.outTradeNo)).toEqual({
      ref: note.ref,
      state: 'paid',
      amount: 7000,
      currency: 'KES',
    });
    expect(await adapter().status(note.ref!, inp.outTradeNo)).toEqual({
      ref: note.ref,
      state: 'paid',
      amount: 7000,
      currency: 'KES',
    });
  });

  it('a failed push’s callback says so', async () => {
    const a = adapter();
    const s = await a.start(input(PHONE_INSUFFICIENT));
    fake.approve(s.ref);
    const note = await a.readNotification(fake.callback(s.ref));
    expect(note).toMatchObject({ eventId: `${s.ref}:1`, ref: s.ref, state: 'failed' });
    expect(note?.amount).toBeUndefined();
  });

  it('refuses a callback without our token, with a wrong one, or not JSON', async () => {
    const a = adapter();
    const s = await a.start(input('254712000005'));
    fake.approve(s.ref);
    const good = fake.callback(s.ref);
    expect(await a.readNotification(good)).not.toBeNull();
    expect(await a.readNotification({ ...good, query: { ...good.query, token: 'cb-secret-7f3b' } })).toBeNull();
    const { token: _t, ...noToken } = good.query;
    expect(await a.readNotification({ ...good, query: noToken })).toBeNull();
    expect(await a.readNotification({ ...good, rawBody: good.rawBody.slice(0, -2) })).toBeNull();
  });

  it('a forged "paid" callback (token leaked) is not what status() reports: the service confirms before fulfilment', async () => {
    const a = adapter();
    const s = await a.start(input('254712000006'));
    const forged = forgedPaidCallback(s.ref);
    expect((await a.readNotification(forged))?.state).toBe('paid');
    expect((await a.status(s.ref, '')).state).toBe('pending');
  });
});

describe('mpesa: reversal (refund)', () => {
  it('reverses a whole payment; a partial or larger refund is refused; a second reversal is refused by M-Pesa', async () => {
    const a = adapter();
    const { note } = await paid(a, TEST_MSISDN, 9000);
    expect((await rejects(a.refundPayment(note.ref!, 4000, { idempotencyKey: 'r1' }))).code).toBe(
      'partial_refund_unsupported',
    );
    expect((await rejects(a.refundPayment(note.ref!, 9100, { idempotencyKey: 'r1' }))).code).toBe(
      'amount_exceeds_payment',
    );
    const checkout = note.ref!.split('.')[0]!;
    await a.refundPayment(checkout, 9000, { idempotencyKey: 'r1' }); // the plain ref works once the callback was seen
    const req = fake.requests.filter((r) => r.path === '/mpesa/reversal/v1/request').at(-1)!.body;
    const receipt = fake.stk.get(checkout)!.receipt;
    expect(req).toMatchObject({
      Initiator: 'testapi',
      CommandID: 'TransactionReversal',
      TransactionID: receipt,
      Amount: 90,
      ReceiverParty: SHORT,
      RecieverIdentifierType: '11',
    });
    expect(fake.stk.get(checkout)!.reversed).toBe(true);
    const result = await a.readNotification(fake.lastResult());
    expect(result).toMatchObject({
      eventId: expect.stringMatching(/^reversal:.+:0$/),
      ref: note.ref,
      ack: { status: 200, body: '{"ResultCode":0,"ResultDesc":"Accepted"}' },
    });

    await a.refundPayment(note.ref!, 9000, { idempotencyKey: 'r1' });
    expect(JSON.parse(fake.lastResult().rawBody).Result.ResultCode).toBe('R000001');
  });

  it('needs the receipt (from the callback) and the initiator configured', async () => {
    const a = adapter();
    const s = await a.start(input('254712000007'));
    fake.approve(s.ref);
    expect((await rejects(adapter().refundPayment(s.ref, 5000, { idempotencyKey: 'r2' }))).code).toBe(
      'receipt_unknown',
    );
    const { note } = await paid(a, '254712000008');
    expect(
      (await rejects(adapter({ initiatorName: '' }).refundPayment(note.ref!, 5000, { idempotencyKey: 'r3' }))).code,
    ).toBe('not_configured');
  });

  it('a wrong initiator password is accepted, then its result is 2001 (as Daraja does)', async () => {
    const a = adapter();
    const { note } = await paid(a, '254712000009');
    await adapter({ initiatorPassword: 'wrong' }).refundPayment(note.ref!, 5000, { idempotencyKey: 'r4' });
    expect(fake.stk.get(note.ref!.split('.')[0]!)!.reversed).toBeFalsy();
    expect(JSON.parse(fake.lastResult().rawBody).Result.ResultCode).toBe(2001);
  });
});

const cert = x509();

describe('mpesa: B2C payout', () => {
  it.skipIf(!cert)('encrypts the initiator password with an X.509 certificate PEM as Safaricom issues it', async () => {
    const other = await new FakeDaraja({ ...DARAJA, keys: cert! }).start();
    try {
      expect(other.certificate).toMatch(/BEGIN CERTIFICATE/);
      const a = mpesaDefinition.create(config({ apiBase: other.url, certificate: other.certificate }), {
        fetch,
        now: () => new Date(),
      });
      await payout(a, 1000, 'x509-1');
      expect(other.b2c.get('x509-1')?.paid).toBe(true);
    } finally {
      await other.stop();
    }
  });

  it('pays out to a phone; the result notification says paid; a retry with the same key pays once', async () => {
    const a = adapter();
    const before = fake.b2cBalance;
    const p = {
      amount: 25_000,
      currency: 'KES',
      destination: { kind: 'channel' as const, channel: 'M-PESA', account: { phone: TEST_MSISDN } },
      idempotencyKey: 'payout-1',
    };
    expect(await a.payout!(p)).toEqual({ ref: 'payout-1' });
    expect(await a.payout!(p)).toEqual({ ref: 'payout-1' });
    expect(fake.b2cBalance).toBe(before - 250);
    const req = fake.requests.filter((r) => r.path === '/mpesa/b2c/v3/paymentrequest').at(-1)!.body;
    expect(req).toMatchObject({
      OriginatorConversationID: 'payout-1',
      InitiatorName: 'testapi',
      CommandID: 'BusinessPayment',
      Amount: 250,
      PartyA: SHORT,
      PartyB: TEST_MSISDN,
    });
    const note = await a.readNotification(fake.resultFor('payout-1'));
    expect(note).toEqual({
      eventId: 'b2c:payout-1:0',
      ref: 'payout-1',
      state: 'paid',
      amount: 25_000,
      currency: 'KES',
      ack: { status: 200, contentType: 'application/json', body: '{"ResultCode":0,"ResultDesc":"Accepted"}' },
    });
    const forged = fake.resultFor('payout-1');
    expect(await a.readNotification({ ...forged, query: { ...forged.query, token: 'x' } })).toBeNull();
  });

  it('a payout above the B2C balance fails in its result; cents and card refunds are refused', async () => {
    const a = adapter();
    await payout(a, 10_000_000, 'payout-2');
    expect(await a.readNotification(fake.resultFor('payout-2'))).toMatchObject({
      eventId: 'b2c:payout-2:1',
      state: 'failed',
    });
    expect((await rejects(payout(a, 1050, 'p3'))).code).toBe('invalid_amount');
    expect((await rejects(payout(a, 1000, 'p4', { kind: 'card_refund', paymentRef: 'x' }))).code).toBe(
      'unsupported_destination',
    );
  });
});

describe('mpesa: network', () => {
  it('an unreachable Daraja is ProviderError("network")', async () => {
    const e = await rejects(adapter({ apiBase: 'http://127.0.0.1:1' }).start(input(TEST_MSISDN)));
    expect(e.code).toBe('network');
  });

  it('a connection cut before the answer is ProviderError("network")', async () => {
    const a = adapter();
    const s = await a.start(input('254712000010'));
    fake.dropNext = 1;
    expect((await rejects(a.status(s.ref, ''))).code).toBe('network');
  });

  it('a fetch that throws is ProviderError("network")', async () => {
    const failing = (() => Promise.reject(new TypeError('fetch failed'))) as typeof fetch;
    expect((await rejects(adapter({}, failing).status('ws_CO_1', ''))).code).toBe('network');
  });
});

describe('mpesa: definition', () => {
  it('declares M-PESA as a push method in KES with full refunds and payouts, no holds', () => {
    expect(mpesaDefinition.payTypes).toEqual([{ type: 'M-PESA', kind: 'push', label: 'M-Pesa', platforms: ['web'] }]);
    expect(mpesaDefinition.capabilities).toEqual({
      hold: false,
      partialCapture: false,
      offSession: false,
      refund: true,
      payout: true,
      webhook: true,
    });
    expect(mpesaDefinition.currencies).toEqual(['KES']);
    expect(mpesaDefinition.required).toEqual([
      'consumerKey',
      'consumerSecret',
      'shortCode',
      'passkey',
      'callbackToken',
    ]);
    expect(mpesaDefinition.testValues?.find((t) => t.value === TEST_MSISDN)?.outcome).toBe('succeeds');
  });

  it('defaults to the live host', async () => {
    const urls: string[] = [];
    const spy = ((u: string) => {
      urls.push(u);
      return Promise.reject(new TypeError('offline'));
    }) as unknown as typeof fetch;
    await rejects(adapter({ apiBase: '' }, spy).status('ws_CO_1', ''));
    expect(urls[0]).toBe('https://api.safaricom.co.ke/oauth/v1/generate?grant_type=client_credentials');
  });
});
