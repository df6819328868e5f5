// The rider's fields the product names: the scan's productId and the cabinet's country (the venue's, else its
// agent's), the user's provider ids, the openId sign-in, the agent's deposit-by-payment setting, and a Wi-Fi order of
// the box only (order type 3).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sha256 } from '../src/lib/ids.ts';
import { CabinetsRepository } from '../src/modules/cabinets/repository.ts';
import { scanAnswer } from '../src/modules/cabinets/scan-view.ts';
import { LedgerRepository } from '../src/modules/ledger/repository.ts';
import { build, cabinetsOnline, cardToken, markHeardFrom, touristToken, waitFor, type Built } from './helper.ts';
import { callerConsoles } from './ops/callers.ts';

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
  (
    (
      await a.app.inject({
        method: 'POST',
        url: `${API}/cdb/cabinet/checkisok?url=${cabinet}&deviceType=${deviceType}`,
        headers: { token },
      })
    ).json() as { data: Record<string, unknown> }
  ).data;

describe('the scan result', () => {
  it("names the agent of the wallet it shows (pDailiId): the wallet list's, and the wallet row's own agent", async () => {
    const token = await touristToken(a.app, 'rider-fields-wallet-agent');
    const wallets = (
      await a.app.inject({ method: 'GET', url: `${API}/cdb/user/wallet/new`, headers: { token } })
    ).json().data as { pDailiId: string }[];
    expect((await scan(token, 'PWL-VNO-001')).userWallet).toMatchObject({ pDailiId: wallets[0]!.pDailiId });
    // A read of another agent's wallet: no wallet there yet (that agent's, empty), then its wallet row.
    const repo = new CabinetsRepository(a.db);
    const read = async () => {
      const found = await repo.scanView(
        'PWL-VNO-001',
        { tokenHash: sha256(token), at: a.clock.now() },
        [0, 1],
        'ag-wallet',
      );
      return scanAnswer(found!.view!, 'cdb', true).userWallet;
    };
    expect(await read()).toMatchObject({ pBalance: 0, pDailiId: 'ag-wallet' });
    const me = (await a.app.inject({ method: 'GET', url: `${API}/userInfo`, headers: { token } })).json().data as {
      pId: number;
    };
    await new LedgerRepository(a.db).ensureAccount({ type: 'user', id: String(me.pId) }, 'wallet', 'EUR', 'ag-wallet');
    expect(await read()).toMatchObject({ pBalance: 0, pDailiId: 'ag-wallet' });
  });

  it("names the product it prices (its price plan) and the cabinet's country", async () => {
    const token = await touristToken(a.app, 'rider-fields-scan-1');
    const bank = await scan(token, 'PWL-LIS-001');
    const station = await scan(token, 'PWL-LIS-001', 'station');
    const plans = (
      await a.db.query<{ id: number; device_kind: string }>(
        `select id, device_kind from price_plans where venue_id = 'v-lis-timeout'`,
      )
    ).rows;
    expect(bank.productId).toBe(String(plans.find((p) => p.device_kind === 'cdb')!.id));
    expect(station.productId).toBe(String(plans.find((p) => p.device_kind === 'station')!.id));
    expect(bank.country).toBe('PT');
    expect((await scan(token, 'PWL-VNO-001')).country).toBe('LT');
  });

  it("without a country of its own, a venue's cabinet is in its agent's country", async () => {
    await a.db.query(`insert into agents (id, name, country) values ('ag-fields', 'Fields agent', 'ES')`);
    await a.db.query(`update venues set country = null, agent_id = 'ag-fields' where id = 'v-vno-gedimino'`);
    const token = await touristToken(a.app, 'rider-fields-scan-2');
    // The scan's cache hears of a venue's or agent's change by a database notification, which a real PostgreSQL
    // delivers a moment after the update: wait for it rather than read at once.
    const countryIs = (c: string) =>
      waitFor(async () => (await scan(token, 'PWL-VNO-001')).country === c, `the scan's country ${c || 'none'}`);
    await countryIs('ES');
    await a.db.query(`update agents set country = null where id = 'ag-fields'`);
    await countryIs('');
    await a.db.query(`update venues set country = 'LT', agent_id = null where id = 'v-vno-gedimino'`);
  });
});

const post = (url: string, payload: Record<string, string>, token?: string) =>
  a.app.inject({
    method: 'POST',
    url: `${API}/${url}`,
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...(token ? { token } : {}) },
    payload: new URLSearchParams(payload).toString(),
  });
const me = async (token: string) =>
  (await a.app.inject({ method: 'GET', url: `${API}/userInfo`, headers: { token } })).json().data as Record<
    string,
    unknown
  >;

describe("the user's provider ids", () => {
  it('a guest has none; WeChat gives p_openID and pUnionid, Alipay alUserId, and a signed-up person has p_name', async () => {
    const guest = await touristToken(a.app, 'rider-fields-guest-1');
    expect(await me(guest)).toMatchObject({ alUserId: null, p_openID: null, pUnionid: null, p_name: null });
    const wechat = (await post('loginByCode', { code: 'sbx_fieldsWx1' })).json().data as string;
    expect(await me(wechat)).toMatchObject({
      p_openID: 'sbx-open-fieldsWx1',
      pUnionid: 'sandbox-fieldsWx1',
      alUserId: null,
    });
    const alipay = (await post('loginAlipayByCode', { code: 'sbx_fieldsAli1' })).json().data as string;
    expect(await me(alipay)).toMatchObject({ alUserId: 'sandbox-fieldsAli1', p_openID: null, pUnionid: null });
    const minted = await a.app.inject({
      method: 'POST',
      url: '/sandbox-oauth/v1/token',
      payload: { provider: 'google', sub: 'fields-g1', name: 'Rita Fields' },
    });
    const google = (await post('saas/loginGoogleByCode', { androidToken: minted.json().token })).json().data as string;
    expect(await me(google)).toMatchObject({ pname: 'Rita Fields', p_name: 'Rita Fields' });
  });
});

describe('the openId exchange and loginByOpenId', () => {
  it('a code becomes the openid, a session and the user; the signed openid signs the same person in again', async () => {
    const r = (await post('openId', { code: 'sbx_fieldsOpen1' })).json();
    expect(r.code).toBe(0);
    expect(r.data).toMatchObject({
      openId: 'sbx-open-fieldsOpen1',
      user: { p_openID: 'sbx-open-fieldsOpen1', userType: 'user' },
    });
    const first = r.data.user.pId as number;
    const again = (await post('loginByOpenId', { openId: r.data.openId, openIdSign: r.data.openIdSign })).json();
    expect(again.code).toBe(0);
    expect((await me(again.data as string)).pId).toBe(first);
    // The same person through loginByCode is the same user.
    expect((await me((await post('loginByCode', { code: 'sbx_fieldsOpen1' })).json().data as string)).pId).toBe(first);
  });

  it('refuses another openid with the signature, a forged or expired signature, and an unknown code', async () => {
    const r = (await post('openId', { code: 'sbx_fieldsOpen2' })).json().data as { openId: string; openIdSign: string };
    const refused = async (body: Record<string, string>) => {
      const res = await post('loginByOpenId', body);
      expect(res.statusCode).toBeGreaterThanOrEqual(400);
      expect(res.statusCode).toBeLessThan(500);
      return res.json().msg as string;
    };
    expect(await refused({ openId: 'sbx-open-someoneElse', openIdSign: r.openIdSign })).toBe(
      'This sign-in has expired. Please authorise again.',
    );
    const [p, exp, mac] = r.openIdSign.split('.');
    await refused({ openId: r.openId, openIdSign: `${p}.${Number(exp) + 1}.${mac}` });
    await refused({ openId: r.openId, openIdSign: `alipay.${exp}.${mac}` });
    await refused({ openId: r.openId, openIdSign: 'nonsense' });
    a.clock.advance(31 * 24 * 3600_000);
    await refused({ openId: r.openId, openIdSign: r.openIdSign });
    expect((await post('openId', { code: 'not-a-code' })).statusCode).toBeLessThan(500);
    expect((await post('openId', { code: 'not-a-code' })).json().code).not.toBe(0);
  });
});

describe("the agent's deposit-by-payment setting", () => {
  it('set in the console (audited), the scan asks for the deposit by payment when the wallet misses the overtime fee', async () => {
    const owner = (await callerConsoles(a)).get('platformOwner')!;
    const made = await owner.call('POST', '/agents', {
      id: 'ag-deposit',
      name: 'Deposit agent',
      country: 'LT',
      currencies: ['EUR'],
      origins: [],
      reason: 'new market',
    });
    expect(made.statusCode).toBe(200);
    expect(made.json()).toMatchObject({ depositByPayment: false });
    // Its venue: deposit 25, overtime fee 50; the rider's wallet holds 30 (covers the deposit, not the overtime fee).
    await a.db.query(`update venues set agent_id = 'ag-deposit' where id = 'v-vno-gedimino'`);
    await a.db.query(
      `update price_plans set overtime_amount = 5000 where venue_id = 'v-vno-gedimino' and device_kind = 'cdb'`,
    );
    const token = await touristToken(a.app, 'rider-fields-deposit-1');
    const topUp = await a.app.inject({
      method: 'POST',
      url: `${API}/cdb/payment/multicurrency/recharge`,
      headers: { token, 'content-type': 'application/x-www-form-urlencoded', 'idempotency-key': 'rider-fields-topup' },
      payload: new URLSearchParams({
        amount: '30',
        currency: 'EUR',
        paymentId: 'card-sandbox',
        stripeToken: await cardToken(a.app),
      }).toString(),
    });
    expect(topUp.json().code).toBe(0);
    expect(await scan(token, 'PWL-VNO-001')).toMatchObject({
      myyue: 30,
      yajin: 25,
      overtimeAmount: 50,
      chongzhi: 'N',
      yajinChongzhi: 'N',
    });

    const read = await owner.call('GET', '/agents/ag-deposit');
    const on = await owner.call(
      'PATCH',
      '/agents/ag-deposit',
      { depositByPayment: true, reason: 'deposits by card only' },
      { 'if-match': read.headers.etag as string },
    );
    expect(on.statusCode).toBe(200);
    expect(on.json()).toMatchObject({ depositByPayment: true });
    expect((await owner.call('GET', '/agents?q=ag-deposit')).json()).toMatchObject({
      items: [{ id: 'ag-deposit', depositByPayment: true }],
    });
    const audit = (await owner.call('GET', '/audit?entity=agent&entityId=ag-deposit')).json() as {
      items: Array<{ action: string; reason: string; before?: unknown; after?: unknown }>;
    };
    expect(audit.items[0]).toMatchObject({
      action: 'agent.update',
      reason: 'deposits by card only',
      before: { depositByPayment: false },
      after: { depositByPayment: true },
    });
    // The change reaches the scan (the cached one is dropped): the deposit is now paid through confirm.
    await expect.poll(async () => (await scan(token, 'PWL-VNO-001')).yajinChongzhi, { timeout: 10_000 }).toBe('Y');
    // Borrowing with the wallet is refused there (the same rule as the scan), in the rider's language; nothing is held.
    const borrow = (lang: string, key: string) =>
      a.app.inject({
        method: 'GET',
        url: `${API}/cdb/cabinet/useBalanceToRent?qrcode=PWL-VNO-001`,
        headers: { token, lang, 'idempotency-key': key },
      });
    const refusedEn = await borrow('en-US', 'rider-fields-borrow-en');
    expect(refusedEn.statusCode).toBe(422);
    expect(refusedEn.json()).toMatchObject({ code: 422, data: null, msg: expect.stringContaining('overtime fee') });
    const refusedLt = await borrow('lt-LT', 'rider-fields-borrow-lt');
    expect(refusedLt.statusCode).toBe(422);
    expect(refusedLt.json().msg).toContain('vėlavimo mokesčio');
    expect(
      (
        await a.db.query(
          `select count(*)::int as n from orders o join users u on u.id = o.user_id where o.venue_id = 'v-vno-gedimino'`,
        )
      ).rows[0],
    ).toEqual({ n: 0 });
    expect(await scan(token, 'PWL-VNO-001')).toMatchObject({ myyue: 30, zujieNum: 0 });
    // A wallet that covers the overtime fee too still borrows directly.
    await a.db.query(
      `update price_plans set overtime_amount = 2500 where venue_id = 'v-vno-gedimino' and device_kind = 'cdb'`,
    );
    await expect.poll(async () => (await scan(token, 'PWL-VNO-001')).yajinChongzhi, { timeout: 10_000 }).toBe('N');
    const borrowed = await borrow('en-US', 'rider-fields-borrow-ok');
    expect(borrowed.json()).toMatchObject({ code: 0, data: { outTradNo: expect.stringMatching(/^PO/) } });
    // The API document says so on the operation's 422.
    const doc = (await a.app.inject({ method: 'GET', url: `${API}/openapi.json` })).json() as {
      paths: Record<string, Record<string, { responses: Record<string, { description: string }> }>>;
    };
    expect(doc.paths[`${API}/cdb/cabinet/useBalanceToRent`]!.get!.responses['422']!.description).toContain(
      'error.depositByPayment',
    );
  });
});
