// "I returned it": a claim the cabinets' records confirm (a slot anomaly "return detected but no power bank" at the
// cabinet named, near the time given) settles the order at the cabinet's time and releases the rest of the hold; a
// claim no record confirms opens a dispute with the evidence; one open claim per order; another rider's order 404;
// bad times 400; too many claims 429 — each in the rider's language.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RETURN_WITHOUT_POWER_BANK } from '../src/modules/cabinets/evidence-repository.ts';
import { build, cabinetsOnline, cardToken, ledgerBalanced, touristToken, waitFor, type Built } from './helper.ts';

const API = '/cdb-app-api/v1/app';
const MIN = 60_000;
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
  return { orderId, borrowedAt: Date.parse(d.pBorrowtime), powerbankId: d.pPowerbankId as string };
}

describe('"I returned it"', () => {
  it("matched by the cabinet's slot anomaly: settled at the cabinet's time, the fee recomputed, the rest of the hold released", async () => {
    const token = await touristToken(b.app);
    const { orderId, borrowedAt, powerbankId } = await rented(token);
    // 1 h 20 min in, the Lisbon cabinet detects a return it cannot read (the vendor's slot anomaly).
    b.clock.advance(80 * MIN);
    await b.app.powerly.cabinets.reject(
      'PWL-LIS-001',
      RETURN_WITHOUT_POWER_BANK,
      JSON.stringify({ slot: 3, kind: 'return-without-power-bank', bankId: '' }),
    );
    // The rider claims it the next morning, still being charged.
    b.clock.advance(14 * 60 * MIN);
    const claim = await call('POST', 'cdb/mine/order/claimReturn', token, {
      orderId,
      cabinetId: 'PWL-LIS-001',
      at: new Date(borrowedAt + 90 * MIN).toISOString(),
    });
    expect(claim.json()).toMatchObject({ code: 0, data: { orderId, cabinetId: 'PWL-LIS-001', state: 'matched' } });
    const d = await detail(token, orderId);
    // Settled at the anomaly's time: 1 h 20 min = 2 started hours × €1 (10 free minutes), not the 15 h 20 min since.
    expect(d).toMatchObject({ pZujie: 3, pJiesuanid: 1, pJiesuan: 2, pGhShopName: 'Time Out Market Lisboa' });
    expect(Date.parse(d.pGhtime) - borrowedAt).toBe(80 * MIN);
    await b.app.powerly.jobs.runDue();
    const { rows } = await b.db.query<{ status: string; captured_amount: number }>(
      `select status, captured_amount from payments where order_id = $1 and purpose = 'deposit_preauth'`,
      [orderId],
    );
    expect(rows[0]).toMatchObject({ status: 'partially_captured' });
    expect(Number(rows[0]!.captured_amount)).toBe(200);
    expect((await call('GET', `cdb/mine/order/claim?orderId=${orderId}`, token)).json().data).toMatchObject({
      state: 'matched',
    });
    // Settled: nothing more to claim.
    const again = await call(
      'POST',
      'cdb/mine/order/claimReturn',
      token,
      { orderId, cabinetId: 'PWL-LIS-001', at: new Date(borrowedAt + 90 * MIN).toISOString() },
      'pt-PT',
    );
    expect(again.statusCode).toBe(409);
    expect(again.json().msg).toBe('Este aluguer não está em curso nem foi cobrado, por isso não há nada a reclamar.');
    void powerbankId;
    await ledgerBalanced(b.app);
  });

  it('no record confirms it: a dispute with the evidence, the order still open; one open claim per order', async () => {
    const token = await touristToken(b.app);
    const { orderId, borrowedAt } = await rented(token);
    b.clock.advance(3 * 60 * MIN);
    const claim = await call('POST', 'cdb/mine/order/claimReturn', token, {
      orderId,
      cabinetId: 'PWL-LIS-001',
      at: new Date(borrowedAt + 2 * 60 * MIN).toISOString(),
    });
    expect(claim.json()).toMatchObject({ code: 0, data: { state: 'open', message: null, decidedAt: null } });
    expect((await detail(token, orderId)).pZujie).toBe(1);
    const { rows } = await b.db.query<{
      evidence: { returned: unknown; anomaly: unknown; cabinet: { online: boolean } };
    }>('select evidence from disputes where order_id = $1', [orderId]);
    expect(rows[0]!.evidence).toMatchObject({ returned: null, anomaly: null, cabinet: { online: true } });
    const second = await call(
      'POST',
      'cdb/mine/order/claimReturn',
      token,
      { orderId, cabinetId: 'PWL-LIS-001', at: new Date(borrowedAt + 2 * 60 * MIN).toISOString() },
      'es-ES',
    );
    expect(second.statusCode).toBe(409);
    expect(second.json().msg).toBe(
      'Ya hay una reclamación abierta para este alquiler; el equipo de soporte la está revisando.',
    );
    expect((await call('GET', `cdb/mine/order/claim?orderId=${orderId}`, token)).json().data).toMatchObject({
      state: 'open',
    });
  });

  it("another rider's order 404; a time outside the rental 400; an unknown cabinet 404; too many claims 429", async () => {
    const owner = await touristToken(b.app);
    const { orderId, borrowedAt } = await rented(owner);
    const other = await touristToken(b.app);
    const at = new Date(borrowedAt + MIN).toISOString();
    expect(
      (await call('POST', 'cdb/mine/order/claimReturn', other, { orderId, cabinetId: 'PWL-LIS-001', at })).statusCode,
    ).toBe(404);
    expect((await call('GET', `cdb/mine/order/claim?orderId=${orderId}`, other)).statusCode).toBe(404);
    const early = await call(
      'POST',
      'cdb/mine/order/claimReturn',
      owner,
      { orderId, cabinetId: 'PWL-LIS-001', at: new Date(borrowedAt - 60 * MIN).toISOString() },
      'lt-LT',
    );
    expect(early.statusCode).toBe(400);
    expect(early.json().msg).toBe('Nurodykite laiką tarp nuomos pradžios ir dabar.');
    expect(
      (await call('POST', 'cdb/mine/order/claimReturn', owner, { orderId, cabinetId: 'PWL-NOPE-999', at })).statusCode,
    ).toBe(404);
    expect(
      (await call('POST', 'cdb/mine/order/claimReturn', owner, { orderId, cabinetId: 'PWL-LIS-001', at: 'yesterday' }))
        .statusCode,
    ).toBe(400);
    // Five claims in the last hour (the desk rejected them already): the next one is refused until the hour is over.
    await b.db.query(
      `insert into disputes (order_id, user_id, cabinet_id, claimed_at, state, evidence, created_at)
      select o.id, o.user_id, 'PWL-LIS-001', $2, 'rejected', '{}', $2 from orders o cross join generate_series(1, 5) where o.id = $1`,
      [orderId, b.clock.now()],
    );
    const many = await call(
      'POST',
      'cdb/mine/order/claimReturn',
      owner,
      { orderId, cabinetId: 'PWL-LIS-001', at },
      'zh-CN',
    );
    expect(many.statusCode).toBe(429);
    expect(many.json().msg).toBe('短时间内申诉次数过多，请一小时后再试。');
    b.clock.advance(61 * MIN);
    expect(
      (await call('POST', 'cdb/mine/order/claimReturn', owner, { orderId, cabinetId: 'PWL-LIS-001', at })).json().data
        .state,
    ).toBe('open');
  });
});
