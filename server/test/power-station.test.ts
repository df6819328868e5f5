// Power stations (energyStorageFlag): slots of kind 'station' with their own price plan and deposit,
// rented through the same lifecycle as a power bank (deposit, eject by the cabinet protocol, return anywhere).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rentalFee } from '#core/pricing.ts';
import { toMajor } from '#core/money.ts';
import { build, cabinetsOnline, cardToken, touristToken, waitFor, type Built } from './helper.ts';

const API = '/cdb-app-api/v1/app';
let b: Built;
beforeAll(async () => {
  b = await build();
  await cabinetsOnline(b, ['PWL-LIS-001', 'PWL-NYC-001', 'PWL-VNO-001']);
});
afterAll(async () => b?.close());

const scan = async (token: string, code: string, deviceType?: string) =>
  (
    await b.app.inject({
      method: 'POST',
      url: `${API}/cdb/cabinet/checkisok?url=${code}${deviceType ? `&deviceType=${deviceType}` : ''}`,
      headers: { token },
    })
  ).json();
const detail = async (token: string, id: string) =>
  (await b.app.inject({ method: 'GET', url: `${API}/cdb/mine/order/detail?orderId=${id}`, headers: { token } })).json()
    .data;

describe('power stations', () => {
  it('the scan offers them where the cabinet has some, priced by their own plan', async () => {
    const token = await touristToken(b.app);
    const cdb = (await scan(token, 'PWL-LIS-001')).data;
    expect(cdb).toMatchObject({
      deviceType: 'cdb',
      energyStorageFlag: 1,
      haveStationCount: 1,
      haveBatteryCount: 3,
      yajin: 30,
    });
    const st = (await scan(token, 'PWL-LIS-001', 'station')).data;
    expect(st).toMatchObject({
      deviceType: 'station',
      energyStorageFlag: 1,
      haveBatteryCount: 1,
      yajin: 150,
      jifei: 3,
      yajintype: 0,
    });
    expect(st.priceStrategy).toMatchObject({ pPrice: 3, pDepositAmount: 150, pDayAmount: 20 });
    // A venue without power stations: no flag, and a station scan falls back to the power bank's pricing.
    expect((await scan(token, 'PWL-VNO-001')).data).toMatchObject({ energyStorageFlag: 0, haveStationCount: 0 });
    expect((await scan(token, 'PWL-VNO-001', 'station')).data).toMatchObject({ deviceType: 'cdb', yajin: 25 });
    expect((await scan(token, 'PWL-VNO-001', 'drone')).code).not.toBe(0);
  });

  it('a rental by card hold ejects the power station, returns anywhere and charges the station plan', async () => {
    const token = await touristToken(b.app);
    const res = await b.app.inject({
      method: 'POST',
      url: `${API}/cdb/cabinet/useDepositToRent`,
      headers: { token },
      payload: {
        qrcode: 'PWL-LIS-001',
        stripeToken: await cardToken(b.app),
        paymentId: 'card-sandbox',
        deviceType: 'station',
      },
    });
    expect(res.json().code, res.body).toBe(0);
    const id: string = res.json().data.outTradeNo;
    const out = await waitFor(async () => {
      const d = await detail(token, id);
      return d.pZujie === 1 ? d : null;
    }, 'popped');
    expect(out).toMatchObject({
      pType: 'powerStation',
      deviceType: 'station',
      pPowerbankId: 'PS-LIS-0001',
      pYajin: 150,
    });
    // No station left in Lisbon now; power banks still there.
    expect((await scan(token, 'PWL-LIS-001', 'station')).data).toMatchObject({
      haveBatteryCount: 0,
      haveStationCount: 0,
    });
    const elapsed = 3 * 3_600_000 + 60_000;
    b.clock.advance(elapsed);
    await b.fleet!.get('PWL-SH-001')!.insert('PS-LIS-0001');
    const done = await waitFor(async () => {
      const d = await detail(token, id);
      return d.pZujie === 3 ? d : null;
    }, 'returned');
    const order = await b.app.powerly.rentals.check({ id: Number(done.pUserid) } as never, id);
    expect(order.device_kind).toBe('station');
    expect(done.pJiesuan).toBe(toMajor(rentalFee(order.plan, elapsed), 'EUR'));
    expect(done.pJiesuan).toBe(12); // 4 started hours × €3
    const { rows } = await b.db.query<{ kind: string; cabinet_id: string }>(
      `select kind, cabinet_id from powerbanks where id = 'PS-LIS-0001'`,
    );
    expect(rows[0]).toEqual({ kind: 'station', cabinet_id: 'PWL-SH-001' });
    // The order list names the device.
    const list = (
      await b.app.inject({ method: 'GET', url: `${API}/cdb/mine/order/list?page=1&pageSize=10`, headers: { token } })
    ).json();
    expect(JSON.stringify(list)).toContain('powerStation');
  });

  it('a power bank rental never takes a power station', async () => {
    const token = await touristToken(b.app);
    // NYC: wallet deposit (yajintype 1) — pay the power-bank deposit by top-up.
    const res = await b.app.inject({
      method: 'POST',
      url: `${API}/cdb/cabinet/useDepositToRent`,
      headers: { token },
      payload: { qrcode: 'PWL-NYC-001', stripeToken: await cardToken(b.app), paymentId: 'card-sandbox' },
    });
    expect(res.json().code, res.body).toBe(0);
    const id: string = res.json().data.outTradeNo;
    const out = await waitFor(async () => {
      const d = await detail(token, id);
      return d.pZujie === 1 ? d : null;
    }, 'popped');
    expect(out.pPowerbankId).toMatch(/^PB-NYC-/);
    expect(out).toMatchObject({ pType: 'cdb', deviceType: 'cdb' });
  });
});
