// "I returned it" on an order the overtime buy-out charged: a claim the cabinet's records confirm settles it at the
// cabinet's time, the buy-out reversed less the rent until then through the ledger (back to the card that paid it,
// never more than was taken: what the rider still owed is lowered first); a claim no record confirms becomes a
// dispute for the desk with the evidence, the buy-out standing; a second claim is refused.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RETURN_WITHOUT_POWER_BANK } from '../src/modules/cabinets/evidence-repository.ts';
import { build, cabinetsOnline, cardToken, ledgerBalanced, touristToken, waitFor, type Built } from './helper.ts';

const API = '/cdb-app-api/v1/app';
const MIN = 60_000;
const DAY = 24 * 60 * MIN;
let b: Built;
beforeAll(async () => {
  b = await build();
  await cabinetsOnline(b, ['PWL-VNO-001', 'PWL-LIS-001']);
});
afterAll(async () => b?.close());

const call = (method: 'GET' | 'POST', url: string, token: string, payload?: Record<string, unknown>, lang = 'en-US') =>
  b.app.inject({ method, url: `${API}/${url}`, headers: { token, lang }, payload });
const detail = async (token: string, orderId: string) =>
  (await call('GET', `cdb/mine/order/detail?orderId=${orderId}`, token)).json().data;
const claimAt = (token: string, orderId: string, at: number, lang?: string) =>
  call(
    'POST',
    'cdb/mine/order/claimReturn',
    token,
    { orderId, cabinetId: 'PWL-LIS-001', at: new Date(at).toISOString() },
    lang,
  );
const anomaly = (slot: number) =>
  b.app.powerly.cabinets.reject(
    'PWL-LIS-001',
    RETURN_WITHOUT_POWER_BANK,
    JSON.stringify({ slot, kind: 'return-without-power-bank', bankId: '' }),
  );

async function rented(token: string) {
  const res = await call('POST', 'cdb/cabinet/useDepositToRent', token, {
    qrcode: 'PWL-VNO-001',
    stripeToken: await cardToken(b.app),
    paymentId: 'card-sandbox',
  });
  const orderId: string = res.json().data.outTradeNo;
  const d = await waitFor(async () => {
    const x = await detail(token, orderId);
    return x.pZujie === 1 ? x : null;
  }, 'popped');
  return { orderId, borrowedAt: Date.parse(d.pBorrowtime) };
}

/** Runs the due jobs until none is left (a refund job enqueued by another). */
async function settleJobs() {
  for (let i = 0; i < 5; i++) await b.app.powerly.jobs.runDue();
}

const refunds = async (orderId: string) => {
  const { rows } = await b.db.query<{ purpose: string; captured_amount: string; refunded_amount: string }>(
    `select purpose, captured_amount, refunded_amount from payments where order_id = $1 order by created_at`,
    [orderId],
  );
  return rows.map((r) => ({
    purpose: r.purpose,
    captured: Number(r.captured_amount),
    refunded: Number(r.refunded_amount),
  }));
};
const moved = async (orderId: string, code: string) => {
  const { rows } = await b.db.query<{ n: string }>(
    'select coalesce(sum(amount), 0) as n from ledger_transfers where order_id = $1 and code = $2',
    [orderId, code],
  );
  return Number(rows[0]!.n);
};

describe('"I returned it" on a bought-out order', () => {
  it("matched: settled at the cabinet's time, the buy-out back to the card less the rent, exactly once", async () => {
    const token = await touristToken(b.app);
    const { orderId, borrowedAt } = await rented(token);
    // 1 h 20 min in, the Lisbon cabinet detects a return it cannot read; the rental runs on to the buy-out (3 days).
    b.clock.advance(80 * MIN);
    await anomaly(4);
    b.clock.advance(4 * DAY);
    await settleJobs();
    expect(await detail(token, orderId)).toMatchObject({ boughtOut: true, pJiesuan: 25, pZujie: 1, pJiesuanid: 1 });
    expect(await refunds(orderId)).toEqual([{ purpose: 'deposit_preauth', captured: 2500, refunded: 0 }]);

    // The rider says they returned it at about 1 h 30 min: the anomaly 10 minutes before matches.
    const [one, two] = await Promise.all([
      claimAt(token, orderId, borrowedAt + 90 * MIN),
      claimAt(token, orderId, borrowedAt + 90 * MIN, 'pt-PT'),
    ]);
    const answers = [one!, two!].map((r) => ({ status: r.statusCode, body: r.json() }));
    const matched = answers.filter((a) => a.status === 200);
    expect(matched).toHaveLength(1);
    expect(matched[0]!.body.data).toMatchObject({ orderId, state: 'matched' });
    const refused = answers.find((a) => a.status !== 200)!;
    expect(refused.status).toBe(409);
    expect(refused.body.code).not.toBe(0);

    // Settled at the anomaly's time: 1 h 20 min = €2; the €25 buy-out less it (€23) goes back to the card.
    const d = await detail(token, orderId);
    expect(d).toMatchObject({
      pZujie: 3,
      pJiesuanid: 1,
      pJiesuan: 2,
      pGhShopName: 'Time Out Market Lisboa',
      boughtOut: true,
    });
    expect(Date.parse(d.pGhtime) - borrowedAt).toBe(80 * MIN);
    await settleJobs();
    expect(await refunds(orderId)).toEqual([{ purpose: 'deposit_preauth', captured: 2500, refunded: 2300 }]);
    expect(await moved(orderId, 'buy_out_refund')).toBe(2300);
    const { rows: claims } = await b.db.query('select state from disputes where order_id = $1', [orderId]);
    expect(claims).toEqual([{ state: 'matched' }]);

    // Claimed again later: nothing is left to claim, nothing moves.
    const again = await claimAt(token, orderId, borrowedAt + 90 * MIN, 'es-ES');
    expect(again.statusCode).toBe(409);
    expect(again.json().msg).toBe('Este alquiler no está en curso ni cobrado, así que no hay nada que reclamar.');
    await settleJobs();
    expect(await refunds(orderId)).toEqual([{ purpose: 'deposit_preauth', captured: 2500, refunded: 2300 }]);
    await ledgerBalanced(b.app);
  });

  it('never gives back more than was taken: a buy-out above the hold whose rest the bank refused lowers that debt first', async () => {
    const token = await touristToken(b.app);
    const { orderId, borrowedAt } = await rented(token);
    // A plan whose €40 buy-out is above the €25 hold: the rest is charged off-session, which the bank refuses.
    await b.db.query(`update orders set plan = plan || '{"deposit": 0, "overtimeAmount": 4000}'::jsonb where id = $1`, [
      orderId,
    ]);
    const authorize = b.sandbox.authorize.bind(b.sandbox);
    b.sandbox.authorize = async (input) =>
      input.offSession
        ? { ok: false, ref: null, declineCode: 'authentication_required', card: null }
        : authorize(input);
    try {
      b.clock.advance(80 * MIN);
      await anomaly(5);
      b.clock.advance(4 * DAY);
      await settleJobs();
    } finally {
      b.sandbox.authorize = authorize;
    }
    expect(await detail(token, orderId)).toMatchObject({ boughtOut: true, pJiesuan: 40, debtAmount: 15 });

    expect((await claimAt(token, orderId, borrowedAt + 90 * MIN)).json().data).toMatchObject({ state: 'matched' });
    await settleJobs();
    // €40 − €2 rent = €38 back: the €15 never taken is forgiven, €23 of the €25 captured goes back to the card.
    expect(await detail(token, orderId)).toMatchObject({ pZujie: 3, pJiesuan: 2, debtAmount: 0 });
    expect((await refunds(orderId)).filter((p) => p.captured > 0)).toEqual([
      { purpose: 'deposit_preauth', captured: 2500, refunded: 2300 },
    ]);
    expect(await moved(orderId, 'buy_out_refund')).toBe(2300);
    expect((await moved(orderId, 'rent')) - (await moved(orderId, 'buy_out_refund'))).toBe(200);
    await ledgerBalanced(b.app);
  });

  it('no record confirms it: a dispute with the evidence for the desk, the buy-out standing; one open claim per order', async () => {
    const token = await touristToken(b.app);
    const { orderId, borrowedAt } = await rented(token);
    b.clock.advance(4 * DAY);
    await settleJobs();
    expect(await detail(token, orderId)).toMatchObject({ boughtOut: true, pJiesuan: 25 });
    const claim = await claimAt(token, orderId, borrowedAt + 2 * 60 * MIN);
    expect(claim.json()).toMatchObject({ code: 0, data: { state: 'open', decidedAt: null } });
    expect(await detail(token, orderId)).toMatchObject({ boughtOut: true, pJiesuan: 25, pZujie: 1 });
    const { rows } = await b.db.query<{ evidence: Record<string, unknown> }>(
      'select evidence from disputes where order_id = $1',
      [orderId],
    );
    expect(rows[0]!.evidence).toMatchObject({ returned: null, anomaly: null, cabinet: { online: true } });
    const second = await claimAt(token, orderId, borrowedAt + 2 * 60 * MIN, 'zh-CN');
    expect(second.statusCode).toBe(409);
    expect(second.json().msg).toBe('该租借已有一条待处理的申诉，客服正在处理。');
    await settleJobs();
    expect(await refunds(orderId)).toEqual([{ purpose: 'deposit_preauth', captured: 2500, refunded: 0 }]);
    expect(await moved(orderId, 'buy_out_refund')).toBe(0);
    await ledgerBalanced(b.app);
  });
});
