// The real Stripe adapter (official SDK) against the Stripe-compatible test server in server/test/stripe/, beyond
// the deposit hold (stripe.test.ts): webhooks (signature, replay, out of order), per-agent accounts, wallet top-ups
// (3-D Secure, iDEAL, WeChat Pay), saved cards, refunds to the card, lost responses. The cabinets are the simulator
// over the real broker.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { touristToken, type Built } from './helper.ts';
import { AGENT_SK, API, CARD, SK, WH, startStripe, stripeCalls } from './stripe-helpers.ts';
import type { FakeStripe } from './stripe/fake-stripe.ts';

let fake: FakeStripe;
let b: Built;

beforeAll(async () => {
  ({ fake, b } = await startStripe());
}, 60_000);
afterAll(async () => {
  await b?.close();
  await fake?.stop();
});

const { get, rent, untilOut, payment, pi, rentOut } = stripeCalls(() => ({ b, fake }));

describe('Stripe webhooks', () => {
  const hook = (payload: string, header: string, provider = 'stripe') =>
    b.app.inject({
      method: 'POST',
      url: `/webhooks/payments/${provider}`,
      headers: { 'content-type': 'application/json', 'stripe-signature': header },
      payload,
    });

  it('verified with the signing secret, applied once per event id, forward only when out of order', async () => {
    const token = await touristToken(b.app);
    const { tradeNo } = await rentOut(token);
    const [p] = await payment(tradeNo);
    const bad = fake.event('payment_intent.canceled', pi(p!.provider_ref), 'whsec_wrong');
    expect((await hook(bad.payload, bad.header)).statusCode).toBe(400);
    // An old "requires_capture" event delivered after the newer "canceled" one changes nothing.
    fake.expireHold(SK, p!.provider_ref);
    const canceled = fake.event('payment_intent.canceled', pi(p!.provider_ref), WH);
    expect((await hook(canceled.payload, canceled.header)).json()).toEqual({ received: true, result: 'applied' });
    expect((await hook(canceled.payload, canceled.header)).json()).toEqual({ received: true, result: 'duplicate' });
    const stale = fake.event(
      'payment_intent.amount_capturable_updated',
      { ...pi(p!.provider_ref), status: 'requires_capture' },
      WH,
    );
    expect((await hook(stale.payload, stale.header)).json()).toEqual({ received: true, result: 'ignored' });
    expect((await payment(tradeNo))[0]!.status).toBe('voided');
    // An agent's account signs with its own secret: the platform secret does not verify there.
    const wrongAccount = fake.event('payment_intent.canceled', pi(p!.provider_ref), WH);
    expect((await hook(wrongAccount.payload, wrongAccount.header, 'stripe.go9')).statusCode).toBe(400);
  });
});

describe('Stripe: agents (agentOpenId)', () => {
  it("an agent with its own account gets its own key and methods; another agent's method is refused; unknown agents are 404", async () => {
    const token = await touristToken(b.app);
    const m = (await get('cdb/payment/method/list?qrcode=PWL-VNO-001', token, { agentOpenId: 'go9' })).json().data as {
      pId: string;
      publicKey: string;
    }[];
    expect(m[0]).toMatchObject({ pId: 'stripe.go9:STRIPE_CARD', publicKey: 'pk_test_agent_go9' });
    // 'other' has no own account: the platform's.
    const o = (await get('cdb/payment/method/list?qrcode=PWL-VNO-001', token, { agentOpenId: 'other' })).json()
      .data as { pId: string }[];
    expect(o[0]!.pId).toBe(CARD);
    const unknown = await get('cdb/payment/method/list?qrcode=PWL-VNO-001', token, {
      agentOpenId: 'nobody',
      lang: 'pt-PT',
    });
    expect(unknown.statusCode).toBe(404);
    // The platform's method under the agent: refused, nothing at Stripe.
    const before = fake.requests.length;
    const res = await rent(
      token,
      { qrcode: 'PWL-VNO-001', stripeToken: 'pm_card_visa', paymentId: CARD },
      { agentOpenId: 'go9' },
    );
    expect(res.statusCode).toBe(400);
    expect(fake.requests.length).toBe(before);
    // The agent's method goes to the agent's account.
    const ok = await rent(
      token,
      { qrcode: 'PWL-VNO-001', stripeToken: 'pm_card_visa', paymentId: 'stripe.go9:STRIPE_CARD' },
      { agentOpenId: 'go9' },
    );
    const tradeNo = ok.json().data.outTradeNo;
    await untilOut(token, tradeNo);
    const [p] = await payment(tradeNo);
    expect(pi(p!.provider_ref, AGENT_SK)).toMatchObject({ status: 'requires_capture' });
    expect(fake.get(`${SK}|`, p!.provider_ref)).toBeUndefined();
  });
});

describe('Stripe: wallet top-ups (CZ), saved cards, refunds to the card', () => {
  let n = 0;
  const post = (url: string, token: string, body: Record<string, string>, headers: Record<string, string> = {}) =>
    b.app.inject({
      method: 'POST',
      url: `${API}/${url}`,
      headers: { token, 'idempotency-key': `k-${n++}-${Date.now()}`, ...headers },
      payload: body,
    });
  const balance = async (token: string) =>
    ((await get('cdb/user/wallet/new', token)).json().data as { pCurrencyType: string; pBalance: number }[]).find(
      (w) => w.pCurrencyType === 'EUR',
    )?.pBalance ?? 0;

  it('a top-up is charged at once (automatic capture); 3-D Secure answers action and the finished payment is credited once', async () => {
    const token = await touristToken(b.app);
    const r = await post('cdb/payment/multicurrency/recharge', token, {
      amount: '10',
      currency: 'EUR',
      paymentId: CARD,
      stripeToken: 'pm_card_visa',
    });
    expect(r.json()).toMatchObject({ code: 0, data: { pBalance: 10 } });
    const a = await post('cdb/payment/multicurrency/recharge', token, {
      amount: '5',
      currency: 'EUR',
      paymentId: CARD,
      stripeToken: 'pm_card_authenticationRequired',
    });
    const ref: string = a.json().data.action.paymentIntent;
    expect(await balance(token)).toBe(10);
    fake.complete3ds(SK, ref);
    const resumed = { amount: '5', currency: 'EUR', paymentId: CARD, paymentIntent: ref };
    expect((await post('cdb/payment/multicurrency/recharge', token, resumed)).json()).toMatchObject({
      code: 0,
      data: { pBalance: 15 },
    });
    // Resumed again (a new request key): the same charge is not credited twice.
    expect((await post('cdb/payment/multicurrency/recharge', token, resumed)).json()).toMatchObject({
      code: 0,
      data: { pBalance: 15 },
    });
    // A different amount than the payment's: refused (started for something else), nothing credited.
    expect((await post('cdb/payment/multicurrency/recharge', token, { ...resumed, amount: '50' })).statusCode).toBe(
      409,
    );
    expect(await balance(token)).toBe(15);
  });

  it('saves a card with a SetupIntent, tops up with it, refuses it for another agent, and removes it at Stripe', async () => {
    const token = await touristToken(b.app);
    const setup = (await post('cdb/user/card/save?paymentId=stripe:STRIPE_CARD&currency=EUR', token, {})).json().data;
    expect(setup).toMatchObject({
      paymentId: expect.stringMatching(/^seti_/),
      clientSecret: expect.stringMatching(/_secret_/),
    });
    const saved = await post('cdb/user/card/confirm', token, {
      paymentId: setup.paymentId,
      paymentMethod: 'pm_card_visa',
      clientSecret: setup.clientSecret,
    });
    const cardId: string = saved.json().data.pId;
    const cards = (await get('cdb/user/card', token)).json().data;
    expect(cards).toEqual([
      expect.objectContaining({ pId: cardId, pCardnumber: '**** **** **** 4242', brand: 'visa' }),
    ]);
    const ref = (
      await b.db.query<{ payment_method_ref: string }>('select payment_method_ref from saved_cards where id = $1', [
        cardId,
      ])
    ).rows[0]!.payment_method_ref;
    expect((fake.get(`${SK}|`, ref) as unknown as { customer: string }).customer).toMatch(/^cus_/);
    expect(
      (
        await post('cdb/payment/multicurrency/recharge', token, {
          amount: '7',
          currency: 'EUR',
          paymentId: CARD,
          cardId,
        })
      ).json(),
    ).toMatchObject({ code: 0, data: { pBalance: 7 } });
    // The card belongs to the platform's account: not usable under agent go9, nothing charged.
    const before = fake.requests.length;
    const other = await post('cdb/payment/multicurrency/recharge', token, {
      amount: '7',
      currency: 'EUR',
      agentId: 'go9',
      paymentId: 'stripe.go9:STRIPE_CARD',
      cardId,
    });
    expect(other.statusCode).toBe(404);
    expect(fake.requests.length).toBe(before);
    // Removal detaches it at Stripe.
    expect((await get(`cdb/user/card/remove/${cardId}`, token)).json()).toMatchObject({ code: 0 });
    expect((fake.get(`${SK}|`, ref) as unknown as { customer: string | null }).customer).toBeNull();
  });

  it('a withdrawal to the card is a Stripe refund of the top-up; the hold is posted with it', async () => {
    const token = await touristToken(b.app);
    await post('cdb/payment/multicurrency/recharge', token, {
      amount: '20',
      currency: 'EUR',
      paymentId: CARD,
      stripeToken: 'pm_card_visa',
    });
    const r = await post('cdb/mine/tixian/create', token, {
      refundType: '0',
      amount: '12',
      currency: 'EUR',
      autoAudit: '1',
      amountType: 'balance',
    });
    expect(r.json()).toMatchObject({ code: 0, data: { pBalance: 8 } });
    const id: string = r.json().data.tixianOrderId;
    expect((await b.app.powerly.wallet.findWithdrawal(id))?.status).toBe('paid');
    const { rows } = await b.db.query<{ provider_ref: string; refunded_amount: string }>(
      `select provider_ref, refunded_amount from payments where purpose = 'wallet_topup' and user_id = (select user_id from withdrawals where id = $1)`,
      [id],
    );
    expect(Number(rows[0]!.refunded_amount)).toBe(1200);
    const charge = fake.get(`${SK}|`, String(pi(rows[0]!.provider_ref).latest_charge)) as unknown as {
      amount_refunded: number;
    };
    expect(charge.amount_refunded).toBe(1200);
    const refunds = fake.requests.filter((q) => q.path === '/v1/refunds');
    expect(refunds.at(-1)!.idempotencyKey).toBe(`wd_${id}`);
  });
});

describe('Stripe: saved card to rent, cards of others, lost responses', () => {
  const post = (url: string, token: string, body: Record<string, string>, headers: Record<string, string> = {}) =>
    b.app.inject({ method: 'POST', url: `${API}/${url}`, headers: { token, ...headers }, payload: body });

  async function saveCard(token: string) {
    const setup = (await post('cdb/user/card/save?paymentId=stripe:STRIPE_CARD&currency=EUR', token, {})).json().data;
    const saved = await post(
      'cdb/user/card/confirm',
      token,
      { paymentId: setup.paymentId, paymentMethod: 'pm_card_visa', clientSecret: setup.clientSecret },
      { 'idempotency-key': `save-${setup.paymentId}` },
    );
    return saved.json().data.pId as string;
  }

  it("rents with a saved card (savedCardToRent); another user's card is not found and nothing reaches Stripe", async () => {
    const alice = await touristToken(b.app);
    const bob = await touristToken(b.app);
    const cardId = await saveCard(alice);
    const before = fake.requests.length;
    const stolen = await post('cdb/cabinet/savedCardToRent', bob, { qrcode: 'PWL-VNO-001', cardId, paymentId: CARD });
    expect(stolen.statusCode).toBe(404);
    expect(fake.requests.length).toBe(before);
    const res = await post('cdb/cabinet/savedCardToRent', alice, { qrcode: 'PWL-VNO-001', cardId, paymentId: CARD });
    const tradeNo: string = res.json().data.outTradeNo;
    await untilOut(alice, tradeNo);
    const [p] = await payment(tradeNo);
    expect(pi(p!.provider_ref)).toMatchObject({ status: 'requires_capture', customer: expect.stringMatching(/^cus_/) });
  });

  it('a response lost on the wire: the SDK retries with the same idempotency key and Stripe replays it (one hold)', async () => {
    const token = await touristToken(b.app);
    const before = fake.requests.length;
    fake.dropNext = 1;
    // Another cabinet: the earlier rentals of this file hold Vilnius's power banks.
    const res = await rent(token, { qrcode: 'PWL-LIS-001', stripeToken: 'pm_card_visa', paymentId: CARD });
    const tradeNo: string = res.json().data.outTradeNo;
    await untilOut(token, tradeNo);
    const keys = fake.requests
      .slice(before)
      .filter((r) => r.method === 'POST')
      .map((r) => r.idempotencyKey);
    // Exactly one request was sent twice, with the same key; Stripe's objects were made once.
    expect(keys.length - new Set(keys).size).toBe(1);
    const [p] = await payment(tradeNo);
    const customer = String(pi(p!.provider_ref).customer);
    const customers = [
      ...new Set(
        fake.requests
          .slice(before)
          .filter((r) => r.path === '/v1/customers')
          .map((r) => r.idempotencyKey),
      ),
    ];
    expect(customers).toHaveLength(1);
    expect(customer).toMatch(/^cus_/);
    expect((await payment(tradeNo)).map((x) => x.provider_ref)).toHaveLength(1);
  });

  it('bad input: an unknown method or a foreign currency amount moves no money, in the user language', async () => {
    const token = await touristToken(b.app);
    const before = fake.requests.length;
    const unknown = await rent(
      token,
      { qrcode: 'PWL-VNO-001', stripeToken: 'pm_card_visa', paymentId: 'stripe:PAYPAL' },
      { lang: 'lt-LT' },
    );
    expect(unknown.statusCode).toBe(400);
    const topUp = await post(
      'cdb/payment/multicurrency/recharge',
      token,
      { amount: '10.005', currency: 'EUR', paymentId: CARD, stripeToken: 'pm_card_visa' },
      { 'idempotency-key': 'bad-amount' },
    );
    expect(topUp.statusCode).toBe(400);
    const currency = await post(
      'cdb/payment/multicurrency/recharge',
      token,
      { amount: '10', currency: 'XXX', paymentId: CARD, stripeToken: 'pm_card_visa' },
      { 'idempotency-key': 'bad-cur' },
    );
    expect(currency.statusCode).toBeGreaterThanOrEqual(400);
    expect(currency.statusCode).toBeLessThan(500);
    expect(fake.requests.length).toBe(before);
  });
});

describe('Stripe: iDEAL and WeChat Pay (redirect / QR)', () => {
  const post = (url: string, token: string, body: Record<string, string>) =>
    b.app.inject({
      method: 'POST',
      url: `${API}/${url}`,
      headers: { token, 'idempotency-key': `r-${Math.random()}` },
      payload: body,
    });

  it('a top-up with iDEAL redirects to the bank and back; WeChat Pay shows a QR code; each is credited once when paid', async () => {
    const token = await touristToken(b.app);
    const ideal = await post('cdb/payment/multicurrency/recharge', token, {
      amount: '10',
      currency: 'EUR',
      paymentId: 'stripe:STRIPE_IDEAL',
      stripeToken: 'pm_ideal',
      returnUrl: 'https://app.powerly.test/#/confirm?payType=CZ',
    });
    const ref: string = ideal.json().data.action.paymentIntent;
    expect(pi(ref)).toMatchObject({ status: 'requires_action', next_action: { type: 'redirect_to_url' } });
    fake.completeRedirect(SK, ref);
    expect(
      (
        await post('cdb/payment/multicurrency/recharge', token, {
          amount: '10',
          currency: 'EUR',
          paymentId: 'stripe:STRIPE_IDEAL',
          paymentIntent: ref,
        })
      ).json(),
    ).toMatchObject({ code: 0, data: { pBalance: 10 } });
    const wechat = await post('cdb/payment/multicurrency/recharge', token, {
      amount: '5',
      currency: 'EUR',
      paymentId: 'stripe:STRIPE_WECHAT',
      stripeToken: 'pm_wechat',
    });
    const wref: string = wechat.json().data.action.paymentIntent;
    expect(pi(wref)).toMatchObject({ next_action: { type: 'wechat_pay_display_qr_code' } });
    fake.completeRedirect(SK, wref);
    expect(
      (
        await post('cdb/payment/multicurrency/recharge', token, {
          amount: '5',
          currency: 'EUR',
          paymentId: 'stripe:STRIPE_WECHAT',
          paymentIntent: wref,
        })
      ).json(),
    ).toMatchObject({ code: 0, data: { pBalance: 15 } });
    // A card id sent with the iDEAL method is not taken as a card (the method decides the type): refused, no money.
    const mismatch = await post('cdb/payment/multicurrency/recharge', token, {
      amount: '5',
      currency: 'EUR',
      paymentId: 'stripe:STRIPE_IDEAL',
      stripeToken: 'pm_card_visa',
    });
    expect(mismatch.statusCode).toBe(422);
  });
});
