// The SumUp adapter against the SumUp test server (server/test/providers/sumup.ts): hosted checkout start, the
// customer paying with SumUp's sandbox cards, the duplicate-reference replay, the confirm loop, refunds and the
// unsigned CHECKOUT_STATUS_CHANGED webhook verified by reading the checkout back.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ProviderError, type StartInput } from '../../src/modules/payments/methods/adapter.ts';
import type { MethodProvider } from '../../src/modules/payments/methods/external.ts';
import { sumupDefinition, toMajor } from '../../src/modules/payments/methods/sumup.ts';
import { SumUpTestServer } from '../providers/sumup.ts';

const KEY = 'sk_test_powerly';
const MERCHANT = 'MH4H92C7';
let server: SumUpTestServer;
let adapter: MethodProvider;
let seq = 0;

const deps = { fetch: (...a: Parameters<typeof fetch>) => fetch(...a), now: () => new Date() };

function input(over: Partial<StartInput> = {}): StartInput {
  const n = ++seq;
  return {
    outTradeNo: `PW${Date.now()}${n}`,
    amount: 1250,
    currency: 'EUR',
    description: 'Powerly rental',
    capture: 'automatic',
    returnUrl: 'https://app.example/result?o=1',
    cancelUrl: 'https://app.example/result?o=1&cancel=1',
    notifyUrl: 'https://api.example/webhooks/methods/sumup',
    idempotencyKey: `idem-${n}`,
    payType: 'SumUpOnlinePayment',
    payer: { userId: 1 },
    ...over,
  };
}

const call = { idempotencyKey: 'k' };

beforeAll(async () => {
  server = await new SumUpTestServer({ [KEY]: MERCHANT, sk_test_other: 'MOTHER01' }).start();
  adapter = sumupDefinition.create({ apiKey: KEY, merchantCode: MERCHANT, apiBase: server.base }, deps);
});
afterAll(async () => {
  await server.stop();
});

describe('sumup adapter', () => {
  it('start creates a hosted checkout with our reference and major-unit amount, and redirects to it', async () => {
    const inp = input();
    const r = await adapter.start(inp);
    expect(r.state).toBe('pending');
    expect(r.action).toEqual({ kind: 'redirect', url: `${server.base}/pay/${r.ref}` });
    const c = server.checkouts.get(r.ref)!;
    expect(c.checkout_reference).toBe(inp.outTradeNo);
    expect(c.amount).toBe(12.5);
    expect(c.merchant_code).toBe(MERCHANT);
    expect(c.return_url).toBe(inp.notifyUrl);
    expect(c.redirect_url).toBe(inp.returnUrl);
    expect(server.requests.at(-1)!.auth).toBe(KEY);
  });

  it('converts 0- and 2-decimal currencies to major units', () => {
    expect(toMajor(1250, 'EUR')).toBe(12.5);
    expect(toMajor(1005, 'GBP')).toBe(10.05);
    expect(toMajor(1500, 'CLP')).toBe(1500);
  });

  it('a 0-decimal currency goes out unscaled', async () => {
    const r = await adapter.start(input({ amount: 1500, currency: 'CLP' }));
    expect(server.checkouts.get(r.ref)!.amount).toBe(1500);
  });

  it('refuses amount <= 0 and currencies SumUp does not take', async () => {
    await expect(adapter.start(input({ amount: 0 }))).rejects.toMatchObject({ code: 'invalid_amount' });
    await expect(adapter.start(input({ currency: 'JPY' }))).rejects.toMatchObject({ code: 'unsupported_currency' });
  });

  it('a retried start (409 DUPLICATED_CHECKOUT) continues with the existing checkout', async () => {
    const inp = input();
    const a = await adapter.start(inp);
    const b = await adapter.start(inp);
    expect(b.ref).toBe(a.ref);
    expect(b.action).toEqual(a.action);
    expect([...server.checkouts.values()].filter((c) => c.checkout_reference === inp.outTradeNo)).toHaveLength(1);
    // the same reference for another amount is not silently reused
    await expect(adapter.start({ ...inp, amount: 999 })).rejects.toMatchObject({
      code: 'DUPLICATED_CHECKOUT',
      status: 409,
    });
  });

  it('customer pays with a sandbox card → status and complete say paid', async () => {
    const r = await adapter.start(input());
    expect((await adapter.status(r.ref, '')).state).toBe('pending');
    server.pay(r.ref, '4200000000000091');
    const s = await adapter.complete!(r.ref, '', {}, call);
    expect(s).toMatchObject({ ref: r.ref, state: 'paid', amount: 1250, currency: 'EUR' });
  });

  it('complete keeps asking (1 s apart) while the checkout is still PENDING', async () => {
    const r = await adapter.start(input());
    setTimeout(() => server.pay(r.ref, '5200000000000007'), 1500);
    const t0 = Date.now();
    const s = await adapter.complete!(r.ref, '', {}, call);
    expect(s.state).toBe('paid');
    expect(Date.now() - t0).toBeGreaterThanOrEqual(1000);
  });

  it('the sandbox decline amount (11.00) and a card outside the test set fail', async () => {
    const a = await adapter.start(input({ amount: 1100 }));
    server.pay(a.ref, '4200000000000091');
    expect(await adapter.status(a.ref, '')).toMatchObject({ state: 'failed', failureCode: 'declined' });
    const b = await adapter.start(input());
    server.pay(b.ref, '4111111111111111');
    expect((await adapter.status(b.ref, '')).state).toBe('failed');
  });

  it('an expired checkout is cancelled', async () => {
    const r = await adapter.start(input());
    server.expire(r.ref);
    expect(await adapter.status(r.ref, '')).toMatchObject({ state: 'cancelled', failureCode: 'expired' });
  });

  it('refunds partially, then refuses an over-refund with SumUp’s error', async () => {
    const r = await adapter.start(input());
    server.pay(r.ref, '4200000000000091');
    await adapter.refundPayment(r.ref, 500, call);
    const txn = server.checkouts.get(r.ref)!.transactions[0]!;
    expect(server.requests.at(-1)).toMatchObject({
      method: 'POST',
      path: `/v0.1/me/refund/${txn.id}`,
      body: JSON.stringify({ amount: 5 }),
    });
    const err = await adapter.refundPayment(r.ref, 800, call).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ProviderError);
    expect(err).toMatchObject({ code: 'INVALID', status: 400 });
    await adapter.refundPayment(r.ref, 750, call); // the rest
  });

  it('refund of an unpaid checkout is refused', async () => {
    const r = await adapter.start(input());
    await expect(adapter.refundPayment(r.ref, 100, call)).rejects.toMatchObject({ code: 'not_paid' });
  });

  it('bad credentials are SumUp’s 401 NOT_AUTHORIZED', async () => {
    const bad = sumupDefinition.create({ apiKey: 'sk_test_wrong', merchantCode: MERCHANT, apiBase: server.base }, deps);
    await expect(bad.start(input())).rejects.toMatchObject({ code: 'NOT_AUTHORIZED', status: 401 });
  });

  it('a genuine webhook is accepted (empty 200), a redelivery has the same eventId', async () => {
    const r = await adapter.start(input());
    server.pay(r.ref, '4200000000000091');
    const d = server.webhook(r.ref);
    expect(d.url).toBe('https://api.example/webhooks/methods/sumup');
    const n = await adapter.readNotification({ headers: d.headers, rawBody: d.rawBody, query: {} });
    expect(n).not.toBeNull();
    expect(n!.ref).toBe(r.ref);
    expect(n!.outTradeNo).toBe(server.checkouts.get(r.ref)!.checkout_reference);
    expect(n!.state).toBeUndefined();
    expect(n!.ack).toEqual({ status: 200, contentType: 'text/plain', body: '' });
    const again = await adapter.readNotification({ headers: d.headers, rawBody: d.rawBody, query: {} });
    expect(again!.eventId).toBe(n!.eventId);
  });

  it('two different status changes of one checkout are different events', async () => {
    const r = await adapter.start(input());
    const d = server.webhook(r.ref);
    const first = await adapter.readNotification({ headers: d.headers, rawBody: d.rawBody, query: {} });
    server.pay(r.ref, '4200000000000091');
    const second = await adapter.readNotification({ headers: d.headers, rawBody: d.rawBody, query: {} });
    expect(first!.eventId).not.toBe(second!.eventId);
  });

  it('a forged webhook (unknown checkout, another merchant’s checkout, garbage) is refused', async () => {
    const forged = JSON.stringify({
      event_type: 'CHECKOUT_STATUS_CHANGED',
      id: '2f7e1c9a-0000-4000-8000-000000000000',
    });
    expect(await adapter.readNotification({ headers: {}, rawBody: forged, query: {} })).toBeNull();
    const other = sumupDefinition.create(
      { apiKey: 'sk_test_other', merchantCode: 'MOTHER01', apiBase: server.base },
      deps,
    );
    const theirs = await other.start(input());
    expect(
      await adapter.readNotification({ headers: {}, rawBody: server.webhook(theirs.ref).rawBody, query: {} }),
    ).toBeNull();
    expect(await adapter.readNotification({ headers: {}, rawBody: 'not json', query: {} })).toBeNull();
  });

  it('a network failure is ProviderError(network)', async () => {
    const down = sumupDefinition.create({ apiKey: KEY, merchantCode: MERCHANT, apiBase: 'http://127.0.0.1:1' }, deps);
    await expect(down.start(input())).rejects.toMatchObject({ code: 'network' });
    await expect(down.status('x', '')).rejects.toMatchObject({ code: 'network' });
  });

  it('declares what it can do', () => {
    expect(sumupDefinition.capabilities).toEqual({
      hold: false,
      partialCapture: false,
      offSession: false,
      refund: true,
      payout: false,
      webhook: true,
    });
    expect(sumupDefinition.payTypes).toEqual([{ type: 'SumUpOnlinePayment', kind: 'redirect', label: 'SumUp' }]);
    expect(sumupDefinition.required).toEqual(['apiKey', 'merchantCode']);
  });
});
