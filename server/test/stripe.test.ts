// The real Stripe adapter (official SDK) against the Stripe-compatible test server in server/test/stripe/: holds,
// captures, cancels, 3-D Secure, declines, hold expiry, off-session charges and FK debts, refunds, webhooks
// (signature, replay, out of order) and per-agent accounts. The cabinets are the simulator over the real broker.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { build, failNextKeyCompletionOutsideTx, cabinetsOnline, touristToken, waitFor, type Built } from './helper.ts';
import { FakeStripe } from './stripe/fake-stripe.ts';

const API = '/cdb-app-api/v1/app';
const SK = 'sk_test_platform';
const WH = 'whsec_platform';
const AGENT_SK = 'sk_test_agent_go9';
const AGENT_WH = 'whsec_agent_go9';
const CARD = 'stripe:STRIPE_CARD';

let fake: FakeStripe;
let b: Built;

beforeAll(async () => {
  fake = await new FakeStripe([SK, AGENT_SK]).start();
  b = await build({
    appOrigins: ['https://app.powerly.test'],
    stripe: {
      account: { secretKey: SK, publishableKey: 'pk_test_platform', webhookSecret: WH },
      agents: { go9: { secretKey: AGENT_SK, publishableKey: 'pk_test_agent_go9', webhookSecret: AGENT_WH } },
      transport: fake.transport(),
    },
  });
  fake.now = () => Math.floor(b.clock.now().getTime() / 1000);
  for (const [id, name] of [
    ['go9', 'GO9'],
    ['other', 'Other'],
  ])
    await b.app.powerly.fleet.agents.create({ id, name, currencies: [], origins: [] });
  // The simulated cabinets have said hello: a rent at an offline cabinet is refused before any money moves.
  await cabinetsOnline(b, ['PWL-VNO-001', 'PWL-LIS-001']);
}, 60_000);
afterAll(async () => {
  await b?.close();
  await fake?.stop();
});

const get = (url: string, token: string, headers: Record<string, string> = {}) =>
  b.app.inject({ method: 'GET', url: `${API}/${url}`, headers: { token, ...headers } });
const rent = (token: string, body: Record<string, string>, headers: Record<string, string> = {}) =>
  b.app.inject({
    method: 'POST',
    url: `${API}/cdb/cabinet/useDepositToRent`,
    headers: { token, ...headers },
    payload: body,
  });
const check = (token: string, tradeNo: string) =>
  b.app.inject({ method: 'POST', url: `${API}/cdb/mine/order/check/${tradeNo}/YJ`, headers: { token } });
const untilOut = (token: string, tradeNo: string) =>
  waitFor(async () => {
    const r = await check(token, tradeNo);
    return r.json().code === 1 ? null : r;
  }, `order ${tradeNo} answered`);
const payment = async (orderId: string) =>
  (
    await b.db.query<{
      id: string;
      status: string;
      provider_ref: string;
      captured_amount: string;
      refunded_amount: string;
      payment_method_ref: string | null;
      capture_before: Date | null;
    }>('select * from payments where order_id = $1 order by created_at', [orderId])
  ).rows;
const pi = (id: string, sk = SK) => fake.get(`${sk}|`, id) as Record<string, unknown>;
const user = async (token: string) => (await get('userInfo', token)).json().data as { pId: number };

async function rentOut(token: string, pm = 'pm_card_visa', qrcode = 'PWL-VNO-001') {
  const res = await rent(token, { qrcode, stripeToken: pm, paymentId: CARD });
  expect(res.json()).toMatchObject({ code: 0 });
  const tradeNo: string = res.json().data.outTradeNo;
  const out = (await untilOut(token, tradeNo)).json();
  return { tradeNo, powerbankId: out.data.shebei as string };
}
async function giveBack(tradeNo: string, powerbankId: string, token: string) {
  await b.app.inject({ method: 'POST', url: '/demo-api/cabinets/PWL-VNO-001/return', payload: { powerbankId } });
  await waitFor(
    async () => (await get(`cdb/mine/order/detail?orderId=${tradeNo}`, token)).json().data.pJiesuanid === 1,
    'settled',
  );
  await b.app.powerly.jobs.runDue();
}

describe('Stripe: card holds for the deposit (yajintype 0)', () => {
  it('lists the Stripe methods with the platform publishable key; a deposit is held only with card methods, other methods pay it into the wallet', async () => {
    const token = await touristToken(b.app);
    const all = (await get('cdb/payment/method/list?qrcode=PWL-VNO-001', token)).json().data as {
      pId: string;
      pPaymentType: string;
      publicKey: string;
      kind?: string;
    }[];
    // The card methods first; the methods of other providers (in test mode here) follow, each with its kind.
    const m = all.filter((x) => !x.kind);
    expect(all.slice(0, m.length)).toEqual(m);
    expect(m.map((x) => x.pPaymentType)).toEqual(['STRIPE_CARD', 'APPLE_PAY', 'GOOGLE_PAY']);
    expect(new Set(m.map((x) => x.publicKey))).toEqual(new Set(['pk_test_platform']));
    const wallet = (await get('cdb/payment/method/list?currency=EUR', token)).json().data as { pPaymentType: string }[];
    expect(wallet.map((x) => x.pPaymentType)).toContain('STRIPE_IDEAL');
    // iDEAL cannot hold: the deposit goes through the wallet instead, a charge approved at the bank.
    const res = await rent(token, {
      qrcode: 'PWL-VNO-001',
      stripeToken: 'pm_ideal',
      paymentId: 'stripe:STRIPE_IDEAL',
      returnUrl: 'http://localhost/#/confirm',
    });
    expect(res.json().data.action.paymentIntent).toMatch(/^pi_/);
    expect(pi(res.json().data.action.paymentIntent)).toMatchObject({ capture_method: 'automatic', amount: 2500 });
  });

  it('hold → popped → return: captures the rent, releases the rest; the card is saved; the timeline tells it', async () => {
    const token = await touristToken(b.app);
    const before = fake.requests.length;
    const { tradeNo, powerbankId } = await rentOut(token);
    const [p] = await payment(tradeNo);
    expect(p).toMatchObject({ status: 'authorized' });
    expect(p!.payment_method_ref).toMatch(/^pm_/);
    expect((fake.get(`${SK}|`, p!.payment_method_ref!) as unknown as { customer: string }).customer).toMatch(/^cus_/);
    expect(p!.capture_before!.getTime() - b.clock.now().getTime()).toBe(7 * 86_400_000);
    const intent = pi(p!.provider_ref);
    expect(intent).toMatchObject({
      status: 'requires_capture',
      capture_method: 'manual',
      amount: 2500,
      amount_capturable: 2500,
      setup_future_usage: 'off_session',
    });
    // Every Stripe call carried an idempotency key; nothing was captured before the cabinet reported popped.
    const calls = fake.requests.slice(before).filter((r) => r.method === 'POST');
    expect(calls.every((r) => r.idempotencyKey)).toBe(true);
    expect(calls.some((r) => r.path.endsWith('/capture'))).toBe(false);
    b.clock.advance(2 * 3600_000 + 60_000);
    await giveBack(tradeNo, powerbankId, token);
    const [after] = await payment(tradeNo);
    expect(after).toMatchObject({ status: 'partially_captured' });
    expect(pi(p!.provider_ref)).toMatchObject({
      status: 'succeeded',
      amount_received: Number(after!.captured_amount),
      amount_capturable: 0,
    });
    const steps = (await get(`cdb/order/money?orderId=${tradeNo}`, token)).json().data as {
      step: string;
      amount: number;
    }[];
    expect(steps.map((s) => s.step)).toEqual(['held', 'captured']);
    expect(steps[0]!.amount).toBe(25);
  });

  it('an eject failure cancels the PaymentIntent, never captures', async () => {
    const token = await touristToken(b.app);
    await b.app.inject({ method: 'POST', url: '/demo-api/cabinets/PWL-VNO-001/fail-next-eject' });
    const res = await rent(token, { qrcode: 'PWL-VNO-001', stripeToken: 'pm_card_visa', paymentId: CARD });
    const tradeNo = res.json().data.outTradeNo;
    expect((await untilOut(token, tradeNo)).statusCode).toBe(422);
    await b.app.powerly.jobs.runDue();
    const [p] = await payment(tradeNo);
    expect(p!.status).toBe('voided');
    expect(pi(p!.provider_ref)).toMatchObject({ status: 'canceled', amount_received: 0 });
  });

  it('3-D Secure: the call answers action; after the challenge the same payment is resumed into the rental', async () => {
    const token = await touristToken(b.app);
    const first = await rent(token, {
      qrcode: 'PWL-VNO-001',
      stripeToken: 'pm_card_authenticationRequired',
      paymentId: CARD,
    });
    expect(first.json()).toMatchObject({
      code: 0,
      data: {
        outTradeNo: '',
        action: { clientSecret: expect.stringMatching(/_secret_/), paymentIntent: expect.stringMatching(/^pi_/) },
      },
    });
    const ref: string = first.json().data.action.paymentIntent;
    // Resuming before the challenge is done gives the action again; someone else cannot resume it.
    const other = await touristToken(b.app);
    expect(
      (await rent(other, { qrcode: 'PWL-VNO-001', stripeToken: 'x', paymentId: CARD, paymentIntent: ref })).statusCode,
    ).toBe(422);
    fake.complete3ds(SK, ref);
    const second = await rent(token, {
      qrcode: 'PWL-VNO-001',
      stripeToken: 'pm_card_authenticationRequired',
      paymentId: CARD,
      paymentIntent: ref,
    });
    expect(second.json()).toMatchObject({ code: 0, data: { outTradeNo: expect.stringMatching(/^PO/) } });
    const tradeNo = second.json().data.outTradeNo;
    expect((await untilOut(token, tradeNo)).statusCode).toBe(200);
    expect((await payment(tradeNo))[0]).toMatchObject({ status: 'authorized', provider_ref: ref });
    // The same payment cannot start a second rental.
    const again = await rent(token, { qrcode: 'PWL-VNO-001', stripeToken: 'x', paymentId: CARD, paymentIntent: ref });
    expect(again.statusCode).toBe(409);
    expect(again.json().msg).toBe('This payment was already used.');
  });

  it('a payment whose challenge is never finished is released after the timeout', async () => {
    const token = await touristToken(b.app);
    const first = await rent(token, {
      qrcode: 'PWL-VNO-001',
      stripeToken: 'pm_card_authenticationRequired',
      paymentId: CARD,
    });
    const ref: string = first.json().data.action.paymentIntent;
    fake.complete3ds(SK, ref);
    b.clock.advance(31 * 60_000);
    await b.app.powerly.jobs.runDue();
    expect(pi(ref).status).toBe('canceled');
  });

  describe('the customer comes back as the timeout guard releases the payment', () => {
    const byRef = async (ref: string) =>
      (
        await b.db.query<{ status: string; order_id: string | null }>(
          'select status, order_id from payments where provider_ref = $1',
          [ref],
        )
      ).rows;
    const challenged = async (token: string) => {
      const first = await rent(token, {
        qrcode: 'PWL-VNO-001',
        stripeToken: 'pm_card_authenticationRequired',
        paymentId: CARD,
      });
      const ref: string = first.json().data.action.paymentIntent;
      fake.complete3ds(SK, ref);
      b.clock.advance(31 * 60_000);
      return ref;
    };
    const resumeRent = (token: string, ref: string) =>
      rent(token, { qrcode: 'PWL-VNO-001', stripeToken: 'x', paymentId: CARD, paymentIntent: ref });

    it("the guard first: the rental is refused (released, in the user's language), the hold voided once, no order", async () => {
      const token = await touristToken(b.app);
      const ref = await challenged(token);
      // The guard runs after the rental's own look at the payment (authorised) and before its order's transaction.
      const rentals = b.app.powerly.rentals as unknown as { start(...a: unknown[]): Promise<unknown> };
      const start = rentals.start;
      rentals.start = async function (this: unknown, ...a: unknown[]) {
        rentals.start = start;
        await b.app.powerly.jobs.runDue();
        return start.apply(this, a);
      };
      const late = await resumeRent(token, ref);
      rentals.start = start;
      expect(late.statusCode).toBe(422);
      expect(late.json()).toMatchObject({
        msg: 'This payment was not finished in time and was released; anything taken is refunded. Please pay again.',
      });
      expect(pi(ref).status).toBe('canceled');
      expect(await byRef(ref)).toEqual([{ status: 'voided', order_id: null }]);
      // Asked again, the same answer (no longer a race: the early check reads the released payment).
      expect((await resumeRent(token, ref)).json().msg).toBe(late.json().msg);
      const me = await user(token);
      expect((await b.db.query('select id from orders where user_id = $1', [me.pId])).rows).toEqual([]);
      const { rows: comp } = await b.db.query<{ done_at: Date | null; dead_at: Date | null }>(
        `select done_at, dead_at from jobs where kind = 'payment.compensate' and payload->>'ref' = $1`,
        [ref],
      );
      expect(comp).toHaveLength(1);
      expect(comp[0]).toMatchObject({ dead_at: null, done_at: expect.any(Date) });
    });

    it('the rental first, while the guard asks Stripe: the guard leaves the payment to the rental', async () => {
      const token = await touristToken(b.app);
      const ref = await challenged(token);
      const provider = b.app.powerly.payments.providerForMethod(CARD)! as unknown as {
        resume(...a: unknown[]): Promise<unknown>;
      };
      const resume = provider.resume;
      let rented: Awaited<ReturnType<typeof rent>> | undefined;
      provider.resume = async function (this: unknown, ...a: unknown[]) {
        provider.resume = resume;
        const r = await resume.apply(this, a); // the guard's look: authorised, nothing has taken it yet
        rented = await resumeRent(token, ref); // the customer is back meanwhile, and the rental commits
        return r;
      };
      await b.app.powerly.jobs.runDue();
      provider.resume = resume;
      expect(rented!.json()).toMatchObject({ code: 0, data: { outTradeNo: expect.stringMatching(/^PO/) } });
      expect(pi(ref).status).toBe('requires_capture');
      expect(await byRef(ref)).toEqual([{ status: 'authorized', order_id: rented!.json().data.outTradeNo }]);
      const out = (await untilOut(token, rented!.json().data.outTradeNo)).json();
      expect(out).toMatchObject({ code: 0 });
      await giveBack(rented!.json().data.outTradeNo, out.data.shebei, token);
    });

    it('two resumes of one payment at once: one rental, and the other never voids its hold', async () => {
      const token = await touristToken(b.app);
      const first = await rent(token, {
        qrcode: 'PWL-VNO-001',
        stripeToken: 'pm_card_authenticationRequired',
        paymentId: CARD,
      });
      const ref: string = first.json().data.action.paymentIntent;
      fake.complete3ds(SK, ref);
      const both = await Promise.all([resumeRent(token, ref), resumeRent(token, ref)]);
      expect(both.map((r) => r.statusCode).sort()).toEqual([200, 409]);
      const won = both.find((r) => r.statusCode === 200)!.json().data.outTradeNo as string;
      expect(both.find((r) => r.statusCode === 409)!.json().msg).toBe('This payment was already used.');
      expect(pi(ref).status).toBe('requires_capture');
      expect(await byRef(ref)).toEqual([{ status: 'authorized', order_id: won }]);
      const out = (await untilOut(token, won)).json();
      expect(out).toMatchObject({ code: 0 });
      await giveBack(won, out.data.shebei, token);
    });
  });

  it('a decline: the message in the user language, no order, no hold', async () => {
    const token = await touristToken(b.app);
    const me = await user(token);
    for (const [pm, msg] of [
      ['pm_card_chargeDeclined', 'Tu tarjeta ha sido rechazada.'],
      ['pm_card_chargeDeclinedInsufficientFunds', null],
    ] as const) {
      const res = await rent(token, { qrcode: 'PWL-VNO-001', stripeToken: pm, paymentId: CARD }, { lang: 'es-ES' });
      expect(res.statusCode).toBe(422);
      if (msg) expect(res.json().msg).toBe(msg);
    }
    // A card of nobody (unknown payment method): a clear refusal, no money moved.
    expect((await rent(token, { qrcode: 'PWL-VNO-001', stripeToken: 'pm_nobody', paymentId: CARD })).statusCode).toBe(
      422,
    );
    const { rows } = await b.db.query('select id from orders where user_id = $1', [me.pId]);
    expect(rows).toEqual([]);
  });
});

describe('Stripe: a hold about to lapse on an open rental', () => {
  it('is renewed off-session on the saved card a day before capture_before, and the old hold released', async () => {
    const token = await touristToken(b.app);
    const { tradeNo, powerbankId } = await rentOut(token);
    const [old] = await payment(tradeNo);
    // A plan whose overtime period is a month: the order is still open when the 7-day hold nears its end.
    await b.db.query(`update orders set plan = jsonb_set(plan, '{overtimeDays}', '30') where id = $1`, [tradeNo]);
    await b.db.query(
      `update jobs set run_at = run_at + interval '28 days' where kind = 'rental.overtime-buy-out' and payload->>'orderId' = $1`,
      [tradeNo],
    );
    b.clock.advance(6 * 86_400_000 + 60_000);
    await b.app.powerly.jobs.runDue();
    await b.app.powerly.jobs.runDue();
    const pays = await payment(tradeNo);
    expect(pays.map((p) => p.status)).toEqual(['voided', 'authorized']);
    expect(pi(old!.provider_ref).status).toBe('canceled');
    expect(pi(pays[1]!.provider_ref)).toMatchObject({
      status: 'requires_capture',
      capture_method: 'manual',
      amount: 2500,
    });
    const order = await b.app.powerly.rentals.check({ id: (await user(token)).pId } as never, tradeNo);
    expect(order.payment_id).toBe(pays[1]!.id);
    await giveBack(tradeNo, powerbankId, token);
    expect((await payment(tradeNo))[1]!.status).toMatch(/captured/);
  });

  it('when the bank wants authentication, the whole hold is captured before it lapses; at return the rest is refunded', async () => {
    const token = await touristToken(b.app);
    const first = await rent(token, {
      qrcode: 'PWL-VNO-001',
      stripeToken: 'pm_card_authenticationRequired',
      paymentId: CARD,
    });
    const ref: string = first.json().data.action.paymentIntent;
    fake.complete3ds(SK, ref);
    const res = await rent(token, {
      qrcode: 'PWL-VNO-001',
      stripeToken: 'pm_card_authenticationRequired',
      paymentId: CARD,
      paymentIntent: ref,
    });
    const tradeNo: string = res.json().data.outTradeNo;
    const powerbankId = (await untilOut(token, tradeNo)).json().data.shebei;
    // The rental plan is changed so the order is still open after 6 days (no buy-out yet).
    await b.db.query(`update orders set plan = jsonb_set(plan, '{overtimeDays}', '30') where id = $1`, [tradeNo]);
    b.clock.advance(6 * 86_400_000 + 60_000);
    await b.app.powerly.jobs.runDue();
    const [p] = await payment(tradeNo);
    expect(p).toMatchObject({ status: 'captured' });
    expect(pi(ref)).toMatchObject({ status: 'succeeded', amount_received: 2500 });
    await giveBack(tradeNo, powerbankId, token);
    const [after] = await payment(tradeNo);
    const detail = (await get(`cdb/mine/order/detail?orderId=${tradeNo}`, token)).json().data;
    expect(Number(after!.refunded_amount)).toBe(2500 - Math.round(detail.pJiesuan * 100));
    const charge = fake.get(`${SK}|`, String(pi(ref).latest_charge)) as unknown as { amount_refunded: number };
    expect(charge.amount_refunded).toBe(Number(after!.refunded_amount));
  });
});

describe('Stripe: rent above the hold, off-session, and payType FK', () => {
  it('charges the rest off-session; authentication_required leaves a debt the user pays with FK', async () => {
    const token = await touristToken(b.app);
    const first = await rent(token, {
      qrcode: 'PWL-VNO-001',
      stripeToken: 'pm_card_authenticationRequired',
      paymentId: CARD,
    });
    const ref: string = first.json().data.action.paymentIntent;
    fake.complete3ds(SK, ref);
    const res = await rent(token, {
      qrcode: 'PWL-VNO-001',
      stripeToken: 'pm_card_authenticationRequired',
      paymentId: CARD,
      paymentIntent: ref,
    });
    const tradeNo: string = res.json().data.outTradeNo;
    const powerbankId = (await untilOut(token, tradeNo)).json().data.shebei;
    // A plan without the deposit ceiling whose rent passes the hold: €20 a day, no buy-out for a month.
    await b.db.query(
      `update orders set plan = plan || '{"deposit": 0, "dailyCap": 2000, "unitPrice": 2000, "overtimeDays": 30}'::jsonb where id = $1`,
      [tradeNo],
    );
    b.clock.advance(2 * 86_400_000 - 3_600_000);
    await giveBack(tradeNo, powerbankId, token);
    await b.app.powerly.jobs.runDue();
    const detail = (await get(`cdb/mine/order/detail?orderId=${tradeNo}`, token)).json().data;
    expect(detail.pJiesuan).toBeGreaterThan(25);
    expect(detail.palipayjsSm).toBe('扣款失败');
    expect(detail.debtAmount).toBe(detail.pJiesuan - 25);
    // FK pays that order (no new rental), with a new card.
    const pay = (body: Record<string, string>, key: string) =>
      b.app.inject({
        method: 'POST',
        url: `${API}/cdb/payment/stripe/multicurrency/payOrder`,
        headers: { token, 'idempotency-key': key },
        payload: body,
      });
    // The process stops after the payment committed, before the response was stored: the retry replays it.
    failNextKeyCompletionOutsideTx(b);
    expect((await pay({ outTradeNo: tradeNo, paymentId: CARD, stripeToken: 'pm_card_visa' }, 'fk-1')).statusCode).toBe(
      500,
    );
    const fk = await pay({ outTradeNo: tradeNo, paymentId: CARD, stripeToken: 'pm_card_visa' }, 'fk-1');
    expect(fk.json()).toMatchObject({ code: 0, data: { outTradeNo: tradeNo } });
    expect(fk.headers['idempotent-replayed']).toBe('true');
    const paid = (await get(`cdb/mine/order/detail?orderId=${tradeNo}`, token)).json().data;
    expect(paid).toMatchObject({ palipayjsSm: '', debtAmount: 0 });
    // Nothing more to pay: a second FK is refused and charges nothing.
    const before = fake.requests.filter((r) => r.path === '/v1/payment_intents').length;
    expect((await pay({ outTradeNo: tradeNo, paymentId: CARD, stripeToken: 'pm_card_visa' }, 'fk-2')).statusCode).toBe(
      409,
    );
    expect(fake.requests.filter((r) => r.path === '/v1/payment_intents').length).toBe(before);
    const steps = (
      (await get(`cdb/order/money?orderId=${tradeNo}`, token)).json().data as { step: string; purpose: string }[]
    ).map((s) => `${s.purpose}:${s.step}`);
    expect(steps).toEqual(['deposit_preauth:held', 'deposit_preauth:captured', 'rent_extra:failed', 'debt:charged']);
  });
});

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
