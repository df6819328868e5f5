// The rental lifecycle on the server — eject timeout refund, late return with the cabinet's timestamp,
// overtime buy-out across a restart, buying the power bank, the race for the last power bank, and that the
// server charges exactly what the flows preview (src/core/pricing.ts on both sides).
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { planFromWire, rentalFee, MINUTE_MS } from '#core/pricing.ts';
import { toMajor } from '#core/money.ts';
import { buildApp, type PowerlyApp } from '../src/app.ts';
import { MqttCabinetLink } from '../src/modules/cabinets/link.ts';
import { uuid } from '../src/lib/ids.ts';
import {
  build,
  failNextKeyCompletionOutsideTx,
  cabinetsOnline,
  cardToken,
  markHeardFrom,
  touristToken,
  waitFor,
  type Built,
  ledgerBalanced,
} from './helper.ts';

const API = '/cdb-app-api/v1/app';
const HOUR = 60 * MINUTE_MS;
const DAY = 24 * HOUR;
const quiet = { info() {}, warn() {}, error() {}, debug() {} };

const open: Built[] = [];
afterEach(async () => {
  while (open.length) await open.pop()!.close();
});
afterAll(async () => {
  while (open.length) await open.pop()!.close();
});
async function fresh(opts: Parameters<typeof build>[0] = {}) {
  const b = await build(opts);
  open.push(b);
  return b;
}

const get = (app: PowerlyApp, url: string, token: string) =>
  app.inject({ method: 'GET', url: `${API}/${url}`, headers: { token } });
const detail = async (app: PowerlyApp, token: string, orderId: string) =>
  (await get(app, `cdb/mine/order/detail?orderId=${orderId}`, token)).json().data;
async function rentByCard(b: Built, token: string, qrcode: string) {
  const res = await b.app.inject({
    method: 'POST',
    url: `${API}/cdb/cabinet/useDepositToRent`,
    headers: { token },
    payload: { qrcode, stripeToken: await cardToken(b.app), paymentId: 'card-sandbox' },
  });
  return res;
}
async function rentedOut(b: Built, token: string, qrcode: string) {
  const res = await rentByCard(b, token, qrcode);
  expect(res.json().code, res.body).toBe(0);
  const tradeNo: string = res.json().data.outTradeNo;
  const d = await waitFor(async () => {
    const x = await detail(b.app, token, tradeNo);
    return x.pZujie === 1 ? x : null;
  }, 'popped');
  return { tradeNo, powerbankId: d.pPowerbankId as string, borrowedAt: Date.parse(d.pBorrowtime) };
}
async function payment(b: Built, orderId: string) {
  const { rows } = await b.db.query<{
    status: string;
    captured_amount: number;
    provider_ref: string;
    refunded_amount: number;
  }>(
    'select status, captured_amount, provider_ref, refunded_amount from payments where order_id = $1 and status <> $2',
    [orderId, 'declined'],
  );
  return rows[0]!;
}
/** The cabinet's own 'returned' event, as it arrives over the link (possibly late, with the cabinet's timestamp). */
async function cabinetReports(app: PowerlyApp, cabinetId: string, powerbankId: string, ts: number, slot = 6) {
  await app.powerly.cabinets.event(cabinetId, {
    v: 1,
    id: uuid(),
    ts: new Date(ts).toISOString(),
    type: 'returned',
    slot,
    powerbankId,
  });
}

describe('eject failure', () => {
  it('no answer from the cabinet: the order is cancelled and the card authorisation voided within 60 s', async () => {
    const b = await fresh({ simulator: false });
    await markHeardFrom(b, ['PWL-VNO-001']);
    const token = await touristToken(b.app);
    const res = await rentByCard(b, token, 'PWL-VNO-001');
    const tradeNo: string = res.json().data.outTradeNo;
    const started = b.clock.now().getTime();
    const { rows: jobs } = await b.db.query<{ run_at: Date }>(
      `select run_at from jobs where kind = 'rental.eject-timeout'`,
    );
    const deadline = new Date(jobs[0]!.run_at).getTime() - started;
    expect(deadline).toBeLessThanOrEqual(60_000); // TTL 30 s + grace 5 s
    b.clock.advance(deadline);
    await b.app.powerly.jobs.runDue();
    await b.app.powerly.jobs.runDue();
    expect(await detail(b.app, token, tradeNo)).toMatchObject({ pZujie: 2, pJiesuanid: 0, pJiesuan: 0 });
    const check = await b.app.inject({
      method: 'POST',
      url: `${API}/cdb/mine/order/check/${tradeNo}/YJ`,
      headers: { token },
    });
    expect(check.json()).toMatchObject({ code: 422, msg: 'Rental failed, please try again.' });
    const pay = await payment(b, tradeNo);
    expect(pay.status).toBe('voided');
    expect(await b.app.powerly.sandbox.status(pay.provider_ref)).toBe('voided');
    expect((await get(b.app, 'userInfo', token)).json().data).toMatchObject({ pyajin: 0, pbalance: 0 });
    await ledgerBalanced(b.app);
  });
});

describe('a process that dies between the card authorisation and the order', () => {
  it('leaves no open authorisation: the guard job written before the card call voids it', async () => {
    const b = await fresh({ simulator: false });
    await markHeardFrom(b, ['PWL-VNO-001']);
    const token = await touristToken(b.app);
    // The order transaction never happens (the process is gone as far as the database can tell).
    let crash!: (e: Error) => void;
    const dead = new Promise<never>((_, reject) => (crash = reject));
    const rentals = b.app.powerly.rentals as unknown as { start: () => Promise<void> };
    rentals.start = () => dead;
    const inFlight = rentByCard(b, token, 'PWL-VNO-001');
    // The sandbox writes the intent, then authorises it: on PostgreSQL this test can see the row in between.
    const intent = await waitFor(
      async () =>
        (
          await b.db.query<{ id: string; status: string }>(
            `select id, status from sandbox_intents where status <> 'requires_confirmation'`,
          )
        ).rows[0],
      'authorised',
    );
    expect(intent.status).toBe('authorized');
    expect((await b.db.query('select id from orders')).rows).toEqual([]);

    b.clock.advance(119_000);
    await b.app.powerly.jobs.runDue();
    expect(await b.app.powerly.sandbox.status(intent.id)).toBe('authorized'); // not yet: the request may still finish
    b.clock.advance(2_000);
    await b.app.powerly.jobs.runDue();
    expect(await b.app.powerly.sandbox.status(intent.id)).toBe('voided');

    crash(new Error('process died'));
    expect((await inFlight).statusCode).toBe(500);
    await ledgerBalanced(b.app);
  });

  it('the guard does nothing once the order exists', async () => {
    const b = await fresh();
    await cabinetsOnline(b, ['PWL-VNO-001']);
    const token = await touristToken(b.app);
    const { tradeNo } = await rentedOut(b, token, 'PWL-VNO-001');
    const { rows } = await b.db.query<{ done_at: Date | null }>(
      `select done_at from jobs where kind = 'payment.charge-guard'`,
    );
    expect(rows).toHaveLength(1);
    expect(rows[0]!.done_at).not.toBeNull(); // cancelled when the request finished
    b.clock.advance(5 * 60_000);
    await b.app.powerly.jobs.runDue();
    expect((await payment(b, tradeNo)).status).toBe('authorized');
  });
});

describe('returns', () => {
  it('a cabinet that was offline reports a return late: settled with its timestamp, at its venue', async () => {
    const b = await fresh();
    await cabinetsOnline(b, ['PWL-VNO-001', 'PWL-LIS-001']);
    const token = await touristToken(b.app);
    const { tradeNo, powerbankId, borrowedAt } = await rentedOut(b, token, 'PWL-VNO-001');
    // Returned after 1 h 20 min in Lisbon, but the cabinet was offline and tells us 6 hours later.
    b.clock.advance(7 * HOUR);
    await cabinetReports(b.app, 'PWL-LIS-001', powerbankId, borrowedAt + 80 * MINUTE_MS);
    const d = await detail(b.app, token, tradeNo);
    // VNO: €1 per started hour past 10 free minutes → ceil(80/60) = 2 × €1 = €2 (not 7 h = €5 cap)
    expect(d).toMatchObject({
      pZujie: 3,
      pJiesuanid: 1,
      pJiesuan: 2,
      pUseMins: 80,
      pGhShopName: 'Time Out Market Lisboa',
    });
    expect(Date.parse(d.pGhtime)).toBe(borrowedAt + 80 * MINUTE_MS);
    await b.app.powerly.jobs.runDue();
    const pay = await payment(b, tradeNo);
    expect(Number(pay.captured_amount)).toBe(200);
    // The same event again (redelivered) changes nothing.
    await cabinetReports(b.app, 'PWL-LIS-001', powerbankId, borrowedAt + 80 * MINUTE_MS);
    expect((await detail(b.app, token, tradeNo)).pJiesuan).toBe(2);
    await ledgerBalanced(b.app);
  });

  it('a timestamp from the future counts as now, one before the rental as no time at all', async () => {
    const b = await fresh();
    await cabinetsOnline(b, ['PWL-NYC-001']);
    const token = await touristToken(b.app);
    const { tradeNo, powerbankId, borrowedAt } = await rentedOut(b, token, 'PWL-NYC-001');
    b.clock.advance(45 * MINUTE_MS);
    await cabinetReports(b.app, 'PWL-NYC-001', powerbankId, b.clock.now().getTime() + 5 * DAY);
    const d = await detail(b.app, token, tradeNo);
    expect(Date.parse(d.pGhtime) - borrowedAt).toBe(45 * MINUTE_MS);
    expect(d.pJiesuan).toBe(3); // NYC $1.50 / 30 min, no free minutes: ceil(45/30) = 2 × 1.50 = 3
    await ledgerBalanced(b.app);
  });
});

describe('events out of order', () => {
  it("a 'returned' handled before its 'popped' settles the rental once the 'popped' arrives", async () => {
    const b = await fresh({ simulator: false });
    await markHeardFrom(b, ['PWL-NYC-001']);
    const token = await touristToken(b.app);
    const res = await rentByCard(b, token, 'PWL-NYC-001');
    const tradeNo: string = res.json().data.outTradeNo;
    const { rows } = await b.db.query<{ eject_command_id: string }>(
      'select eject_command_id from orders where id = $1',
      [tradeNo],
    );
    const t0 = b.clock.now().getTime();
    b.clock.advance(10 * MINUTE_MS);
    // The returned (10 min after the pop, in Vilnius) arrives first, then the popped.
    await cabinetReports(b.app, 'PWL-VNO-001', 'PB-NYC-0001', t0 + 10 * MINUTE_MS, 5);
    await b.app.powerly.cabinets.event('PWL-NYC-001', {
      v: 1,
      id: uuid(),
      ts: new Date(t0).toISOString(),
      type: 'popped',
      commandId: rows[0]!.eject_command_id,
      slot: 1,
      powerbankId: 'PB-NYC-0001',
    });
    // NYC $1.50 / 30 min, no free minutes: ceil(10/30) = 1 unit → $1.50
    expect(await detail(b.app, token, tradeNo)).toMatchObject({
      pZujie: 3,
      pJiesuanid: 1,
      pJiesuan: 1.5,
      pUseMins: 10,
      pGhShopName: 'GO9 Gedimino 9',
    });
    await ledgerBalanced(b.app);
  });
});

describe('overtime buy-out', () => {
  it('the job is in the database: after a restart it closes the order as bought out; a later return gets the difference back', async () => {
    const b = await fresh();
    await cabinetsOnline(b, ['PWL-VNO-001']);
    const token = await touristToken(b.app);
    const { tradeNo, powerbankId, borrowedAt } = await rentedOut(b, token, 'PWL-VNO-001');
    const me = (await get(b.app, 'userInfo', token)).json().data;

    // The server stops; a new process (same database) takes over.
    await b.app.close();
    const app2 = await buildApp({
      db: b.db,
      clock: b.clock,
      link: new MqttCabinetLink(b.connector, { prefix: `${b.prefix}-2`, log: quiet }),
      sandbox: b.sandbox,
    });
    await app2.ready();
    try {
      b.clock.advance(3 * DAY - MINUTE_MS);
      await app2.powerly.jobs.runDue();
      expect(await detail(app2, token, tradeNo)).toMatchObject({ pZujie: 1, pJiesuanid: 0, boughtOut: false });
      b.clock.advance(2 * MINUTE_MS);
      await app2.powerly.jobs.runDue();
      const bought = await detail(app2, token, tradeNo);
      // VNO overtime 3 days, overtime amount €25 = deposit €25
      expect(bought).toMatchObject({ pZujie: 1, pJiesuanid: 1, boughtOut: true, pJiesuan: 25, buyOutAmount: 25 });
      await app2.powerly.jobs.runDue();
      expect(Number((await payment(b, tradeNo)).captured_amount)).toBe(2500);
      // Not counted as an open rental any more: the user may rent again.
      expect(await app2.powerly.rentals.openCount(me.pId)).toBe(0);

      // Ten hours later the power bank comes back anyway.
      b.clock.advance(10 * HOUR - MINUTE_MS);
      await cabinetReports(app2, 'PWL-VNO-001', powerbankId, b.clock.now().getTime());
      const back = await detail(app2, token, tradeNo);
      // Rent for 3 d 10 h: 3 × €5 + min(€5, 10 × €1) = €20; charged €25 from the card hold → €5 back to that card
      // (a provider refund, docs/payments.md), not into the wallet.
      expect(back).toMatchObject({ pZujie: 5, pJiesuanid: 1, pJiesuan: 20, boughtOut: true });
      expect(Date.parse(back.pGhtime) - borrowedAt).toBe(3 * DAY + 10 * HOUR);
      await app2.powerly.jobs.runDue();
      expect(Number((await payment(b, tradeNo)).refunded_amount)).toBe(500);
      expect((await get(app2, 'userInfo', token)).json().data.pbalance).toBe(0);
      await ledgerBalanced(app2);
    } finally {
      await app2.close();
    }
  });

  it('a return reported late with a time before the buy-out becomes state 3 with the difference back', async () => {
    const b = await fresh();
    await cabinetsOnline(b, ['PWL-VNO-001']);
    const token = await touristToken(b.app);
    const { tradeNo, powerbankId, borrowedAt } = await rentedOut(b, token, 'PWL-VNO-001');
    b.clock.advance(3 * DAY + HOUR);
    await b.app.powerly.jobs.runDue();
    expect((await detail(b.app, token, tradeNo)).boughtOut).toBe(true);
    await cabinetReports(b.app, 'PWL-VNO-001', powerbankId, borrowedAt + 2 * DAY + 2 * HOUR);
    // 2 d 2 h: 2 × €5 + min(5, 2 × €1) = €12; €25 − €12 = €13 back to the card the hold was on
    expect(await detail(b.app, token, tradeNo)).toMatchObject({ pZujie: 3, pJiesuan: 12 });
    await b.app.powerly.jobs.runDue();
    expect(Number((await payment(b, tradeNo)).refunded_amount)).toBe(1300);
    expect((await get(b.app, 'userInfo', token)).json().data.pbalance).toBe(0);
    await ledgerBalanced(b.app);
  });

  it("the buy-out comes back, less the rent, only within the agent's window after it (default 30 days)", async () => {
    const b = await fresh();
    await cabinetsOnline(b, ['PWL-VNO-001']);
    const token = await touristToken(b.app);
    // Bought out at 3 days; back at 4 d 2 h: the rent, 4 × €5 + €2 = €22, is less than the €25 taken.
    const boughtAndBack = async () => {
      const r = await rentedOut(b, token, 'PWL-VNO-001');
      b.clock.advance(3 * DAY + MINUTE_MS);
      await b.app.powerly.jobs.runDue();
      expect((await detail(b.app, token, r.tradeNo)).boughtOut).toBe(true);
      b.clock.advance(r.borrowedAt + 4 * DAY + 2 * HOUR - b.clock.now().getTime());
      await cabinetReports(b.app, 'PWL-VNO-001', r.powerbankId, b.clock.now().getTime());
      await b.app.powerly.jobs.runDue();
      return {
        order: await detail(b.app, token, r.tradeNo),
        refunded: Number((await payment(b, r.tradeNo)).refunded_amount),
      };
    };
    // Within the default 30 days: €3 back to the card.
    expect(await boughtAndBack()).toMatchObject({ order: { pZujie: 5, pJiesuan: 22 }, refunded: 300 });
    // The venue's agent allows one day after the buy-out: 1 d 2 h is past it, the €25 stays charged.
    await b.db.query(`insert into agents (id, name) values ('agent-returns', 'Returns') on conflict do nothing`);
    await b.db.query(
      `update venues set agent_id = 'agent-returns' where id = (select venue_id from cabinets where id = 'PWL-VNO-001')`,
    );
    await b.db.query(
      `insert into agent_return_settings (agent_id, buy_out_reversal_days, updated_at) values ('agent-returns', 1, now())`,
    );
    expect(await boughtAndBack()).toMatchObject({ order: { pZujie: 5, pJiesuan: 25 }, refunded: 0 });
    await ledgerBalanced(b.app);
  });

  it('buy the power bank (cdb/order/buyOrder): settled at once for the buy-out fee; twice is refused', async () => {
    const b = await fresh();
    await cabinetsOnline(b, ['PWL-LIS-001']);
    const token = await touristToken(b.app);
    const { tradeNo } = await rentedOut(b, token, 'PWL-LIS-001');
    const buy = () =>
      b.app.inject({
        method: 'POST',
        url: `${API}/cdb/order/buyOrder`,
        headers: { token },
        payload: { orderId: tradeNo },
      });
    const r = await buy();
    expect(r.json()).toMatchObject({ code: 0, data: { pZujie: 1, pJiesuanid: 1, boughtOut: true, pJiesuan: 30 } });
    const again = await buy();
    expect(again.statusCode).toBe(409);
    expect(again.json().msg).toBe('This rental is no longer open.');
    const other = await b.app.inject({
      method: 'POST',
      url: `${API}/cdb/order/buyOrder`,
      headers: { token: await touristToken(b.app) },
      payload: { orderId: tradeNo },
    });
    expect(other.statusCode).toBe(404);
    // The overtime job later finds nothing to do.
    b.clock.advance(4 * DAY);
    await b.app.powerly.jobs.runDue();
    expect((await detail(b.app, token, tradeNo)).pJiesuan).toBe(30);
    await ledgerBalanced(b.app);
  });

  it('buy the power bank: a process stopping after the buy-out committed leaves a key the retry replays', async () => {
    const b = await fresh();
    await cabinetsOnline(b, ['PWL-LIS-001']);
    const token = await touristToken(b.app);
    const { tradeNo } = await rentedOut(b, token, 'PWL-LIS-001');
    const buy = () =>
      b.app.inject({
        method: 'POST',
        url: `${API}/cdb/order/buyOrder`,
        headers: { token, 'idempotency-key': `buy-${tradeNo}` },
        payload: { orderId: tradeNo },
      });
    failNextKeyCompletionOutsideTx(b);
    expect((await buy()).statusCode).toBe(500);
    const again = await buy();
    expect(again.json()).toMatchObject({ code: 0, data: { boughtOut: true, pJiesuan: 30 } });
    expect(again.headers['idempotent-replayed']).toBe('true');
    await ledgerBalanced(b.app);
  });
});

describe('the last power bank', () => {
  it('several people rent it at the same moment: exactly one rental, the others refused with their holds voided', async () => {
    const b = await fresh({ simulator: false });
    await markHeardFrom(b, ['PWL-VNO-001']);
    await b.db.query(`delete from powerbanks where cabinet_id = 'PWL-VNO-001' and slot > 1`);
    const tokens = await Promise.all([1, 2, 3, 4].map(() => touristToken(b.app)));
    const cards = await Promise.all(tokens.map(() => cardToken(b.app)));
    // Hold every request at the card provider until all four have passed the pre-checks, then let them race
    // into the database together: only the cabinet lock in the order transaction can tell them apart.
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const authorize = b.sandbox.authorize.bind(b.sandbox);
    let arrived = 0;
    b.sandbox.authorize = async (input) => {
      arrived++;
      await gate;
      return authorize(input);
    };
    const pending = Promise.all(
      tokens.map((token, i) =>
        b.app.inject({
          method: 'POST',
          url: `${API}/cdb/cabinet/useDepositToRent`,
          headers: { token },
          payload: { qrcode: 'PWL-VNO-001', stripeToken: cards[i]!, paymentId: 'card-sandbox' },
        }),
      ),
    );
    await waitFor(async () => arrived === 4, 'all four past the pre-checks');
    release();
    const results = await pending;
    const codes = results.map((r) => r.json().code).sort();
    expect(codes).toEqual([0, 409, 409, 409]);
    for (const r of results.filter((x) => x.json().code !== 0)) expect(r.json().msg).toMatch(/power bank/i);
    const { rows: orders } = await b.db.query('select id from orders');
    expect(orders).toHaveLength(1);
    // At the card provider exactly one authorisation stays open; any other one taken in the race was voided.
    const { rows: intents } = await b.db.query<{ status: string }>(`select status from sandbox_intents`);
    expect(intents.map((i) => i.status).sort()).toEqual(['authorized', 'voided', 'voided', 'voided']);
    await ledgerBalanced(b.app);
  });

  it('the database itself refuses a second open order for one power bank', async () => {
    const b = await fresh({ simulator: false });
    const plan = JSON.stringify(planFromWire(undefined, 'EUR'));
    const { rows } = await b.db.query<{ id: number }>(
      `insert into users (kind, name) values ('tourist', 'T1'), ('tourist', 'T2') returning id`,
    );
    const insert = (id: string, user: number) =>
      b.db.query(
        `insert into orders (id, user_id, cabinet_id, venue_id, zujie, deposit_type, currency, plan, wire_strategy, deposit, powerbank_id, created_at)
       values ($1, $2, 'PWL-VNO-001', 'v-vno-gedimino', 1, 0, 'EUR', $3, '{}', 2500, 'PB-X', now())`,
        [id, user, plan],
      );
    await insert('O1', rows[0]!.id);
    await expect(insert('O2', rows[1]!.id)).rejects.toThrow();
  });
});

describe('the server charges what the flows preview', () => {
  it('for every seeded cabinet the plan the flows derive from the scan is the plan the server charges with', async () => {
    const b = await fresh({ simulator: false });
    const codes = ['PWL-SH-001', 'PWL-VNO-001', 'PWL-LIS-001', 'PWL-NYC-001'];
    await markHeardFrom(b, codes);
    const token = await touristToken(b.app);
    for (const code of codes) {
      const scan = (
        await b.app.inject({ method: 'POST', url: `${API}/cdb/cabinet/checkisok?url=${code}`, headers: { token } })
      ).json().data;
      const preview = planFromWire(scan.priceStrategy, scan.currency, scan); // what src/rent/Home.tsx does
      const { priced } = await b.app.powerly.rentals.resolveCabinet(code);
      expect(preview).toEqual(priced.plan);
      fc.assert(
        fc.property(
          fc.integer({ min: 0, max: 30 * DAY }),
          (ms) => rentalFee(preview, ms) === rentalFee(priced.plan, ms),
        ),
      );
    }
  });

  it('a settled rental charges rentalFee of the previewed plan for the cabinet-reported duration', async () => {
    const b = await fresh();
    await cabinetsOnline(b, ['PWL-SH-001']);
    const token = await touristToken(b.app);
    const scan = (
      await b.app.inject({ method: 'POST', url: `${API}/cdb/cabinet/checkisok?url=PWL-SH-001`, headers: { token } })
    ).json().data;
    const preview = planFromWire(scan.priceStrategy, scan.currency, scan);
    const { tradeNo, powerbankId, borrowedAt } = await rentedOut(b, token, 'PWL-SH-001');
    const elapsed = 5 * HOUR + 17 * MINUTE_MS + 3000;
    b.clock.advance(elapsed);
    await cabinetReports(b.app, 'PWL-SH-001', powerbankId, borrowedAt + elapsed, 7);
    const d = await detail(b.app, token, tradeNo);
    expect(d.pJiesuan).toBe(toMajor(rentalFee(preview, elapsed), 'CNY'));
    expect(d.pJiesuan).toBe(20); // ¥2 / 30 min: ceil(318/30) = 11 × 2 = 22 → daily cap ¥20
  });
});
