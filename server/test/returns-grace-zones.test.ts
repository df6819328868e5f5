// The grace period's rule reads each venue's opening hours in that venue's own time zone (its agent's), not in the
// rental's: a venue across a time-zone border that is open now refuses a grace period, and one that opens first by
// its own clock ends it. Two venues 200 m apart: the rental's in Vilnius time, the other's agent in Tokyo time.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { build, cabinetsOnline, cardToken, markHeardFrom, touristToken, waitFor, type Built } from './helper.ts';

const API = '/cdb-app-api/v1/app';
const VNO = { shopId: 'v-vno-gedimino', cabinet: 'PWL-VNO-001', lat: 54.6871, lng: 25.2801 };
const FAR = { shopId: 'v-zone-tokyo', cabinet: 'PWL-ZONE-001', lat: 54.6889, lng: 25.2801 };
const VILNIUS = 'Europe/Vilnius';
const TOKYO = 'Asia/Tokyo';
let b: Built;

beforeAll(async () => {
  b = await build();
  await cabinetsOnline(b, [VNO.cabinet]);
  for (const [agent, zone] of [
    ['agent-vilnius', VILNIUS],
    ['agent-tokyo', TOKYO],
  ] as const) {
    await b.app.powerly.embed.saveAgent({ id: agent, name: agent, origins: [] });
    await b.db.query(
      `insert into agent_return_settings (agent_id, grace_radius_m, time_zone, updated_at) values ($1, 1500, $2, now())`,
      [agent, zone],
    );
  }
  await b.db.query(`update venues set agent_id = 'agent-vilnius' where id = $1`, [VNO.shopId]);
  await b.db.query(
    `insert into venues (id, name, city, address, hours, logo_url, lat, lng, currency, agent_id)
    values ($1, 'Tokyo time', 'Vilnius', 'Gedimino 11', '', '', $2, $3, 'EUR', 'agent-tokyo')`,
    [FAR.shopId, FAR.lat, FAR.lng],
  );
  await b.db.query(`insert into cabinets (id, venue_id, slot_count) values ($1, $2, 6)`, [FAR.cabinet, FAR.shopId]);
  await markHeardFrom(b, [FAR.cabinet]);
});
afterAll(async () => b?.close());

const call = (method: 'GET' | 'POST', url: string, token: string, payload?: Record<string, unknown>) =>
  b.app.inject({ method, url: `${API}/${url}`, headers: { token, lang: 'en-US' }, payload });
const here = { lat: VNO.lat, lng: VNO.lng };

async function rented(token: string) {
  const res = await call('POST', 'cdb/cabinet/useDepositToRent', token, {
    qrcode: VNO.cabinet,
    stripeToken: await cardToken(b.app),
    paymentId: 'card-sandbox',
  });
  expect(res.json().code, res.body).toBe(0);
  const orderId: string = res.json().data.outTradeNo;
  await waitFor(
    async () => (await call('GET', `cdb/mine/order/detail?orderId=${orderId}`, token)).json().data.pZujie === 1,
    'popped',
  );
  return orderId;
}

/** Every day one range of whole local hours [from, to) after the hour now in `timeZone`, for venue `id`. */
async function hours(id: string, timeZone: string, from: number, to: number) {
  const h = Number(
    new Intl.DateTimeFormat('en-GB', { timeZone, hour: '2-digit', hourCycle: 'h23' }).format(b.clock.now()),
  );
  const hh = (n: number) => `${String((h + n) % 24).padStart(2, '0')}:00`;
  const day = [{ open: hh(from), close: hh(to) }];
  const weekly = Object.fromEntries(['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'].map((d) => [d, day]));
  await b.db.query('update venues set opening_hours = $2 where id = $1', [
    id,
    JSON.stringify({ weekly, exceptions: [] }),
  ]);
}
/** The start of the `k`-th whole hour after now (both zones are whole hours off UTC). */
const hourAhead = (k: number) =>
  new Date(Math.floor(b.clock.now().getTime() / 3_600_000) * 3_600_000 + k * 3_600_000).toISOString();

describe('grace periods across time zones', () => {
  it("a venue open now by its own clock refuses the grace period, though closed at that hour of the rental's", async () => {
    const token = await touristToken(b.app);
    const orderId = await rented(token);
    await hours(VNO.shopId, VILNIUS, 3, 5);
    // Open this hour in Tokyo time: seven hours later in Vilnius, so closed by the rental's clock.
    await hours(FAR.shopId, TOKYO, 0, 2);
    const check = (
      await call('GET', `cdb/mine/order/grace?orderId=${orderId}&lat=${here.lat}&lng=${here.lng}`, token)
    ).json().data;
    expect(check).toMatchObject({ applies: false, place: { shopId: FAR.shopId, name: 'Tokyo time' } });
    const res = await call('POST', 'cdb/mine/order/grace', token, { orderId, ...here });
    expect(res.statusCode).toBe(409);
    expect(res.json().msg).toContain('Tokyo time');
  });

  it('the first venue to open by its own clock ends the grace period', async () => {
    const token = await touristToken(b.app);
    const orderId = await rented(token);
    // Vilnius opens in 3 hours by Vilnius time; the other in 1 hour by Tokyo time (8 hours by Vilnius time).
    await hours(VNO.shopId, VILNIUS, 3, 5);
    await hours(FAR.shopId, TOKYO, 1, 2);
    const res = await call('POST', 'cdb/mine/order/grace', token, { orderId, ...here });
    expect(res.json(), res.body).toMatchObject({
      code: 0,
      data: { reason: 'closed', until: hourAhead(1), nearest: { shopId: FAR.shopId, opensAt: hourAhead(1) } },
    });
    // The other way round: the Vilnius venue opens first.
    const token2 = await touristToken(b.app);
    const order2 = await rented(token2);
    await hours(VNO.shopId, VILNIUS, 2, 4);
    await hours(FAR.shopId, TOKYO, 5, 6);
    const res2 = await call('POST', 'cdb/mine/order/grace', token2, { orderId: order2, ...here });
    expect(res2.json(), res2.body).toMatchObject({
      code: 0,
      data: { reason: 'closed', until: hourAhead(2), nearest: { shopId: VNO.shopId } },
    });
  });
});
