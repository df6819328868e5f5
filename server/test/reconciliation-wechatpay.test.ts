// The daily reconciliation of WeChat Pay from its trade bills (payments/settlements/wechatpay.ts), through the
// product against the WeChat Pay API v3 test server: a rental's deposit paid with WeChat Pay (JSAPI) and refunded
// when the cabinet released nothing. Before WeChat has made the day's bills the day cannot be read (503), never matched;
// once both China-time bills of the UTC day exist it matches the ledger; a file that does not match its SHA1 is
// not believed; a payment the ledger never saw (made at a cashier's QR code) is listed.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KEEP_WINDOW_MS } from '../src/modules/rentals/deposit-returns.ts';
import { build, cabinetsOnline, touristToken, waitFor, type Built } from './helper.ts';
import { callerConsoles } from './ops/callers.ts';
import type { OpsConsole } from './ops/console.ts';
import { keepSignedIn } from './ops/orders.ts';
import { dayReconciler } from './ops/reconcile-day.ts';
import { FakeWechatPay, merchantKeys } from './providers/wechatpay.ts';

const API = '/cdb-app-api/v1/app';
const MCH = '1900009191';
const APP = 'wxd678efh567hg6787';
const V3KEY = randomBytes(16).toString('hex');
const OPENID = 'oUpF8uMuAJO_M2pxb1Q9zNjWeS6o';

let fake: FakeWechatPay;
let b: Built;
let owner: OpsConsole;
let day: string;
let orderId: string;
let paid: string;

beforeAll(async () => {
  fake = await new FakeWechatPay().start();
  const keys = merchantKeys();
  fake.addMerchant({
    mchId: MCH,
    appId: APP,
    serialNo: keys.serialNo,
    publicKey: keys.publicKey,
    apiV3Key: V3KEY,
    apiV2Key: '',
    serviceId: '',
  });
  b = await build({
    publicUrl: 'https://powerly.example',
    paymentMethods: {
      powerly: {
        wechatpay: {
          appId: APP,
          mchId: MCH,
          serialNo: keys.serialNo,
          privateKey: keys.privateKeyPem,
          apiV3Key: V3KEY,
          platformPublicKey: fake.platformPublicKeyPem,
          platformSerial: fake.platformSerial,
          apiBase: fake.url,
        },
      },
    },
  });
  fake.now = () => b.clock.now();
  owner = (await callerConsoles(b)).get('platformOwner')!;
  await cabinetsOnline(b, ['PWL-SH-001']);
  day = b.clock.now().toISOString().slice(0, 10);
}, 60_000);
afterAll(async () => {
  await b?.close();
  await fake?.stop();
});

const post = (url: string, token: string, body: Record<string, string>) =>
  b.app.inject({ method: 'POST', url: `${API}/${url}`, headers: { token }, payload: body });
const { reconcile, unreadable } = dayReconciler('wechatpay', () => ({ b, owner, day }));

describe('WeChat Pay reconciled from its trade bills', () => {
  it("a deposit paid with WeChat Pay and refunded: a 503 before WeChat made the day's bills, never matched", async () => {
    await b.app.inject({ method: 'POST', url: '/demo-api/cabinets/PWL-SH-001/fail-next-eject' });
    const token = await touristToken(b.app);
    const payer = await post('cdb/payment/method/payer', token, { paymentId: 'wechatpay:WeChat_MP', openId: OPENID });
    expect(payer.json(), payer.body).toMatchObject({ code: 0 });
    const rent = { qrcode: 'PWL-SH-001', paymentId: 'wechatpay:WeChat_MP' };
    const started = await post('cdb/cabinet/useDepositToRent', token, {
      ...rent,
      stripeToken: payer.json().data.token,
      returnUrl: 'http://localhost/#/confirm',
    });
    expect(started.json(), started.body).toMatchObject({ code: 0 });
    paid = started.json().data.action.paymentIntent as string;
    fake.pay(MCH, paid);
    const done = await post('cdb/cabinet/useDepositToRent', token, {
      ...rent,
      stripeToken: 'resume',
      paymentIntent: paid,
    });
    orderId = done.json().data.outTradeNo as string;
    expect(orderId, done.body).toMatch(/^PO/);
    await waitFor(
      async () =>
        (await b.app.inject({ method: 'POST', url: `${API}/cdb/mine/order/check/${orderId}/YJ`, headers: { token } }))
          .statusCode === 422,
      'cancelled',
    );
    b.clock.advance(KEEP_WINDOW_MS + 1_000);
    await b.app.powerly.jobs.runDue();
    await waitFor(async () => fake.refundsOf(paid).length === 1, 'refunded at WeChat Pay');
    const moved = await b.db.query<{ code: string; amount: string }>(
      'select code, amount from ledger_transfers where order_id = $1 order by id',
      [orderId],
    );
    expect(moved.rows.map((r) => r.code)).toEqual(expect.arrayContaining(['deposit_refund']));

    await keepSignedIn(b);
    expect(await unreadable('before the bills exist')).toEqual([]);
    const asked = fake.requests.filter((r) => r.url.startsWith('/v3/bill/tradebill'));
    expect(asked.at(-1)!.url).toBe(`/v3/bill/tradebill?bill_date=${day}&bill_type=ALL`);
  });

  it('matches the day once both China-time bills exist: the payment and its refund, read from the bill files', async () => {
    // The UTC day ends at 08:00 China time the day after, whose bill WeChat makes at 10:00 the day after that.
    b.clock.advance(2 * 86_400_000);
    await keepSignedIn(b);
    const res = await reconcile('bills made');
    expect(res.mismatches).toEqual([]);
    expect(res).toMatchObject({ status: 'matched', lines: 2 });
    const downloads = fake.requests.filter((r) => r.url.startsWith('/v3/billdownload/file'));
    expect(downloads.length).toBeGreaterThanOrEqual(2);
  });

  it('a bill file that does not match its SHA1 is not believed: a 503, the earlier result stays', async () => {
    fake.bills.corruptNext = true;
    // The day's earlier (matched) result stays; the damaged file is not believed.
    expect(await unreadable('a damaged download')).toEqual([{ status: 'matched' }]);
  });

  it("lists a payment the ledger never saw (a cashier's QR code on the same merchant account)", async () => {
    fake.bills.extra.push({
      appid: APP,
      mchid: MCH,
      out_trade_no: 'CASHIER20261121001',
      transaction_id: '4200000000202611210000000001',
      trade_type: 'NATIVE',
      description: '柜台收款, 充电宝',
      amount: { total: 1234 },
      payer: { openid: OPENID },
      success_time: `${day}T21:30:00+08:00`,
    });
    const res = await reconcile('after the bank statement');
    expect(res.status).toBe('mismatched');
    expect(res.mismatches).toEqual([
      expect.objectContaining({
        kind: 'missing_in_ledger',
        refs: ['CASHIER20261121001'],
        currency: 'CNY',
        provider: { charged: 1234, refunded: 0, fee: 7 },
        ledger: { charged: 0, refunded: 0, fee: 0 },
      }),
    ]);
    expect(res.lines).toBe(3);
    // A row of the next China-time day after 08:00 there is another UTC day: not read into this one.
    fake.bills.extra.push({
      ...fake.bills.extra[0]!,
      out_trade_no: 'CASHIER20261122001',
      transaction_id: '4200000000202611220000000001',
      success_time: `${nextDay(day)}T09:00:00+08:00`,
    });
    expect((await reconcile('again')).lines).toBe(3);
  });
});

const nextDay = (d: string) => new Date(Date.parse(`${d}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);
