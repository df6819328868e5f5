// The rider's fields the product names: the scan's productId and the cabinet's country (the venue's, else its
// agent's), the user's provider ids, the openId sign-in, the agent's deposit-by-payment setting, and a Wi-Fi order of
// the box only (order type 3).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { build, cabinetsOnline, markHeardFrom, touristToken, type Built } from './helper.ts';

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

const scan = async (token: string, cabinet: string, deviceType = 'cdb') =>
  ((await a.app.inject({ method: 'POST', url: `${API}/cdb/cabinet/checkisok?url=${cabinet}&deviceType=${deviceType}`, headers: { token } })).json() as { data: Record<string, unknown> }).data;

describe('the scan result', () => {
  it("names the product it prices (its price plan) and the cabinet's country", async () => {
    const token = await touristToken(a.app, 'rider-fields-scan-1');
    const bank = await scan(token, 'PWL-LIS-001');
    const station = await scan(token, 'PWL-LIS-001', 'station');
    const plans = (await a.db.query<{ id: number; device_kind: string }>(`select id, device_kind from price_plans where venue_id = 'v-lis-timeout'`)).rows;
    expect(bank.productId).toBe(String(plans.find((p) => p.device_kind === 'cdb')!.id));
    expect(station.productId).toBe(String(plans.find((p) => p.device_kind === 'station')!.id));
    expect(bank.country).toBe('PT');
    expect((await scan(token, 'PWL-VNO-001')).country).toBe('LT');
  });

  it("without a country of its own, a venue's cabinet is in its agent's country", async () => {
    await a.db.query(`insert into agents (id, name, country) values ('ag-fields', 'Fields agent', 'ES')`);
    await a.db.query(`update venues set country = null, agent_id = 'ag-fields' where id = 'v-vno-gedimino'`);
    const token = await touristToken(a.app, 'rider-fields-scan-2');
    expect((await scan(token, 'PWL-VNO-001')).country).toBe('ES');
    await a.db.query(`update agents set country = null where id = 'ag-fields'`);
    expect((await scan(token, 'PWL-VNO-001')).country).toBe('');
    await a.db.query(`update venues set country = 'LT', agent_id = null where id = 'v-vno-gedimino'`);
  });
});
