// Money: each leak observed on the old code has a case here that failed there.
//  - a failed void is a job (retried, `dead` when exhausted and visible), and the hold is released;
//  - a top-up whose credit failed is refunded AND recorded, so the provider's idempotent replay is never credited;
//  - jobs carry a fencing token: a process whose lease was taken over cannot finish the job again.
// The withdrawals' cases are in money-safety-withdrawals.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { build, cardToken, markHeardFrom, touristToken, type Built } from './helper.ts';
import { providerOwner, userOwner } from '../src/modules/ledger/service.ts';
import { JOB_COMPENSATE } from '../src/modules/payments/compensation.ts';
import { GUARD_MS } from '../src/modules/payments/guards.ts';
import { AppError } from '../src/lib/errors.ts';
import { API, moneyCalls } from './money-safety-helpers.ts';

let b: Built;
beforeAll(async () => {
  b = await build({ simulator: false });
});
afterAll(async () => b?.close());

const { key, post } = moneyCalls(() => b);

const intentStatus = async (ref: string) =>
  (await b.db.query<{ status: string }>('select status from sandbox_intents where id = $1', [ref])).rows[0]?.status;

/** Makes the next call of `obj[name]` throw once. */
function failOnce<T extends object>(obj: T, name: keyof T & string, message: string) {
  const orig = (obj as Record<string, unknown>)[name] as (...a: unknown[]) => unknown;
  (obj as Record<string, unknown>)[name] = function (this: unknown) {
    (obj as Record<string, unknown>)[name] = orig;
    return Promise.reject(new Error(message));
  };
}

describe('compensations are jobs', () => {
  it('a void that fails is retried by a job until the card hold is released (and the failure is not just a log line)', async () => {
    await markHeardFrom(b, ['PWL-VNO-001']); // deposit type 0: a card pre-authorisation
    const token = await touristToken(b.app);
    let ref = '';
    const sandbox = b.sandbox;
    const origVoid = sandbox.void.bind(sandbox);
    let failures = 1;
    sandbox.void = async (r: string, o?: { idempotencyKey?: string }) => {
      ref = r;
      if (failures-- > 0) throw new Error('provider unreachable');
      return origVoid(r, o);
    };
    failOnce(b.app.powerly.ledger, 'transfer', 'database hiccup in the rental transaction');
    const res = await b.app.inject({
      method: 'POST',
      url: `${API}/cdb/cabinet/useDepositToRent`,
      headers: { token },
      payload: { qrcode: 'PWL-VNO-001', stripeToken: await cardToken(b.app), paymentId: 'card-sandbox' },
    });
    expect(res.json().code).not.toBe(0);
    expect(ref).toMatch(/^pi_/);
    expect(await intentStatus(ref)).toBe('authorized'); // the first void failed
    // A compensation job holds the release (not a log line): due again after its backoff, by any process.
    const { rows } = await b.db.query<{ n: number }>(
      `select count(*)::int as n from jobs where kind = $1 and done_at is null and dead_at is null`,
      [JOB_COMPENSATE],
    );
    expect(rows[0]!.n).toBe(1);
    b.clock.advance(130_000);
    await b.app.powerly.jobs.runDue();
    expect(await intentStatus(ref)).toBe('voided');
    sandbox.void = origVoid;
  });

  it('a job that exhausts its attempts is dead (not done) and listed for an operator', async () => {
    const jobs = b.app.powerly.jobs;
    jobs.register('test.always-fails', () => Promise.reject(new Error('no luck')));
    const id = await jobs.enqueue('test.always-fails', { why: 'test' }, b.clock.now());
    const saved = jobs.maxAttempts;
    jobs.maxAttempts = 2;
    try {
      for (let i = 0; i < 2; i++) {
        await jobs.runDue();
        b.clock.advance(400_000);
      }
    } finally {
      jobs.maxAttempts = saved;
    }
    const { rows } = await b.db.query<{ done_at: Date | null; dead_at: Date | null }>(
      'select done_at, dead_at from jobs where id = $1',
      [id],
    );
    expect(rows[0]!.done_at).toBeNull();
    expect(rows[0]!.dead_at).not.toBeNull();
    expect((await jobs.dead()).map((j) => Number(j.id))).toContain(id);
    expect(await jobs.revive(id)).toBe(true);
  });

  it('fencing: a process whose lease was taken over cannot mark the job done', async () => {
    const jobs = b.app.powerly.jobs;
    let release!: () => void;
    const slow = new Promise<void>((r) => (release = r));
    let runs = 0;
    jobs.register('test.slow', async () => {
      runs++;
      if (runs === 1) await slow; // the first run stalls past its lease
    });
    const id = await jobs.enqueue('test.slow', {}, b.clock.now());
    const first = jobs.runNow(id);
    await new Promise((r) => setTimeout(r, 50));
    b.clock.advance(61_000); // the lease (60 s) expired: another process takes the job
    expect(await jobs.runNow(id)).toBe(true);
    const { rows: after } = await b.db.query<{ fence: string; done_at: Date }>(
      'select fence, done_at from jobs where id = $1',
      [id],
    );
    expect(Number(after[0]!.fence)).toBe(2);
    // The first process wakes up: its done() carries fence 1 and changes nothing.
    await b.db.query('update jobs set done_at = null where id = $1', [id]); // as if the second were still running
    release();
    await first;
    const { rows } = await b.db.query<{ done_at: Date | null }>('select done_at from jobs where id = $1', [id]);
    expect(rows[0]!.done_at).toBeNull();
  });

  it('fencing: a job whose lease was taken over while it waited makes no provider call (the money call checks the lease)', async () => {
    const jobs = b.app.powerly.jobs;
    const providers = b.app.powerly.payments.providers;
    let release!: () => void;
    const slow = new Promise<void>((r) => (release = r));
    const calls: string[] = [];
    const sandbox = b.sandbox;
    const origRefund = sandbox.refund.bind(sandbox);
    sandbox.refund = async (ref: string, amount: number, o?: { idempotencyKey?: string }) => {
      calls.push(ref);
      return origRefund(ref, amount, o).catch(() => undefined);
    };
    let runs = 0;
    jobs.register('test.slowRefund', async () => {
      const run = ++runs;
      if (run === 1) await slow; // the first process stalls past its lease before its refund
      await providers.get('sandbox').refund(`ref_${run}`, 100);
    });
    const id = await jobs.enqueue('test.slowRefund', {}, b.clock.now());
    const first = jobs.runNow(id);
    await new Promise((r) => setTimeout(r, 50));
    b.clock.advance(61_000);
    expect(await jobs.runNow(id)).toBe(true); // the second process refunds
    await b.db.query('update jobs set done_at = null where id = $1', [id]); // as if the second were still running
    release();
    expect(await first).toBe(false); // the first wakes up: its refund is refused before it reaches the provider
    expect(calls).toEqual(['ref_2']);
  });
});

describe('a top-up whose wallet credit fails', () => {
  it('is refunded and recorded: a retry with the same key is not credited from the provider replay', async () => {
    const token = await touristToken(b.app);
    const k = key();
    const body = { amount: '10', currency: 'EUR', paymentId: 'card-sandbox', stripeToken: await cardToken(b.app) };
    failOnce(b.app.powerly.ledger, 'transfer', 'database hiccup in the top-up transaction');
    const first = await post('cdb/payment/multicurrency/recharge', token, body, k);
    expect(first.json().code).not.toBe(0);
    const user = await b.app.powerly.auth.authenticate(token);
    const ref = `pi_cz_${user.id}_${k}`;
    expect(await intentStatus(ref)).toBe('refunded');
    const retry = await post('cdb/payment/multicurrency/recharge', token, body, k);
    expect(retry.json().code).not.toBe(0);
    expect((await b.app.powerly.wallet.walletOf(user.id, 'EUR')).balance).toBe(0);
  });
});

describe('a top-up whose process dies between the charge and the credit', () => {
  it('is refunded (and recorded) by its guard job; a retry with the same key is not credited', async () => {
    const token = await touristToken(b.app);
    const user = await b.app.powerly.auth.authenticate(token);
    const k = key();
    const input = {
      amount: '10',
      currency: 'EUR',
      paymentId: 'card-sandbox',
      stripeToken: await cardToken(b.app),
      key: k,
    };
    // The process dies right after the provider's answer: nothing after it runs (no credit, no refund).
    const payments = b.app.powerly.payments;
    const orig = payments.lockCharge.bind(payments);
    payments.lockCharge = () => Promise.reject(new Error('process killed'));
    await expect(b.app.powerly.wallet.topUp(user, input)).rejects.toThrow('process killed');
    payments.lockCharge = orig;
    const ref = `pi_cz_${user.id}_${k}`;
    expect(await intentStatus(ref)).toBe('captured');
    b.clock.advance(GUARD_MS + 1000);
    await b.app.powerly.jobs.runDue();
    expect(await intentStatus(ref)).toBe('refunded');
    await expect(b.app.powerly.wallet.topUp(user, input)).rejects.toMatchObject({ key: 'error.wallet.topupRefunded' });
    expect((await b.app.powerly.wallet.walletOf(user.id, 'EUR')).balance).toBe(0);
  });
});

describe('idempotency keys complete inside the business transaction', () => {
  it('a failure after the rental committed (before the response was stored) replays the rental, never runs it again', async () => {
    await markHeardFrom(b, ['PWL-SH-001']);
    const token = await touristToken(b.app);
    const rentals = b.app.powerly.rentals as unknown as { sendEject(id: string): Promise<void> };
    const orig = rentals.sendEject;
    rentals.sendEject = () => Promise.reject(new Error('process stopped after the commit'));
    const k = key();
    const stripeToken = await cardToken(b.app);
    const req = () =>
      b.app.inject({
        method: 'POST',
        url: `${API}/cdb/cabinet/useDepositToRent`,
        headers: { token, 'idempotency-key': k },
        payload: { qrcode: 'PWL-SH-001', stripeToken, paymentId: 'card-sandbox' },
      });
    const first = await req();
    rentals.sendEject = orig;
    expect(first.statusCode).toBe(500);
    const user = await b.app.powerly.auth.authenticate(token);
    const { rows } = await b.db.query<{ id: string }>('select id from orders where user_id = $1', [user.id]);
    expect(rows).toHaveLength(1);
    const again = await req();
    expect(again.json()).toMatchObject({ code: 0, data: { outTradeNo: rows[0]!.id } });
    expect(again.headers['idempotent-replayed']).toBe('true');
  });

  it('a refusal raised after the rental committed answers the rental (as its replays do), never the refusal', async () => {
    await markHeardFrom(b, ['PWL-SH-001']);
    const token = await touristToken(b.app);
    const rentals = b.app.powerly.rentals as unknown as { sendEject(id: string): Promise<void> };
    const orig = rentals.sendEject;
    rentals.sendEject = () => Promise.reject(new AppError(422, 'error.noPowerbank'));
    const k = key();
    const stripeToken = await cardToken(b.app);
    const req = () =>
      b.app.inject({
        method: 'POST',
        url: `${API}/cdb/cabinet/useDepositToRent`,
        headers: { token, 'idempotency-key': k },
        payload: { qrcode: 'PWL-SH-001', stripeToken, paymentId: 'card-sandbox' },
      });
    const first = await req();
    rentals.sendEject = orig;
    const user = await b.app.powerly.auth.authenticate(token);
    const { rows } = await b.db.query<{ id: string }>('select id from orders where user_id = $1', [user.id]);
    expect(rows).toHaveLength(1);
    expect(first.statusCode).toBe(200);
    expect(first.json()).toMatchObject({ code: 0, data: { outTradeNo: rows[0]!.id } });
    const again = await req();
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.json()).toEqual(first.json());
  });

  it("the first answer is the stored one: a credit landing between a withdrawal's commit and its answer changes neither", async () => {
    // The wallet model test (seed 1000215646) met this on PostgreSQL: a top-up committed after the withdrawal and
    // before its answer; the answer showed the later balance, its replays the balance the withdrawal left.
    const token = await touristToken(b.app);
    const user = await b.app.powerly.auth.authenticate(token);
    const l = b.app.powerly.ledger;
    const credit = async (amount: number) =>
      l.transfer({
        debit: await l.account(providerOwner('manual-test'), 'clearing', 'EUR'),
        credit: await l.account(userOwner(user.id), 'wallet', 'EUR'),
        amount,
        code: 'adjustment',
        orderId: null,
        at: b.clock.now(),
      });
    await credit(5000);
    const wallet = b.app.powerly.wallet.withdrawals as unknown as { submitPayout(id: string): Promise<void> };
    const orig = wallet.submitPayout;
    wallet.submitPayout = async function (this: unknown, id: string) {
      wallet.submitPayout = orig;
      await credit(700); // another request's top-up, committed after the withdrawal's
      return orig.call(this, id);
    };
    const k = key();
    const body = {
      refundType: 1,
      amount: '10',
      currency: 'EUR',
      amountType: 'balance',
      receiverAccount: JSON.stringify({
        paymentId: 'payout-sepa',
        accountData: { accountHolder: 'A', iban: 'LT000001', country: 'LT' },
      }),
    };
    const first = await post('cdb/mine/tixian/create', token, body, k);
    wallet.submitPayout = orig;
    expect(first.json()).toMatchObject({ code: 0, data: { pBalance: 40 } });
    const again = await post('cdb/mine/tixian/create', token, body, k);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.json()).toEqual(first.json());
    expect((await b.app.powerly.wallet.walletOf(user.id, 'EUR')).balance).toBe(4700);
  });

  it("so is a top-up's: the route reads the balance again after its commit, and still answers what it stored", async () => {
    const token = await touristToken(b.app);
    const user = await b.app.powerly.auth.authenticate(token);
    const l = b.app.powerly.ledger;
    const jobs = b.app.powerly.jobs as unknown as { cancel(...a: unknown[]): Promise<unknown> };
    const orig = jobs.cancel;
    jobs.cancel = async function (this: unknown, ...a: unknown[]) {
      jobs.cancel = orig;
      await l.transfer({
        // another request's credit, committed after the top-up's
        debit: await l.account(providerOwner('manual-test'), 'clearing', 'EUR'),
        credit: await l.account(userOwner(user.id), 'wallet', 'EUR'),
        amount: 700,
        code: 'adjustment',
        orderId: null,
        at: b.clock.now(),
      });
      return orig.apply(this, a);
    };
    const k = key();
    const body = { amount: '10', currency: 'EUR', paymentId: 'card-sandbox', stripeToken: await cardToken(b.app) };
    const first = await post('cdb/payment/multicurrency/recharge', token, body, k);
    jobs.cancel = orig;
    const again = await post('cdb/payment/multicurrency/recharge', token, body, k);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(first.json()).toMatchObject({ code: 0, data: { pBalance: 10 } });
    expect(again.json()).toEqual(first.json());
    expect((await b.app.powerly.wallet.walletOf(user.id, 'EUR')).balance).toBe(1700);
  });
});

describe('a refund made twice with one idempotency key', () => {
  it('(a job whose lease was taken over during the provider call, run by both processes) is recorded once', async () => {
    // The provider refunds once per key; our record of it must too, or the payment shows more given back than was
    // (and a refund to the card later counts too little left).
    const token = await touristToken(b.app);
    const user = await b.app.powerly.auth.authenticate(token);
    expect(
      (
        await post(
          'cdb/payment/multicurrency/recharge',
          token,
          { amount: '10', currency: 'EUR', paymentId: 'card-sandbox', stripeToken: await cardToken(b.app) },
          key(),
        )
      ).json().code,
    ).toBe(0);
    const [pay] = await b.app.powerly.payments.capturedTopUps(user.id, 'EUR');
    await Promise.all([
      b.app.powerly.payments.refund(pay!.id, 300, 'state5_x'),
      b.app.powerly.payments.refund(pay!.id, 300, 'state5_x'),
    ]);
    await b.app.powerly.payments.refund(pay!.id, 300, 'state5_x');
    const once = (await b.app.powerly.payments.find(pay!.id))!;
    expect([once.status, Number(once.refunded_amount)]).toEqual(['captured', 300]);
    // Another key is another refund.
    await b.app.powerly.payments.refund(pay!.id, 200, 'state5_y');
    expect(Number((await b.app.powerly.payments.find(pay!.id))!.refunded_amount)).toBe(500);
  });
});
