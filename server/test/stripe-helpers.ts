// What the tests of the real Stripe adapter share (stripe.test.ts, stripe-wallet.test.ts): the app with the official
// SDK against the Stripe-compatible test server in server/test/stripe/ (the platform's account and agent go9's), the
// simulated cabinets over the real broker, and the calls and reads of a rental paid by card.
import { expect } from 'vitest';
import { build, cabinetsOnline, waitFor, type Built } from './helper.ts';
import { FakeStripe } from './stripe/fake-stripe.ts';

export const API = '/cdb-app-api/v1/app';
export const SK = 'sk_test_platform';
export const WH = 'whsec_platform';
export const AGENT_SK = 'sk_test_agent_go9';
const AGENT_WH = 'whsec_agent_go9';
export const CARD = 'stripe:STRIPE_CARD';

/** The Stripe test server and the app on it: agents go9 (its own account) and other, two cabinets online. */
export async function startStripe(): Promise<{ fake: FakeStripe; b: Built }> {
  const fake = await new FakeStripe([SK, AGENT_SK]).start();
  const b = await build({
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
  return { fake, b };
}

/** The calls and reads of the Stripe tests, on the app and test server `rig` gives once started. */
export function stripeCalls(rig: () => { b: Built; fake: FakeStripe }) {
  const get = (url: string, token: string, headers: Record<string, string> = {}) =>
    rig().b.app.inject({ method: 'GET', url: `${API}/${url}`, headers: { token, ...headers } });
  const rent = (token: string, body: Record<string, string>, headers: Record<string, string> = {}) =>
    rig().b.app.inject({
      method: 'POST',
      url: `${API}/cdb/cabinet/useDepositToRent`,
      headers: { token, ...headers },
      payload: body,
    });
  const check = (token: string, tradeNo: string) =>
    rig().b.app.inject({ method: 'POST', url: `${API}/cdb/mine/order/check/${tradeNo}/YJ`, headers: { token } });
  const untilOut = (token: string, tradeNo: string) =>
    waitFor(async () => {
      const r = await check(token, tradeNo);
      return r.json().code === 1 ? null : r;
    }, `order ${tradeNo} answered`);
  const payment = async (orderId: string) =>
    (
      await rig().b.db.query<{
        id: string;
        status: string;
        provider_ref: string;
        captured_amount: string;
        refunded_amount: string;
        payment_method_ref: string | null;
        capture_before: Date | null;
      }>('select * from payments where order_id = $1 order by created_at', [orderId])
    ).rows;
  const pi = (id: string, sk = SK) => rig().fake.get(`${sk}|`, id) as Record<string, unknown>;
  const user = async (token: string) => (await get('userInfo', token)).json().data as { pId: number };

  async function rentOut(token: string, pm = 'pm_card_visa', qrcode = 'PWL-VNO-001') {
    const res = await rent(token, { qrcode, stripeToken: pm, paymentId: CARD });
    expect(res.json()).toMatchObject({ code: 0 });
    const tradeNo: string = res.json().data.outTradeNo;
    const out = (await untilOut(token, tradeNo)).json();
    return { tradeNo, powerbankId: out.data.shebei as string };
  }
  async function giveBack(tradeNo: string, powerbankId: string, token: string) {
    await rig().b.app.inject({
      method: 'POST',
      url: '/demo-api/cabinets/PWL-VNO-001/return',
      payload: { powerbankId },
    });
    await waitFor(
      async () => (await get(`cdb/mine/order/detail?orderId=${tradeNo}`, token)).json().data.pJiesuanid === 1,
      'settled',
    );
    await rig().b.app.powerly.jobs.runDue();
  }
  /** A rent whose card asks for 3-D Secure, the challenge then passed: the PaymentIntent's id. */
  async function challenge(token: string) {
    const first = await rent(token, {
      qrcode: 'PWL-VNO-001',
      stripeToken: 'pm_card_authenticationRequired',
      paymentId: CARD,
    });
    const ref: string = first.json().data.action.paymentIntent;
    rig().fake.complete3ds(SK, ref);
    return ref;
  }
  return { get, rent, untilOut, payment, pi, user, rentOut, giveBack, challenge };
}
