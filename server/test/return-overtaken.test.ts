// A return is settled at the time the cabinet reported it, whatever arrives first: a heartbeat listing the power
// bank may overtake the cabinet's pending 'returned' (a cabinet flushing its queue after an outage).
import { afterEach, describe, expect, it } from 'vitest';
import { MINUTE_MS } from '#core/pricing.ts';
import { uuid } from '../src/lib/ids.ts';
import type { CabinetEvent } from '../src/modules/cabinets/protocol.ts';
import { build, cabinetsOnline, cardToken, touristToken, waitFor, type Built } from './helper.ts';

const API = '/cdb-app-api/v1/app';
const open: Built[] = [];
afterEach(async () => {
  for (const b of open.splice(0).reverse()) await b.close().catch(() => undefined);
});

const event = (b: Built, cabinetId: string, e: Record<string, unknown>) =>
  b.app.powerly.cabinets.event(cabinetId, { v: 2, id: uuid(), ...e } as unknown as CabinetEvent);
const order = async (b: Built, id: string) =>
  (
    await b.db.query<{
      zujie: number;
      settled: boolean;
      returned_at: Date | null;
      borrowed_at: Date | null;
      fee: string | null;
    }>('select zujie, settled, returned_at, borrowed_at, fee from orders where id = $1', [id])
  ).rows[0]!;
/** What the rider paid for the rental, by the ledger: rent taken less rent given back. */
const paid = async (b: Built, id: string) => {
  const { rows } = await b.db.query<{ rent: string; back: string }>(
    `select coalesce(sum(amount) filter (where code = 'rent'), 0)::bigint as rent,
            coalesce(sum(amount) filter (where code = 'rent_refund'), 0)::bigint as back
       from ledger_transfers where order_id = $1`,
    [id],
  );
  return { rent: Number(rows[0]!.rent), back: Number(rows[0]!.back) };
};

async function rentOne(b: Built, name: string) {
  const token = await touristToken(b.app, name);
  const res = await b.app.inject({
    method: 'POST',
    url: `${API}/cdb/cabinet/useDepositToRent`,
    headers: { token },
    payload: { qrcode: 'PWL-LIS-001', stripeToken: await cardToken(b.app), paymentId: 'card-sandbox' },
  });
  expect(res.json().code, res.body).toBe(0);
  const tradeNo: string = res.json().data.outTradeNo;
  const d = await waitFor(async () => {
    const x = (
      await b.app.inject({ method: 'GET', url: `${API}/cdb/mine/order/detail?orderId=${tradeNo}`, headers: { token } })
    ).json().data;
    return x.pZujie === 1 ? x : null;
  }, 'popped');
  return { tradeNo, powerbankId: d.pPowerbankId as string };
}

describe("a heartbeat that overtook the cabinet's returned event", () => {
  it('the return is settled at the returned time, the difference given back once; the normal order settles the same', async () => {
    const b = await build();
    open.push(b);
    await cabinetsOnline(b, ['PWL-LIS-001']);
    const late = await rentOne(b, 'overtaken-1');
    const normal = await rentOne(b, 'overtaken-2');
    const borrowed = new Date((await order(b, late.tradeNo)).borrowed_at!).getTime();
    expect(new Date((await order(b, normal.tradeNo)).borrowed_at!).getTime()).toBe(borrowed);
    b.clock.advance(3 * 60 * MINUTE_MS);
    const returnedAt = new Date(borrowed + 40 * MINUTE_MS);
    const hbAt = new Date(borrowed + 150 * MINUTE_MS);
    const slots = b.fleet!.get('PWL-VNO-001')!.inventory();
    const free = slots.filter((s) => !s.powerbankId);
    free[0]!.powerbankId = late.powerbankId;
    free[0]!.battery = 80;
    free[1]!.powerbankId = normal.powerbankId;
    free[1]!.battery = 80;

    // The normal order: the returned event, then a heartbeat listing the power bank.
    await event(b, 'PWL-VNO-001', {
      ts: returnedAt.toISOString(),
      type: 'returned',
      slot: free[1]!.slot,
      powerbankId: normal.powerbankId,
    });
    // The overtaken one: the heartbeat first (it settles at its own time), then the delayed returned event.
    await event(b, 'PWL-VNO-001', { ts: hbAt.toISOString(), type: 'heartbeat', slots });
    const byHeartbeat = await order(b, late.tradeNo);
    expect(byHeartbeat.settled).toBe(true);
    expect(new Date(byHeartbeat.returned_at!).getTime()).toBe(hbAt.getTime());
    const returnedEvent = {
      ts: returnedAt.toISOString(),
      type: 'returned',
      slot: free[0]!.slot,
      powerbankId: late.powerbankId,
    };
    await event(b, 'PWL-VNO-001', returnedEvent);

    const fixed = await order(b, late.tradeNo);
    const ref = await order(b, normal.tradeNo);
    expect(new Date(ref.returned_at!).getTime()).toBe(returnedAt.getTime());
    expect(new Date(fixed.returned_at!).getTime()).toBe(returnedAt.getTime());
    expect(Number(fixed.fee)).toBe(Number(ref.fee));
    expect(Number(byHeartbeat.fee)).toBeGreaterThan(Number(ref.fee));
    // Through the ledger: what was taken at the heartbeat's time, less the difference, is the rent of the returned time.
    const money = await paid(b, late.tradeNo);
    expect(money.back).toBe(Number(byHeartbeat.fee) - Number(ref.fee));
    expect(money.rent - money.back).toBe(Number(ref.fee));
    expect(await paid(b, normal.tradeNo)).toEqual({ rent: Number(ref.fee), back: 0 });

    // A second 'returned' report (another id, same time) changes nothing: the difference is given back once.
    await event(b, 'PWL-VNO-001', returnedEvent);
    expect(await paid(b, late.tradeNo)).toEqual(money);
    expect(Number((await order(b, late.tradeNo)).fee)).toBe(Number(ref.fee));
  });

  it('the difference goes back to the card only as far as the card can take it, the rest to the wallet', async () => {
    const b = await build();
    open.push(b);
    await cabinetsOnline(b, ['PWL-LIS-001']);
    const r = await rentOne(b, 'overtaken-cap');
    const borrowed = new Date((await order(b, r.tradeNo)).borrowed_at!).getTime();
    b.clock.advance(3 * 60 * MINUTE_MS);
    const slots = b.fleet!.get('PWL-VNO-001')!.inventory();
    const free = slots.find((s) => !s.powerbankId)!;
    free.powerbankId = r.powerbankId;
    free.battery = 80;
    await event(b, 'PWL-VNO-001', { ts: new Date(borrowed + 150 * MINUTE_MS).toISOString(), type: 'heartbeat', slots });
    const settled = await order(b, r.tradeNo);
    expect(settled.settled).toBe(true);
    // The card hold captured for the fee; then most of it went back to the card already (say, a support refund).
    const { payment_id: paymentId } = (
      await b.db.query<{ payment_id: string }>('select payment_id from orders where id = $1', [r.tradeNo])
    ).rows[0]!;
    const payment = async () =>
      (
        await b.db.query<{ status: string; captured_amount: string; refunded_amount: string }>(
          'select status, captured_amount, refunded_amount from payments where id = $1',
          [paymentId],
        )
      ).rows[0]!;
    await waitFor(async () => {
      await b.app.powerly.jobs.runDue();
      return ['captured', 'partially_captured'].includes((await payment()).status);
    }, 'the card payment captured');
    const captured = Number((await payment()).captured_amount);
    expect(captured).toBe(Number(settled.fee));
    await b.app.powerly.payments.refund(paymentId, captured - 50, 'earlier-refund-of-this-rental');

    await event(b, 'PWL-VNO-001', {
      ts: new Date(borrowed + 40 * MINUTE_MS).toISOString(),
      type: 'returned',
      slot: free.slot,
      powerbankId: r.powerbankId,
    });
    const fixed = await order(b, r.tradeNo);
    const difference = Number(settled.fee) - Number(fixed.fee);
    expect(difference).toBeGreaterThan(50);
    const { rows } = await b.db.query<{ kind: string; amount: string }>(
      `select a.kind, sum(t.amount)::bigint as amount from ledger_transfers t join ledger_accounts a on a.id = t.credit_account_id
        where t.order_id = $1 and t.code = 'rent_refund' group by a.kind order by a.kind`,
      [r.tradeNo],
    );
    expect(rows.map((x) => ({ kind: x.kind, amount: Number(x.amount) }))).toEqual([
      { kind: 'clearing', amount: 50 },
      { kind: 'wallet', amount: difference - 50 },
    ]);
    // The card refund asks the provider for what is left on the card, so it goes through (not dead on a refusal).
    await waitFor(async () => {
      await b.app.powerly.jobs.runDue();
      return Number((await payment()).refunded_amount) === captured;
    }, 'the card refund of the rest of the capture');
    expect(await b.app.powerly.jobs.deadCount()).toBe(0);
    expect(
      (await b.db.query(`select 1 from jobs where kind = 'payment.refund-card' and done_at is null`)).rows,
    ).toEqual([]);
  });
});
