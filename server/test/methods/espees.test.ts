// The Espees adapter against the Espees test server (server/test/providers/espees.ts): product setup and the
// portal redirect, Confirm Payment as the only source of truth, the customer's return verified through it, errors
// and the network.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ProviderError, type StartInput } from '../../src/modules/payments/methods/adapter.ts';
import type { MethodProvider } from '../../src/modules/payments/methods/external.ts';
import { espeesDefinition, espeesPrice } from '../../src/modules/payments/methods/espees.ts';
import { FakeEspees, TEST_USERS } from '../providers/espees.ts';

const KEY = 'V9yKoxl5EljDbawloXWHaD2zgclp28U9f5YSY3U3-test';
const WALLET = '0x6376d76009ba9ed381011134efae927b3f5cbd0f';
let fake: FakeEspees;
let espees: MethodProvider;
let n = 0;

const deps = { fetch: globalThis.fetch, now: () => new Date() };
const make = (over: Partial<Record<string, string>> = {}) =>
  espeesDefinition.create(
    { apiKey: KEY, merchantWallet: WALLET, apiBase: fake.base, payBase: fake.base, ...over },
    deps,
  );

function input(over: Partial<StartInput> = {}): StartInput {
  const outTradeNo = `PWE${Date.now().toString(36)}${++n}`;
  return {
    outTradeNo,
    amount: 1250,
    currency: 'ESP',
    description: 'Power bank rental',
    capture: 'automatic',
    returnUrl: `https://app.powerly.test/result?outTradeNo=${outTradeNo}`,
    cancelUrl: `https://app.powerly.test/result?outTradeNo=${outTradeNo}&cancel=1`,
    notifyUrl: 'https://api.powerly.test/webhooks/methods/espees',
    idempotencyKey: `pay-${outTradeNo}`,
    payType: 'Espees',
    payer: { userId: 7 },
    ...over,
  };
}

async function started(over: Partial<StartInput> = {}) {
  const i = input(over);
  const r = await espees.start(i);
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
  fake = await new FakeEspees({ [KEY]: [WALLET] }).start();
  espees = make();
});
afterAll(async () => {
  await fake.stop();
});

describe('espees: definition', () => {
  it('is a redirect method for ESP without hold, refund or payout', () => {
    expect(espeesDefinition.id).toBe('espees');
    expect(espeesDefinition.payTypes).toEqual([
      { type: 'Espees', kind: 'redirect', label: 'Espees', platforms: ['web'] },
    ]);
    expect(espeesDefinition.capabilities).toEqual({
      hold: false,
      partialCapture: false,
      offSession: false,
      refund: false,
      payout: false,
      webhook: true,
    });
    expect(espeesDefinition.currencies).toEqual(['ESP']);
    expect(espeesDefinition.required).toEqual(['apiKey', 'merchantWallet']);
    expect(espeesDefinition.optional).toEqual(['apiBase', 'payBase']);
  });

  it('counts ESP in hundredths and sends Espees a float price', () => {
    expect(espeesPrice(1250)).toBe(12.5);
    expect(espeesPrice(1)).toBe(0.01);
    expect(espeesPrice(10)).toBe(0.1);
    expect(espeesPrice(200000)).toBe(2000);
    expect(() => espeesPrice(0)).toThrow(ProviderError);
    expect(() => espeesPrice(1.5)).toThrow(ProviderError);
  });
});

describe('espees: start', () => {
  it('sets the product up with the API key and sends the customer to the payment portal', async () => {
    const { i, r } = await started();
    expect(r.state).toBe('pending');
    expect(r.ref).toMatch(/^[0-9a-f]{32}$/);
    expect(r.action).toEqual({ kind: 'redirect', url: `${fake.base}/pay/${r.ref}` });
    expect((await fetch((r.action as { url: string }).url)).status).toBe(200);
    const sent = fake.requests.at(-1)!;
    expect(sent.path).toBe('/v2/payment/product');
    expect(sent.apiKey).toBe(KEY);
    expect(sent.body).toEqual({
      product_sku: i.outTradeNo,
      narration: 'Power bank rental',
      price: 12.5,
      merchant_wallet: WALLET,
      success_url: i.returnUrl,
      fail_url: i.cancelUrl,
      user_data: { outTradeNo: i.outTradeNo, userId: '7' },
    });
  });

  it('the portal is payment.espees.org and the API api.espees.org unless overridden', async () => {
    const seen: string[] = [];
    const spy: typeof fetch = async (u) => {
      seen.push(String(u));
      return new Response(JSON.stringify({ statusCode: 200, payment_ref: 'abc123', message: 'Successfully Done' }), {
        status: 200,
      });
    };
    const r = await espeesDefinition
      .create({ apiKey: KEY, merchantWallet: WALLET }, { ...deps, fetch: spy })
      .start(input());
    expect(seen).toEqual(['https://api.espees.org/v2/payment/product']);
    expect(r.action).toEqual({ kind: 'redirect', url: 'https://payment.espees.org/pay/abc123' });
  });

  it('a reused outTradeNo (product_sku) is refused', async () => {
    const { i } = await started();
    const e = await providerError(espees.start(i));
    expect(e.code).toBe('duplicate_order');
    expect(e.status).toBe(409);
  });

  it('a wrong API key is unauthorized; a wallet the key does not own is an invalid request', async () => {
    const k = await providerError(make({ apiKey: 'nope' }).start(input()));
    expect(k.code).toBe('unauthorized');
    expect(k.status).toBe(403);
    const w = await providerError(make({ merchantWallet: '0xdead' }).start(input()));
    expect(w.code).toBe('invalid_request');
    expect(w.message).toContain('Invalid merchant wallet');
  });

  it('refuses other currencies and holds before calling Espees', async () => {
    const before = fake.requests.length;
    expect((await providerError(espees.start(input({ currency: 'USD' })))).code).toBe('currency_unsupported');
    expect((await providerError(espees.start(input({ capture: 'manual' })))).code).toBe('hold_unsupported');
    expect(fake.requests.length).toBe(before);
  });

  it('an Espees gateway error is provider_error', async () => {
    fake.failNext = 1;
    expect((await providerError(espees.start(input()))).code).toBe('provider_error');
  });
});

describe('espees: the customer on the portal', () => {
  it('pays: Confirm Payment says APPROVED → paid with the price', async () => {
    const { i, r } = await started();
    expect((await espees.status(r.ref, i.outTradeNo)).state).toBe('pending');
    const back = fake.pay(r.ref, TEST_USERS.succeeds)!;
    expect(back).toBe(`${i.returnUrl}&payment_ref=${r.ref}`);
    expect(await espees.status(r.ref, i.outTradeNo)).toEqual({
      ref: r.ref,
      state: 'paid',
      amount: 1250,
      currency: 'ESP',
    });
    expect((await espees.complete!(r.ref, i.outTradeNo, { payment_ref: r.ref }, { idempotencyKey: 'c' })).state).toBe(
      'paid',
    );
    const sent = fake.requests.at(-1)!;
    expect(sent.path).toBe('/v2/payment/confirm/');
    expect(sent.body).toEqual({ payment_ref: r.ref });
  });

  it('is declined', async () => {
    const { i, r } = await started();
    expect(fake.pay(r.ref, TEST_USERS.declined)).toContain(i.cancelUrl);
    expect(await espees.status(r.ref, i.outTradeNo)).toMatchObject({ state: 'failed', failureCode: 'declined' });
  });

  it('has insufficient funds', async () => {
    const { i, r } = await started();
    fake.pay(r.ref, TEST_USERS.insufficient_funds);
    expect(await espees.status(r.ref, i.outTradeNo)).toMatchObject({
      state: 'failed',
      failureCode: 'insufficient_funds',
    });
  });

  it('never finishes: pending', async () => {
    const { i, r } = await started();
    expect(fake.pay(r.ref, TEST_USERS.no_answer)).toBeNull();
    expect((await espees.status(r.ref, i.outTradeNo)).state).toBe('pending');
  });

  it('a ref that belongs to another product is refused', async () => {
    const a = await started();
    const b = await started();
    fake.pay(a.r.ref);
    expect((await providerError(espees.status(a.r.ref, b.i.outTradeNo))).code).toBe('reference_mismatch');
  });
});

describe('espees: refunds', () => {
  it('are not offered: refund_unsupported, and Espees is not called', async () => {
    const { r } = await started();
    fake.pay(r.ref);
    const before = fake.requests.length;
    const e = await providerError(espees.refundPayment(r.ref, 500, { idempotencyKey: 'r' }));
    expect(e.code).toBe('refund_unsupported');
    expect(fake.requests.length).toBe(before);
  });
});

describe('espees: the customer’s return (the notification Espees gives)', () => {
  it('is accepted when Confirm Payment vouches for it, with Espees’s state, and answered 200', async () => {
    const { i, r } = await started();
    const back = fake.pay(r.ref)!;
    const note = await espees.readNotification(fake.returnDelivery(back));
    expect(note).toMatchObject({
      eventId: `espees:${r.ref}:APPROVED`,
      outTradeNo: i.outTradeNo,
      ref: r.ref,
      state: 'paid',
      amount: 1250,
      currency: 'ESP',
    });
    expect(note!.ack).toEqual({ status: 200, contentType: 'text/plain', body: 'OK' });
    // the same return again (a reload, a second tab): the same event
    expect((await espees.readNotification(fake.returnDelivery(back)))!.eventId).toBe(note!.eventId);
    // the confirm GET names tradeNo only; a JSON body works the same
    expect(
      (await espees.readNotification({
        headers: {},
        rawBody: '',
        query: { tradeNo: r.ref, outTradeNo: i.outTradeNo },
      }))!.eventId,
    ).toBe(note!.eventId);
    expect(
      (await espees.readNotification({
        headers: { 'content-type': 'application/json' },
        rawBody: JSON.stringify({ payment_ref: r.ref, outTradeNo: i.outTradeNo }),
        query: {},
      }))!.state,
    ).toBe('paid');
  });

  it('a declined payment’s return says failed', async () => {
    const { r } = await started();
    const note = await espees.readNotification(fake.returnDelivery(fake.pay(r.ref, TEST_USERS.declined)!));
    expect(note!.state).toBe('failed');
    expect(note!.eventId).toBe(`espees:${r.ref}:DECLINE`);
  });

  it('is refused when forged: another payment’s ref, an unknown ref, no attempt yet, no outTradeNo, garbage', async () => {
    const paid = await started();
    fake.pay(paid.r.ref);
    const victim = await started();
    // someone's paid ref presented for our (unpaid) order
    expect(
      await espees.readNotification({
        headers: {},
        rawBody: '',
        query: { tradeNo: paid.r.ref, outTradeNo: victim.i.outTradeNo },
      }),
    ).toBeNull();
    expect(
      await espees.readNotification({
        headers: {},
        rawBody: '',
        query: { tradeNo: 'f'.repeat(32), outTradeNo: victim.i.outTradeNo },
      }),
    ).toBeNull();
    // nobody has tried to pay yet: nothing to report
    expect(
      await espees.readNotification({
        headers: {},
        rawBody: '',
        query: { tradeNo: victim.r.ref, outTradeNo: victim.i.outTradeNo },
      }),
    ).toBeNull();
    expect(await espees.readNotification({ headers: {}, rawBody: '', query: { tradeNo: paid.r.ref } })).toBeNull();
    expect(await espees.readNotification({ headers: {}, rawBody: '{not json', query: {} })).toBeNull();
    expect(
      await espees.readNotification({
        headers: {},
        rawBody: '',
        query: { tradeNo: '../x', outTradeNo: paid.i.outTradeNo },
      }),
    ).toBeNull();
    // an adapter with another merchant's key does not see the payment at all
    expect(
      await make({ apiKey: 'nope' })
        .readNotification({ headers: {}, rawBody: '', query: { tradeNo: paid.r.ref, outTradeNo: paid.i.outTradeNo } })
        .catch((e: unknown) => e),
    ).toBeInstanceOf(ProviderError);
  });
});

describe('espees: network', () => {
  it('a connection failure is ProviderError(network), in every call that reaches Espees', async () => {
    const down = espeesDefinition.create({ apiKey: KEY, merchantWallet: WALLET, apiBase: 'http://127.0.0.1:1' }, deps);
    expect((await providerError(down.start(input()))).code).toBe('network');
    expect((await providerError(down.status('abc', 'X'))).code).toBe('network');
    expect(
      (
        await providerError(
          down.readNotification({ headers: {}, rawBody: '', query: { tradeNo: 'abc', outTradeNo: 'X' } }),
        )
      ).code,
    ).toBe('network');
  });
});
