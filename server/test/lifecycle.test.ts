// The rental lifecycle on the server — eject timeout refund, late return with the cabinet's timestamp, the race for
// the last power bank, and that the server charges exactly what the flows preview (src/core/pricing.ts on both
// sides). The overtime buy-out and buying the power bank are in lifecycle-buyout.test.ts.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { planFromWire, rentalFee, MINUTE_MS } from '#core/pricing.ts';
import { toMajor } from '#core/money.ts';
import { uuid } from '../src/lib/ids.ts';
import { cabinetsOnline, cardToken, markHeardFrom, touristToken, waitFor, ledgerBalanced } from './helper.ts';
import {
  API,
  DAY,
  HOUR,
  cabinetReports,
  detail,
  freshBuilds,
  get,
  payment,
  rentByCard,
  rentedOut,
} from './lifecycle-helpers.ts';

const fresh = freshBuilds();

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
