// The alipay adapter against the local Alipay gateway (server/test/providers/alipay.ts): signing, answer
// verification, the JSAPI trade, the WAP payment, the fund authorisation hold and refunds (notifications and
// transfers: alipay-notifications.test.ts; the fixtures: alipay-helpers.ts).
import { describe, expect, it } from 'vitest';
import { makeKeys } from '../providers/alipay.ts';
import {
  alipayDefinition,
  chinaTime,
  fromYuan,
  rawJsonValue,
  signContent,
  toYuan,
} from '../../src/modules/payments/methods/alipay.ts';
import {
  APP_ID,
  BUYER,
  BUYER_OPEN_ID,
  FORBIDDEN,
  POOR,
  adapter,
  config,
  deps,
  fake,
  input,
  providerError,
  useAlipay,
} from './alipay-helpers.ts';

useAlipay();

describe('alipay wire format', () => {
  it('converts minor units to yuan strings and back, for 2- and 0-decimal currencies', () => {
    expect(toYuan(1250, 'CNY')).toBe('12.50');
    expect(toYuan(5, 'CNY')).toBe('0.05');
    expect(toYuan(100000, 'CNY')).toBe('1000.00');
    expect(toYuan(1250, 'JPY')).toBe('1250');
    expect(fromYuan('12.5', 'CNY')).toBe(1250);
    expect(fromYuan('0.01', 'CNY')).toBe(1);
    expect(fromYuan('1250', 'JPY')).toBe(1250);
  });

  it('stamps China time and signs the sorted non-empty parameters except sign', () => {
    expect(chinaTime(new Date('2024-01-31T20:05:09Z'))).toBe('2024-02-01 04:05:09');
    expect(signContent({ b: '2', a: '1', sign: 'x', e: '', c: 'x=y' })).toBe('a=1&b=2&c=x=y');
  });

  it('finds the signed response object exactly as written', () => {
    const text = '{"alipay_trade_query_response":{"code":"10000","msg":"a}\\"{","url":"https:\\/\\/x"},"sign":"abc"}';
    expect(rawJsonValue(text, 'alipay_trade_query_response')).toBe(
      '{"code":"10000","msg":"a}\\"{","url":"https:\\/\\/x"}',
    );
  });

  it('sends the documented common parameters, signed with the app key', async () => {
    const before = fake.requests.length;
    await adapter.start(input());
    const p = fake.requests[before]!;
    expect(p).toMatchObject({
      app_id: APP_ID,
      method: 'alipay.trade.create',
      format: 'JSON',
      charset: 'utf-8',
      sign_type: 'RSA2',
      version: '1.0',
      notify_url: 'https://powerly.example/webhooks/methods/alipay',
    });
    expect(p.timestamp).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
    expect(JSON.parse(p.biz_content!)).toMatchObject({
      total_amount: '12.50',
      product_code: 'JSAPI_PAY',
      buyer_id: BUYER,
      subject: 'Powerly power bank',
    });
    await adapter.start(input({ description: 'Rent 1/2 & more=ok' }));
    expect(JSON.parse(fake.requests.at(-1)!.biz_content!)).toMatchObject({ subject: 'Rent 1 2   more ok' });
  });

  it('a wrong app key is refused by the gateway (isv.invalid-signature)', async () => {
    const other = alipayDefinition.create({ ...config, privateKey: makeKeys().privateKey }, deps);
    const err = await providerError(other.start(input()));
    expect(err.code).toBe('isv.invalid-signature');
  });

  it('an unknown app id is refused (isv.invalid-app-id)', async () => {
    const other = alipayDefinition.create({ ...config, appId: '2021999999999999' }, deps);
    expect((await providerError(other.start(input()))).code).toBe('isv.invalid-app-id');
  });

  it('an answer that does not verify with the Alipay public key is refused', async () => {
    const other = alipayDefinition.create({ ...config, alipayPublicKey: makeKeys().publicKey }, deps);
    expect((await providerError(other.start(input()))).code).toBe('invalid_response_signature');
  });

  it('an answer altered on the way, or unsigned, is refused', async () => {
    const i = input();
    const r = await adapter.start(i);
    fake.tamperNext = (t) => t.replace('"WAIT_BUYER_PAY"', '"TRADE_SUCCESS"');
    expect((await providerError(adapter.status(r.ref, i.outTradeNo))).code).toBe('invalid_response_signature');
    fake.unsignedNext = 1;
    expect((await providerError(adapter.status(r.ref, i.outTradeNo))).code).toBe('invalid_response_signature');
    expect((await adapter.status(r.ref, i.outTradeNo)).state).toBe('pending');
  });

  it('a clock more than 15 minutes off is refused (isv.invalid-timestamp)', async () => {
    const late = alipayDefinition.create(config, { ...deps, now: () => new Date(Date.now() - 3600_000) });
    expect((await providerError(late.start(input()))).code).toBe('isv.invalid-timestamp');
  });

  it('a network failure is ProviderError network', async () => {
    fake.dropNext = 1;
    expect((await providerError(adapter.status('2024010122000000000000000001', 'Tnone'))).code).toBe('network');
    const down = alipayDefinition.create({ ...config, apiBase: 'http://127.0.0.1:1/gateway.do' }, deps);
    expect((await providerError(down.start(input()))).code).toBe('network');
  });
});

describe('alipay JSAPI trade (automatic)', () => {
  it('start creates the trade and asks the client for tradePay; the customer pays → paid', async () => {
    const i = input();
    const r = await adapter.start(i);
    expect(r.state).toBe('pending');
    expect(r.action).toEqual({ kind: 'jsapi', bridge: 'alipay', params: { tradeNO: r.ref } });
    expect(await adapter.status(r.ref, i.outTradeNo)).toMatchObject({ state: 'pending' });
    expect(fake.pay(r.ref)).toBe('9000');
    expect(await adapter.status(r.ref, i.outTradeNo)).toEqual({
      ref: r.ref,
      state: 'paid',
      amount: 1250,
      currency: 'CNY',
    });
  });

  it('a buyer open id (not 2088…) goes as buyer_open_id', async () => {
    const before = fake.requests.length;
    const r = await adapter.start(input({ payer: { userId: 2, openId: BUYER_OPEN_ID } }));
    expect(JSON.parse(fake.requests[before]!.biz_content!)).toMatchObject({ buyer_open_id: BUYER_OPEN_ID });
    expect(r.ref).toBeTruthy();
  });

  it('a retried start with the same outTradeNo answers the same trade; a changed amount is refused', async () => {
    const i = input();
    const a = await adapter.start(i);
    const b = await adapter.start(i);
    expect(b.ref).toBe(a.ref);
    expect((await providerError(adapter.start({ ...i, amount: 999 }))).code).toBe('ACQ.CONTEXT_INCONSISTENT');
    fake.pay(a.ref);
    expect((await providerError(adapter.start(i))).code).toBe('ACQ.TRADE_HAS_SUCCESS');
  });

  it('a restricted buyer account is declined at creation', async () => {
    const err = await providerError(adapter.start(input({ payer: { userId: 3, openId: FORBIDDEN } })));
    expect(err.code).toBe('ACQ.BUYER_ENABLE_STATUS_FORBID');
    expect(err.status).toBe(402);
  });

  it('insufficient balance: the client fails (4000), the trade stays unpaid and closes at its timeout', async () => {
    const i = input({ payer: { userId: 4, openId: POOR } });
    const r = await adapter.start(i);
    expect(fake.pay(r.ref)).toBe('4000');
    expect((await adapter.status(r.ref, i.outTradeNo)).state).toBe('pending');
    fake.now = () => Date.now() + fake.timeoutMs;
    try {
      fake.expire();
    } finally {
      fake.now = () => Date.now();
    }
    expect(await adapter.status(r.ref, i.outTradeNo)).toMatchObject({
      state: 'cancelled',
      failureCode: 'TRADE_CLOSED',
    });
  });

  it('the customer cancelling (6001) leaves it pending; a trade Alipay does not know is pending', async () => {
    const i = input();
    const r = await adapter.start(i);
    expect(fake.pay(r.ref, { cancel: true })).toBe('6001');
    expect((await adapter.status(r.ref, i.outTradeNo)).state).toBe('pending');
    expect(await adapter.status('2024010122000000000000009999', 'Tunknown')).toMatchObject({
      state: 'pending',
      failureCode: 'ACQ.TRADE_NOT_EXIST',
    });
  });

  it('refunds partly, replays a retried refund, refuses more than is left, and a full refund stays paid', async () => {
    const i = input();
    const r = await adapter.start(i);
    fake.pay(r.ref);
    await adapter.refundPayment(r.ref, 500, { idempotencyKey: 'refund-1' });
    await adapter.refundPayment(r.ref, 500, { idempotencyKey: 'refund-1' });
    const t = fake.trades.get(r.ref)!;
    expect(t.refunded).toBe(500);
    const over = await providerError(adapter.refundPayment(r.ref, 800, { idempotencyKey: 'refund-2' }));
    expect(over.code).toBe('ACQ.REFUND_AMT_NOT_EQUAL_TOTAL');
    expect(t.refunded).toBe(500);
    await adapter.refundPayment(r.ref, 750, { idempotencyKey: 'refund-3' });
    expect(t.status).toBe('TRADE_CLOSED');
    expect((await adapter.status(r.ref, i.outTradeNo)).state).toBe('paid');
  });

  it('refunding an unpaid trade is refused', async () => {
    const r = await adapter.start(input());
    expect((await providerError(adapter.refundPayment(r.ref, 100, { idempotencyKey: 'r-unpaid' }))).code).toBe(
      'ACQ.TRADE_STATUS_ERROR',
    );
  });

  it('a non-CNY payment is refused before any call', async () => {
    const before = fake.requests.length;
    expect((await providerError(adapter.start(input({ currency: 'USD' })))).code).toBe('unsupported_currency');
    expect(fake.requests.length).toBe(before);
  });
});

describe("alipay WAP payment from a phone's browser (ALIPAY_WAP)", () => {
  it('sends the browser to the gateway with the signed alipay.trade.wap.pay page; the trade is then found, paid, refunded by out_trade_no', async () => {
    const inp = input({ payType: 'ALIPAY_WAP', payer: { userId: 1 } });
    const r = await adapter.start(inp);
    expect(r).toMatchObject({ ref: `wap:${inp.outTradeNo}`, state: 'pending', action: { kind: 'redirect' } });
    if (r.action.kind !== 'redirect') throw new Error('not a redirect');
    const page = new URL(r.action.url);
    expect(page.origin + page.pathname).toBe(fake.gateway);
    expect(page.searchParams.get('method')).toBe('alipay.trade.wap.pay');
    expect(page.searchParams.get('return_url')).toBe(inp.returnUrl);
    expect(JSON.parse(page.searchParams.get('biz_content')!)).toMatchObject({
      out_trade_no: inp.outTradeNo,
      total_amount: '12.50',
      product_code: 'QUICK_WAP_WAY',
      quit_url: inp.cancelUrl,
    });
    // Not opened yet: no trade at Alipay, the payment waits.
    expect((await adapter.status(r.ref, inp.outTradeNo)).state).toBe('pending');
    const tradeNo = fake.openWap(r.action.url)!;
    expect(tradeNo).toBeTruthy();
    expect(fake.pay(tradeNo)).toBe('9000');
    expect(await adapter.status(r.ref, inp.outTradeNo)).toMatchObject({ state: 'paid', amount: 1250, currency: 'CNY' });
    await adapter.refundPayment(r.ref, 250, { idempotencyKey: 'wap-refund-1' });
    // A page whose parameters were changed is refused by the gateway (the signature covers them).
    expect(fake.openWap(r.action.url.replace('12.50', '0.01'))).toBeNull();
  });

  it("void closes an unpaid trade (and is a no-op before the buyer opened the page); no hold; offered only in a phone's browser", async () => {
    const never = await adapter.start(input({ payType: 'ALIPAY_WAP', payer: { userId: 1 } }));
    await adapter.voidPayment!(never.ref, { idempotencyKey: 'v1' });
    const inp = input({ payType: 'ALIPAY_WAP', payer: { userId: 1 } });
    const r = await adapter.start(inp);
    if (r.action.kind !== 'redirect') throw new Error('not a redirect');
    const tradeNo = fake.openWap(r.action.url)!;
    await adapter.voidPayment!(r.ref, { idempotencyKey: 'v2' });
    expect((await adapter.status(r.ref, inp.outTradeNo)).state).toBe('cancelled');
    expect(fake.pay(tradeNo)).toBe('4000');
    expect((await providerError(adapter.start(input({ payType: 'ALIPAY_WAP', capture: 'manual' })))).code).toBe(
      'not_supported',
    );
    expect(alipayDefinition.payTypes.find((t) => t.type === 'ALIPAY_WAP')).toMatchObject({
      kind: 'redirect',
      platforms: ['mobile'],
      hold: false,
    });
  });
});

describe('alipay fund authorisation (manual capture)', () => {
  const startHold = async (amount = 9900) => {
    const i = input({ capture: 'manual', amount, description: 'Power bank deposit' });
    const r = await adapter.start(i);
    return { i, r, orderStr: (r.action as { params: Record<string, string> }).params.orderStr! };
  };

  it('start signs an app.freeze order string for the client; frozen → authorized', async () => {
    const { i, r, orderStr } = await startHold();
    expect(r).toMatchObject({
      ref: `auth:${i.outTradeNo}`,
      state: 'pending',
      action: { kind: 'jsapi', bridge: 'alipay' },
    });
    const p = Object.fromEntries(new URLSearchParams(orderStr));
    expect(p).toMatchObject({ method: 'alipay.fund.auth.order.app.freeze', app_id: APP_ID, sign_type: 'RSA2' });
    expect(JSON.parse(p.biz_content!)).toMatchObject({
      out_order_no: i.outTradeNo,
      out_request_no: i.outTradeNo,
      amount: '99.00',
      product_code: 'PRE_AUTH_ONLINE',
    });
    expect(await adapter.status(r.ref, i.outTradeNo)).toEqual({ ref: r.ref, state: 'pending' });
    expect(fake.freeze(orderStr)).toBe('9000');
    expect(await adapter.status(r.ref, i.outTradeNo)).toEqual({
      ref: r.ref,
      state: 'authorized',
      amount: 9900,
      currency: 'CNY',
    });
  });

  it('an order string altered on the client is refused by Alipay', async () => {
    const { orderStr } = await startHold();
    expect(fake.freeze(orderStr.replace('99.00', '0.01'))).toBe('4000');
  });

  it('insufficient balance freezes nothing', async () => {
    const { i, r, orderStr } = await startHold();
    expect(fake.freeze(orderStr, POOR)).toBe('4000');
    expect((await adapter.status(r.ref, i.outTradeNo)).state).toBe('pending');
  });

  it('captures less than held (the rest unfrozen), then refunds part of the capture', async () => {
    const { i, r, orderStr } = await startHold();
    fake.freeze(orderStr);
    await adapter.capturePayment!(r.ref, 3000, { idempotencyKey: 'cap-1' });
    const auth = fake.auths.get(i.outTradeNo)!;
    expect(auth).toMatchObject({ paid: 3000, rest: 0, unfrozen: 6900, orderStatus: 'FINISH' });
    expect(await adapter.status(r.ref, i.outTradeNo)).toEqual({
      ref: r.ref,
      state: 'paid',
      amount: 3000,
      currency: 'CNY',
    });
    await adapter.capturePayment!(r.ref, 3000, { idempotencyKey: 'cap-1' }); // a retried capture charges once
    expect(auth.paid).toBe(3000);
    await adapter.refundPayment(r.ref, 1000, { idempotencyKey: 'hold-refund-1' });
    expect((await providerError(adapter.refundPayment(r.ref, 2500, { idempotencyKey: 'hold-refund-2' }))).code).toBe(
      'ACQ.REFUND_AMT_NOT_EQUAL_TOTAL',
    );
  });

  it('capturing more than is frozen is refused', async () => {
    const { r, orderStr } = await startHold(1000);
    fake.freeze(orderStr);
    expect((await providerError(adapter.capturePayment!(r.ref, 1001, { idempotencyKey: 'cap-over' }))).code).toBe(
      'ACQ.AUTH_AMOUNT_NOT_ENOUGH',
    );
  });

  it('void unfreezes the hold → cancelled', async () => {
    const { i, r, orderStr } = await startHold();
    fake.freeze(orderStr);
    await adapter.voidPayment!(r.ref, { idempotencyKey: 'void-1' });
    expect(fake.auths.get(i.outTradeNo)).toMatchObject({ rest: 0, unfrozen: 9900, orderStatus: 'CLOSED' });
    expect((await adapter.status(r.ref, i.outTradeNo)).state).toBe('cancelled');
    await adapter.voidPayment!(r.ref, { idempotencyKey: 'void-1' }); // nothing left: no call fails
  });

  it('a hold voided or already captured cannot be captured again', async () => {
    const voided = await startHold();
    fake.freeze(voided.orderStr);
    await adapter.voidPayment!(voided.r.ref, { idempotencyKey: 'void-3' });
    expect((await providerError(adapter.capturePayment!(voided.r.ref, 100, { idempotencyKey: 'cap-void' }))).code).toBe(
      'ACQ.AUTH_ORDER_HAS_CLOSED',
    );
    const captured = await startHold();
    fake.freeze(captured.orderStr);
    await adapter.capturePayment!(captured.r.ref, 100, { idempotencyKey: 'cap-a' });
    await adapter.voidPayment!(captured.r.ref, { idempotencyKey: 'void-4' }); // nothing left to unfreeze
    expect(fake.auths.get(captured.i.outTradeNo)).toMatchObject({ paid: 100, orderStatus: 'FINISH' });
  });

  it('void before the customer froze cancels the order string', async () => {
    const { orderStr, r } = await startHold();
    await adapter.voidPayment!(r.ref, { idempotencyKey: 'void-2' });
    expect(fake.freeze(orderStr)).toBe('4000');
  });

  it('capturing before anything is frozen is refused', async () => {
    const { r } = await startHold();
    expect((await providerError(adapter.capturePayment!(r.ref, 100, { idempotencyKey: 'cap-early' }))).code).toBe(
      'AUTH_NOT_FROZEN',
    );
  });
});
