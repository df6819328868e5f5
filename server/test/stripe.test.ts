// The real Stripe adapter (official SDK) against the Stripe-compatible test server in server/test/stripe/: the deposit
// held on the card (captures, cancels, 3-D Secure, declines), hold expiry, off-session charges and FK debts. Webhooks,
// per-agent accounts, wallet top-ups and saved cards: stripe-wallet.test.ts. The cabinets are the simulator over the
// real broker.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { failNextKeyCompletionOutsideTx, touristToken, type Built } from './helper.ts';
import { API, CARD, SK, startStripe, stripeCalls } from './stripe-helpers.ts';
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

const { get, rent, untilOut, payment, pi, user, rentOut, giveBack, challenge } = stripeCalls(() => ({ b, fake }));

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
    const ref = await challenge(token);
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
      const ref = await challenge(token);
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
      const ref = await challenge(token);
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
    const ref = await challenge(token);
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
    const ref = await challenge(token);
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
