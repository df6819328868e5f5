// The methods beyond the card (test mode: Alipay on the sandbox's checkout page) where two paths decide the fate of
// one provider payment: each interleaving is driven deterministically by replacing a method of the provider instance
// for one call. Every case failed on the code before its fix:
//  - a top-up resumed with a payment that is not a top-up's (another flow's charge, or one its guard released and
//    refunded) was credited to the wallet;
//  - the top-up and debt guards released a payment at their deadline without the charge's lock: a customer's resume
//    that credited (settled) it meanwhile kept the money while the guard refunded it;
//  - a rental resume that failed refunded the payment without the lock, while a second resume of it (a double tap)
//    started the rental with that deposit;
//  - a release (MethodProvider.void) that read a payment still pending closed nothing when the customer's
//    payment was recorded just before it closed the row: neither taken nor given back.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { build, markHeardFrom, touristToken, type Built, formBody } from './helper.ts';
import { MethodProvider } from '../src/modules/payments/methods/external.ts';
import { checkLedger } from '../src/modules/wallet/reconcile.ts';
import { ACTION_TIMEOUT_MS, type PaymentProvider } from '../src/modules/payments/provider.ts';

const API = '/cdb-app-api/v1/app';
let a: Built;
beforeAll(async () => {
  a = await build({ simulator: false });
});
afterAll(async () => a?.close());

let n = 0;
const post = (url: string, token: string, body: Record<string, string | undefined>) =>
  a.app.inject({
    method: 'POST',
    url: `${API}/${url}`,
    headers: {
      token,
      'content-type': 'application/x-www-form-urlencoded',
      'idempotency-key': `race-${Date.now()}-${n++}`,
    },
    payload: formBody(body),
  });
const payer = async (token: string) =>
  (await post('cdb/payment/method/payer', token, { paymentId: 'alipay:ALIPAY' })).json().data.token as string;

/** The customer approves on the sandbox's checkout page (the provider then holds the money). */
async function approve(clientSecret: string) {
  const action = JSON.parse(clientSecret.slice(4)) as { params?: Record<string, string>; url?: string };
  const r = await a.app.inject({
    method: 'POST',
    url: action.params?.sandboxCheckout ?? action.url!,
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: 'decision=approve',
  });
  expect(r.statusCode).toBe(303);
}

const balance = async (token: string) => {
  const wallets = (await a.app.inject({ method: 'GET', url: `${API}/cdb/user/wallet/new`, headers: { token } })).json()
    .data as { pCurrencyType: string; pBalance: number }[];
  return wallets.find((w) => w.pCurrencyType === 'CNY')?.pBalance ?? 0;
};
/** What the provider (the sandbox's model of Alipay) holds of a payment: captured and refunded, minor units. */
const atProvider = async (outTradeNo: string) =>
  (
    await a.db.query<{ state: string; captured: string; refunded: string }>(
      'select state, captured, refunded from sandbox_method_payments where out_trade_no = $1',
      [outTradeNo],
    )
  ).rows.map((r) => ({ state: r.state, captured: Number(r.captured), refunded: Number(r.refunded) }))[0]!;
const alipay = () => a.app.powerly.payments.providers.get('alipay') as PaymentProvider;

/**
 * The guard's release at its deadline: the next provider.void of `ref` runs `meanwhile` once the job's lease was
 * checked (the registry's fenced call) and before the void asks the provider for the payment's state (a network
 * call, during which the customer pays and the app resumes).
 */
function duringNextVoid(ref: string, meanwhile: () => Promise<void>) {
  const p = alipay();
  // The provider's own void, unfenced: the registry's proxy checked the lease once, before this.
  const orig = MethodProvider.prototype.void;
  p.void = async function (this: MethodProvider, r: string, opts?: { idempotencyKey?: string }) {
    if (r === ref) {
      delete (p as { void?: unknown }).void;
      await meanwhile();
    }
    return orig.call(this, r, opts);
  };
}

/** Every job due now and later (a compensation retried after its backoff). */
async function drainJobs() {
  for (let i = 0; i < 3; i++) {
    await a.app.powerly.jobs.runDue();
    a.clock.advance(10 * 60_000);
  }
}

async function startTopUp(token: string, amount: string) {
  const started = await post('cdb/payment/multicurrency/recharge', token, {
    amount,
    currency: 'CNY',
    paymentId: 'alipay:ALIPAY',
    stripeToken: await payer(token),
    returnUrl: 'http://localhost/#/wallet',
  });
  expect(started.json(), started.body).toMatchObject({ code: 0, data: { outTradeNo: '' } });
  return started.json().data.action as { clientSecret: string; paymentIntent: string };
}

async function orderWithDebt(token: string, debt: number) {
  const user = await a.app.powerly.auth.authenticate(token);
  const orderId = `PO${Date.now()}${n++}`;
  await a.db.query(
    `insert into orders (id, user_id, cabinet_id, venue_id, zujie, settled, deposit_type, currency, plan, wire_strategy, deposit, created_at, debt)
     select $1, $2, c.id, c.venue_id, 2, true, 1, 'CNY', '{}', '{}', 0, now(), $3 from cabinets c where c.id = 'PWL-SH-001'`,
    [orderId, user.id, debt],
  );
  return orderId;
}
const payOrder = (token: string, body: Record<string, string>) =>
  a.app.inject({
    method: 'POST',
    url: `${API}/cdb/payment/stripe/multicurrency/payOrder`,
    headers: { token, 'idempotency-key': `race-fk-${n++}` },
    payload: { paymentId: 'alipay:ALIPAY', ...body },
  });

describe("a top-up resumed with a payment that is not a top-up's", () => {
  it('is refused when the payment paid a debt: one charge is never both the debt and wallet money', async () => {
    const token = await touristToken(a.app);
    const orderId = await orderWithDebt(token, 600);
    const started = await payOrder(token, {
      outTradeNo: orderId,
      stripeToken: await payer(token),
      returnUrl: 'http://localhost/#/orderDetail',
    });
    const action = started.json().data.action as { clientSecret: string; paymentIntent: string };
    await approve(action.clientSecret);
    const paid = await payOrder(token, { outTradeNo: orderId, paymentIntent: action.paymentIntent });
    expect(paid.json()).toMatchObject({ code: 0, data: { outTradeNo: orderId } });
    // The same payment handed to the top-up call (same user, same amount).
    const topUp = await post('cdb/payment/multicurrency/recharge', token, {
      amount: '6',
      currency: 'CNY',
      paymentId: 'alipay:ALIPAY',
      paymentIntent: action.paymentIntent,
    });
    expect(await balance(token)).toBe(0);
    expect(topUp.json().code).not.toBe(0);
    expect(await checkLedger(a.db)).toEqual([]);
  });

  it("is refused when the rental's guard released (refunded) the payment: never refunded and credited", async () => {
    await markHeardFrom(a, ['PWL-SH-001']);
    const token = await touristToken(a.app);
    const started = await post('cdb/cabinet/useDepositToRent', token, {
      qrcode: 'PWL-SH-001',
      paymentId: 'alipay:ALIPAY',
      stripeToken: await payer(token),
      returnUrl: 'http://localhost/#/confirm?qrcode=PWL-SH-001',
    });
    expect(started.json(), started.body).toMatchObject({ code: 0 });
    const action = started.json().data.action as { clientSecret: string; paymentIntent: string };
    await approve(action.clientSecret);
    // The customer paid but never came back: the rental's guard releases the charge (refunded).
    a.clock.advance(ACTION_TIMEOUT_MS + 1000);
    await a.app.powerly.jobs.runDue();
    const p = await atProvider(action.paymentIntent);
    expect(p.refunded).toBe(p.captured);
    // The released payment handed to the top-up call (same user, its amount).
    const topUp = await post('cdb/payment/multicurrency/recharge', token, {
      amount: String(p.captured / 100),
      currency: 'CNY',
      paymentId: 'alipay:ALIPAY',
      paymentIntent: action.paymentIntent,
    });
    expect(await balance(token)).toBe(0);
    expect(topUp.json().code).not.toBe(0);
    expect(await checkLedger(a.db)).toEqual([]);
  });
});

describe('a guard releasing at its deadline while the customer comes back', () => {
  it('top-up: unpaid at its deadline; while the release asks the provider, the customer pays and resumes: credited or refunded, never both', async () => {
    const token = await touristToken(a.app);
    const action = await startTopUp(token, '5');
    a.clock.advance(ACTION_TIMEOUT_MS + 1000);
    let resumed: { code: number; msg?: string } | undefined;
    duringNextVoid(action.paymentIntent, async () => {
      await approve(action.clientSecret);
      resumed = (
        await post('cdb/payment/multicurrency/recharge', token, {
          amount: '5',
          currency: 'CNY',
          paymentId: 'alipay:ALIPAY',
          paymentIntent: action.paymentIntent,
        })
      ).json();
    });
    await drainJobs();
    expect(resumed).toBeDefined();
    const credited = await balance(token);
    const p = await atProvider(action.paymentIntent);
    // Credited and kept (the resume answered paid), or refunded and not credited (the resume refused): never both.
    expect([
      { credited: 5, refunded: 0, answered: 0 },
      { credited: 0, refunded: 500, answered: -1 },
    ]).toContainEqual({ credited, refunded: p.refunded, answered: resumed!.code === 0 ? 0 : -1 });
    expect(await checkLedger(a.db)).toEqual([]);
  });

  it('debt: unpaid at its deadline; while the release asks the provider, the customer pays and resumes: the debt paid or the charge refunded, never both', async () => {
    const token = await touristToken(a.app);
    const orderId = await orderWithDebt(token, 700);
    const started = await payOrder(token, {
      outTradeNo: orderId,
      stripeToken: await payer(token),
      returnUrl: 'http://localhost/#/orderDetail',
    });
    const action = started.json().data.action as { clientSecret: string; paymentIntent: string };
    a.clock.advance(ACTION_TIMEOUT_MS + 1000);
    let resumed: { code: number } | undefined;
    duringNextVoid(action.paymentIntent, async () => {
      await approve(action.clientSecret);
      resumed = (await payOrder(token, { outTradeNo: orderId, paymentIntent: action.paymentIntent })).json();
    });
    await drainJobs();
    expect(resumed).toBeDefined();
    const {
      rows: [o],
    } = await a.db.query<{ debt_paid_at: Date | null }>('select debt_paid_at from orders where id = $1', [orderId]);
    const p = await atProvider(action.paymentIntent);
    expect([
      { debtPaid: true, refunded: 0, answered: 0 },
      { debtPaid: false, refunded: 700, answered: -1 },
    ]).toContainEqual({
      debtPaid: o!.debt_paid_at !== null,
      refunded: p.refunded,
      answered: resumed!.code === 0 ? 0 : -1,
    });
    expect(await checkLedger(a.db)).toEqual([]);
  });
});

describe('a rental resumed twice (a double tap) whose first resume fails', () => {
  it('the failed one never refunds the charge the second one started its rental with', async () => {
    await markHeardFrom(a, ['PWL-SH-001']);
    const token = await touristToken(a.app);
    const rent = (body: Record<string, string>) =>
      post('cdb/cabinet/useDepositToRent', token, { qrcode: 'PWL-SH-001', paymentId: 'alipay:ALIPAY', ...body });
    const started = await rent({
      stripeToken: await payer(token),
      returnUrl: 'http://localhost/#/confirm?qrcode=PWL-SH-001',
    });
    const action = started.json().data.action as { clientSecret: string; paymentIntent: string };
    await approve(action.clientSecret);
    // The first resume's rental transaction fails (a database hiccup); while its compensation asks the provider to
    // refund, the second resume (the same payment) starts the rental.
    const ledger = a.app.powerly.ledger;
    const transfer = ledger.transfer;
    ledger.transfer = function (this: unknown) {
      ledger.transfer = transfer;
      return Promise.reject(new Error('database hiccup in the rental transaction'));
    } as typeof transfer;
    let second: { code: number; data?: { outTradeNo?: string } } | undefined;
    const p = alipay();
    const refund = MethodProvider.prototype.refund;
    p.refund = async function (this: MethodProvider, r: string, amount: number, opts?: { idempotencyKey?: string }) {
      if (r === action.paymentIntent && !second) {
        delete (p as { refund?: unknown }).refund;
        second = (await rent({ stripeToken: 'resume', paymentIntent: action.paymentIntent })).json();
      }
      return refund.call(this, r, amount, opts);
    };
    const first = await rent({ stripeToken: 'resume', paymentIntent: action.paymentIntent });
    expect(first.json().code).not.toBe(0);
    await drainJobs();
    const rented = second?.code === 0;
    const prov = await atProvider(action.paymentIntent);
    // The second rental holds the deposit paid with this charge (kept), or it was refused and the charge refunded.
    expect([
      { rented: true, refunded: 0 },
      { rented: false, refunded: prov.captured },
    ]).toContainEqual({ rented, refunded: prov.refunded });
    expect(await checkLedger(a.db)).toEqual([]);
  });
});

describe('a release of a payment still waiting for the customer, who pays just then', () => {
  it('the release read "pending"; the customer\'s payment was recorded before the release closed it: refunded, never kept', async () => {
    const token = await touristToken(a.app);
    const action = await startTopUp(token, '3');
    a.clock.advance(ACTION_TIMEOUT_MS + 1000);
    // The release (the compensation's void) asked the provider: still pending. Before it closes our row, the
    // customer pays and the app's resume records it paid (refused: the top-up was released).
    const repo = (alipay() as unknown as { host: { repo: { update: (...x: unknown[]) => Promise<void> } } }).host.repo;
    const update = repo.update;
    let resumed: { code: number } | undefined;
    repo.update = async function (this: unknown, ...x: unknown[]) {
      const [ref, st] = x as [string, { state: string; failureCode?: string }];
      if (ref === action.paymentIntent && st.failureCode === 'released' && !resumed) {
        await approve(action.clientSecret);
        resumed = (
          await post('cdb/payment/multicurrency/recharge', token, {
            amount: '3',
            currency: 'CNY',
            paymentId: 'alipay:ALIPAY',
            paymentIntent: action.paymentIntent,
          })
        ).json();
      }
      return update.apply(this, x);
    };
    try {
      await drainJobs();
    } finally {
      repo.update = update;
    }
    expect(resumed).toBeDefined();
    const credited = await balance(token);
    const p = await atProvider(action.paymentIntent);
    expect([
      { credited: 3, refunded: 0 },
      { credited: 0, refunded: 300 },
    ]).toContainEqual({ credited, refunded: p.refunded });
    expect(await checkLedger(a.db)).toEqual([]);
  });
});
