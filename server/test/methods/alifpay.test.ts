// The Alif Pay adapter against the Alif test server (server/test/providers/alifpay.ts): signing as Alif documents
// it, the hosted-page redirect, the customer's outcomes, refunds, the signed callback, errors and the network.
import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ProviderError, type StartInput } from '../../src/modules/payments/methods/adapter.ts';
import type { MethodProvider } from '../../src/modules/payments/methods/external.ts';
import { alifAmount, alifpayDefinition } from '../../src/modules/payments/methods/alifpay.ts';
import { FakeAlif, TEST_ACCOUNTS } from '../providers/alifpay.ts';

const KEY = '870304';
const PASSWORD = 'hpfkdMw6l4PLysBnbCaS-test';
let fake: FakeAlif;
let alif: MethodProvider;
let n = 0;

const deps = { fetch: globalThis.fetch, now: () => new Date() };
const make = (over: Partial<Record<string, string>> = {}) =>
  alifpayDefinition.create({ key: KEY, password: PASSWORD, apiBase: fake.base, ...over }, deps);

function input(over: Partial<StartInput> = {}): StartInput {
  const outTradeNo = `PWL${Date.now().toString(36)}${++n}`;
  return {
    outTradeNo,
    amount: 1250,
    currency: 'TJS',
    description: 'Power bank rental',
    capture: 'automatic',
    returnUrl: `https://app.powerly.test/result?outTradeNo=${outTradeNo}`,
    cancelUrl: `https://app.powerly.test/result?outTradeNo=${outTradeNo}&cancel=1`,
    notifyUrl: 'https://api.powerly.test/webhooks/methods/alifpay',
    idempotencyKey: `pay-${outTradeNo}`,
    payType: 'Alif_Pay',
    payer: { userId: 7, phone: '992900123456', email: 'user@example.com' },
    ...over,
  };
}

/** Starts a payment and returns its input and ref. */
async function started(over: Partial<StartInput> = {}) {
  const i = input(over);
  const r = await alif.start(i);
  return { i, r };
}

async function providerError(p: Promise<unknown>): Promise<ProviderError> {
  const e = await p.then(
    () => null,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(ProviderError);
  return e as ProviderError;
}

beforeAll(async () => {
  fake = await new FakeAlif({ [KEY]: PASSWORD }).start();
  alif = make();
});
afterAll(async () => {
  await fake.stop();
});

describe('alifpay: definition', () => {
  it('is a redirect method for TJS that neither holds nor pays out, and refunds', () => {
    expect(alifpayDefinition.id).toBe('alifpay');
    expect(alifpayDefinition.payTypes).toEqual([
      { type: 'Alif_Pay', kind: 'redirect', label: 'Alif Pay', platforms: ['web'] },
    ]);
    expect(alifpayDefinition.capabilities).toEqual({
      hold: false,
      partialCapture: false,
      offSession: false,
      refund: true,
      payout: false,
      webhook: true,
    });
    expect(alifpayDefinition.currencies).toEqual(['TJS']);
    expect(alifpayDefinition.required).toEqual(['key', 'password']);
    expect(alifpayDefinition.optional).toContain('apiBase');
  });

  it('writes amounts as Alif wants them: major units with exactly two decimals', () => {
    expect(alifAmount(1250, 'TJS')).toBe('12.50');
    expect(alifAmount(1, 'TJS')).toBe('0.01');
    expect(alifAmount(100000, 'TJS')).toBe('1000.00');
    // a 0-decimal currency's minor unit is its major unit
    expect(alifAmount(125, 'JPY')).toBe('125.00');
    expect(() => alifAmount(0, 'TJS')).toThrow(ProviderError);
    expect(() => alifAmount(12.5, 'TJS')).toThrow(ProviderError);
  });
});

describe('alifpay: start', () => {
  it('creates the payment with the documented double-HMAC token and sends the customer to the hosted page', async () => {
    const { i, r } = await started();
    expect(r.ref).toBe(i.outTradeNo);
    expect(r.state).toBe('pending');
    expect(r.action.kind).toBe('redirect');
    const url = (r.action as { url: string }).url;
    expect(url.startsWith(`${fake.base}/pay/`)).toBe(true);
    expect((await fetch(url)).status).toBe(200);

    const sent = fake.requests.at(-1)!;
    expect(sent.path).toBe('/v2/');
    expect(sent.gateHeader).toBe('korti_milli');
    expect(sent.body).toMatchObject({
      key: KEY,
      order_id: i.outTradeNo,
      amount: '12.50',
      callback_url: i.notifyUrl,
      return_url: i.returnUrl,
      gate: 'korti_milli',
      info: 'Power bank rental',
      phone: '992900123456',
      email: 'user@example.com',
    });
    // Computed here from Alif's description, independently of the adapter.
    const secret = createHmac('sha256', KEY).update(PASSWORD).digest('hex');
    const token = createHmac('sha256', secret).update(`${KEY}${i.outTradeNo}12.50${i.notifyUrl}`).digest('hex');
    expect(sent.body.token).toBe(token);
    expect(sent.body).not.toHaveProperty('password');
    expect(JSON.stringify(sent.body)).not.toContain(PASSWORD);
  });

  it('uses the configured gate (body and header)', async () => {
    const wallet = make({ gate: 'wallet' });
    await wallet.start(input());
    expect(fake.requests.at(-1)!.gateHeader).toBe('wallet');
    expect(fake.requests.at(-1)!.body.gate).toBe('wallet');
  });

  it('is refused a second time for the same outTradeNo (Alif: 208 duplicate)', async () => {
    const { i } = await started();
    const e = await providerError(alif.start(i));
    expect(e.code).toBe('duplicate_order');
    expect(e.status).toBe(409);
  });

  it('refuses other currencies and holds before calling Alif', async () => {
    const before = fake.requests.length;
    expect((await providerError(alif.start(input({ currency: 'USD', amount: 500 })))).code).toBe(
      'currency_unsupported',
    );
    expect((await providerError(alif.start(input({ capture: 'manual' })))).code).toBe('hold_unsupported');
    expect(fake.requests.length).toBe(before);
  });

  it('maps a wrong password (bad token) and an unknown terminal key to Alif’s codes', async () => {
    const badPassword = await providerError(make({ password: 'wrong' }).start(input()));
    expect(badPassword.code).toBe('invalid_token');
    expect(badPassword.status).toBe(401);
    const badKey = await providerError(make({ key: '111111' }).start(input()));
    expect(badKey.code).toBe('invalid_key');
    expect(badKey.status).toBe(403);
  });

  it('maps an Alif 500 to provider_error', async () => {
    fake.failNext = 1;
    const e = await providerError(alif.start(input()));
    expect(e.code).toBe('provider_error');
  });
});

describe('alifpay: the customer on the hosted page', () => {
  it('pays: status and complete say paid with the amount Alif charged', async () => {
    const { i, r } = await started();
    expect((await alif.status(r.ref, i.outTradeNo)).state).toBe('pending');
    fake.pay(KEY, i.outTradeNo, TEST_ACCOUNTS.succeeds);
    const s = await alif.status(r.ref, i.outTradeNo);
    expect(s).toEqual({ ref: i.outTradeNo, state: 'paid', amount: 1250, currency: 'TJS' });
    expect((await alif.complete!(r.ref, i.outTradeNo, {}, { idempotencyKey: 'c1' })).state).toBe('paid');
  });

  it('is declined', async () => {
    const { i, r } = await started();
    fake.pay(KEY, i.outTradeNo, TEST_ACCOUNTS.declined);
    const s = await alif.status(r.ref, i.outTradeNo);
    expect(s.state).toBe('failed');
    expect(s.failureCode).toBe('declined');
  });

  it('has insufficient funds: failed', async () => {
    const { i, r } = await started();
    fake.pay(KEY, i.outTradeNo, TEST_ACCOUNTS.insufficient_funds);
    expect((await alif.status(r.ref, i.outTradeNo)).state).toBe('failed');
  });

  it('never answers: still pending', async () => {
    const { i, r } = await started();
    expect(fake.pay(KEY, i.outTradeNo, TEST_ACCOUNTS.no_answer).callback).toBeNull();
    expect((await alif.status(r.ref, i.outTradeNo)).state).toBe('pending');
  });

  it('cancels on the page: cancelled', async () => {
    const { i, r } = await started();
    fake.cancel(KEY, i.outTradeNo);
    expect((await alif.status(r.ref, i.outTradeNo)).state).toBe('cancelled');
  });

  it('an order Alif does not know is pending (not found), not an error', async () => {
    expect((await alif.status('NOPE123', 'NOPE123')).state).toBe('pending');
  });

  it('a /checktxn answer whose token does not verify is refused', async () => {
    const { i } = await started();
    fake.pay(KEY, i.outTradeNo, TEST_ACCOUNTS.declined);
    // A man in the middle turning "failed" into "ok".
    const tampering: typeof fetch = async (u, init) => {
      const res = await fetch(u, init);
      const text = (await res.text()).replace('"status":"failed"', '"status":"ok"');
      return new Response(text, { status: res.status, headers: res.headers });
    };
    const a = alifpayDefinition.create(
      { key: KEY, password: PASSWORD, apiBase: fake.base },
      { ...deps, fetch: tampering },
    );
    expect((await providerError(a.status(i.outTradeNo, i.outTradeNo))).code).toBe('bad_signature');
  });
});

describe('alifpay: refunds', () => {
  it('refunds in part, twice, then refuses more than is left', async () => {
    const { i, r } = await started();
    fake.pay(KEY, i.outTradeNo);
    await alif.refundPayment(r.ref, 500, { idempotencyKey: 'r1' });
    await alif.refundPayment(r.ref, 700, { idempotencyKey: 'r2' });
    expect(fake.txn(KEY, i.outTradeNo)!.refunded).toBe(1200);
    const sent = fake.requests.at(-1)!;
    expect(sent.path).toBe('/cancel/standard');
    expect(sent.body).toMatchObject({
      key: KEY,
      transaction_id: fake.txn(KEY, i.outTradeNo)!.transactionId,
      amount: '7.00',
    });
    const over = await providerError(alif.refundPayment(r.ref, 51, { idempotencyKey: 'r3' }));
    expect(over.code).toBe('invalid_request');
    expect(over.status).toBe(400);
    expect(fake.txn(KEY, i.outTradeNo)!.refunded).toBe(1200);
    await alif.refundPayment(r.ref, 50, { idempotencyKey: 'r4' });
    expect(fake.txn(KEY, i.outTradeNo)!.refunded).toBe(1250);
  });

  it('refuses to refund a payment that was not paid', async () => {
    const { i, r } = await started();
    fake.pay(KEY, i.outTradeNo, TEST_ACCOUNTS.declined);
    expect((await providerError(alif.refundPayment(r.ref, 100, { idempotencyKey: 'r5' }))).code).toBe('not_refundable');
  });
});

describe('alifpay: callback', () => {
  it('accepts Alif’s signed callback and answers 200 OK', async () => {
    const { i } = await started();
    const { callback } = fake.pay(KEY, i.outTradeNo);
    expect(callback!.url).toBe(i.notifyUrl);
    const note = await alif.readNotification(callback!);
    expect(note).toMatchObject({
      outTradeNo: i.outTradeNo,
      ref: i.outTradeNo,
      state: 'paid',
      amount: 1250,
      currency: 'TJS',
    });
    expect(note!.ack).toEqual({ status: 200, contentType: 'text/plain', body: 'OK' });
    // Alif retries until it gets its 200: the redelivery is the same event.
    const again = await alif.readNotification(fake.callback(KEY, i.outTradeNo));
    expect(again!.eventId).toBe(note!.eventId);
  });

  it('a failed payment’s callback says failed, with another event id than a paid one', async () => {
    const { i } = await started();
    const { callback } = fake.pay(KEY, i.outTradeNo, TEST_ACCOUNTS.declined);
    const note = await alif.readNotification(callback!);
    expect(note!.state).toBe('failed');
    expect(note!.eventId).toContain(':failed');
  });

  it('refuses a tampered callback, one signed with another password, and garbage', async () => {
    const { i } = await started();
    const { callback } = fake.pay(KEY, i.outTradeNo, TEST_ACCOUNTS.declined);
    const tampered = { ...callback!, rawBody: callback!.rawBody.replace('"status":"failed"', '"status":"ok"') };
    expect(tampered.rawBody).not.toBe(callback!.rawBody);
    expect(await alif.readNotification(tampered)).toBeNull();
    expect(await make({ password: 'another' }).readNotification(callback!)).toBeNull();
    const noToken = JSON.parse(callback!.rawBody) as Record<string, unknown>;
    delete noToken.token;
    expect(await alif.readNotification({ ...callback!, rawBody: JSON.stringify(noToken) })).toBeNull();
    expect(await alif.readNotification({ headers: {}, rawBody: 'not json', query: {} })).toBeNull();
    // the genuine one still verifies
    expect(await alif.readNotification(callback!)).not.toBeNull();
  });
});

describe('alifpay: network', () => {
  it('a connection failure is ProviderError(network)', async () => {
    const down = alifpayDefinition.create({ key: KEY, password: PASSWORD, apiBase: 'http://127.0.0.1:1' }, deps);
    expect((await providerError(down.start(input()))).code).toBe('network');
    expect((await providerError(down.status('X', 'X'))).code).toBe('network');
  });

  it('defaults to Alif’s live host, test host with mode=test', async () => {
    const seen: string[] = [];
    const spy: typeof fetch = async (u) => {
      seen.push(String(u));
      throw new TypeError('fetch failed');
    };
    await providerError(
      alifpayDefinition.create({ key: KEY, password: PASSWORD }, { ...deps, fetch: spy }).status('A', 'A'),
    );
    await providerError(
      alifpayDefinition
        .create({ key: KEY, password: PASSWORD, mode: 'test' }, { ...deps, fetch: spy })
        .status('A', 'A'),
    );
    expect(seen).toEqual(['https://web.alif.tj/checktxn', 'https://test-web.alif.tj/checktxn']);
  });
});
