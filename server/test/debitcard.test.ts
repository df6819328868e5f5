// The `debitcard` payment type: a card type of the agent's card provider that takes only debit cards (the
// card's funding type must be `debit`; credit and prepaid are declined with debit_only, in the user's language).
// In test mode through the sandbox card provider (its debit test cards), and live through the real Stripe adapter
// against the Stripe-compatible test server (server/test/stripe/): rentals, wallet top-ups, where it is offered.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { build, cabinetsOnline, TestClock, touristToken, waitFor, type Built } from './helper.ts';
import { FakeStripe } from './stripe/fake-stripe.ts';
import { checkLedger } from '../src/modules/wallet/reconcile.ts';
import { methodProviders, methodsGaps, parseMethodsConfig } from '../src/modules/payments/methods/registry.ts';
import { ExternalRepository } from '../src/modules/payments/methods/repository.ts';
import { JOB_TOPUP_GUARD } from '../src/modules/wallet/service.ts';

const API = '/cdb-app-api/v1/app';
let n = 0;
const inject = (b: Built) => ({
  get: (url: string, token: string, headers: Record<string, string> = {}) =>
    b.app.inject({ method: 'GET', url: `${API}/${url}`, headers: { token, ...headers } }),
  post: (url: string, token: string, body: Record<string, string>, headers: Record<string, string> = {}) =>
    b.app.inject({
      method: 'POST',
      url: `${API}/${url}`,
      headers: { token, 'idempotency-key': `d-${Date.now()}-${n++}`, ...headers },
      payload: body,
    }),
});
interface Method {
  pId: string;
  pPaymentType: string;
  publicKey: string;
  kind?: string;
}
const check = (b: Built, token: string, tradeNo: string) =>
  waitFor(async () => {
    const r = await b.app.inject({
      method: 'POST',
      url: `${API}/cdb/mine/order/check/${tradeNo}/YJ`,
      headers: { token },
    });
    return r.json().code === 1 ? null : r;
  }, `order ${tradeNo} answered`);

describe('debitcard in test mode (the sandbox card provider)', () => {
  let b: Built;
  let api: ReturnType<typeof inject>;
  beforeAll(async () => {
    b = await build();
    api = inject(b);
    await cabinetsOnline(b, ['PWL-VNO-001']);
  }, 60_000);
  afterAll(async () => b?.close());

  async function token(publicKey: string, number: string) {
    const r = await b.app.inject({
      method: 'POST',
      url: '/sandbox-pay/v1/tokens',
      payload: { publicKey, number, expMonth: '12', expYear: '34', cvc: '123' },
    });
    expect(r.statusCode, r.body).toBe(200);
    return r.json() as { id: string; card: { funding: string; last4: string } };
  }

  it("is listed beside the card, and the sandbox reports each test card's funding type", async () => {
    const t = await touristToken(b.app);
    const list = (await api.get('cdb/payment/method/list?qrcode=PWL-VNO-001', t)).json().data as Method[];
    const debit = list.find((m) => m.pPaymentType === 'debitcard')!;
    expect(debit).toMatchObject({ pId: 'sandbox:debitcard', label: 'Debit card', publicKey: 'pk_sandbox_powerly' });
    expect(debit.kind).toBeUndefined();
    expect((await token(debit.publicKey, '4000056655665556')).card.funding).toBe('debit');
    expect((await token(debit.publicKey, '5200 8282 8282 8210')).card.funding).toBe('debit');
    expect((await token(debit.publicKey, '5105105105105100')).card.funding).toBe('prepaid');
    expect((await token(debit.publicKey, '4242424242424242')).card.funding).toBe('credit');
  });

  it('a debit card holds the deposit and rents; a credit or prepaid card is declined with debit_only, nothing held', async () => {
    const t = await touristToken(b.app);
    const credit = await token('pk_sandbox_powerly', '4242424242424242');
    const refused = await api.post(
      'cdb/cabinet/useDepositToRent',
      t,
      { qrcode: 'PWL-VNO-001', paymentId: 'sandbox:debitcard', stripeToken: credit.id },
      { lang: 'lt-LT' },
    );
    expect(refused.statusCode).toBe(422);
    expect(refused.json().msg).toBe('Šiam mokėjimui priimamos tik debetinės kortelės. Naudokite debetinę kortelę.');
    const prepaid = await token('pk_sandbox_powerly', '5105105105105100');
    const noPrepaid = await api.post(
      'cdb/cabinet/useDepositToRent',
      t,
      { qrcode: 'PWL-VNO-001', paymentId: 'sandbox:debitcard', stripeToken: prepaid.id },
      { lang: 'en-US' },
    );
    expect(noPrepaid.json()).toMatchObject({
      code: 422,
      msg: 'Only debit cards are accepted for this payment. Please use a debit card.',
    });
    const { rows: declined } = await b.db.query<{ status: string; failure_code: string }>(
      `select status, failure_code from payments where provider = 'sandbox' and provider_ref in (select id from sandbox_intents where token_id = any($1))`,
      [[credit.id, prepaid.id]],
    );
    expect(declined).toEqual([
      { status: 'declined', failure_code: 'debit_only' },
      { status: 'declined', failure_code: 'debit_only' },
    ]);
    // The same credit card pays as a plain card (STRIPE_CARD): the restriction is the debit type's only.
    const debit = await token('pk_sandbox_powerly', '4000056655665556');
    const ok = await api.post('cdb/cabinet/useDepositToRent', t, {
      qrcode: 'PWL-VNO-001',
      paymentId: 'sandbox:debitcard',
      stripeToken: debit.id,
    });
    expect(ok.json(), ok.body).toMatchObject({ code: 0 });
    const tradeNo = ok.json().data.outTradeNo as string;
    expect((await check(b, t, tradeNo)).json().code).toBe(0);
    const { rows } = await b.db.query<{ purpose: string; status: string; card_last4: string }>(
      'select purpose, status, card_last4 from payments where order_id = $1',
      [tradeNo],
    );
    expect(rows).toEqual([{ purpose: 'deposit_preauth', status: 'authorized', card_last4: '5556' }]);
  });

  it('a wallet top-up with a debit card is credited; with a credit card it is refused in the user language', async () => {
    const t = await touristToken(b.app);
    const credit = await token('pk_sandbox_powerly', '4242424242424242');
    const no = await api.post(
      'cdb/payment/multicurrency/recharge',
      t,
      { amount: '10', currency: 'EUR', paymentId: 'sandbox:debitcard', stripeToken: credit.id },
      { lang: 'es-ES' },
    );
    expect(no.json()).toMatchObject({
      code: 422,
      msg: 'Este pago solo acepta tarjetas de débito. Usa una tarjeta de débito.',
    });
    const debit = await token('pk_sandbox_powerly', '5200828282828210');
    const yes = await api.post('cdb/payment/multicurrency/recharge', t, {
      amount: '10',
      currency: 'EUR',
      paymentId: 'sandbox:debitcard',
      stripeToken: debit.id,
    });
    expect(yes.json(), yes.body).toMatchObject({ code: 0, data: { pBalance: 10, pCurrencyType: 'EUR' } });
    expect(await checkLedger(b.db)).toEqual([]);
  });
});

describe('debitcard live (the Stripe adapter against the Stripe test server)', () => {
  const SK = 'sk_test_platform_debit';
  let fake: FakeStripe;
  let b: Built;
  let api: ReturnType<typeof inject>;
  beforeAll(async () => {
    fake = await new FakeStripe([SK]).start();
    b = await build({
      stripe: {
        account: { secretKey: SK, publishableKey: 'pk_test_platform', webhookSecret: 'whsec_debit' },
        agents: {},
        transport: fake.transport(),
      },
      // The operator switches the debit type on for the platform; agent "kiosk" has a configuration of its own without it.
      paymentMethods: { powerly: { debitcard: {} }, kiosk: {} },
    });
    fake.now = () => Math.floor(b.clock.now().getTime() / 1000);
    await b.app.powerly.fleet.agents.create({ id: 'kiosk', name: 'Kiosk', currencies: [], origins: [] });
    api = inject(b);
    await cabinetsOnline(b, ['PWL-VNO-001']);
  }, 60_000);
  afterAll(async () => {
    await b?.close();
    await fake?.stop();
  });

  it('is offered where the operator switched it on, and refused where not', async () => {
    const t = await touristToken(b.app);
    const list = (await api.get('cdb/payment/method/list?qrcode=PWL-VNO-001', t)).json().data as Method[];
    expect(list.filter((m) => !m.kind).map((m) => m.pId)).toEqual([
      'stripe:STRIPE_CARD',
      'stripe:APPLE_PAY',
      'stripe:GOOGLE_PAY',
      'stripe:debitcard',
    ]);
    expect(list.find((m) => m.pId === 'stripe:debitcard')?.publicKey).toBe('pk_test_platform');
    const kiosk = (await api.get('cdb/payment/method/list?qrcode=PWL-VNO-001', t, { agentOpenId: 'kiosk' })).json()
      .data as Method[];
    expect(kiosk.some((m) => m.pPaymentType === 'debitcard')).toBe(false);
    const r = await api.post(
      'cdb/cabinet/useDepositToRent',
      t,
      { qrcode: 'PWL-VNO-001', paymentId: 'stripe:debitcard', stripeToken: 'pm_card_visa_debit' },
      { agentOpenId: 'kiosk' },
    );
    expect(r.statusCode).toBe(400);
  });

  it('a Visa debit card holds the deposit; a credit or prepaid card is declined before any PaymentIntent', async () => {
    const t = await touristToken(b.app);
    const before = fake.requests.filter((q) => q.path === '/v1/payment_intents' && q.method === 'POST').length;
    for (const pm of ['pm_card_visa', 'pm_card_mastercard_prepaid']) {
      const r = await api.post(
        'cdb/cabinet/useDepositToRent',
        t,
        { qrcode: 'PWL-VNO-001', paymentId: 'stripe:debitcard', stripeToken: pm },
        { lang: 'pt-PT' },
      );
      expect(r.json()).toMatchObject({
        code: 422,
        msg: 'Este pagamento só aceita cartões de débito. Utilize um cartão de débito.',
      });
    }
    // The funding type was read (GET the PaymentMethod); no payment was asked for.
    expect(fake.requests.filter((q) => q.path === '/v1/payment_intents' && q.method === 'POST').length).toBe(before);
    expect(fake.requests.some((q) => q.method === 'GET' && q.path === '/v1/payment_methods/pm_card_visa')).toBe(true);
    const ok = await api.post('cdb/cabinet/useDepositToRent', t, {
      qrcode: 'PWL-VNO-001',
      paymentId: 'stripe:debitcard',
      stripeToken: 'pm_card_visa_debit',
    });
    expect(ok.json(), ok.body).toMatchObject({ code: 0 });
    const tradeNo = ok.json().data.outTradeNo as string;
    expect((await check(b, t, tradeNo)).json().code).toBe(0);
    const {
      rows: [p],
    } = await b.db.query<{ status: string; provider_ref: string; card_last4: string }>(
      'select status, provider_ref, card_last4 from payments where order_id = $1',
      [tradeNo],
    );
    expect(p).toMatchObject({ status: 'authorized', card_last4: '5556' });
    expect(fake.get(`${SK}|`, p!.provider_ref)).toMatchObject({
      capture_method: 'manual',
      amount: 2500,
      status: 'requires_capture',
    });
  });

  it('a Mastercard debit card tops up the wallet; an unknown payment method reads as expired card details', async () => {
    const t = await touristToken(b.app);
    const yes = await api.post('cdb/payment/multicurrency/recharge', t, {
      amount: '20',
      currency: 'EUR',
      paymentId: 'stripe:debitcard',
      stripeToken: 'pm_card_mastercard_debit',
    });
    expect(yes.json(), yes.body).toMatchObject({ code: 0, data: { pBalance: 20 } });
    const gone = await api.post('cdb/payment/multicurrency/recharge', t, {
      amount: '20',
      currency: 'EUR',
      paymentId: 'stripe:debitcard',
      stripeToken: 'pm_missing',
    });
    expect(gone.json()).toMatchObject({
      code: 422,
      msg: 'The card details have expired or were already used. Please enter your card again.',
    });
    expect(await checkLedger(b.db)).toEqual([]);
  });
});

describe('debitcard: the guards replay a call as it was made', () => {
  const SK = 'sk_test_platform_guard';
  let fake: FakeStripe;
  let b: Built;
  beforeAll(async () => {
    fake = await new FakeStripe([SK]).start();
    b = await build({
      simulator: false,
      stripe: {
        account: { secretKey: SK, publishableKey: 'pk_test_guard', webhookSecret: 'whsec_guard' },
        agents: {},
        transport: fake.transport(),
      },
      paymentMethods: { powerly: { debitcard: {} } },
    });
  }, 60_000);
  afterAll(async () => {
    await b?.close();
    await fake?.stop();
  });

  it('a top-up guard (the process died mid-call) replays a debit-only call as debit-only: the credit card is never charged', async () => {
    const t = await touristToken(b.app);
    const me = (await inject(b).get('userInfo', t)).json().data as { pId: number };
    // What recharge writes before the card call; here the call's process "died" and the guard runs it again.
    await b.app.powerly.jobs.enqueue(
      JOB_TOPUP_GUARD,
      {
        providerId: 'stripe',
        token: 'pm_card_visa',
        ref: null,
        amount: 1000,
        currency: 'EUR',
        key: 'guard-debit-1',
        userId: me.pId,
        outTradeNo: 'CZGUARD1',
        methodType: 'debitcard',
      },
      b.clock.now(),
    );
    await b.app.powerly.jobs.runDue();
    expect(fake.requests.some((q) => q.method === 'GET' && q.path === '/v1/payment_methods/pm_card_visa')).toBe(true);
    expect(fake.requests.filter((q) => q.path === '/v1/payment_intents' && q.method === 'POST')).toEqual([]);
  });
});

describe('debitcard in PAYMENT_METHODS', () => {
  it("is a card provider type: accepted without keys, no adapter of its own; an agent with only it offers none of the platform's methods", () => {
    const cfg = parseMethodsConfig('{"powerly": {"debitcard": {}}, "go9": {"debitcard": {}}}');
    expect(methodsGaps(cfg)).toEqual([]);
    expect(() => parseMethodsConfig('{"powerly": {"creditcard": {}}}')).toThrow(
      /unknown method "creditcard".*debitcard/,
    );
    const clock = new TestClock();
    const byAgent = methodProviders(cfg, {
      repo: {} as ExternalRepository,
      clock,
      publicUrl: '',
      sandbox: true,
      platformAgent: 'powerly',
      cardOutcome: async () => undefined,
    });
    // In the sandbox the platform's unconfigured methods run in test mode; go9 has a configuration of its own.
    expect(byAgent.get('go9')).toEqual([]);
    expect(byAgent.get('powerly')!.length).toBeGreaterThan(5);
  });
});
