// The n1co adapter against the n1co test server (server/test/providers/n1co.ts): a CheckoutLink payment link per
// payment, the order read back by its code, full refunds through the Integration API's OAuth token, and the
// X-H4B-Hmac-Sha256 signed webhook.
import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StartInput } from '../../src/modules/payments/methods/adapter.ts';
import type { MethodProvider } from '../../src/modules/payments/methods/external.ts';
import { n1coDefinition, type N1coConfig } from '../../src/modules/payments/methods/n1co.ts';
import { N1coTestServer } from '../providers/n1co.ts';

const CLIENT = {
  clientId: '8ff8uu34-ffa5-457e-9d4b-04a6324d7353',
  clientSecret: 'qoL5K~8pppwYT.92O5W4khPeutP5j6HcLZG42dpU',
};
const SK = 'sk_test_powerly';
const WHSEC = 'whsec-powerly';
let server: N1coTestServer;
let adapter: MethodProvider;
let seq = 0;
const call = { idempotencyKey: 'k' };
const deps = { fetch: (...a: Parameters<typeof fetch>) => fetch(...a), now: () => new Date() };

function config(over: Partial<N1coConfig> = {}): N1coConfig {
  return {
    ...CLIENT,
    webhookSecret: WHSEC,
    checkoutSecretKey: SK,
    locationCode: 'N1C0CD001',
    mode: 'sandbox',
    apiBase: server.base,
    payApiBase: `${server.base}/api`,
    ...over,
  };
}

function input(over: Partial<StartInput> = {}): StartInput {
  const n = ++seq;
  return {
    outTradeNo: `PW${Date.now()}${n}`,
    amount: 1050,
    currency: 'USD',
    description: 'Powerly rental',
    capture: 'automatic',
    returnUrl: 'https://app.example/result?o=1',
    cancelUrl: 'https://app.example/result?o=1&cancel=1',
    notifyUrl: 'https://api.example/webhooks/methods/n1co',
    idempotencyKey: `idem-${n}`,
    payType: 'N1co',
    payer: { userId: 1 },
    ...over,
  };
}

beforeAll(async () => {
  server = await new N1coTestServer(CLIENT, SK, WHSEC).start();
  adapter = n1coDefinition.create(config(), deps);
});
afterAll(async () => {
  await server.stop();
});

describe('n1co adapter', () => {
  it('start creates a payment link with our reference and redirects to it', async () => {
    const inp = input();
    const r = await adapter.start(inp);
    expect(r.state).toBe('pending');
    expect(r.action).toEqual({ kind: 'redirect', url: `${server.base}/pl/${r.ref}` });
    const sent = server.requests.at(-1)!;
    expect(sent).toMatchObject({ method: 'POST', path: '/api/paymentlink/checkout', auth: SK });
    expect(JSON.parse(sent.body)).toMatchObject({
      orderReference: inp.outTradeNo,
      amount: 10.5,
      successUrl: inp.returnUrl,
      cancelUrl: inp.cancelUrl,
      locationCode: 'N1C0CD001',
    });
  });

  it('without a checkout secret key the CheckoutLink API gets the OAuth token from clientId/clientSecret', async () => {
    const a = n1coDefinition.create(config({ checkoutSecretKey: '' }), deps);
    await a.start(input());
    const [tok, link] = server.requests.slice(-2);
    expect(tok).toMatchObject({ path: '/api/v3/Token' });
    expect(JSON.parse(tok!.body)).toEqual(CLIENT);
    expect(server.tokens.has(link!.auth!)).toBe(true);
  });

  it('refuses amount <= 0 and currencies other than USD; wrong credentials are 401', async () => {
    await expect(adapter.start(input({ amount: 0 }))).rejects.toMatchObject({ code: 'invalid_amount' });
    await expect(adapter.start(input({ currency: 'EUR' }))).rejects.toMatchObject({ code: 'unsupported_currency' });
    const bad = n1coDefinition.create(config({ checkoutSecretKey: 'sk_wrong' }), deps);
    await expect(bad.start(input())).rejects.toMatchObject({ code: 'UNAUTHORIZED', status: 401 });
    const badClient = n1coDefinition.create(config({ checkoutSecretKey: '', clientSecret: 'nope' }), deps);
    await expect(badClient.start(input())).rejects.toMatchObject({ status: 401 });
  });

  it('customer pays with an approved sandbox card → status says paid (confirmed by GET of the order)', async () => {
    const inp = input();
    const r = await adapter.start(inp);
    expect((await adapter.status(r.ref, inp.outTradeNo)).state).toBe('pending');
    server.pay(r.ref, '4000056655665556');
    expect(await adapter.status(r.ref, inp.outTradeNo)).toEqual({
      ref: r.ref,
      state: 'paid',
      amount: 1050,
      currency: 'USD',
    });
    expect(server.requests.at(-1)).toMatchObject({ method: 'GET', path: `/api/paymentlink/order/${r.ref}` });
    // the order must be ours
    await expect(adapter.status(r.ref, 'PWsomeoneelse')).rejects.toMatchObject({ code: 'reference_mismatch' });
  });

  it('a declined card leaves the link unpaid; a cancelled order is cancelled', async () => {
    const inp = input();
    const r = await adapter.start(inp);
    server.pay(r.ref, '4242424242424242');
    expect((await adapter.status(r.ref, inp.outTradeNo)).state).toBe('pending');
    server.pay(r.ref, '5555555555554444');
    expect((await adapter.status(r.ref, inp.outTradeNo)).state).toBe('pending');
    server.cancel(r.ref);
    expect(await adapter.status(r.ref, inp.outTradeNo)).toMatchObject({ state: 'cancelled', failureCode: 'cancelled' });
  });

  it('refunds the whole charge once through the Integration API; partial and repeated refunds are refused', async () => {
    const inp = input();
    const r = await adapter.start(inp);
    server.pay(r.ref, '5267260000000001');
    await expect(adapter.refundPayment(r.ref, 500, call)).rejects.toMatchObject({ code: 'partial_refund_unsupported' });
    await adapter.refundPayment(r.ref, 1050, call);
    const sent = server.requests.at(-1)!;
    expect(sent).toMatchObject({ method: 'POST', path: '/api/v3/Refunds' });
    expect(server.tokens.has(sent.auth!)).toBe(true);
    expect(JSON.parse(sent.body)).toMatchObject({ orderId: String(server.orders.get(r.ref)!.orderId) });
    await expect(adapter.refundPayment(r.ref, 1050, call)).rejects.toMatchObject({
      code: 'ORDER_ALREADY_REFUNDED',
      status: 400,
    });
  });

  it('an unpaid order is not refunded; a revoked token is renewed once', async () => {
    const r = await adapter.start(input());
    await expect(adapter.refundPayment(r.ref, 1050, call)).rejects.toMatchObject({ code: 'not_paid' });
    server.pay(r.ref, '4000000000001000');
    server.revokeTokens();
    await adapter.refundPayment(r.ref, 1050, call);
    expect(server.orders.get(r.ref)!.refunded).toBe(true);
  });

  it('a genuine webhook is accepted (200), a redelivery has the same eventId', async () => {
    const inp = input();
    const r = await adapter.start(inp);
    server.pay(r.ref, '4000056655665556');
    const d = server.webhook(r.ref, 'SuccessPayment');
    const n = await adapter.readNotification({ headers: d.headers, rawBody: d.rawBody, query: {} });
    expect(n).toMatchObject({
      outTradeNo: inp.outTradeNo,
      state: 'paid',
      ack: { status: 200, contentType: 'text/plain', body: '' },
    });
    const again = await adapter.readNotification({ headers: d.headers, rawBody: d.rawBody, query: {} });
    expect(again!.eventId).toBe(n!.eventId);
    const other = await adapter.readNotification({ ...server.webhook(r.ref, 'Finalized'), query: {} });
    expect(other!.eventId).not.toBe(n!.eventId);
  });

  it('a hex signature (older docs) verifies too', async () => {
    const r = await adapter.start(input());
    const d = server.webhook(r.ref, 'Cancelled');
    const hex = createHmac('sha256', WHSEC).update(d.rawBody).digest('hex');
    expect(
      await adapter.readNotification({ headers: { 'x-h4b-hmac-sha256': hex }, rawBody: d.rawBody, query: {} }),
    ).toMatchObject({ state: 'cancelled' });
  });

  it('a tampered, wrongly-signed or unsigned webhook is refused', async () => {
    const r = await adapter.start(input());
    const d = server.webhook(r.ref, 'PaymentError');
    expect(
      await adapter.readNotification({
        headers: d.headers,
        rawBody: d.rawBody.replace('PaymentError', 'SuccessPayment'),
        query: {},
      }),
    ).toBeNull();
    const wrong = server.webhook(r.ref, 'SuccessPayment', 'not-our-secret');
    expect(await adapter.readNotification({ headers: wrong.headers, rawBody: wrong.rawBody, query: {} })).toBeNull();
    expect(await adapter.readNotification({ headers: {}, rawBody: d.rawBody, query: {} })).toBeNull();
  });

  it('a network failure is ProviderError(network)', async () => {
    const down = n1coDefinition.create(
      config({ apiBase: 'http://127.0.0.1:1', payApiBase: 'http://127.0.0.1:1/api' }),
      deps,
    );
    await expect(down.start(input())).rejects.toMatchObject({ code: 'network' });
    await expect(down.status('x', 'y')).rejects.toMatchObject({ code: 'network' });
  });

  it('defaults to n1co’s live hosts, sandbox hosts in sandbox mode', async () => {
    const seen: string[] = [];
    const spy = {
      ...deps,
      fetch: (u: Parameters<typeof fetch>[0]) => (seen.push(String(u)), Promise.reject(new Error('offline'))),
    };
    await n1coDefinition
      .create({ ...config(), apiBase: '', payApiBase: '', mode: '' }, spy)
      .start(input())
      .catch(() => undefined);
    await n1coDefinition
      .create({ ...config(), apiBase: '', payApiBase: '', mode: 'sandbox' }, spy)
      .start(input())
      .catch(() => undefined);
    expect(seen).toEqual([
      'https://api-pay.n1co.shop/api/paymentlink/checkout',
      'https://api-pay-sandbox.n1co.shop/api/paymentlink/checkout',
    ]);
  });
});
