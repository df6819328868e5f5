// Wi-Fi packages and box deposits paid with a card whose bank asks for 3-D Secure (the Stripe adapter against the
// test tree's Stripe server): the answer `action`, the resume only by its payer, paid once; the box deposit a hold
// released when the unused package is cancelled; the guard cancelling a challenge never finished.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { build, touristToken, type Built } from './helper.ts';
import { checkLedger } from '../src/modules/wallet/reconcile.ts';
import { FakeStripe } from './stripe/fake-stripe.ts';
import { calls, type Pkg } from './mifi-methods-helpers.ts';

describe("3-D Secure (the Stripe adapter against the test tree's Stripe server)", () => {
  const SK = 'sk_test_platform';
  const CARD = 'stripe:STRIPE_CARD';
  let fake: FakeStripe;
  let b: Built;
  let c: ReturnType<typeof calls>;
  beforeAll(async () => {
    fake = await new FakeStripe([SK]).start();
    b = await build({
      simulator: false,
      stripe: {
        account: { secretKey: SK, publishableKey: 'pk_test_platform', webhookSecret: 'whsec_platform' },
        agents: {},
        transport: fake.transport(),
      },
    });
    fake.now = () => Math.floor(b.clock.now().getTime() / 1000);
    c = calls(b);
  }, 60_000);
  afterAll(async () => {
    await b?.close();
    await fake?.stop();
  });
  const pi = (id: string) => fake.get(`${SK}|`, id) as Record<string, unknown>;

  it('a package paid with a card that needs 3-D Secure: action, refused to another user, resumed after the challenge, paid once', async () => {
    const token = await touristToken(b.app);
    const first = await c.rent(token, {
      paymentId: CARD,
      stripeToken: 'pm_card_authenticationRequired',
      orderSubmit: await c.orderSubmit(token),
    });
    expect(first.code, first.msg).toBe(0);
    expect(first.data).toMatchObject({
      orderStatus: 33,
      action: { clientSecret: expect.stringMatching(/_secret_/), paymentIntent: expect.stringMatching(/^pi_/) },
    });
    const ref = first.data.action!.paymentIntent;
    expect(pi(ref)).toMatchObject({
      status: 'requires_action',
      amount: 500,
      currency: 'eur',
      capture_method: 'automatic',
    });
    const other = await touristToken(b.app);
    expect((await c.rent(other, { paymentId: CARD, paymentIntent: ref })).status).toBe(422);
    // Before the challenge is done: the action again.
    expect((await c.rent(token, { paymentId: CARD, paymentIntent: ref })).data.action?.paymentIntent).toBe(ref);
    fake.complete3ds(SK, ref);
    const done = await c.rent(token, { paymentId: CARD, paymentIntent: ref });
    expect(done.data).toMatchObject({ orderId: first.data.orderId, orderStatus: 0 });
    expect((await c.rent(token, { paymentId: CARD, paymentIntent: ref })).data).toMatchObject({ orderStatus: 0 });
    expect(pi(ref)).toMatchObject({ status: 'succeeded', amount_received: 500 });
    expect(await c.payments(first.data.buyOrderNo)).toEqual([
      expect.objectContaining({ purpose: 'mifi', status: 'captured', amount: 500, provider_ref: ref }),
    ]);
    expect(await checkLedger(b.db)).toEqual([]);
  });

  it('the box deposit with 3-D Secure is a hold (manual capture), released when the unused package is cancelled; the package is refunded, not the deposit', async () => {
    const token = await touristToken(b.app);
    const order = await c.rent(token, {
      paymentId: CARD,
      stripeToken: 'pm_card_visa',
      orderSubmit: await c.orderSubmit(token),
    });
    expect(order.data.orderStatus).toBe(0);
    const started = await c.deposit(token, {
      mifiOrderId: order.data.orderId,
      paymentId: CARD,
      stripeToken: 'pm_card_authenticationRequired',
    });
    const ref = started.data.action!.paymentIntent;
    expect(pi(ref)).toMatchObject({ status: 'requires_action', capture_method: 'manual', amount: 5000 });
    fake.complete3ds(SK, ref);
    const done = await c.deposit(token, { mifiOrderId: order.data.orderId, paymentId: CARD, paymentIntent: ref });
    expect(done.data).toMatchObject({ deviceOrderStatus: 5 });
    expect(pi(ref)).toMatchObject({ status: 'requires_capture', amount_capturable: 5000 });
    expect(
      (await c.post<Pkg>(token, 'chargenow/mifi/cancel', { mifiOrderId: order.data.orderId })).data.packageStatus,
    ).toBe(3);
    await b.app.powerly.jobs.runDue();
    expect(pi(ref).status).toBe('canceled');
    const pays = await c.payments(order.data.buyOrderNo);
    expect(pays.map((p) => [p.purpose, p.status])).toEqual([
      ['mifi', 'refunded'],
      ['mifi_deposit_hold', 'voided'],
    ]);
    expect((await c.pkg(token, order.data.orderId)).packageStatus).toBe(4);
    expect(await checkLedger(b.db)).toEqual([]);
  });

  it('a challenge never finished: the guard cancels the PaymentIntent after the timeout', async () => {
    const token = await touristToken(b.app);
    const first = await c.rent(token, {
      paymentId: CARD,
      stripeToken: 'pm_card_authenticationRequired',
      orderSubmit: await c.orderSubmit(token),
    });
    const ref = first.data.action!.paymentIntent;
    b.clock.advance(31 * 60_000);
    await b.app.powerly.jobs.runDue();
    expect(pi(ref).status).toBe('canceled');
    expect(await c.payments(first.data.buyOrderNo)).toEqual([
      expect.objectContaining({ status: 'declined', failure_code: 'abandoned' }),
    ]);
    const late = await c.rent(token, { paymentId: CARD, paymentIntent: ref });
    expect(late.status).toBe(422);
    expect(late.msg).toMatch(/^This payment was not finished in time/);
  });
});
