// Audit of the rental settlement against lost events and double charges: jobs whose lease is taken over while
// their provider call is in flight, a hold renewal left behind by a failed attempt, and a cabinet whose clock is
// behind. Each case failed on the code before its fix.
import { afterEach, describe, expect, it } from 'vitest';
import { MINUTE_MS } from '#core/pricing.ts';
import type { PowerlyApp } from '../src/app.ts';
import { uuid } from '../src/lib/ids.ts';
import { JOB_CHARGE_EXTRA, JOB_HOLD_EXPIRY } from '../src/modules/rentals/service.ts';
import { build, cardToken, markHeardFrom, touristToken, waitFor, type Built, ledgerBalanced } from './helper.ts';

const API = '/cdb-app-api/v1/app';
const HOUR = 60 * MINUTE_MS;
const DAY = 24 * HOUR;

const open: Built[] = [];
afterEach(async () => {
  while (open.length) await open.pop()!.close();
});
async function fresh() {
  const b = await build({ simulator: false });
  open.push(b);
  return b;
}

const detail = async (app: PowerlyApp, token: string, orderId: string) =>
  (
    await app.inject({ method: 'GET', url: `${API}/cdb/mine/order/detail?orderId=${orderId}`, headers: { token } })
  ).json().data;
const event = (app: PowerlyApp, cabinetId: string, e: Record<string, unknown>) =>
  app.powerly.cabinets.event(cabinetId, { v: 2, id: uuid(), ...e } as never);

/** A card-held rental at `qrcode` whose eject the test answers itself ('popped' at the cabinet time `poppedTs`). */
async function rentedOut(b: Built, qrcode: string, poppedTs = b.clock.now().getTime()) {
  await markHeardFrom(b, [qrcode]);
  const token = await touristToken(b.app);
  const res = await b.app.inject({
    method: 'POST',
    url: `${API}/cdb/cabinet/useDepositToRent`,
    headers: { token },
    payload: { qrcode, stripeToken: await cardToken(b.app), paymentId: 'card-sandbox' },
  });
  expect(res.json().code, res.body).toBe(0);
  const tradeNo: string = res.json().data.outTradeNo;
  const { rows } = await b.db.query<{ eject_command_id: string; payload: { slot: number } }>(
    'select o.eject_command_id, c.payload from orders o join cabinet_commands c on c.id = o.eject_command_id where o.id = $1',
    [tradeNo],
  );
  const slot = rows[0]!.payload.slot;
  const { rows: banks } = await b.db.query<{ id: string }>(
    'select id from powerbanks where cabinet_id = $1 and slot = $2',
    [qrcode, slot],
  );
  const powerbankId = banks[0]!.id;
  await event(b.app, qrcode, {
    ts: new Date(poppedTs).toISOString(),
    type: 'popped',
    commandId: rows[0]!.eject_command_id,
    slot,
    powerbankId,
  });
  expect(await detail(b.app, token, tradeNo)).toMatchObject({ pZujie: 1 });
  return { token, tradeNo, powerbankId, slot };
}

const jobOf = async (b: Built, kind: string, orderId: string) =>
  Number(
    (
      await b.db.query<{ id: number }>(
        `select id from jobs where kind = $1 and payload->>'orderId' = $2 order by id desc limit 1`,
        [kind, orderId],
      )
    ).rows[0]!.id,
  );

describe('fencing: a job taken over while its provider call is in flight', () => {
  it('rental.charge-extra: the off-session charge above the hold is recorded and booked once', async () => {
    const b = await fresh();
    const { token, tradeNo, powerbankId } = await rentedOut(b, 'PWL-VNO-001');
    // A plan without the deposit ceiling (docs/payments.md "Off-session charges"): the rent passes the hold.
    await b.db.query(
      `update orders set plan = plan || '{"deposit": 0, "dailyCap": 2000, "unitPrice": 2000, "overtimeDays": 30}'::jsonb where id = $1`,
      [tradeNo],
    );
    b.clock.advance(2 * DAY - HOUR);
    await event(b.app, 'PWL-VNO-001', { ts: b.clock.now().toISOString(), type: 'returned', slot: 3, powerbankId });
    const settled = await detail(b.app, token, tradeNo);
    const fee = Math.round(settled.pJiesuan * 100);
    expect(fee).toBeGreaterThan(2500);
    const extra = await jobOf(b, JOB_CHARGE_EXTRA, tradeNo);

    // The first process's off-session charge hangs at the provider past the job's lease (60 s).
    let release!: () => void;
    b.sandbox.gate = new Promise<void>((r) => (release = r));
    const authorize = b.sandbox.authorize.bind(b.sandbox);
    let arrived = 0;
    b.sandbox.authorize = (input) => {
      arrived++;
      return authorize(input);
    };
    const first = b.app.powerly.jobs.runNow(extra);
    await waitFor(async () => arrived === 1, 'the first charge at the provider');
    b.sandbox.gate = null;
    b.clock.advance(61_000);
    // Another process takes the job over and charges (the provider's idempotency key: the same charge).
    expect(await b.app.powerly.jobs.runNow(extra)).toBe(true);
    release();
    await first;
    b.sandbox.authorize = authorize;

    const { rows: pays } = await b.db.query<{ id: string; status: string }>(
      `select id, status from payments where order_id = $1 and purpose = 'rent_extra'`,
      [tradeNo],
    );
    expect(pays).toHaveLength(1);
    const { rows: rent } = await b.db.query<{ n: string }>(
      `select coalesce(sum(amount), 0) as n from ledger_transfers where order_id = $1 and code = 'rent'`,
      [tradeNo],
    );
    expect(Number(rent[0]!.n)).toBe(fee); // the hold's part + the extra charge, once
    await ledgerBalanced(b.app);
  });

  it('rental.charge-extra: a refused off-session charge leaves the debt once', async () => {
    const b = await fresh();
    const { token, tradeNo, powerbankId } = await rentedOut(b, 'PWL-VNO-001');
    await b.db.query(
      `update orders set plan = plan || '{"deposit": 0, "dailyCap": 2000, "unitPrice": 2000, "overtimeDays": 30}'::jsonb where id = $1`,
      [tradeNo],
    );
    b.clock.advance(2 * DAY - HOUR);
    await event(b.app, 'PWL-VNO-001', { ts: b.clock.now().toISOString(), type: 'returned', slot: 3, powerbankId });
    const fee = Math.round((await detail(b.app, token, tradeNo)).pJiesuan * 100);
    const extra = await jobOf(b, JOB_CHARGE_EXTRA, tradeNo);
    // The bank refuses the off-session charge, slowly: the first process is still waiting when its lease ends.
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const authorize = b.sandbox.authorize.bind(b.sandbox);
    let calls = 0;
    b.sandbox.authorize = async () => {
      if (++calls === 1) await gate;
      return { ok: false, ref: null, declineCode: 'authentication_required', card: null };
    };
    const first = b.app.powerly.jobs.runNow(extra);
    await waitFor(async () => calls === 1, 'the first charge at the provider');
    b.clock.advance(61_000);
    expect(await b.app.powerly.jobs.runNow(extra)).toBe(true);
    release();
    await first;
    b.sandbox.authorize = authorize;
    const d = await detail(b.app, token, tradeNo);
    expect(Math.round(d.debtAmount * 100)).toBe(fee - 2500); // owed once, not twice
  });
});

describe('hold renewal', () => {
  it('a renewal hold made by an attempt that failed before recording it is released when the rental closes', async () => {
    const b = await fresh();
    const { tradeNo, powerbankId } = await rentedOut(b, 'PWL-VNO-001');
    // Still open when the 7-day hold nears its end.
    await b.db.query(`update orders set plan = jsonb_set(plan, '{overtimeDays}', '30') where id = $1`, [tradeNo]);
    await b.db.query(
      `update jobs set run_at = run_at + interval '28 days' where kind = 'rental.overtime-buy-out' and payload->>'orderId' = $1`,
      [tradeNo],
    );
    const { rows: p } = await b.db.query<{ id: string }>(`select id from payments where order_id = $1`, [tradeNo]);
    b.clock.advance(6 * DAY + MINUTE_MS);
    // The renewal is authorised at the card, then the unit of work that records it fails (the process dies).
    const repo = (
      b.app.powerly.rentals as unknown as { d: { repo: { setPayment: (...a: unknown[]) => Promise<void> } } }
    ).d.repo;
    const setPayment = repo.setPayment;
    repo.setPayment = () => {
      repo.setPayment = setPayment;
      return Promise.reject(new Error('process died'));
    };
    expect(await b.app.powerly.jobs.runNow(await jobOf(b, JOB_HOLD_EXPIRY, tradeNo))).toBe(false);
    repo.setPayment = setPayment;
    const renewal = `pi_renew_${p[0]!.id}`;
    expect(await b.app.powerly.sandbox.status(renewal)).toBe('authorized');
    // The power bank comes back before the retry.
    await event(b.app, 'PWL-VNO-001', { ts: b.clock.now().toISOString(), type: 'returned', slot: 3, powerbankId });
    b.clock.advance(10 * MINUTE_MS);
    await b.app.powerly.jobs.runDue();
    await b.app.powerly.jobs.runDue();
    // No second hold stays on the user's card for a closed rental.
    expect(await b.app.powerly.sandbox.status(renewal)).toBe('voided');
  });
});

describe('a cabinet whose clock is behind', () => {
  // KNOWN BUG, not fixed (it.fails until it is): onReturned compares the return's cabinet time with the rental's
  // borrowed_at, which is the pop clamped up to the command's server time, not the cabinet's own pop time (not
  // stored). A return stamped between the two is taken for an earlier rental's, and placeInSlot refuses it too
  // (seen_at = the clamped time): the order stays open until the cabinet's clock passes borrowed_at.
  it.fails(
    "its 'returned', stamped after its own 'popped', settles the rental (and puts the power bank back)",
    async () => {
      const b = await fresh();
      const t0 = b.clock.now().getTime();
      // The cabinet's clock is 10 minutes behind: it stamps the pop 10 minutes before the command was issued
      // (clamped to the command's time), and the return 5 minutes later 5 minutes before it.
      const { token, tradeNo, powerbankId, slot } = await rentedOut(b, 'PWL-NYC-001', t0 - 10 * MINUTE_MS);
      b.clock.advance(5 * MINUTE_MS);
      await event(b.app, 'PWL-NYC-001', {
        ts: new Date(t0 - 5 * MINUTE_MS).toISOString(),
        type: 'returned',
        slot,
        powerbankId,
      });
      expect(await detail(b.app, token, tradeNo)).toMatchObject({ pZujie: 3, pJiesuanid: 1 });
      const { rows } = await b.db.query<{ state: string }>('select state from powerbanks where id = $1', [powerbankId]);
      expect(rows[0]!.state).toBe('in_cabinet');
      await ledgerBalanced(b.app);
    },
  );
});
