// The PayPal adapter against the PayPal test server (test/providers/paypal.ts): Payments v2 refunds, Payouts, and
// webhook verification and reading (checkout, holds and OAuth: paypal.test.ts; the fixtures: paypal-helpers.ts).
import { describe, expect, it } from 'vitest';
import {
  APP,
  OTHER,
  adapter,
  buyerApproves,
  err,
  heldPayment,
  idOf,
  input,
  key,
  orderId,
  paidPayment,
  pp,
  usePaypal,
} from './paypal-helpers.ts';

usePaypal();

describe('PayPal refunds', () => {
  it('refunds part of a capture, refuses more than is left', async () => {
    const paid = await paidPayment(2000);
    await adapter.refundPayment(paid.ref, 500, key('r1'));
    expect(pp.capture(idOf(paid.ref))!.status).toBe('PARTIALLY_REFUNDED');
    const over = await err(adapter.refundPayment(paid.ref, 1600, key('r2')));
    expect(over.code).toBe('REFUND_AMOUNT_EXCEEDED');
    expect(over.status).toBe(422);
    await adapter.refundPayment(paid.ref, 1500, key('r3'));
    expect(pp.capture(idOf(paid.ref))!.status).toBe('REFUNDED');
    expect((await err(adapter.refundPayment(paid.ref, 1, key('r4')))).code).toBe('CAPTURE_FULLY_REFUNDED');
    expect(pp.refundsOf(idOf(paid.ref)).map((r) => r.amount.value)).toEqual(['5.00', '15.00']);
  });

  it('a retried refund with the same key refunds once', async () => {
    const paid = await paidPayment(2000);
    const call = key('refund');
    await adapter.refundPayment(paid.ref, 700, call);
    await adapter.refundPayment(paid.ref, 700, call);
    expect(pp.refundsOf(idOf(paid.ref))).toHaveLength(1);
  });

  it('refunds through the order ref too', async () => {
    const started = await adapter.start(input({ amount: 900 }));
    if (started.action.kind !== 'redirect') throw new Error('not a redirect');
    const done = await adapter.complete!(started.ref, '', await buyerApproves(started.action.url), key('p'));
    await adapter.refundPayment(started.ref, 900, key('r'));
    expect(pp.capture(idOf(done.ref))!.status).toBe('REFUNDED');
  });
});

describe('PayPal payouts', () => {
  it('pays out to an email; a retry with the same key is the same batch', async () => {
    const call = {
      amount: 2599,
      currency: 'USD',
      destination: {
        kind: 'channel' as const,
        channel: 'paypal',
        account: { email: 'payouts-simulator-receiver@paypal.com' },
      },
      idempotencyKey: `po-${Math.random()}`,
    };
    const before = pp.requests.length;
    const { ref } = await adapter.payout!(call);
    expect(ref).toMatch(/^payout:/);
    const batch = pp.payoutBatch(idOf(ref))!;
    expect(batch.batch_header).toMatchObject({
      batch_status: 'PENDING',
      sender_batch_header: { sender_batch_id: call.idempotencyKey },
    });
    expect(batch.items[0]!.payout_item).toMatchObject({
      recipient_type: 'EMAIL',
      receiver: 'payouts-simulator-receiver@paypal.com',
      amount: { value: '25.99', currency: 'USD' },
    });
    expect((await adapter.payout!(call)).ref).toBe(ref);
    // Once PayPal has forgotten the PayPal-Request-Id: the sender_batch_id is refused (USER_BUSINESS_ERROR) with a
    // link to the original batch, which is the answer.
    pp.forgetRequestIds();
    expect((await adapter.payout!(call)).ref).toBe(ref);
    const tries = pp.requests.slice(before).filter((r) => r.path === '/v1/payments/payouts');
    expect(tries).toHaveLength(3);
    expect(tries.every((r) => r.requestId === call.idempotencyKey)).toBe(true);
  });

  it('a phone payee is sent in E.164 form, a PayPal id as PAYPAL_ID', async () => {
    const a = await adapter.payout!({
      amount: 500,
      currency: 'EUR',
      destination: { kind: 'channel', channel: 'paypal', account: { phone: '4915112345678' } },
      idempotencyKey: `po-${Math.random()}`,
    });
    expect(pp.payoutBatch(idOf(a.ref))!.items[0]!.payout_item).toMatchObject({
      recipient_type: 'PHONE',
      receiver: '+4915112345678',
      amount: { value: '5.00', currency: 'EUR' },
    });
    const b = await adapter.payout!({
      amount: 500,
      currency: 'EUR',
      destination: { kind: 'channel', channel: 'paypal', account: { paypalId: 'QYR5Z8XDVJNXQ' } },
      idempotencyKey: `po-${Math.random()}`,
    });
    expect(pp.payoutBatch(idOf(b.ref))!.items[0]!.payout_item).toMatchObject({
      recipient_type: 'PAYPAL_ID',
      receiver: 'QYR5Z8XDVJNXQ',
    });
  });

  it('insufficient funds (Payouts test value ERRPYO005) and a missing payee are errors', async () => {
    const e = await err(
      adapter.payout!({
        amount: 500,
        currency: 'USD',
        destination: {
          kind: 'channel',
          channel: 'paypal',
          account: { email: 'payouts-simulator-receiver@paypal.com', note: 'ERRPYO005' },
        },
        idempotencyKey: `po-${Math.random()}`,
      }),
    );
    expect(e.code).toBe('INSUFFICIENT_FUNDS');
    expect(e.status).toBe(422);
    expect(
      (
        await err(
          adapter.payout!({
            amount: 500,
            currency: 'USD',
            destination: { kind: 'channel', channel: 'paypal', account: {} },
            idempotencyKey: 'k',
          }),
        )
      ).code,
    ).toBe('INVALID_RECEIVER');
    expect(
      (
        await err(
          adapter.payout!({
            amount: 500,
            currency: 'USD',
            destination: { kind: 'card_refund', paymentRef: 'x' },
            idempotencyKey: 'k',
          }),
        )
      ).code,
    ).toBe('unsupported');
  });

  it('the payout item webhooks say paid or failed', async () => {
    const a = await adapter.payout!({
      amount: 100,
      currency: 'USD',
      destination: { kind: 'channel', channel: 'paypal', account: { email: 'a@example.com' } },
      idempotencyKey: `po-${Math.random()}`,
    });
    const ok = await adapter.readNotification(asRequest(pp.settlePayout(idOf(a.ref), 'SUCCESS', APP.webhookIds[0]!)));
    expect(ok).toMatchObject({ ref: a.ref, state: 'paid', amount: 100, currency: 'USD' });
    expect(await adapter.status(a.ref, '')).toMatchObject({ state: 'paid' });
    const b = await adapter.payout!({
      amount: 100,
      currency: 'USD',
      destination: { kind: 'channel', channel: 'paypal', account: { email: 'b@example.com' } },
      idempotencyKey: `po-${Math.random()}`,
    });
    expect(await adapter.status(b.ref, '')).toMatchObject({ state: 'pending', amount: 100 });
    const failed = await adapter.readNotification(
      asRequest(pp.settlePayout(idOf(b.ref), 'FAILED', APP.webhookIds[0]!)),
    );
    expect(failed).toMatchObject({ ref: b.ref, state: 'failed', failureCode: 'RECEIVER_UNREGISTERED' });
    // The batch is SUCCESS (processed) but its item failed: status follows the item.
    expect(pp.payoutBatch(idOf(b.ref))!.batch_header.batch_status).toBe('SUCCESS');
    expect(await adapter.status(b.ref, '')).toMatchObject({ state: 'failed', failureCode: 'RECEIVER_UNREGISTERED' });
    const c = await adapter.payout!({
      amount: 100,
      currency: 'USD',
      destination: { kind: 'channel', channel: 'paypal', account: { email: 'c@example.com' } },
      idempotencyKey: `po-${Math.random()}`,
    });
    expect(
      await adapter.readNotification(asRequest(pp.settlePayout(idOf(c.ref), 'UNCLAIMED', APP.webhookIds[0]!))),
    ).toMatchObject({ ref: c.ref, state: 'pending' });
    expect(await adapter.status(c.ref, '')).toMatchObject({ state: 'pending' }); // the payee has 30 days to claim it
  });
});

function asRequest(d: { rawBody: string; headers: Record<string, string> }) {
  return { headers: d.headers, rawBody: d.rawBody, query: {} };
}

describe('PayPal webhooks', () => {
  it('a genuine delivery verifies (through verify-webhook-signature) and reads the capture', async () => {
    const paid = await paidPayment(1250);
    const capture = pp.capture(idOf(paid.ref))!;
    const delivery = pp.webhook('PAYMENT.CAPTURE.COMPLETED', capture, APP.webhookIds[0]!);
    const before = pp.requests.length;
    const n = await adapter.readNotification(asRequest(delivery));
    expect(n).toEqual({
      eventId: JSON.parse(delivery.rawBody).id,
      ref: paid.ref,
      outTradeNo: capture.custom_id,
      state: 'paid',
      amount: 1250,
      currency: 'USD',
      ack: { status: 200, contentType: 'text/plain', body: '' },
    });
    const verifyCall = pp.requests.slice(before).find((r) => r.path === '/v1/notifications/verify-webhook-signature')!;
    expect(JSON.parse(verifyCall.body)).toMatchObject({
      auth_algo: 'SHA256withRSA',
      webhook_id: APP.webhookIds[0],
      transmission_id: delivery.headers['paypal-transmission-id'],
      transmission_sig: delivery.headers['paypal-transmission-sig'],
      transmission_time: delivery.headers['paypal-transmission-time'],
      cert_url: delivery.headers['paypal-cert-url'],
    });
    // A redelivery: a new transmission of the same event → the same eventId.
    const again = await adapter.readNotification(asRequest(pp.redeliver(delivery, APP.webhookIds[0]!)));
    expect(again?.eventId).toBe(n!.eventId);
    // Header names in any case (Node lower-cases them; a proxy may not).
    const upper = Object.fromEntries(Object.entries(delivery.headers).map(([k, v]) => [k.toUpperCase(), v]));
    expect((await adapter.readNotification({ headers: upper, rawBody: delivery.rawBody, query: {} }))?.eventId).toBe(
      n!.eventId,
    );
  });

  it('the event goes back byte for byte (a body PayPal formatted differently still verifies)', async () => {
    const paid = await paidPayment(1250);
    const pretty = JSON.stringify(
      {
        id: 'WH-PRETTY-1',
        event_type: 'PAYMENT.CAPTURE.COMPLETED',
        resource: { ...pp.capture(idOf(paid.ref))!, fee: 1.1 },
      },
      null,
      2,
    ).replace('"fee": 1.1', '"fee": 1.10');
    const n = await adapter.readNotification(
      asRequest(pp.webhook('PAYMENT.CAPTURE.COMPLETED', {}, APP.webhookIds[0]!, { raw: pretty })),
    );
    expect(n).toMatchObject({ eventId: 'WH-PRETTY-1', state: 'paid' });
  });

  it("a tampered body, another webhook's signature, a forged signature or missing headers are refused", async () => {
    const paid = await paidPayment(1250);
    const capture = pp.capture(idOf(paid.ref))!;
    const delivery = pp.webhook('PAYMENT.CAPTURE.COMPLETED', capture, APP.webhookIds[0]!);
    const tampered = delivery.rawBody.replace('"value":"12.50"', '"value":"1250.00"');
    expect(tampered).not.toBe(delivery.rawBody);
    expect(await adapter.readNotification({ headers: delivery.headers, rawBody: tampered, query: {} })).toBeNull();
    // Signed for another app's webhook.
    expect(
      await adapter.readNotification(asRequest(pp.webhook('PAYMENT.CAPTURE.COMPLETED', capture, OTHER.webhookIds[0]!))),
    ).toBeNull();
    // A signature from another delivery.
    const other = pp.webhook('PAYMENT.CAPTURE.COMPLETED', capture, APP.webhookIds[0]!);
    expect(
      await adapter.readNotification({
        headers: { ...delivery.headers, 'paypal-transmission-sig': other.headers['paypal-transmission-sig']! },
        rawBody: delivery.rawBody,
        query: {},
      }),
    ).toBeNull();
    // A certificate that is not PayPal's.
    expect(
      await adapter.readNotification({
        headers: { ...delivery.headers, 'paypal-cert-url': 'https://evil.example/cert.pem' },
        rawBody: delivery.rawBody,
        query: {},
      }),
    ).toBeNull();
    // No transmission headers at all: refused without asking PayPal.
    const before = pp.requests.length;
    expect(
      await adapter.readNotification({
        headers: { 'content-type': 'application/json' },
        rawBody: delivery.rawBody,
        query: {},
      }),
    ).toBeNull();
    expect(pp.requests.length).toBe(before);
  });

  it('reads holds, voids, refunds and approvals', async () => {
    const wh = APP.webhookIds[0]!;
    const held = await heldPayment(3000);
    const auth = pp.authorization(idOf(held.ref))!;
    expect(
      await adapter.readNotification(asRequest(pp.webhook('PAYMENT.AUTHORIZATION.CREATED', auth, wh))),
    ).toMatchObject({ ref: held.ref, outTradeNo: auth.custom_id, state: 'authorized', amount: 3000 });
    await adapter.voidPayment!(held.ref, key('v'));
    expect(
      await adapter.readNotification(
        asRequest(pp.webhook('PAYMENT.AUTHORIZATION.VOIDED', pp.authorization(idOf(held.ref))!, wh)),
      ),
    ).toMatchObject({ ref: held.ref, state: 'cancelled' });

    const paid = await paidPayment(1000);
    await adapter.refundPayment(paid.ref, 400, key('r'));
    const refund = pp.refundsOf(idOf(paid.ref))[0]!;
    expect(await adapter.readNotification(asRequest(pp.webhook('PAYMENT.CAPTURE.REFUNDED', refund, wh)))).toMatchObject(
      { ref: paid.ref, amount: 400 },
    );

    const denied = await adapter.readNotification(
      asRequest(pp.webhook('PAYMENT.CAPTURE.DENIED', { ...pp.capture(idOf(paid.ref))!, status: 'DECLINED' }, wh)),
    );
    expect(denied).toMatchObject({ ref: paid.ref, state: 'failed' });

    const started = await adapter.start(input({ amount: 700 }));
    pp.approve(orderId(started.ref));
    const approved = await adapter.readNotification(
      asRequest(pp.webhook('CHECKOUT.ORDER.APPROVED', pp.order(orderId(started.ref))!, wh)),
    );
    expect(approved).toMatchObject({
      ref: started.ref,
      state: 'pending',
      amount: 700,
      outTradeNo: expect.stringMatching(/^PW/),
    });
  });
});
