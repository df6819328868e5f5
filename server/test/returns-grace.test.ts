// A grace period when nowhere nearby can take the power bank, on the test clock: refused (409 in the rider's
// language, naming the place) while a cabinet within the radius is open with a free slot; granted by rule when the
// cabinets nearby are closed, until the next opening; recorded on the order and shown to the desk; the fee leaves the
// paused time out; the buy-out and the reminders move later by it, also across a restart of the server.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DAY_MINUTES } from '#core/pricing.ts';
import { build, cabinetsOnline, cardToken, touristToken, waitFor, type Built } from './helper.ts';
import { callerConsoles } from './ops/callers.ts';

const API = '/cdb-app-api/v1/app';
const MIN = 60_000;
const VNO = { shopId: 'v-vno-gedimino', cabinet: 'PWL-VNO-001', lat: 54.6871, lng: 25.2801 };
const pg = Boolean(process.env.DATABASE_URL);
const dataDir = pg ? undefined : mkdtempSync(join(tmpdir(), 'powerly-grace-'));
const schema = `test_grace_${Date.now().toString(36)}`;
const server = () => build({ dataDir, schema: pg ? schema : undefined, keepSchema: true });
let b: Built;

const VILNIUS = 'Europe/Vilnius';

beforeAll(async () => {
  b = await server();
  await cabinetsOnline(b, [VNO.cabinet]);
  await b.app.powerly.embed.saveAgent({ id: 'agent-a', name: 'agent-a', origins: [] });
  // The venue's agent: a 1.5 km radius, opening hours in Vilnius time.
  await b.db.query(`update venues set agent_id = 'agent-a' where id = $1`, [VNO.shopId]);
  await b.db.query(
    `insert into agent_return_settings (agent_id, grace_radius_m, time_zone, updated_at) values ('agent-a', 1500, $1, now())`,
    [VILNIUS],
  );
});
afterAll(async () => b?.close());

const call = (method: 'GET' | 'POST', url: string, token: string, payload?: Record<string, unknown>, lang = 'en-US') =>
  b.app.inject({ method, url: `${API}/${url}`, headers: { token, lang }, payload });
const here = { lat: VNO.lat, lng: VNO.lng };
const detail = async (token: string, orderId: string) =>
  (await call('GET', `cdb/mine/order/detail?orderId=${orderId}`, token)).json().data;

async function rented(token: string) {
  const res = await call('POST', 'cdb/cabinet/useDepositToRent', token, {
    qrcode: VNO.cabinet,
    stripeToken: await cardToken(b.app),
    paymentId: 'card-sandbox',
  });
  expect(res.json().code, res.body).toBe(0);
  const orderId: string = res.json().data.outTradeNo;
  const d = await waitFor(async () => {
    const x = await detail(token, orderId);
    return x.pZujie === 1 ? x : null;
  }, 'popped');
  return { orderId, powerbankId: d.pPowerbankId as string, borrowedAt: Date.parse(d.pBorrowtime) };
}

const vilniusHour = (d: Date) =>
  Number(new Intl.DateTimeFormat('en-GB', { timeZone: VILNIUS, hour: '2-digit', hourCycle: 'h23' }).format(d));

/** Opening hours (Vilnius time, the agent's) that open every day 3 hours after the clock's hour, for 2 hours. */
async function closedNow() {
  const now = b.clock.now();
  const h = (vilniusHour(now) + 3) % 24;
  const hh = (n: number) => `${String(n % 24).padStart(2, '0')}:00`;
  const day = [{ open: hh(h), close: hh(h + 2) }];
  const weekly = Object.fromEntries(['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'].map((d) => [d, day]));
  await b.db.query('update venues set opening_hours = $2 where id = $1', [
    VNO.shopId,
    JSON.stringify({ weekly, exceptions: [] }),
  ]);
  // The next full hour at which Vilnius shows h:00 (its offset from UTC is whole hours).
  const hour = Math.floor(now.getTime() / 3_600_000) * 3_600_000;
  for (let k = 1; ; k++) if (vilniusHour(new Date(hour + k * 3_600_000)) === h) return new Date(hour + k * 3_600_000);
}

const boughtOut = async (orderId: string) =>
  (await b.db.query<{ bought_out_at: Date | null }>('select bought_out_at from orders where id = $1', [orderId]))
    .rows[0]!.bought_out_at !== null;

async function notices(orderId: string) {
  const { rows } = await b.db.query<{ step: string; state: string; due_at: Date; job_id: string }>(
    'select step, state, due_at, job_id from rental_notices where order_id = $1 order by step',
    [orderId],
  );
  return rows;
}

describe('grace periods', () => {
  it("refused while a cabinet nearby is open with a free slot: 409 in the rider's language, naming it", async () => {
    const token = await touristToken(b.app);
    const { orderId } = await rented(token);
    const check = (
      await call('GET', `cdb/mine/order/grace?orderId=${orderId}&lat=${here.lat}&lng=${here.lng}`, token)
    ).json();
    expect(check).toMatchObject({
      code: 0,
      data: {
        applies: false,
        active: null,
        until: null,
        radiusM: 1500,
        place: { shopId: VNO.shopId, name: 'GO9 Gedimino 9', distanceM: 0 },
      },
    });
    const res = await call('POST', 'cdb/mine/order/grace', token, { orderId, ...here }, 'lt-LT');
    expect(res.statusCode).toBe(409);
    expect(res.json().msg).toBe(
      'GO9 Gedimino 9 (už 0 m) dirba ir turi laisvą vietą: grąžinkite įkroviklį ten. Atidėjimas suteikiamas tik tada, kai netoliese jo priimti negali jokia stotelė.',
    );
    // Another rider's order: not found; a position off the globe: 400.
    const other = await touristToken(b.app);
    expect((await call('POST', 'cdb/mine/order/grace', other, { orderId, ...here })).statusCode).toBe(404);
    expect((await call('POST', 'cdb/mine/order/grace', token, { orderId, lat: 91, lng: 0 })).statusCode).toBe(400);
    expect((await detail(token, orderId)).grace).toEqual([]);
    await b.app.inject({
      method: 'POST',
      url: `/demo-api/cabinets/${VNO.cabinet}/return`,
      payload: { powerbankId: (await detail(token, orderId)).pPowerbankId },
    });
    await waitFor(async () => (await detail(token, orderId)).pZujie !== 1 || null, 'returned');
  });

  it("granted when the cabinets nearby are closed: until the next opening, on the order and the desk's timeline; the fee leaves it out", async () => {
    const token = await touristToken(b.app);
    const { orderId, powerbankId, borrowedAt } = await rented(token);
    b.clock.advance(30 * MIN);
    const opensAt = await closedNow();
    const check = (
      await call('GET', `cdb/mine/order/grace?orderId=${orderId}&lat=${here.lat}&lng=${here.lng}`, token)
    ).json().data;
    expect(check).toMatchObject({
      applies: true,
      reason: 'closed',
      until: opensAt.toISOString(),
      place: { shopId: VNO.shopId },
    });
    const from = b.clock.now();
    const before = await detail(token, orderId);
    const res = await call('POST', 'cdb/mine/order/grace', token, { orderId, ...here });
    expect(res.json(), res.body).toMatchObject({
      code: 0,
      data: {
        from: from.toISOString(),
        until: opensAt.toISOString(),
        reason: 'closed',
        radiusM: 1500,
        nearest: { shopId: VNO.shopId, opensAt: opensAt.toISOString() },
      },
    });
    const paused = opensAt.getTime() - from.getTime();
    // Asked again while it runs: the same one, nothing new.
    expect((await call('POST', 'cdb/mine/order/grace', token, { orderId, ...here })).json().data.until).toBe(
      opensAt.toISOString(),
    );
    const after = await detail(token, orderId);
    expect(after.grace).toEqual([{ from: from.toISOString(), until: opensAt.toISOString(), reason: 'closed' }]);
    expect(Date.parse(after.buyOutAt) - Date.parse(before.buyOutAt)).toBe(paused);
    expect(
      (await call('GET', `cdb/mine/order/grace?orderId=${orderId}&lat=${here.lat}&lng=${here.lng}`, token)).json().data
        .active,
    ).toEqual({ from: from.toISOString(), until: opensAt.toISOString(), reason: 'closed' });

    // The desk sees it on the rental's timeline, with what was checked, and the fee so far leaves it out.
    b.clock.advance(60 * MIN);
    const desk = await callerConsoles(b);
    const got = await desk.get('adminA')!.call('GET', `/rentals/${orderId}`);
    expect(got.statusCode, got.body).toBe(200);
    const timeline = got.json<{
      entries: { what: string; at: string; detail: Record<string, unknown> }[];
      fee: { steps: { kind: string; minutes?: number }[] };
    }>();
    expect(timeline.entries.filter((e) => e.what === 'order.grace')).toEqual([
      {
        at: from.toISOString(),
        source: 'order',
        what: 'order.grace',
        detail: {
          from: from.toISOString(),
          until: opensAt.toISOString(),
          reason: 'closed',
          radiusM: 1500,
          nearest: { shopId: VNO.shopId, name: 'GO9 Gedimino 9', distanceM: 0, opensAt: opensAt.toISOString() },
        },
      },
    ]);
    expect(timeline.fee.steps[0]).toEqual({ kind: 'elapsed', minutes: 30 });

    // Returned 20 minutes after the opening: 30 + 20 minutes counted (€1: ten free minutes, then one started hour).
    b.clock.advance(opensAt.getTime() + 20 * MIN - b.clock.now().getTime());
    await b.app.inject({ method: 'POST', url: `/demo-api/cabinets/${VNO.cabinet}/return`, payload: { powerbankId } });
    const done = await waitFor(async () => {
      const d = await detail(token, orderId);
      return d.pZujie === 2 || d.pZujie === 3 ? d : null;
    }, 'returned');
    expect(done.pUseMins).toBe(50);
    expect(done.pJiesuan).toBe(1);
    expect(Date.parse(done.pGhtime) - borrowedAt).toBe(50 * MIN + paused);
  });

  it('moves the buy-out and the reminders not sent yet; the buy-out keeps its new time across a restart', async () => {
    await b.db.query('update venues set opening_hours = null where id = $1', [VNO.shopId]);
    const token = await touristToken(b.app);
    const { orderId, borrowedAt } = await rented(token);
    b.clock.advance(20 * MIN);
    await b.app.powerly.jobs.runDue();
    const was = await notices(orderId);
    expect(was.find((n) => n.step === 'free_end')?.state).toBe('sent');
    const opensAt = await closedNow();
    const res = await call('POST', 'cdb/mine/order/grace', token, { orderId, ...here });
    expect(res.json().code, res.body).toBe(0);
    const paused = opensAt.getTime() - b.clock.now().getTime();
    const now = await notices(orderId);
    for (const n of now) {
      const old = was.find((w) => w.step === n.step)!;
      if (n.state === 'sent') {
        expect(n.due_at).toEqual(old.due_at);
      } else {
        expect(n.state).toBe('scheduled');
        expect(new Date(n.due_at).getTime() - new Date(old.due_at).getTime(), n.step).toBe(paused);
        expect(n.job_id).not.toBe(old.job_id);
      }
    }
    const buyOutAt = Date.parse((await detail(token, orderId)).buyOutAt);
    expect(buyOutAt - borrowedAt).toBe(3 * DAY_MINUTES * MIN + paused);

    // The server is killed and started again; at the old buy-out time nothing happens, at the new one it is bought out.
    await b.close();
    const clockAt = b.clock.now();
    b = await server();
    b.clock.advance(clockAt.getTime() - b.clock.now().getTime());
    await cabinetsOnline(b, [VNO.cabinet]);
    b.clock.advance(borrowedAt + 3 * DAY_MINUTES * MIN + MIN - b.clock.now().getTime());
    await b.app.powerly.jobs.runDue();
    expect(await boughtOut(orderId)).toBe(false);
    b.clock.advance(buyOutAt + MIN - b.clock.now().getTime());
    await b.app.powerly.jobs.runDue();
    expect(await boughtOut(orderId)).toBe(true);
  });
});
