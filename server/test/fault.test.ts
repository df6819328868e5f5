// Order state 4 (fault): a cabinet reports the rented power bank faulty ('powerbank-fault'), or a 'returned'
// carries a fault. The order stays ongoing (pZujie 1 or 4 with pJiesuanid 0), stops accruing at the
// report, and settles on return like state 1 — the user pays only for the time until the fault report.
import { afterAll, describe, expect, it } from 'vitest';
import { rentalFee, MINUTE_MS, type PricePlan } from '#core/pricing.ts';
import { toMajor } from '#core/money.ts';
import { isOngoing } from '#core/orders.ts';
import type { PowerlyApp } from '../src/app.ts';
import { parseEvent } from '../src/modules/cabinets/protocol.ts';
import { uuid } from '../src/lib/ids.ts';
import { build, cabinetsOnline, cardToken, touristToken, waitFor, type Built, ledgerBalanced } from './helper.ts';

const API = '/cdb-app-api/v1/app';
const LISBON: PricePlan = {
  kind: 'unit',
  currency: 'EUR',
  unitPrice: 150,
  unitMinutes: 30,
  freeMinutes: 5,
  dailyCap: 800,
  deposit: 3000,
  overtimeAmount: 3000,
  overtimeDays: 3,
  tiers: [],
};
let b: Built;
afterAll(async () => {
  await b?.close();
});

const detail = async (token: string, orderId: string) =>
  (
    await b.app.inject({ method: 'GET', url: `${API}/cdb/mine/order/detail?orderId=${orderId}`, headers: { token } })
  ).json().data;

async function rentedOut(token: string, qrcode: string) {
  await cabinetsOnline(b, [qrcode]); // the simulated cabinet has said hello (slower over an external broker)
  const res = await b.app.inject({
    method: 'POST',
    url: `${API}/cdb/cabinet/useDepositToRent`,
    headers: { token },
    payload: { qrcode, stripeToken: await cardToken(b.app), paymentId: 'card-sandbox' },
  });
  expect(res.json().code, res.body).toBe(0);
  const tradeNo: string = res.json().data.outTradeNo;
  const d = await waitFor(async () => {
    const x = await detail(token, tradeNo);
    return x.pZujie === 1 ? x : null;
  }, 'popped');
  return { tradeNo, powerbankId: d.pPowerbankId as string, borrowedAt: Date.parse(d.pBorrowtime) };
}
const event = (app: PowerlyApp, cabinetId: string, e: Record<string, unknown>) =>
  app.powerly.cabinets.event(cabinetId, { v: 1, id: uuid(), ...e } as never);

describe('order state 4 (fault)', () => {
  it('a powerbank-fault report: state 4, still ongoing, the estimate stops; the return charges only until the report', async () => {
    b = await build();
    const token = await touristToken(b.app, 'fault-1-device-000001');
    const { tradeNo, powerbankId, borrowedAt } = await rentedOut(token, 'PWL-LIS-001');

    // 40 minutes in, the cabinet network reports the power bank faulty (the cabinet's own timestamp).
    b.clock.advance(45 * MINUTE_MS);
    await event(b.app, 'PWL-LIS-001', {
      ts: new Date(borrowedAt + 40 * MINUTE_MS).toISOString(),
      type: 'powerbank-fault',
      powerbankId,
      reason: 'overheating',
    });
    let d = await detail(token, tradeNo);
    expect(d.pZujie).toBe(4);
    expect(d.pJiesuanid).toBe(0);
    expect(isOngoing(d)).toBe(true);
    // Still an open rental: it blocks another ('rent count').
    expect(await b.app.powerly.rentals.openCount(d.pUserid)).toBe(1);

    // Three hours later the estimate is still the fee for 40 minutes: ceil(40/30) = 2 × €1.50 = €3.
    b.clock.advance(3 * 60 * MINUTE_MS);
    d = await detail(token, tradeNo);
    expect(d.estimatedAmount).toBe(toMajor(rentalFee(LISBON, 40 * MINUTE_MS), 'EUR'));
    expect(d.estimatedAmount).toBe(3);

    // A second report changes nothing (the first fault time stands).
    await event(b.app, 'PWL-LIS-001', {
      ts: new Date(b.clock.now()).toISOString(),
      type: 'powerbank-fault',
      powerbankId,
      reason: 'again',
    });
    expect(
      (
        await b.db.query<{ fault_at: Date }>('select fault_at from orders where id = $1', [tradeNo])
      ).rows[0]!.fault_at.getTime(),
    ).toBe(borrowedAt + 40 * MINUTE_MS);

    // Returned at another cabinet: settles like state 1 (4 → 3), charged €3, the rest of the deposit released.
    await event(b.app, 'PWL-VNO-001', { ts: b.clock.now().toISOString(), type: 'returned', slot: 6, powerbankId });
    d = await detail(token, tradeNo);
    expect(d).toMatchObject({ pZujie: 3, pJiesuanid: 1, pJiesuan: 3, pGhShopName: 'GO9 Gedimino 9' });
    expect(isOngoing(d)).toBe(false);
    await waitFor(
      async () => (
        await b.app.powerly.jobs.runDue(),
        (
          await b.db.query<{ status: string }>(
            `select status from payments where order_id = $1 and status <> 'declined'`,
            [tradeNo],
          )
        ).rows[0]?.status !== 'authorized'
      ),
      'card settled',
    );
    const { rows } = await b.db.query<{ captured_amount: number }>(
      `select captured_amount from payments where order_id = $1 and status <> 'declined'`,
      [tradeNo],
    );
    expect(Number(rows[0]!.captured_amount)).toBe(300);
    await ledgerBalanced(b.app);
  });

  it("a 'returned' with a fault: 1 → 4 → 3 at the return's time, charged for the time used", async () => {
    const token = await touristToken(b.app, 'fault-2-device-000002');
    const { tradeNo, powerbankId, borrowedAt } = await rentedOut(token, 'PWL-LIS-001');
    b.clock.advance(95 * MINUTE_MS);
    await event(b.app, 'PWL-LIS-001', {
      ts: new Date(borrowedAt + 95 * MINUTE_MS).toISOString(),
      type: 'returned',
      slot: 5,
      powerbankId,
      fault: 'cable broken',
    });
    const d = await detail(token, tradeNo);
    // ceil(95/30) = 4 × €1.50 = €6.
    expect(d).toMatchObject({ pZujie: 3, pJiesuanid: 1, pJiesuan: 6 });
    const { rows } = await b.db.query<{ fault_at: Date; note: string }>(
      'select fault_at, note from orders where id = $1',
      [tradeNo],
    );
    expect(rows[0]!.fault_at.getTime()).toBe(borrowedAt + 95 * MINUTE_MS);
    expect(rows[0]!.note).toContain('cable broken');
    await ledgerBalanced(b.app);
  });

  it('a fault report for a power bank on no open order, or after the return, changes nothing', async () => {
    const token = await touristToken(b.app, 'fault-3-device-000003');
    const { tradeNo, powerbankId } = await rentedOut(token, 'PWL-VNO-001');
    b.clock.advance(10 * MINUTE_MS);
    await event(b.app, 'PWL-VNO-001', { ts: b.clock.now().toISOString(), type: 'returned', slot: 4, powerbankId });
    await event(b.app, 'PWL-VNO-001', {
      ts: b.clock.now().toISOString(),
      type: 'powerbank-fault',
      powerbankId,
      reason: 'late',
    });
    await event(b.app, 'PWL-VNO-001', {
      ts: b.clock.now().toISOString(),
      type: 'powerbank-fault',
      powerbankId: 'PB-NOBODY',
      reason: 'x',
    });
    expect((await detail(token, tradeNo)).pZujie).toBe(3);
  });

  it('the protocol accepts powerbank-fault and an optional fault on returned, and rejects malformed ones', () => {
    const base = { v: 1, id: 'e1', ts: '2026-11-21T10:00:00.000Z' };
    expect(
      parseEvent(JSON.stringify({ ...base, type: 'powerbank-fault', powerbankId: 'PB-1', reason: 'hot' }))?.type,
    ).toBe('powerbank-fault');
    expect(parseEvent(JSON.stringify({ ...base, type: 'powerbank-fault', powerbankId: 'PB-1' }))).toBeNull();
    expect(
      parseEvent(JSON.stringify({ ...base, type: 'returned', slot: 1, powerbankId: 'PB-1', fault: 'swollen' }))?.type,
    ).toBe('returned');
    expect(
      parseEvent(JSON.stringify({ ...base, type: 'returned', slot: 1, powerbankId: 'PB-1', fault: true })),
    ).toBeNull();
    expect(parseEvent(JSON.stringify({ ...base, type: 'returned', slot: 1, powerbankId: 'PB-1' }))?.type).toBe(
      'returned',
    );
  });
});
