// The monri adapter against the local Monri WebPay test server (server/test/providers/monri.ts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ProviderError, type StartInput } from '../../src/modules/payments/methods/adapter.ts';
import { monriDefinition, readXml } from '../../src/modules/payments/methods/monri.ts';
import { FakeMonri } from '../providers/monri.ts';

const TOKEN = 'a6d41095984fc60fe81cd3d65ecafe56d4060ca9';
const KEY = 'key-942fe42f1cdbf1700b5b784532f6181c';
const deps = { fetch: (...a: Parameters<typeof fetch>) => fetch(...a), now: () => new Date() };

let monri: FakeMonri;
let n = 0;

beforeAll(async () => {
  monri = await new FakeMonri(TOKEN, KEY).start();
});
afterAll(async () => {
  await monri.stop();
});

function adapter(over: Partial<{ merchantKey: string; authenticityToken: string; apiBase: string }> = {}) {
  return monriDefinition.create({ merchantKey: KEY, authenticityToken: TOKEN, apiBase: monri.url, ...over }, deps);
}

function input(over: Partial<StartInput> = {}): StartInput {
  n++;
  return {
    outTradeNo: `PWMN${n}x${Date.now()}`,
    amount: 1250,
    currency: 'BAM',
    description: 'Powerly rental',
    capture: 'automatic',
    returnUrl: 'https://app.test/result',
    cancelUrl: 'https://app.test/result',
    notifyUrl: 'https://api.test/webhooks/methods/monri',
    idempotencyKey: `key-${n}`,
    payType: 'Monri_WebPay',
    payer: { userId: 7, email: 'tester@monri.test' },
    ...over,
  };
}

/** start → the /MonriPay action's fields. */
async function started(a: ReturnType<typeof adapter>, over: Partial<StartInput> = {}) {
  const inp = input(over);
  const r = await a.start(inp);
  if (r.action.kind !== 'form') throw new Error('expected a form action');
  return { inp, r, fields: r.action.fields };
}

describe('monri adapter', () => {
  it('declares what it is', () => {
    expect(monriDefinition.payTypes).toEqual([{ type: 'Monri_WebPay', kind: 'card', label: 'Card (Monri)' }]);
    expect(monriDefinition.capabilities).toEqual({
      hold: true,
      partialCapture: true,
      offSession: false,
      refund: true,
      payout: false,
      webhook: true,
    });
    expect(monriDefinition.required).toEqual(['merchantKey', 'authenticityToken']);
    expect(adapter().clientConfig?.()).toEqual({ authenticityToken: TOKEN });
  });

  it('start creates a Components payment (signed WP3-v2) and routes the app to /MonriPay with its client secret', async () => {
    const a = adapter();
    const { inp, r, fields } = await started(a);
    const p = monri.payments.get(r.ref)!;
    expect(r.state).toBe('pending');
    expect(r.action).toEqual({
      kind: 'form',
      url: '#/MonriPay',
      fields: {
        authenticityToken: TOKEN,
        clientSecret: p.clientSecret,
        scriptUrl: `${monri.url}/dist/components.js`,
        outTradeNo: inp.outTradeNo,
        amount: '1250',
        currency: 'BAM',
      },
    });
    expect(fields.clientSecret).toBe(p.clientSecret);
    expect(p).toMatchObject({
      transactionType: 'purchase',
      amount: 1250,
      currency: 'BAM',
      orderNumber: inp.outTradeNo,
      orderInfo: 'Powerly rental',
    });
    const body = JSON.parse(monri.requests.filter((x) => x.path === '/v2/payment/new').at(-1)!.body) as Record<
      string,
      unknown
    >;
    expect(body).toMatchObject({ scenario: 'charge', transaction_type: 'purchase', amount: 1250 });
    expect(await a.status(r.ref, inp.outTradeNo)).toMatchObject({ ref: r.ref, state: 'pending' });
  });

  it('Components is loaded from the API host (live https://ipg.monri.com), which the CSP allows for script, frame and connect', () => {
    expect(monriDefinition.clientSdk!({ merchantKey: KEY, authenticityToken: TOKEN })).toEqual({
      script: ['https://ipg.monri.com'],
      frame: ['https://ipg.monri.com'],
      connect: ['https://ipg.monri.com'],
    });
    expect(
      monriDefinition.clientSdk!({ merchantKey: KEY, authenticityToken: TOKEN, apiBase: 'https://ipgtest.monri.com/' })
        .script,
    ).toEqual(['https://ipgtest.monri.com']);
  });

  it('the customer pays with an approved test card: status says paid', async () => {
    const a = adapter();
    const { inp, r, fields } = await started(a);
    monri.confirm(fields.clientSecret!, { pan: '4341 7920 0000 0044', email: 'tester@monri.test' });
    expect(await a.status(r.ref, inp.outTradeNo)).toEqual({ ref: r.ref, state: 'paid', amount: 1250, currency: 'BAM' });
    // Without the payment id (start's answer lost): by our order number.
    expect(await a.status('', inp.outTradeNo)).toMatchObject({ ref: '', state: 'paid', amount: 1250 });
    expect(await a.status('', 'neverstarted')).toEqual({ ref: '', state: 'pending' });
  });

  it('every declared test card approves', async () => {
    const a = adapter();
    for (const tv of monriDefinition.testValues!) {
      const { r, fields } = await started(a);
      monri.confirm(fields.clientSecret!, { pan: tv.value, email: 'tester@monri.test' });
      expect((await a.status(r.ref, '')).state, tv.value).toBe(tv.outcome === 'succeeds' ? 'paid' : 'failed');
    }
  });

  it('declined and insufficient funds', async () => {
    const a = adapter();
    const d = await started(a);
    monri.confirm(d.fields.clientSecret!, { pan: '4111 1111 1111 1111', email: 'tester@monri.test' });
    expect(await a.status(d.r.ref, d.inp.outTradeNo)).toMatchObject({ state: 'failed', failureCode: 'card_declined' });
    const f = await started(a);
    monri.confirm(f.fields.clientSecret!, { pan: '4000 0000 0000 9995', email: 'tester@monri.test' });
    expect(await a.status(f.r.ref, f.inp.outTradeNo)).toMatchObject({
      state: 'failed',
      failureCode: 'insufficient_funds',
    });
    expect(await a.status('', f.inp.outTradeNo)).toMatchObject({ state: 'failed', failureCode: 'insufficient_funds' });
  });

  it('an order number is used once: a second start with it is refused', async () => {
    const a = adapter();
    const { inp } = await started(a);
    const err = await a.start({ ...inp, idempotencyKey: 'other' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ProviderError);
    expect((err as ProviderError).message).toMatch(/already been taken/);
    expect((err as ProviderError).status).toBe(400);
  });

  it('refunds in part; a refund above what is left is refused', async () => {
    const a = adapter();
    const { inp, r, fields } = await started(a, { amount: 3000, currency: 'EUR' });
    monri.confirm(fields.clientSecret!, { pan: '5464 0000 0000 0008', email: 'tester@monri.test' });
    await a.refundPayment(r.ref, 1000, { idempotencyKey: 'r1' });
    expect(monri.byOrder(inp.outTradeNo)!.refunded).toBe(1000);
    const body = monri.requests.filter((x) => x.path.endsWith('/refund.xml')).at(-1)!.body;
    expect(readXml(body)).toMatchObject({
      amount: '1000',
      currency: 'EUR',
      'order-number': inp.outTradeNo,
      'authenticity-token': TOKEN,
    });
    const err = await a.refundPayment(r.ref, 2500, { idempotencyKey: 'r2' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ProviderError);
    expect(err).toMatchObject({ code: 'invalid_request', status: 406 });
    expect((err as ProviderError).message).toMatch(/refundable/);
    await a.refundPayment(r.ref, 2000, { idempotencyKey: 'r3' });
    expect(monri.byOrder(inp.outTradeNo)!.refunded).toBe(3000);
  });

  it('a hold: authorised, captured for less; over-capture refused', async () => {
    const a = adapter();
    const { inp, r, fields } = await started(a, { capture: 'manual', amount: 5000 });
    expect(monri.payments.get(r.ref)!.transactionType).toBe('authorize');
    monri.confirm(fields.clientSecret!, { pan: '4058 4000 0000 0005', email: 'tester@monri.test' });
    expect(await a.status(r.ref, inp.outTradeNo)).toMatchObject({ state: 'authorized', amount: 5000 });
    await expect(a.capturePayment!(r.ref, 5001, { idempotencyKey: 'c0' })).rejects.toMatchObject({
      code: 'amount_too_large',
    });
    await a.capturePayment!(r.ref, 3250, { idempotencyKey: 'c1' });
    expect(monri.byOrder(inp.outTradeNo)!.captured).toBe(3250);
    await a.refundPayment(r.ref, 250, { idempotencyKey: 'r1' });
    await expect(a.refundPayment(r.ref, 3001, { idempotencyKey: 'r2' })).rejects.toMatchObject({ status: 406 });
  });

  it('voids a hold; the voided hold cannot be captured', async () => {
    const a = adapter();
    const { inp, r, fields } = await started(a, { capture: 'manual' });
    monri.confirm(fields.clientSecret!, { pan: '4341 7920 0000 0044', email: 'tester@monri.test' });
    await a.voidPayment!(r.ref, { idempotencyKey: 'v' });
    expect(monri.byOrder(inp.outTradeNo)!.voided).toBe(true);
    await expect(a.capturePayment!(r.ref, 100, { idempotencyKey: 'c' })).rejects.toMatchObject({ status: 406 });
  });

  it('a wrong merchant key is refused (the WP3-v2 digest does not verify)', async () => {
    const a = adapter({ merchantKey: 'key-wrong' });
    await expect(a.start(input())).rejects.toMatchObject({ code: 'unauthorized', status: 401 });
    const b = adapter({ authenticityToken: 'wrong-token' });
    await expect(b.start(input())).rejects.toMatchObject({ code: 'unauthorized', status: 401 });
  });

  it('a network failure is ProviderError network', async () => {
    const a = adapter({ apiBase: 'http://127.0.0.1:1' });
    const err = await a.start(input()).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ProviderError);
    expect((err as ProviderError).code).toBe('network');
  });

  describe('callbacks', () => {
    it('a genuine callback is accepted and answered 200; a redelivery carries the same event id', async () => {
      const a = adapter();
      const { inp, fields } = await started(a, { capture: 'manual' });
      const cb = monri.confirm(fields.clientSecret!, { pan: '4341 7920 0000 0044', email: 'tester@monri.test' });
      const got = await a.readNotification(cb);
      expect(got).toMatchObject({
        outTradeNo: inp.outTradeNo,
        state: 'authorized',
        amount: 1250,
        currency: 'BAM',
        ack: { status: 200 },
      });
      expect((await a.readNotification(cb))?.eventId).toBe(got!.eventId);
    });

    it('a purchase callback reads paid; a declined one failed', async () => {
      const a = adapter();
      const ok = await started(a);
      expect(
        (await a.readNotification(monri.confirm(ok.fields.clientSecret!, { pan: '4058400000000005', email: 'x@y.z' })))
          ?.state,
      ).toBe('paid');
      const no = await started(a);
      expect(
        (await a.readNotification(monri.confirm(no.fields.clientSecret!, { pan: '4111111111111111', email: 'x@y.z' })))
          ?.state,
      ).toBe('failed');
    });

    it('a tampered body, a wrong key or a missing header is refused', async () => {
      const a = adapter();
      const { fields } = await started(a);
      const cb = monri.confirm(fields.clientSecret!, { pan: '4341792000000044', email: 'tester@monri.test' });
      expect(
        await a.readNotification({ ...cb, rawBody: cb.rawBody.replace('"amount":1250', '"amount":1') }),
      ).toBeNull();
      const tx = JSON.parse(cb.rawBody) as Record<string, unknown>;
      expect(await a.readNotification(monri.callback(tx, 'key-not-ours'))).toBeNull();
      expect(await a.readNotification({ ...cb, headers: {} })).toBeNull();
      expect(await a.readNotification(cb)).not.toBeNull();
    });
  });
});
