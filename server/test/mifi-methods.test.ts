// Wi-Fi packages and box deposits paid with the methods beyond the card (test mode: PayPal and SumUp on the
// sandbox's checkout page): the answer `action` with the order made and unpaid, the resume with paymentIntent (only
// by its payer, only for its order), replays that never pay twice, the guard releasing a payment whose customer never
// came back, the box deposit held where the method can hold (and the hold's expiry), else paid into the wallet.
// A card whose bank asks for 3-D Secure: mifi-3ds.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { build, cabinetsOnline, cardToken, touristToken, waitFor, type Built } from './helper.ts';
import { checkLedger } from '../src/modules/wallet/reconcile.ts';
import { API, RETURN, calls, type Pkg } from './mifi-methods-helpers.ts';

describe('methods beyond the card, in test mode', () => {
  let b: Built;
  let c: ReturnType<typeof calls>;
  beforeAll(async () => {
    b = await build();
    c = calls(b);
    await cabinetsOnline(b, ['PWL-LIS-001', 'PWL-SH-001', 'PWL-VNO-001']);
  });
  afterAll(async () => b?.close());

  /** The provider's side of a method payment (the sandbox's model of it). */
  const atProvider = async (outTradeNo: string) => {
    const r = (
      await b.db.query<{ state: string; captured: string; refunded: string }>(
        'select state, captured, refunded from sandbox_method_payments where out_trade_no = $1',
        [outTradeNo],
      )
    ).rows[0]!;
    return { state: r.state, captured: Number(r.captured), refunded: Number(r.refunded) };
  };

  describe('a Wi-Fi package paid on the provider page (PayPal)', () => {
    it('answers action with the order made and unpaid; resumed after the approval it is paid once, however often it is resumed or replayed', async () => {
      const token = await touristToken(b.app);
      const me = await c.userId(token);
      const t = await c.payer(token, 'paypal:paypal');
      const body = {
        paymentId: 'paypal:paypal',
        stripeToken: t,
        returnUrl: RETURN,
        orderSubmit: await c.orderSubmit(token),
      };
      const first = await c.rent(token, body, `first-${me}`);
      expect(first.code, first.msg).toBe(0);
      expect(first.data).toMatchObject({
        orderStatus: 33,
        action: { clientSecret: expect.stringMatching(/^ext:/), paymentIntent: expect.any(String) },
      });
      const ref = first.data.action!.paymentIntent;
      // The same request again with its Idempotency-Key: the stored answer, no second order.
      const replayed = await c.rent(token, body, `first-${me}`);
      expect(replayed.data).toEqual(first.data);
      const { rows: orders } = await b.db.query('select id from mifi_orders where user_id = $1', [me]);
      expect(orders).toHaveLength(1);
      expect(await c.pkg(token, first.data.orderId)).toMatchObject({ packageStatus: 33 });

      // Resumed before the customer approved: the same action again, nothing paid.
      const early = await c.rent(token, { paymentId: 'paypal:paypal', paymentIntent: ref });
      expect(early.data).toMatchObject({
        orderId: first.data.orderId,
        orderStatus: 33,
        action: { paymentIntent: ref },
      });
      // Only its payer resumes it, and only for its order.
      const other = await touristToken(b.app);
      expect((await c.rent(other, { paymentId: 'paypal:paypal', paymentIntent: ref })).status).toBe(422);
      expect(
        (await c.confirm(other, { mifiOrderId: first.data.orderId, paymentId: 'paypal:paypal', paymentIntent: ref }))
          .status,
      ).toBe(404);

      const back = await c.onProviderPage(first.data.action!.clientSecret, 'approve');
      expect(back).toBe(`/#/confirm?payType=mifi&currency=EUR&payment_intent=${ref}`);
      const done = await c.rent(token, { paymentId: 'paypal:paypal', paymentIntent: ref });
      expect(done.code, done.msg).toBe(0);
      expect(done.data).toEqual({ ...first.data, orderStatus: 0, action: undefined });
      expect(done.data.action).toBeUndefined();
      // Resumed again (the app's poll, a reload of the return page): answered as paid, nothing more is taken.
      const again = await c.rent(token, { paymentId: 'paypal:paypal', paymentIntent: ref });
      expect(again.data).toMatchObject({ orderId: first.data.orderId, orderStatus: 0 });
      expect(await c.payments(first.data.buyOrderNo)).toEqual([
        expect.objectContaining({ purpose: 'mifi', status: 'captured', amount: 500, provider: 'paypal' }),
      ]);
      expect(await atProvider(ref)).toMatchObject({ state: 'paid', refunded: 0 });
      expect(await c.pkg(token, first.data.orderId)).toMatchObject({ packageStatus: 0 });
      expect(await checkLedger(b.db)).toEqual([]);
    });

    it('continue payment (confirm) of an unpaid package with a method: the same action, resumed on the package', async () => {
      const token = await touristToken(b.app);
      // Left unpaid: a wallet order the balance does not cover.
      expect((await c.rent(token, { paymentId: 'wallet', orderSubmit: await c.orderSubmit(token) })).code).not.toBe(0);
      const unpaid = (
        await c.post<{ records: Pkg[] }>(token, 'chargenow/mifi/orderList', { current: 1, size: 100 })
      ).data.records.find((p) => p.packageStatus === 33)!;
      const t = await c.payer(token, 'sumup:SumUpOnlinePayment');
      const started = await c.confirm(token, {
        mifiOrderId: unpaid.orderId,
        paymentId: 'sumup:SumUpOnlinePayment',
        stripeToken: t,
        returnUrl: RETURN,
      });
      expect(started.data).toMatchObject({
        orderId: unpaid.orderId,
        packageStatus: 33,
        action: { paymentIntent: expect.any(String) },
      });
      const ref = started.data.action!.paymentIntent;
      await c.onProviderPage(started.data.action!.clientSecret, 'approve');
      const paid = await c.confirm(token, {
        mifiOrderId: unpaid.orderId,
        paymentId: 'sumup:SumUpOnlinePayment',
        paymentIntent: ref,
      });
      expect(paid.code, paid.msg).toBe(0);
      expect(paid.data).toMatchObject({ orderId: unpaid.orderId, packageStatus: 0 });
      expect(paid.data.action).toBeUndefined();
      // The rent call resumes only an order's payment it was started for: this one is the package's (confirm), still paid once.
      expect(
        (
          await c.confirm(token, {
            mifiOrderId: unpaid.orderId,
            paymentId: 'sumup:SumUpOnlinePayment',
            paymentIntent: ref,
          })
        ).data.packageStatus,
      ).toBe(0);
      expect((await c.payments(unpaid.buyOrderNo)).filter((p) => p.status === 'captured')).toHaveLength(1);
      expect(await checkLedger(b.db)).toEqual([]);
    });

    it('a payment cancelled on the provider page leaves the order unpaid, in the user language; it never pays another order', async () => {
      const token = await touristToken(b.app);
      const t = await c.payer(token, 'paypal:paypal');
      const first = await c.rent(token, {
        paymentId: 'paypal:paypal',
        stripeToken: t,
        returnUrl: RETURN,
        orderSubmit: await c.orderSubmit(token),
      });
      // A payment pays only the order it was started for: not another unpaid order of the same user.
      expect(
        (await c.rent(token, { paymentId: 'wallet', orderSubmit: await c.orderSubmit(token, 'es-3d') })).code,
      ).not.toBe(0);
      const other = (
        await c.post<{ records: Pkg[] }>(token, 'chargenow/mifi/orderList', { current: 1, size: 100 })
      ).data.records.find((p) => p.orderId !== first.data.orderId)!;
      expect(
        (
          await c.confirm(token, {
            mifiOrderId: other.orderId,
            paymentId: 'paypal:paypal',
            paymentIntent: first.data.action!.paymentIntent,
          })
        ).status,
      ).toBe(422);
      await c.onProviderPage(first.data.action!.clientSecret, 'cancel');
      const r = await b.app.inject({
        method: 'POST',
        url: `${API}/chargenow/mifi/rent`,
        headers: { token, lang: 'es-ES' },
        payload: { paymentId: 'paypal:paypal', paymentIntent: first.data.action!.paymentIntent },
      });
      expect(r.statusCode).toBe(422);
      expect(r.json().msg).toBe('Cancelaste el pago en la página del proveedor. No se ha cobrado nada.');
      expect(await c.pkg(token, first.data.orderId)).toMatchObject({ packageStatus: 33 });
    });
  });

  describe('the guard of a payment whose customer never came back', () => {
    it('approved at the provider but never resumed: refunded once the timeout has passed; a late resume is refused and the order stays unpaid', async () => {
      const token = await touristToken(b.app);
      const t = await c.payer(token, 'paypal:paypal');
      const first = await c.rent(token, {
        paymentId: 'paypal:paypal',
        stripeToken: t,
        returnUrl: RETURN,
        orderSubmit: await c.orderSubmit(token),
      });
      const ref = first.data.action!.paymentIntent;
      await c.onProviderPage(first.data.action!.clientSecret, 'approve');
      b.clock.advance(29 * 60_000);
      await b.app.powerly.jobs.runDue();
      expect(await atProvider(ref)).toMatchObject({ state: 'paid', refunded: 0 }); // not yet: the customer may still come back
      b.clock.advance(2 * 60_000);
      await b.app.powerly.jobs.runDue();
      expect(await atProvider(ref)).toMatchObject({ refunded: 500 });
      expect(await c.payments(first.data.buyOrderNo)).toEqual([
        expect.objectContaining({ status: 'refunded', amount: 500 }),
      ]);
      const late = await c.rent(token, { paymentId: 'paypal:paypal', paymentIntent: ref });
      expect(late.status).toBe(422);
      expect(late.msg).toBe(
        'This payment was not finished in time and was released; anything taken is refunded. Please pay again.',
      );
      expect(await c.pkg(token, first.data.orderId)).toMatchObject({ packageStatus: 33 });
      // The guard runs once: nothing is refunded twice.
      b.clock.advance(60 * 60_000);
      await b.app.powerly.jobs.runDue();
      expect(await atProvider(ref)).toMatchObject({ refunded: 500 });
      expect(await checkLedger(b.db)).toEqual([]);
    });

    it('never approved: the payment is closed at the provider after the timeout, nothing taken', async () => {
      const token = await touristToken(b.app);
      const t = await c.payer(token, 'sumup:SumUpOnlinePayment');
      const first = await c.rent(token, {
        paymentId: 'sumup:SumUpOnlinePayment',
        stripeToken: t,
        returnUrl: RETURN,
        orderSubmit: await c.orderSubmit(token),
      });
      const ref = first.data.action!.paymentIntent;
      b.clock.advance(31 * 60_000);
      await b.app.powerly.jobs.runDue();
      const {
        rows: [row],
      } = await b.db.query<{ state: string; failure_code: string }>(
        'select state, failure_code from external_payments where out_trade_no = $1',
        [ref],
      );
      expect(row).toMatchObject({ state: 'cancelled', failure_code: 'released' });
      expect(await c.payments(first.data.buyOrderNo)).toEqual([
        expect.objectContaining({ status: 'declined', failure_code: 'abandoned' }),
      ]);
      const late = await c.rent(token, { paymentId: 'sumup:SumUpOnlinePayment', paymentIntent: ref });
      expect(late.status).toBe(422);
      expect(late.msg).toMatch(/^This payment was not finished in time/);
    });
  });

  describe('the box deposit of a package bought without a box (cabinetDisposit)', () => {
    /** A paid package-only order (by card), waiting for its box deposit. */
    const paidPackage = async (token: string) => {
      const r = await c.rent(token, {
        paymentId: 'card-sandbox',
        stripeToken: await cardToken(b.app),
        orderSubmit: await c.orderSubmit(token),
      });
      expect(r.code, r.msg).toBe(0);
      return r.data;
    };
    const held = async (token: string) => {
      const w = await b.app.powerly.ledger.walletOf(await c.userId(token), 'EUR');
      return { balance: w.balance, held: w.held };
    };
    const returnBox = async (token: string, id: string, sn: string) => {
      expect((await c.post(token, 'chargenow/mifi/bindSn', { sn, mifiOrderId: id })).code).toBe(0);
      // Back where it came from (a euro cabinet): the next package in euros can take it there.
      await b.fleet!.get('PWL-LIS-001')!.insert(sn);
      await waitFor(async () => ((await c.pkg(token, id)).deviceOrderStatus === 3 ? true : null), 'box returned');
      await b.app.powerly.jobs.runDue();
    };

    it('a method that holds (PayPal): the deposit is authorised, not charged; the box coming back releases the hold', async () => {
      const token = await touristToken(b.app);
      const order = await paidPackage(token);
      const t = await c.payer(token, 'paypal:paypal');
      const started = await c.deposit(token, {
        mifiOrderId: order.orderId,
        paymentId: 'paypal:paypal',
        stripeToken: t,
        returnUrl: RETURN,
      });
      expect(started.data).toMatchObject({ deviceOrderStatus: 0, action: { paymentIntent: expect.any(String) } });
      const ref = started.data.action!.paymentIntent;
      await c.onProviderPage(started.data.action!.clientSecret, 'approve');
      const done = await c.deposit(token, {
        mifiOrderId: order.orderId,
        paymentId: 'paypal:paypal',
        paymentIntent: ref,
      });
      expect(done.code, done.msg).toBe(0);
      expect(done.data).toMatchObject({ deviceOrderStatus: 5, depositAmount: 50 });
      expect(
        (await c.deposit(token, { mifiOrderId: order.orderId, paymentId: 'paypal:paypal', paymentIntent: ref })).data,
      ).toMatchObject({ deviceOrderStatus: 5 });
      expect(await c.payments(order.buyOrderNo)).toEqual([
        expect.objectContaining({ purpose: 'mifi', status: 'captured', amount: 500 }),
        expect.objectContaining({
          purpose: 'mifi_deposit_hold',
          status: 'authorized',
          amount: 5000,
          provider: 'paypal',
        }),
      ]);
      expect(await atProvider(ref)).toMatchObject({ state: 'authorized', captured: 0 });
      expect(await held(token)).toEqual({ balance: 0, held: 5000 });
      await returnBox(token, order.orderId, 'MF-LIS-0001');
      expect((await c.payments(order.buyOrderNo))[1]).toMatchObject({ status: 'voided' });
      expect((await atProvider(ref)).captured).toBe(0);
      expect(await held(token)).toEqual({ balance: 0, held: 0 });
      expect(await checkLedger(b.db)).toEqual([]);
    });

    it('a method that cannot hold (SumUp): the deposit is paid into the wallet and held there; it is in the wallet once the box is back', async () => {
      const token = await touristToken(b.app);
      const order = await paidPackage(token);
      const t = await c.payer(token, 'sumup:SumUpOnlinePayment');
      const started = await c.deposit(token, {
        mifiOrderId: order.orderId,
        paymentId: 'sumup:SumUpOnlinePayment',
        stripeToken: t,
        returnUrl: RETURN,
      });
      await c.onProviderPage(started.data.action!.clientSecret, 'approve');
      const done = await c.deposit(token, {
        mifiOrderId: order.orderId,
        paymentId: 'sumup:SumUpOnlinePayment',
        paymentIntent: started.data.action!.paymentIntent,
      });
      expect(done.data).toMatchObject({ deviceOrderStatus: 5 });
      expect((await c.payments(order.buyOrderNo))[1]).toMatchObject({
        purpose: 'mifi_deposit',
        status: 'captured',
        amount: 5000,
      });
      expect(await held(token)).toEqual({ balance: 0, held: 5000 });
      await returnBox(token, order.orderId, 'MF-LIS-0002');
      expect(await held(token)).toEqual({ balance: 5000, held: 0 });
      expect(await checkLedger(b.db)).toEqual([]);
    });

    it('a card hold about to lapse is captured and kept as the deposit in the wallet; the box coming back puts it in the wallet', async () => {
      const token = await touristToken(b.app);
      const order = await paidPackage(token);
      const dep = await c.deposit(token, {
        mifiOrderId: order.orderId,
        paymentId: 'card-sandbox',
        stripeToken: await cardToken(b.app),
      });
      expect(dep.data).toMatchObject({ deviceOrderStatus: 5 });
      const [, hold] = await c.payments(order.buyOrderNo);
      expect(hold).toMatchObject({ purpose: 'mifi_deposit_hold', status: 'authorized' });
      expect(
        (await c.post(token, 'chargenow/mifi/bindSn', { sn: 'MF-LIS-0001', mifiOrderId: order.orderId })).code,
      ).toBe(0);
      // The sandbox's holds lapse after 7 days: a day before, the hold is captured.
      b.clock.advance(6 * 86_400_000 + 60_000);
      await b.app.powerly.jobs.runDue();
      expect(await b.app.powerly.sandbox.status(hold!.provider_ref)).toBe('captured');
      expect((await c.payments(order.buyOrderNo))[1]).toMatchObject({ status: 'captured' });
      expect(await held(token)).toEqual({ balance: 0, held: 5000 });
      await b.fleet!.get('PWL-VNO-001')!.insert('MF-LIS-0001');
      await waitFor(
        async () => ((await c.pkg(token, order.orderId)).deviceOrderStatus === 3 ? true : null),
        'box returned',
      );
      await b.app.powerly.jobs.runDue();
      expect(await held(token)).toEqual({ balance: 5000, held: 0 });
      expect(await b.app.powerly.sandbox.status(hold!.provider_ref)).toBe('captured'); // not refunded: it is the user's wallet money now
      expect(await checkLedger(b.db)).toEqual([]);
    });
  });
});
