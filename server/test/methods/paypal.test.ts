// The PayPal adapter against the PayPal test server (test/providers/paypal.ts): Orders v2 checkout (pay now and
// the deposit hold), Payments v2 capture / void, OAuth token handling (refunds, Payouts and webhook
// verification: paypal-payouts.test.ts; the fixtures: paypal-helpers.ts).
import { describe, expect, it } from 'vitest';
import { fromPaypalValue, paypalDefinition, toPaypalValue } from '../../src/modules/payments/methods/paypal.ts';
import { ProviderError } from '../../src/modules/payments/methods/adapter.ts';
import {
  APP,
  OTHER,
  adapter,
  advanceClock,
  buyerApproves,
  deps,
  err,
  heldPayment,
  idOf,
  input,
  key,
  orderId,
  pp,
  usePaypal,
} from './paypal-helpers.ts';

usePaypal();

describe('PayPal amounts', () => {
  it('writes minor units the way PayPal takes each currency', () => {
    expect(toPaypalValue(1250, 'USD')).toBe('12.50');
    expect(toPaypalValue(5, 'EUR')).toBe('0.05');
    expect(toPaypalValue(1500, 'JPY')).toBe('1500');
    // TWD has cents in ISO 4217 but PayPal takes whole dollars only.
    expect(toPaypalValue(12300, 'TWD')).toBe('123');
    expect(() => toPaypalValue(12345, 'TWD')).toThrow(ProviderError);
    expect(fromPaypalValue('12.50', 'USD')).toBe(1250);
    expect(fromPaypalValue('12.5', 'USD')).toBe(1250);
    expect(fromPaypalValue('1500', 'JPY')).toBe(1500);
    expect(fromPaypalValue('123', 'TWD')).toBe(12300);
  });
});

describe('PayPal checkout (intent CAPTURE)', () => {
  it('creates an order and sends the customer to the payer-action link', async () => {
    const inp = input();
    const before = pp.requests.length;
    const started = await adapter.start(inp);
    expect(started.state).toBe('pending');
    expect(started.ref).toMatch(/^order:[A-Z0-9]{17}$/);
    expect(started.action).toEqual({ kind: 'redirect', url: `${pp.url}/checkoutnow?token=${orderId(started.ref)}` });
    const create = pp.requests.slice(before).find((r) => r.path === '/v2/checkout/orders')!;
    expect(create.requestId).toBe(inp.idempotencyKey);
    const body = JSON.parse(create.body);
    expect(body.intent).toBe('CAPTURE');
    expect(body.purchase_units[0]).toMatchObject({
      reference_id: inp.outTradeNo,
      invoice_id: inp.outTradeNo,
      custom_id: inp.outTradeNo,
      amount: { currency_code: 'USD', value: '12.50' },
    });
    expect(body.payment_source.paypal.experience_context).toMatchObject({
      return_url: inp.returnUrl,
      cancel_url: inp.cancelUrl,
      user_action: 'PAY_NOW',
    });
    expect(pp.order(orderId(started.ref))!.status).toBe('PAYER_ACTION_REQUIRED');
  });

  it('a retried start with the same key is the same order (PayPal-Request-Id)', async () => {
    const inp = input();
    const a = await adapter.start(inp);
    const b = await adapter.start(inp);
    expect(b.ref).toBe(a.ref);
    const c = await adapter.start({ ...inp, idempotencyKey: `${inp.idempotencyKey}-again` });
    expect(c.ref).not.toBe(a.ref);
  });

  it('sends JPY without decimals', async () => {
    const started = await adapter.start(input({ amount: 1500, currency: 'JPY' }));
    expect(pp.order(orderId(started.ref))!.purchase_units[0]!.amount).toEqual({ currency_code: 'JPY', value: '1500' });
  });

  it('the buyer approves → complete captures: paid, the ref becomes the capture', async () => {
    const started = await adapter.start(input());
    expect(await adapter.status(started.ref, '')).toMatchObject({ ref: started.ref, state: 'pending' });
    if (started.action.kind !== 'redirect') throw new Error('not a redirect');
    const params = await buyerApproves(started.action.url);
    expect(params).toEqual({ o: '1', token: orderId(started.ref), PayerID: expect.any(String) });
    expect(await adapter.status(started.ref, '')).toMatchObject({ state: 'pending' }); // APPROVED, not captured yet
    const call = key('complete');
    const before = pp.requests.length;
    const done = await adapter.complete!(started.ref, '', params, call);
    expect(done).toMatchObject({ state: 'paid', amount: 1250, currency: 'USD' });
    expect(done.ref).toMatch(/^capture:[A-Z0-9]{17}$/);
    const capture = pp.requests.slice(before).find((r) => r.path.endsWith('/capture'))!;
    expect(capture.requestId).toBe(call.idempotencyKey);
    expect(pp.capture(idOf(done.ref))!.status).toBe('COMPLETED');
    // Every ref form answers.
    expect(await adapter.status(done.ref, '')).toEqual(done);
    expect(await adapter.status(started.ref, '')).toEqual(done);
    // Back again (a reload of the result page, a new key): ORDER_ALREADY_CAPTURED is the same payment, not a second one.
    expect(await adapter.complete!(started.ref, '', params, key('again'))).toEqual(done);
    expect(pp.order(orderId(started.ref))!.purchase_units[0]!.payments!.captures).toHaveLength(1);
  });

  it('a lost capture answer retried with the same key is the same capture', async () => {
    const started = await adapter.start(input());
    if (started.action.kind !== 'redirect') throw new Error('not a redirect');
    const params = await buyerApproves(started.action.url);
    const call = key('complete');
    pp.dropNext = 0;
    const first = await adapter.complete!(started.ref, '', params, call);
    // The order is COMPLETED now; a retry under the same key must not capture again either.
    const again = await adapter.complete!(started.ref, '', params, call);
    expect(again.ref).toBe(first.ref);
  });

  it('an order captured in the meantime (ORDER_ALREADY_CAPTURED) is that capture, not an error', async () => {
    // Another process captures the order between our look at it and our capture call.
    const racing = paypalDefinition.create(
      { clientId: APP.clientId, clientSecret: APP.secret, webhookId: 'x', apiBase: pp.url },
      {
        now: deps.now,
        fetch: async (url, init) => {
          if (String(url).endsWith('/capture')) {
            const headers = {
              ...(init?.headers as Record<string, string>),
              'paypal-request-id': `other-${Math.random()}`,
            };
            expect((await fetch(url, { ...init, headers })).status).toBe(201);
          }
          return fetch(url, init);
        },
      },
    );
    const started = await racing.start(input());
    const params = Object.fromEntries(new URL(pp.approve(orderId(started.ref))).searchParams);
    const done = await racing.complete!(started.ref, '', params, key('race'));
    expect(done).toMatchObject({ state: 'paid', amount: 1250 });
    expect(done.ref).toBe(`capture:${pp.order(orderId(started.ref))!.purchase_units[0]!.payments!.captures![0]!.id}`);
  });

  it('ORDER_NOT_APPROVED from the capture call (negative testing) leaves the payment pending', async () => {
    const mocked = paypalDefinition.create(
      { clientId: APP.clientId, clientSecret: APP.secret, webhookId: 'x', apiBase: pp.url },
      {
        now: deps.now,
        fetch: (url, init) =>
          fetch(
            url,
            String(url).endsWith('/capture')
              ? {
                  ...init,
                  headers: {
                    ...(init?.headers as Record<string, string>),
                    'paypal-mock-response': '{"mock_application_codes":"ORDER_NOT_APPROVED"}',
                  },
                }
              : init,
          ),
      },
    );
    const started = await mocked.start(input());
    const params = Object.fromEntries(new URL(pp.approve(orderId(started.ref))).searchParams);
    expect(await mocked.complete!(started.ref, '', params, key('nap'))).toEqual({ ref: started.ref, state: 'pending' });
    expect(pp.order(orderId(started.ref))!.status).toBe('APPROVED');
  });

  it('before the buyer approves, complete is still pending', async () => {
    const started = await adapter.start(input());
    const r = await adapter.complete!(started.ref, '', { token: orderId(started.ref) }, key('early'));
    expect(r).toEqual({ ref: started.ref, state: 'pending' });
  });

  it('a token that is not this order is refused', async () => {
    const started = await adapter.start(input());
    const e = await err(adapter.complete!(started.ref, '', { token: 'ABCDEFGHJKLMNPQRS', PayerID: 'X' }, key('x')));
    expect(e.code).toBe('TOKEN_MISMATCH');
  });

  it('a declined buyer (INSTRUMENT_DECLINED) fails the payment with that code', async () => {
    const started = await adapter.start(input());
    const params = Object.fromEntries(
      new URL(pp.approve(orderId(started.ref), { mock: 'INSTRUMENT_DECLINED' })).searchParams,
    );
    const r = await adapter.complete!(started.ref, '', params, key('declined'));
    expect(r).toEqual({ ref: started.ref, state: 'failed', failureCode: 'INSTRUMENT_DECLINED' });
    expect(pp.order(orderId(started.ref))!.purchase_units[0]!.payments).toBeUndefined();
  });

  it('PAYER_CANNOT_PAY is a failed payment too', async () => {
    const started = await adapter.start(input());
    const params = Object.fromEntries(
      new URL(pp.approve(orderId(started.ref), { mock: 'PAYER_CANNOT_PAY' })).searchParams,
    );
    expect(await adapter.complete!(started.ref, '', params, key('cannot'))).toMatchObject({
      state: 'failed',
      failureCode: 'PAYER_CANNOT_PAY',
    });
  });

  it('a currency PayPal does not take is refused before anything is created', async () => {
    const before = pp.requests.length;
    const e = await err(adapter.start(input({ amount: 12345, currency: 'TWD' })));
    expect(e.code).toBe('DECIMALS_NOT_SUPPORTED');
    expect(pp.requests.slice(before).some((r) => r.path === '/v2/checkout/orders')).toBe(false);
  });
});

describe('PayPal deposit hold (intent AUTHORIZE)', () => {
  it('authorises, captures less than held with final_capture, refunds from the capture', async () => {
    const held = await heldPayment(5000);
    expect(held).toMatchObject({ state: 'authorized', amount: 5000, currency: 'USD' });
    expect(held.ref).toMatch(/^auth:[A-Z0-9]{17}$/);
    const call = key('cap');
    const before = pp.requests.length;
    await adapter.capturePayment!(held.ref, 3000, call);
    const req = pp.requests.slice(before).find((r) => r.path.endsWith('/capture'))!;
    expect(req.path).toBe(`/v2/payments/authorizations/${idOf(held.ref)}/capture`);
    expect(req.requestId).toBe(call.idempotencyKey);
    expect(JSON.parse(req.body)).toEqual({ amount: { currency_code: 'USD', value: '30.00' }, final_capture: true });
    expect(pp.authorization(idOf(held.ref))!.status).toBe('CAPTURED');
    const after = await adapter.status(held.ref, '');
    expect(after).toMatchObject({ state: 'paid', amount: 3000 });
    expect(after.ref).toMatch(/^capture:/);
    // The same capture call again (a job re-run): one capture.
    await adapter.capturePayment!(held.ref, 3000, call);
    await adapter.capturePayment!(held.ref, 3000, key('other'));
    expect(pp.authorization(idOf(held.ref))!.status).toBe('CAPTURED');
    expect(
      pp.order(pp.authorization(idOf(held.ref))!.supplementary_data.related_ids.order_id)!.purchase_units[0]!.payments!
        .captures,
    ).toHaveLength(1);
    // Refund through the hold's ref finds its capture.
    await adapter.refundPayment(held.ref, 1000, key('r'));
    expect(pp.capture(idOf(after.ref))!.status).toBe('PARTIALLY_REFUNDED');
    expect((await err(adapter.refundPayment(after.ref, 2001, key('r2')))).code).toBe('REFUND_AMOUNT_EXCEEDED');
  });

  it('void releases the hold; capture after it is refused', async () => {
    const held = await heldPayment(4000);
    await adapter.voidPayment!(held.ref, key('void'));
    expect(pp.authorization(idOf(held.ref))!.status).toBe('VOIDED');
    expect(await adapter.status(held.ref, '')).toMatchObject({ ref: held.ref, state: 'cancelled' });
    await adapter.voidPayment!(held.ref, key('void-again')); // PREVIOUSLY_VOIDED: already released
    expect((await err(adapter.capturePayment!(held.ref, 100, key('cap')))).code).toBe('AUTHORIZATION_VOIDED');
  });

  it('capturing nothing releases the hold', async () => {
    const held = await heldPayment(4000);
    await adapter.capturePayment!(held.ref, 0, key('zero'));
    expect(pp.authorization(idOf(held.ref))!.status).toBe('VOIDED');
  });

  it('the order ref of a hold captures too', async () => {
    const started = await adapter.start(input({ amount: 2500, capture: 'manual' }));
    expect(JSON.parse(pp.requests.filter((r) => r.path === '/v2/checkout/orders').at(-1)!.body).intent).toBe(
      'AUTHORIZE',
    );
    if (started.action.kind !== 'redirect') throw new Error('not a redirect');
    const held = await adapter.complete!(started.ref, '', await buyerApproves(started.action.url), key('h'));
    await adapter.capturePayment!(started.ref, 2500, key('c'));
    expect(pp.authorization(idOf(held.ref))!.status).toBe('CAPTURED');
    expect(await adapter.status(started.ref, '')).toMatchObject({ state: 'paid', amount: 2500 });
  });

  it('a declined buyer fails the hold', async () => {
    const started = await adapter.start(input({ capture: 'manual' }));
    const params = Object.fromEntries(
      new URL(pp.approve(orderId(started.ref), { mock: 'INSTRUMENT_DECLINED' })).searchParams,
    );
    expect(await adapter.complete!(started.ref, '', params, key('d'))).toMatchObject({
      state: 'failed',
      failureCode: 'INSTRUMENT_DECLINED',
    });
  });
});

describe('PayPal OAuth and transport', () => {
  it('keeps the token until it expires and fetches a new one when PayPal no longer takes it', async () => {
    const a = paypalDefinition.create(
      { clientId: APP.clientId, clientSecret: APP.secret, webhookId: 'x', apiBase: pp.url },
      deps,
    );
    const tokens = () => pp.requests.filter((r) => r.path === '/v1/oauth2/token').length;
    const n0 = tokens();
    const s = await a.start(input());
    await a.status(s.ref, '');
    await a.status(s.ref, '');
    expect(tokens() - n0).toBe(1);
    advanceClock(32_400_000 - 120_000); // two minutes before expires_in: still the same token
    await a.status(s.ref, '');
    expect(tokens() - n0).toBe(1);
    advanceClock(90_000); // within the last minute: renewed
    await a.status(s.ref, '');
    expect(tokens() - n0).toBe(2);
    // Calls made together share one token request.
    const b = paypalDefinition.create(
      { clientId: APP.clientId, clientSecret: APP.secret, webhookId: 'x', apiBase: pp.url },
      deps,
    );
    const n1 = tokens();
    await Promise.all([b.status(s.ref, ''), b.status(s.ref, ''), b.status(s.ref, '')]);
    expect(tokens() - n1).toBe(1);
    const n2 = tokens();
    pp.revokeTokens();
    expect(await a.status(s.ref, '')).toMatchObject({ state: 'pending' });
    expect(tokens() - n2).toBe(1);
  });

  it("wrong credentials are PayPal's invalid_client", async () => {
    const a = paypalDefinition.create(
      { clientId: APP.clientId, clientSecret: 'wrong', webhookId: 'x', apiBase: pp.url },
      deps,
    );
    const e = await err(a.start(input()));
    expect(e.code).toBe('invalid_client');
    expect(e.status).toBe(401);
  });

  it("another app's order is not found", async () => {
    const other = paypalDefinition.create(
      { clientId: OTHER.clientId, clientSecret: OTHER.secret, webhookId: 'x', apiBase: pp.url },
      deps,
    );
    const s = await adapter.start(input());
    const e = await err(other.status(s.ref, ''));
    expect(e.code).toBe('INVALID_RESOURCE_ID');
    expect(e.status).toBe(404);
  });

  it('a network failure is ProviderError network', async () => {
    const down = paypalDefinition.create(
      { clientId: APP.clientId, clientSecret: APP.secret, webhookId: 'x', apiBase: 'http://127.0.0.1:1' },
      deps,
    );
    expect((await err(down.start(input()))).code).toBe('network');
    const s = await adapter.start(input());
    pp.dropNext = 1;
    expect((await err(adapter.status(s.ref, ''))).code).toBe('network');
  });

  it("defaults to PayPal's live host", async () => {
    const seen: string[] = [];
    const a = paypalDefinition.create(
      { clientId: 'c', clientSecret: 's', webhookId: 'w' },
      {
        now: deps.now,
        fetch: async (url) => {
          seen.push(String(url));
          throw new TypeError('offline');
        },
      },
    );
    await err(a.start(input()));
    expect(seen).toEqual(['https://api-m.paypal.com/v1/oauth2/token']);
  });

  it('declares what the method is', () => {
    expect(paypalDefinition).toMatchObject({
      id: 'paypal',
      payTypes: [{ type: 'paypal', kind: 'redirect', label: 'PayPal' }],
      capabilities: { hold: true, partialCapture: true, offSession: false, refund: true, payout: true, webhook: true },
      required: ['clientId', 'clientSecret', 'webhookId'],
      optional: ['apiBase'],
    });
    expect(paypalDefinition.currencies).toEqual(expect.arrayContaining(['USD', 'EUR', 'GBP', 'AUD', 'CAD', 'JPY']));
  });
});
