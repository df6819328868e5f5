// Wi-Fi packages and box deposits paid with the methods beyond the card (test mode: PayPal and SumUp on the
// sandbox's checkout page) and with a card whose bank asks for 3-D Secure (the Stripe adapter against the test
// tree's Stripe server): the answer `action` with the order made and unpaid, the resume with paymentIntent (only by
// its payer, only for its order), replays that never pay twice, the guard releasing a payment whose customer never
// came back, the box deposit held where the method can hold (and the hold's expiry), else paid into the wallet.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { packagePrice } from '#core/mifi.ts';
import { build, cabinetsOnline, cardToken, touristToken, waitFor, type Built } from './helper.ts';
import { checkLedger } from '../src/modules/wallet/reconcile.ts';
import { FakeStripe } from './stripe/fake-stripe.ts';

const API = '/cdb-app-api/v1/app';
const RETURN = 'http://localhost/#/confirm?payType=mifi&currency=EUR';
let n = 0;

interface Answer<T = Record<string, unknown>> {
  status: number;
  code: number;
  msg: string;
  data: T;
}
interface Action {
  clientSecret: string;
  paymentIntent: string;
}
interface Order {
  orderId: string;
  orderStatus: number;
  buyOrderNo: string;
  action?: Action;
}
interface Pkg {
  orderId: string;
  buyOrderNo: string;
  packageStatus: number;
  deviceOrderStatus: number;
  action?: Action;
}

/** The app's calls against one build (JSON, a fresh Idempotency-Key each unless one is given). */
function calls(b: Built) {
  const post = async <T>(token: string, url: string, payload: object, key = `k-${n++}`): Promise<Answer<T>> => {
    const r = await b.app.inject({
      method: 'POST',
      url: `${API}/${url}`,
      headers: { token, 'idempotency-key': key },
      payload,
    });
    return { status: r.statusCode, ...(r.json() as { code: number; msg: string; data: T }) };
  };
  const variant = async (token: string, skuId: string) => {
    const r = await post<string>(token, 'chargenow/mifi/query', {
      requestMethod: 'POST',
      url: 'packageDtlListBySkuId',
      data: JSON.stringify({ skuId, currency: 'EUR' }),
    });
    return (JSON.parse(r.data) as { skuId: string; price: number; isPackage: boolean; Day: number }[]).find(
      (v) => v.skuId === skuId,
    )!;
  };
  /** A package-only order (type 2) of `skuId` in EUR, as the mall submits it. */
  const orderSubmit = async (token: string, skuId = 'fr-3d') => {
    const v = await variant(token, skuId);
    const total = packagePrice({ isPackage: v.isPackage, price: Math.round(v.price * 100), selectDays: v.Day }) / 100;
    return { orderType: 2, currency: 'EUR', totalAmount: total, submitDtlDtoList: [{ skuId, selectDays: v.Day }] };
  };
  return {
    post,
    orderSubmit,
    rent: (token: string, body: object, key?: string) => post<Order>(token, 'chargenow/mifi/rent', body, key),
    confirm: (token: string, body: object) => post<Pkg>(token, 'chargenow/mifi/confirm', body),
    deposit: (token: string, body: object) => post<Pkg>(token, 'chargenow/mifi/cabinetDisposit', body),
    payer: async (token: string, paymentId: string) =>
      (await post<{ token: string }>(token, 'cdb/payment/method/payer', { paymentId })).data.token,
    pkg: async (token: string, id: string) =>
      (
        await b.app.inject({
          method: 'GET',
          url: `${API}/chargenow/mifi/package?mifiOrderId=${id}`,
          headers: { token },
        })
      ).json().data as Pkg,
    userId: async (token: string) =>
      (
        (await b.app.inject({ method: 'GET', url: `${API}/userInfo`, headers: { token } })).json().data as {
          pId: number;
        }
      ).pId,
    payments: async (orderNo: string) =>
      (
        await b.db.query<{
          purpose: string;
          status: string;
          amount: string;
          provider: string;
          provider_ref: string;
          failure_code: string | null;
        }>(
          'select purpose, status, amount, provider, provider_ref, failure_code from payments where order_id = $1 order by created_at',
          [orderNo],
        )
      ).rows.map((r) => ({ ...r, amount: Number(r.amount) })),
    /** The customer on the sandbox's checkout page (approve or cancel), then the provider's return to us: where the app resumes. */
    onProviderPage: async (clientSecret: string, decision: 'approve' | 'cancel') => {
      expect(clientSecret.startsWith('ext:')).toBe(true);
      const action = JSON.parse(clientSecret.slice(4)) as { params?: Record<string, string>; url?: string };
      const page = action.params?.sandboxCheckout ?? action.url!;
      expect((await b.app.inject({ method: 'GET', url: page })).statusCode).toBe(200);
      const answered = await b.app.inject({
        method: 'POST',
        url: page,
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: `decision=${decision}`,
      });
      expect(answered.statusCode).toBe(303);
      const back = await b.app.inject({ method: 'GET', url: answered.headers.location as string });
      expect(back.statusCode).toBe(303);
      return back.headers.location as string;
    },
  };
}

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
