// A failed eject costs nothing and the screen's answer says exactly where the deposit went: a card hold voided;
// a deposit top-up refunded to its card after the keep window (through the payment's refund, a compensation job
// and the ledger), or kept in the wallet by the rider's choice; never refunded twice; another rider's order 404.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { build, cabinetsOnline, cardToken, ledgerBalanced, touristToken, waitFor, type Built } from './helper.ts';
import { KEEP_WINDOW_MS } from '../src/modules/rentals/deposit-returns.ts';

const API = '/cdb-app-api/v1/app';
let b: Built;
beforeAll(async () => {
  b = await build();
  await cabinetsOnline(b, ['PWL-SH-001', 'PWL-VNO-001']);
});
afterAll(async () => b?.close());

const get = (url: string, token: string, lang = 'en-US') =>
  b.app.inject({ method: 'GET', url: `${API}/${url}`, headers: { token, lang } });
const post = (url: string, token: string, body: Record<string, string>, lang = 'en-US') =>
  b.app.inject({ method: 'POST', url: `${API}/${url}`, headers: { token, lang }, payload: body });

/** A rental at `cabinet` whose eject fails: the cancelled order's number. */
async function failedRental(token: string, cabinet: string) {
  await b.app.inject({ method: 'POST', url: `/demo-api/cabinets/${cabinet}/fail-next-eject` });
  const res = await post('cdb/cabinet/useDepositToRent', token, {
    qrcode: cabinet,
    stripeToken: await cardToken(b.app),
    paymentId: 'card-sandbox',
  });
  const tradeNo: string = res.json().data.outTradeNo;
  await waitFor(
    async () =>
      (await b.app.inject({ method: 'POST', url: `${API}/cdb/mine/order/check/${tradeNo}/YJ`, headers: { token } }))
        .statusCode === 422,
    'cancelled',
  );
  return tradeNo;
}

const deposit = async (token: string, orderId: string) =>
  (await get(`cdb/mine/order/deposit?orderId=${orderId}`, token)).json();
const balance = async (token: string) => (await get('userInfo', token)).json().data.pbalance as number;
const topUpPayment = async (orderId: string) => {
  const { rows } = await b.db.query<{ status: string; refunded_amount: number; provider_ref: string }>(
    `select status, refunded_amount, provider_ref from payments where order_id = $1 and purpose = 'deposit_topup'`,
    [orderId],
  );
  return rows[0]!;
};

describe('a deposit top-up whose rental never started (Shanghai, yajintype 1)', () => {
  it('is refunded to its card after the keep window, once, through the payment, a compensation and the ledger', async () => {
    const token = await touristToken(b.app);
    const orderId = await failedRental(token, 'PWL-SH-001');
    const before = await deposit(token, orderId);
    expect(before).toMatchObject({
      code: 0,
      data: {
        orderId,
        kind: 'refund',
        state: 'scheduled',
        amount: 99,
        refunded: 0,
        currency: 'CNY',
        method: 'Visa •••• 4242',
        canKeep: true,
      },
    });
    expect(Date.parse(before.data.at)).toBe(b.clock.now().getTime() + KEEP_WINDOW_MS);
    expect(await balance(token)).toBe(99); // in the wallet until the refund is made

    b.clock.advance(KEEP_WINDOW_MS + 1_000);
    await b.app.powerly.jobs.runDue();
    const after = await waitFor(async () => {
      const d = (await deposit(token, orderId)).data;
      return d.state === 'refunded' ? d : null;
    }, 'refunded');
    expect(after).toMatchObject({ kind: 'refund', refunded: 99, canKeep: false, at: b.clock.now().toISOString() });
    expect(await balance(token)).toBe(0);
    const pay = await topUpPayment(orderId);
    expect(pay).toMatchObject({ status: 'refunded' });
    expect(Number(pay.refunded_amount)).toBe(9900);
    expect(await b.app.powerly.sandbox.status(pay.provider_ref)).toBe('refunded');
    const { rows: moves } = await b.db.query(
      `select amount from ledger_transfers where order_id = $1 and code = 'deposit_refund'`,
      [orderId],
    );
    expect(moves.map((m) => Number((m as { amount: number }).amount))).toEqual([9900]);

    // Too late to keep it: 409 in the rider's language; a second run of the job refunds nothing more.
    const keep = await post('cdb/mine/order/deposit/keep', token, { orderId }, 'lt-LT');
    expect(keep.statusCode).toBe(409);
    expect(keep.json().msg).toBe(
      'Užstatas jau grąžintas į jūsų kortelę ar mokėjimo būdą, todėl jo nebegalima palikti piniginėje.',
    );
    b.clock.advance(KEEP_WINDOW_MS);
    await b.app.powerly.jobs.runDue();
    expect(Number((await topUpPayment(orderId)).refunded_amount)).toBe(9900);
    await ledgerBalanced(b.app);
  });

  it('stays in the wallet when the rider chooses to keep it there', async () => {
    const token = await touristToken(b.app);
    const orderId = await failedRental(token, 'PWL-SH-001');
    const kept = await post('cdb/mine/order/deposit/keep', token, { orderId });
    expect(kept.json()).toMatchObject({
      code: 0,
      data: { kind: 'refund', state: 'kept', canKeep: false, refunded: 0 },
    });
    // Asked twice: the same answer.
    expect((await post('cdb/mine/order/deposit/keep', token, { orderId })).json().data.state).toBe('kept');
    b.clock.advance(KEEP_WINDOW_MS * 2);
    await b.app.powerly.jobs.runDue();
    expect((await deposit(token, orderId)).data.state).toBe('kept');
    expect(await balance(token)).toBe(99);
    expect((await topUpPayment(orderId)).status).toBe('captured');
    await ledgerBalanced(b.app);
  });

  it('spent meanwhile on a new rental: nothing is refunded and the screen says it was used', async () => {
    const token = await touristToken(b.app);
    const orderId = await failedRental(token, 'PWL-SH-001');
    const again = await get('cdb/cabinet/useBalanceToRent?qrcode=PWL-SH-001', token);
    expect(again.json().code).toBe(0);
    const next: string = again.json().data.outTradNo;
    await waitFor(
      async () =>
        (
          await b.app.inject({ method: 'POST', url: `${API}/cdb/mine/order/check/${next}/YE`, headers: { token } })
        ).json().code === 0,
      'out',
    );
    b.clock.advance(KEEP_WINDOW_MS + 1_000);
    await b.app.powerly.jobs.runDue();
    expect((await deposit(token, orderId)).data).toMatchObject({ state: 'kept_spent', refunded: 0 });
    expect((await topUpPayment(orderId)).status).toBe('captured');
    await ledgerBalanced(b.app);
  });

  it("another rider's order is a 404, an order that started a 409, each in the rider's language", async () => {
    const owner = await touristToken(b.app);
    const orderId = await failedRental(owner, 'PWL-SH-001');
    const other = await touristToken(b.app);
    const peek = await get(`cdb/mine/order/deposit?orderId=${orderId}`, other, 'es-ES');
    expect(peek.statusCode).toBe(404);
    const keep = await post('cdb/mine/order/deposit/keep', other, { orderId }, 'es-ES');
    expect(keep.statusCode).toBe(404);
    expect((await deposit(owner, orderId)).data.state).toBe('scheduled');
    const bad = await get('cdb/mine/order/deposit?orderId=', owner);
    expect(bad.statusCode).toBe(400);
  });
});

describe('a card hold whose rental never started (Vilnius, yajintype 0)', () => {
  it('is voided, and the answer says when', async () => {
    const token = await touristToken(b.app);
    const orderId = await failedRental(token, 'PWL-VNO-001');
    await b.app.powerly.jobs.runDue();
    const d = await waitFor(async () => {
      const x = (await deposit(token, orderId)).data;
      return x.state === 'released' ? x : null;
    }, 'released');
    expect(d).toMatchObject({
      kind: 'card_hold',
      amount: 25,
      currency: 'EUR',
      method: 'Visa •••• 4242',
      canKeep: false,
      at: b.clock.now().toISOString(),
    });
    const keep = await post('cdb/mine/order/deposit/keep', token, { orderId });
    expect(keep.statusCode).toBe(409);
  });
});
