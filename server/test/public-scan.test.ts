// The scan anyone sees (CabinetsService.publicScan), which the server renders a code link's package screen from
// (codeLinkPage.ts): the signed-in scan's cabinet, venue, prices, deposit, stock and free slots, and no rider's
// data; from the scan's cache, and kept true by its announcements; an unknown cabinet is undefined.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { build, cabinetsOnline, cardToken, markHeardFrom, touristToken, waitFor, type Built } from './helper.ts';

const API = '/cdb-app-api/v1/app';
let a: Built;

beforeAll(async () => {
  a = await build();
  await cabinetsOnline(a, ['PWL-VNO-001', 'PWL-LIS-001']);
  await markHeardFrom(a, ['PWL-VNO-001', 'PWL-LIS-001']);
});
afterAll(async () => {
  await a?.close();
});

const scan = async (token: string, cabinet: string) =>
  (
    (
      await a.app.inject({ method: 'POST', url: `${API}/cdb/cabinet/checkisok?url=${cabinet}`, headers: { token } })
    ).json() as { data: Record<string, unknown> }
  ).data;
/** What depends on the rider: their wallet and open rentals. */
const RIDER = ['myyue', 'chongzhi', 'yajinChongzhi', 'zujieNum', 'userWallet'] as const;
const withoutRider = (s: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(s).filter(([k]) => !(RIDER as readonly string[]).includes(k)));

describe('the public scan', () => {
  it("is the signed-in scan's cabinet, venue, prices and stock, with no rider's data in it", async () => {
    const token = await touristToken(a.app, 'public-scan-rider');
    // A rider with money in the wallet: their scan says so, the public one does not.
    const topUp = await a.app.inject({
      method: 'POST',
      url: `${API}/cdb/payment/multicurrency/recharge`,
      headers: { token, 'content-type': 'application/x-www-form-urlencoded', 'idempotency-key': 'public-scan-topup' },
      payload: new URLSearchParams({
        amount: '30',
        currency: 'EUR',
        paymentId: 'card-sandbox',
        stripeToken: await cardToken(a.app),
      }).toString(),
    });
    expect(topUp.json().code).toBe(0);
    const mine = await waitFor(async () => {
      const s = await scan(token, 'PWL-VNO-001');
      return Number(s.myyue) > 0 ? s : null;
    }, 'the top-up in the rider scan');
    const open = (await a.app.powerly.cabinets.publicScan('PWL-VNO-001')) as Record<string, unknown> | undefined;
    expect(open).toBeDefined();
    expect(withoutRider(open!)).toEqual(withoutRider(mine));
    expect(open!.shopname).toEqual(expect.any(String));
    expect(open!.haveBatteryCount).toBeGreaterThan(0);
    expect({ myyue: open!.myyue, zujieNum: open!.zujieNum, chongzhi: open!.chongzhi }).toEqual({
      myyue: 0,
      zujieNum: 0,
      chongzhi: 'Y',
    });
    expect(open!.userWallet).toMatchObject({ pBalance: 0 });
  });

  it('a code link or the bare code; an unknown cabinet is undefined', async () => {
    const bare = await a.app.powerly.cabinets.publicScan('PWL-VNO-001');
    expect(await a.app.powerly.cabinets.publicScan('https://app.powerly.io/?qrcode=PWL-VNO-001')).toEqual(bare);
    expect(await a.app.powerly.cabinets.publicScan('NO-SUCH-CABINET')).toBeUndefined();
  });

  it('is answered from the scan cache, and an offline cabinet says so once the change is announced', async () => {
    await a.app.powerly.cabinets.publicScan('PWL-LIS-001');
    const before = { hits: a.app.powerly.scanCache.hits, misses: a.app.powerly.scanCache.misses };
    await a.app.powerly.cabinets.publicScan('PWL-LIS-001');
    expect(a.app.powerly.scanCache.hits).toBe(before.hits + 1);
    expect(a.app.powerly.scanCache.misses).toBe(before.misses);
    await a.db.query(`update cabinets set online = false where id = 'PWL-LIS-001'`);
    const off = await waitFor(async () => {
      const s = (await a.app.powerly.cabinets.publicScan('PWL-LIS-001')) as
        { online: boolean; haveBatteryCount: number; freeSlots: number } | undefined;
      return s && !s.online ? s : null;
    }, 'the offline cabinet in the public scan');
    expect(off).toMatchObject({ online: false, haveBatteryCount: 0, freeSlots: 0 });
  });
});
