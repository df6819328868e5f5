// Stripe's payment types beyond the card (Apple Pay, Google Pay, iDEAL, WeChat Pay): listed under the spec's names
// with Stripe configured, and in test mode without Stripe keys through the sandbox's hosted test page (authorise or
// fail), never twice; the former wallet names still accepted.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { build, touristToken, type Built, formBody } from './helper.ts';
import { checkLedger } from '../src/modules/wallet/reconcile.ts';
import { FakeStripe } from './stripe/fake-stripe.ts';

const API = '/cdb-app-api/v1/app';
interface Method {
  pId: string;
  pPaymentType: string;
  label: string;
  kind?: string;
  hold?: boolean;
  sandbox?: boolean;
}

let n = 0;
const client = (b: Built) => ({
  post: (url: string, token: string, body: Record<string, string | undefined>) =>
    b.app.inject({
      method: 'POST',
      url: `${API}/${url}`,
      headers: {
        token,
        'content-type': 'application/x-www-form-urlencoded',
        'idempotency-key': `st-${Date.now()}-${n++}`,
      },
      payload: formBody(body),
    }),
  methods: async (token: string, query: string) =>
    (await b.app.inject({ method: 'GET', url: `${API}/cdb/payment/method/list?${query}`, headers: { token } })).json()
      .data as Method[],
});

describe('test mode without Stripe keys', () => {
  let b: Built;
  beforeAll(async () => {
    b = await build();
  });
  afterAll(async () => b?.close());

  it('lists the wallets, iDEAL (EUR only) and WeChat Pay beside the sandbox card, each paid on the test page', async () => {
    const { methods } = client(b);
    const token = await touristToken(b.app);
    const eur = await methods(token, 'currency=EUR');
    expect(eur[0]).toMatchObject({ pId: 'card-sandbox', pPaymentType: 'STRIPE_CARD' });
    const stripeTypes = eur.filter((m) =>
      ['APPLE_PAY', 'GOOGLE_PAY', 'STRIPE_IDEAL', 'STRIPE_WECHAT'].includes(m.pPaymentType),
    );
    expect(stripeTypes.map((m) => [m.pId, m.label, m.kind, m.hold, m.sandbox])).toEqual([
      ['stripe-wallets:APPLE_PAY', 'Apple Pay', 'redirect', true, true],
      ['stripe-wallets:GOOGLE_PAY', 'Google Pay', 'redirect', true, true],
      ['stripe-redirects:STRIPE_IDEAL', 'iDEAL', 'redirect', false, true],
      ['stripe-redirects:STRIPE_WECHAT', 'WeChat Pay', 'redirect', false, true],
    ]);
    // One name per wallet: the former Stripe names are not listed besides.
    expect(eur.some((m) => m.pPaymentType === 'STRIPE_APPLE' || m.pPaymentType === 'STRIPE_GOOGLE')).toBe(false);
    const cny = (await methods(token, 'currency=CNY')).map((m) => m.pPaymentType);
    expect(cny).toContain('STRIPE_WECHAT');
    expect(cny).toContain('APPLE_PAY');
    expect(cny).not.toContain('STRIPE_IDEAL');
    // Stripe takes WeChat Pay in none of these.
    expect((await methods(token, 'currency=KES')).map((m) => m.pPaymentType)).not.toContain('STRIPE_WECHAT');
  });

  /** The customer on the sandbox's hosted test page: authorise or fail, then back to the app. */
  async function onTestPage(clientSecret: string, decision: 'approve' | 'cancel') {
    const action = JSON.parse(clientSecret.slice(4)) as { url: string };
    const page = await b.app.inject({ method: 'GET', url: action.url });
    expect(page.statusCode).toBe(200);
    const answered = await b.app.inject({
      method: 'POST',
      url: action.url,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: `decision=${decision}`,
    });
    expect(answered.statusCode).toBe(303);
  }

  async function topUp(
    token: string,
    paymentId: string,
    currency: string,
    amount: string,
    decision: 'approve' | 'cancel',
  ) {
    const { post } = client(b);
    const t = (await post('cdb/payment/method/payer', token, { paymentId })).json().data.token as string;
    const body = { amount, currency, paymentId };
    const started = await post('cdb/payment/multicurrency/recharge', token, {
      ...body,
      stripeToken: t,
      returnUrl: `http://localhost/#/confirm?payType=CZ&currency=${currency}`,
    });
    expect(started.json()).toMatchObject({ code: 0, data: { outTradeNo: '' } });
    const action = started.json().data.action as { clientSecret: string; paymentIntent: string };
    await onTestPage(action.clientSecret, decision);
    return post('cdb/payment/multicurrency/recharge', token, {
      ...body,
      paymentId,
      paymentIntent: action.paymentIntent,
    });
  }

  it('credits a top-up authorised on the test page with Apple Pay, and WeChat Pay in CNY', async () => {
    const token = await touristToken(b.app);
    expect((await topUp(token, 'stripe-wallets:APPLE_PAY', 'EUR', '7', 'approve')).json()).toMatchObject({
      code: 0,
      data: { pBalance: 7, pCurrencyType: 'EUR' },
    });
    const other = await touristToken(b.app);
    expect((await topUp(other, 'stripe-redirects:STRIPE_WECHAT', 'CNY', '20', 'approve')).json()).toMatchObject({
      code: 0,
      data: { pBalance: 20, pCurrencyType: 'CNY' },
    });
    const { rows } = await b.db.query<{ provider: string; status: string; amount: number }>(
      "select provider, status, amount::int as amount from payments where provider like 'stripe-%' order by created_at",
    );
    expect(rows).toEqual([
      { provider: 'stripe-wallets', status: 'captured', amount: 700 },
      { provider: 'stripe-redirects', status: 'captured', amount: 2000 },
    ]);
    expect(await checkLedger(b.db)).toEqual([]);
  });

  it('credits nothing for a payment failed on the test page (iDEAL, Google Pay)', async () => {
    const token = await touristToken(b.app);
    for (const id of ['stripe-redirects:STRIPE_IDEAL', 'stripe-wallets:GOOGLE_PAY']) {
      const r = await topUp(token, id, 'EUR', '4', 'cancel');
      expect(r.statusCode).toBe(422);
      expect(r.json().msg).toBe("You cancelled the payment on the provider's page. Nothing was charged.");
    }
    expect(await checkLedger(b.db)).toEqual([]);
  });

  it('refuses iDEAL in a currency it does not take, clearly and before any payment', async () => {
    const { post } = client(b);
    const token = await touristToken(b.app);
    const t = (await post('cdb/payment/method/payer', token, { paymentId: 'stripe-redirects:STRIPE_IDEAL' })).json()
      .data.token as string;
    const r = await post('cdb/payment/multicurrency/recharge', token, {
      amount: '3',
      currency: 'CNY',
      paymentId: 'stripe-redirects:STRIPE_IDEAL',
      stripeToken: t,
      returnUrl: 'http://localhost/#/wallet',
    });
    expect(r.statusCode).toBeGreaterThanOrEqual(400);
    expect(r.statusCode).toBeLessThan(500);
  });
});

describe('with Stripe configured', () => {
  const SK = 'sk_test_types';
  let fake: FakeStripe;
  let b: Built;
  beforeAll(async () => {
    fake = await new FakeStripe([SK]).start();
    b = await build({
      stripe: {
        account: { secretKey: SK, publishableKey: 'pk_test_types', webhookSecret: 'whsec_types' },
        agents: {},
        transport: fake.transport(),
      },
    });
  }, 60_000);
  afterAll(async () => {
    await b?.close();
    await fake?.stop();
  });

  it("lists Stripe's own types under the spec's names and no test-mode stand-in; the former names still pay", async () => {
    const token = await touristToken(b.app);
    const eur = await client(b).methods(token, 'currency=EUR');
    const stripe = eur.filter((m) => m.pId.startsWith('stripe:')).map((m) => m.pPaymentType);
    expect(stripe).toEqual(['STRIPE_CARD', 'APPLE_PAY', 'GOOGLE_PAY', 'STRIPE_IDEAL', 'STRIPE_WECHAT']);
    expect(eur.some((m) => m.pId.startsWith('stripe-wallets:') || m.pId.startsWith('stripe-redirects:'))).toBe(false);
    expect(eur.filter((m) => m.label === 'Apple Pay')).toHaveLength(1);
    const payments = b.app.powerly.payments;
    expect(payments.providerForMethod('stripe:STRIPE_APPLE')?.id).toBe('stripe');
    expect(payments.providerForMethod('stripe:GOOGLE_PAY')?.id).toBe('stripe');
    expect(payments.methodHolds('stripe:STRIPE_GOOGLE')).toBe(true);
    expect(payments.methodHolds('stripe:STRIPE_IDEAL')).toBe(false);
    // The test-mode stand-ins cannot be paid beside Stripe.
    expect(payments.providerForMethod('stripe-wallets:APPLE_PAY')).toBeNull();
  });
});
