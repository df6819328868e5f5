// The daily reconciliation of Alipay from its trade bills (payments/settlements/alipay.ts: a ZIP of GBK CSV files),
// through the product against the Alipay gateway test server: a rental's deposit paid with Alipay (JSAPI) and
// refunded when the cabinet released nothing. Before Alipay has made the day's bills the day cannot be read (503), never
// matched; once both China-time bills of the UTC day exist it matches the ledger; a payment the ledger never saw
// (made at a cashier's QR code) is listed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KEEP_WINDOW_MS } from '../src/modules/rentals/deposit-returns.ts';
import { build, cabinetsOnline, touristToken, waitFor, type Built } from './helper.ts';
import { callerConsoles } from './ops/callers.ts';
import type { OpsConsole } from './ops/console.ts';
import { keepSignedIn } from './ops/orders.ts';
import { dayReconciler } from './ops/reconcile-day.ts';
import { FakeAlipay, makeKeys } from './providers/alipay.ts';

const API = '/cdb-app-api/v1/app';
const APP = '2021000122671234';
const BUYER = '2088102146225135';

let fake: FakeAlipay;
let b: Built;
let owner: OpsConsole;
let day: string;
let orderId: string;
let paid: string;

beforeAll(async () => {
  fake = await new FakeAlipay().start();
  const keys = makeKeys();
  fake.addApp(APP, keys.publicKey);
  b = await build({
    publicUrl: 'https://powerly.example',
    paymentMethods: {
      powerly: {
        alipay: {
          appId: APP,
          privateKey: keys.privateKey,
          alipayPublicKey: fake.alipayKeys.publicKey,
          apiBase: fake.gateway,
        },
      },
    },
  });
  fake.now = () => b.clock.now().getTime();
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
const { reconcile, unreadable } = dayReconciler('alipay', () => ({ b, owner, day }));

describe('Alipay reconciled from its trade bills', () => {
  it("a deposit paid with Alipay and refunded: a 503 before Alipay made the day's bills, never matched", async () => {
    await b.app.inject({ method: 'POST', url: '/demo-api/cabinets/PWL-SH-001/fail-next-eject' });
    const token = await touristToken(b.app);
    const payer = await post('cdb/payment/method/payer', token, { paymentId: 'alipay:ALIPAY', openId: BUYER });
    expect(payer.json(), payer.body).toMatchObject({ code: 0 });
    const rent = { qrcode: 'PWL-SH-001', paymentId: 'alipay:ALIPAY' };
    const started = await post('cdb/cabinet/useDepositToRent', token, {
      ...rent,
      stripeToken: payer.json().data.token,
      returnUrl: 'http://localhost/#/confirm',
    });
    expect(started.json(), started.body).toMatchObject({ code: 0 });
    const action = started.json().data.action as { clientSecret: string; paymentIntent: string };
    paid = action.paymentIntent;
    const tradeNo = (JSON.parse(action.clientSecret.slice(4)) as { params: { tradeNO: string } }).params.tradeNO;
    expect(fake.pay(tradeNo)).toBe('9000');
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
    await waitFor(async () => fake.trades.get(tradeNo)!.refunds.size === 1, 'refunded at Alipay');
    const moved = await b.db.query<{ code: string; amount: string }>(
      'select code, amount from ledger_transfers where order_id = $1 order by id',
      [orderId],
    );
    expect(moved.rows.map((r) => r.code)).toEqual(expect.arrayContaining(['deposit_refund']));

    await keepSignedIn(b);
    expect(await unreadable('before the bills exist')).toEqual([]);
    const asked = fake.requests.filter((r) => r.method === 'alipay.data.dataservice.bill.downloadurl.query');
    expect(JSON.parse(asked.at(-1)!.biz_content!)).toEqual({ bill_type: 'trade', bill_date: day });
  });

  it('matches the day once both China-time bills exist: the payment and its refund, read from the GBK detail files', async () => {
    // The UTC day ends at 08:00 China time the day after, whose bill Alipay makes at 10:00 the day after that.
    b.clock.advance(2 * 86_400_000);
    await keepSignedIn(b);
    const res = await reconcile('bills made');
    expect(res.mismatches).toEqual([]);
    expect(res).toMatchObject({ status: 'matched', lines: 2 });
    // What the file says, as the merchant's spreadsheet reads it: the payment and the refund of our outTradeNo.
    const detail = fake.bills.detail(day);
    expect(
      detail
        .split('\r\n')
        .filter((l) => l.includes(paid))
        .map((l) => l.split(',')[2]),
    ).toEqual(['交易', '退款']);
  });

  it("lists a payment the ledger never saw (a cashier's QR code on the same merchant account)", async () => {
    const paidAt = Date.parse(`${day}T21:30:00+08:00`);
    fake.bills.extra.push({
      tradeNo: '2026112122001400000000009999',
      outTradeNo: 'CASHIER20261121001',
      subject: '柜台收款',
      total: 1234,
      created: paidAt,
      paidAt,
      refunds: new Map(),
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
    const later = Date.parse(`${nextDay(day)}T09:00:00+08:00`);
    fake.bills.extra.push({
      ...fake.bills.extra[0]!,
      tradeNo: '2026112222001400000000009998',
      outTradeNo: 'CASHIER20261122001',
      created: later,
      paidAt: later,
    });
    expect((await reconcile('again')).lines).toBe(3);
  });
});

const nextDay = (d: string) => new Date(Date.parse(`${d}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);
