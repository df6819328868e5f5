// The map's "can return here now" (filter=return on cdb/shop/listnear, …/trial and cdb/shop/search), on the test
// clock: only venues open now (their opening hours in their agent's time zone; without hours always open) with a
// free slot; a rider's own held return reservation is a free slot for that rider (also on the venue page), taken
// for everyone else.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { build, cabinetsOnline, cardToken, touristToken, waitFor, type Built } from './helper.ts';

const API = '/cdb-app-api/v1/app';
const VNO = { shopId: 'v-vno-gedimino', cabinet: 'PWL-VNO-001', lat: 54.6871, lng: 25.2801 };
const VILNIUS = 'Europe/Vilnius';
let b: Built;

beforeAll(async () => {
  b = await build();
  await cabinetsOnline(b, [VNO.cabinet]);
  await b.app.powerly.embed.saveAgent({ id: 'agent-a', name: 'agent-a', origins: [] });
  await b.db.query(`update venues set agent_id = 'agent-a' where id = $1`, [VNO.shopId]);
  await b.db.query(
    `insert into agent_return_settings (agent_id, time_zone, updated_at) values ('agent-a', $1, now())`,
    [VILNIUS],
  );
});
afterAll(async () => b?.close());

const headers = (token?: string) => (token ? { token } : {});
/** The venue as each map call lists it with filter=return (undefined: left out). */
async function onMaps(token?: string) {
  const find = (res: { json(): { data: { shopid: string; returnNum: number }[] } }) =>
    res.json().data.find((s) => s.shopid === VNO.shopId)?.returnNum;
  const body = { lat: VNO.lat, lng: VNO.lng, zoomLevel: 8, filter: 'return' };
  return {
    search: find(
      await b.app.inject({
        method: 'GET',
        url: `${API}/cdb/shop/search?lat=${VNO.lat}&lng=${VNO.lng}&filter=return&limit=50`,
        headers: headers(token),
      }),
    ),
    home: find(
      await b.app.inject({ method: 'POST', url: `${API}/cdb/shop/listnear`, payload: body, headers: headers(token) }),
    ),
    trial: find(await b.app.inject({ method: 'POST', url: `${API}/cdb/shop/listnear/trial`, payload: body })),
  };
}

/** Every day one range [from, to) of whole local hours, `from` hours after the hour now in `timeZone`. */
async function hours(timeZone: string, from: number, to: number) {
  const h = Number(
    new Intl.DateTimeFormat('en-GB', { timeZone, hour: '2-digit', hourCycle: 'h23' }).format(b.clock.now()),
  );
  const hh = (n: number) => `${String((((h + n) % 24) + 24) % 24).padStart(2, '0')}:00`;
  const day = [{ open: hh(from), close: hh(to) }];
  const weekly = Object.fromEntries(['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'].map((d) => [d, day]));
  await b.db.query('update venues set opening_hours = $2 where id = $1', [
    VNO.shopId,
    JSON.stringify({ weekly, exceptions: [] }),
  ]);
}

async function rented(token: string) {
  const res = await b.app.inject({
    method: 'POST',
    url: `${API}/cdb/cabinet/useDepositToRent`,
    headers: { token },
    payload: { qrcode: VNO.cabinet, stripeToken: await cardToken(b.app), paymentId: 'card-sandbox' },
  });
  expect(res.json().code, res.body).toBe(0);
  const orderId: string = res.json().data.outTradeNo;
  await waitFor(
    async () =>
      (
        await b.app.inject({
          method: 'GET',
          url: `${API}/cdb/mine/order/detail?orderId=${orderId}`,
          headers: { token },
        })
      ).json().data.pZujie === 1,
    'popped',
  );
}

describe('the map: can return here now', () => {
  it("keeps only venues open now, by their agent's time zone; a venue without hours is always open", async () => {
    expect(await onMaps()).toEqual({ search: 2, home: 2, trial: 2 }); // no hours: 6 slots, 4 power banks
    // Closed now in Vilnius (opens in 3 hours): left out by every map call with the filter, still on the map without it.
    await hours(VILNIUS, 3, 5);
    expect(await onMaps()).toEqual({ search: undefined, home: undefined, trial: undefined });
    const all = (
      await b.app.inject({
        method: 'POST',
        url: `${API}/cdb/shop/listnear/trial`,
        payload: { lat: VNO.lat, lng: VNO.lng, zoomLevel: 8 },
      })
    ).json().data;
    expect(all.map((s: { shopid: string }) => s.shopid)).toContain(VNO.shopId);
    // Open for this hour in UTC is closed in Vilnius (2 or 3 hours ahead): the agent's time zone decides.
    await hours('UTC', 0, 1);
    expect(await onMaps()).toEqual({ search: undefined, home: undefined, trial: undefined });
    // Open for this hour in Vilnius, also a range that runs past midnight: kept.
    await hours(VILNIUS, 0, 1);
    expect(await onMaps()).toEqual({ search: 2, home: 2, trial: 2 });
    await hours(VILNIUS, -1, -2);
    expect(await onMaps()).toEqual({ search: 2, home: 2, trial: 2 });
    // A closed venue is left out of a search page without cutting it short: the open ones after it still come.
    await hours(VILNIUS, 3, 5);
    const page = (
      await b.app.inject({
        method: 'GET',
        url: `${API}/cdb/shop/search?lat=${VNO.lat}&lng=${VNO.lng}&filter=return&limit=1`,
      })
    ).json().data;
    expect(page).toHaveLength(1);
    expect(page[0].shopid).not.toBe(VNO.shopId);
    await b.db.query('update venues set opening_hours = null where id = $1', [VNO.shopId]);
  });

  it("a rider's own held return slot is free for that rider only", async () => {
    const token = await touristToken(b.app);
    await rented(token);
    expect(
      (
        await b.app.inject({
          method: 'POST',
          url: `${API}/cdb/return/reserve`,
          headers: { token },
          payload: { shopId: VNO.shopId },
        })
      ).json().code,
    ).toBe(0);
    // The cabinet's last free slot is the one kept: 4 slots, 3 power banks, 1 kept.
    await b.db.query('update cabinets set slot_count = 4 where id = $1', [VNO.cabinet]);
    expect(await onMaps(token)).toEqual({ search: 1, home: 1, trial: undefined }); // the trial map has no rider
    expect(await onMaps()).toEqual({ search: undefined, home: undefined, trial: undefined });
    expect(await onMaps(await touristToken(b.app))).toEqual({ search: undefined, home: undefined, trial: undefined });
    // The venue page says the same: free for the rider who keeps it, taken for anyone else.
    const dtl = async (t?: string) =>
      (
        await b.app.inject({
          method: 'GET',
          url: `${API}/cdb/shop/listnear/dtl?shopId=${VNO.shopId}`,
          headers: headers(t),
        })
      ).json().data;
    expect(await dtl(token)).toMatchObject({ returnNum: 1, cabinets: [{ cabinetID: VNO.cabinet, returnNum: 1 }] });
    expect(await dtl()).toMatchObject({ returnNum: 0, cabinets: [{ cabinetID: VNO.cabinet, returnNum: 0 }] });
    // A token that is no session is refused, as everywhere.
    const bad = await b.app.inject({
      method: 'GET',
      url: `${API}/cdb/shop/search?filter=return`,
      headers: { token: 'not-a-session', lang: 'lt-LT' },
    });
    expect(bad.statusCode).toBe(401);
  });
});
