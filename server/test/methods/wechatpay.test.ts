// The wechatpay adapter against the WeChat Pay API v3 test server (server/test/providers/wechatpay.ts): JSAPI payments
// in the WeChat browser, pay-score deposit-free rental (the hold), refunds, signatures both ways, notifications.
import { createVerify, generateKeyPairSync } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { wechatpayDefinition } from '../../src/modules/payments/methods/wechatpay.ts';
import { checkScoreQuery, merchantKeys } from '../providers/wechatpay.ts';
import {
  APP,
  MCH,
  OPENID,
  SERVICE,
  V2KEY,
  V3KEY,
  config,
  deps,
  fake,
  held,
  input,
  keys,
  paidOrder,
  providerError,
  startWechatPay,
  wx,
} from './wechatpay-helpers.ts';

beforeAll(startWechatPay);
afterAll(() => fake.stop());

describe('wechatpay: JSAPI payment in the WeChat browser', () => {
  it('start orders the payment and answers the signed WeixinJSBridge parameters', async () => {
    const inp = input();
    const r = await wx.start(inp);
    expect(r).toMatchObject({ ref: inp.outTradeNo, state: 'pending', action: { kind: 'jsapi', bridge: 'wechat' } });
    if (r.action.kind !== 'jsapi') throw new Error('not jsapi');
    const p = r.action.params;
    expect(p).toMatchObject({ appId: APP, signType: 'RSA' });
    expect(p.package).toMatch(/^prepay_id=wx\d+/);
    expect(p.timeStamp).toMatch(/^\d{10}$/);
    // paySign: SHA256-RSA with the merchant key over "appId\ntimeStamp\nnonceStr\npackage\n"
    const ok = createVerify('RSA-SHA256')
      .update(`${p.appId}\n${p.timeStamp}\n${p.nonceStr}\n${p.package}\n`)
      .verify(keys.publicKey, p.paySign!, 'base64');
    expect(ok).toBe(true);
    const sent = JSON.parse(fake.requests.at(-1)!.body) as Record<string, unknown>;
    expect(sent).toMatchObject({
      appid: APP,
      mchid: MCH,
      out_trade_no: inp.outTradeNo,
      amount: { total: 1250, currency: 'CNY' },
      payer: { openid: OPENID },
      notify_url: inp.notifyUrl,
    });
    expect(await wx.status(r.ref, inp.outTradeNo)).toMatchObject({ state: 'pending', amount: 1250, currency: 'CNY' });
  });

  it('the customer pays: status says paid with the amount', async () => {
    const inp = input({ amount: 3 });
    const r = await wx.start(inp);
    fake.pay(MCH, inp.outTradeNo);
    expect(await wx.status(r.ref, inp.outTradeNo)).toEqual({
      ref: inp.outTradeNo,
      state: 'paid',
      amount: 3,
      currency: 'CNY',
    });
  });

  it('a retried start gets the same prepay_id; the same out_trade_no for another payment is refused', async () => {
    const inp = input();
    const a = await wx.start(inp);
    const b = await wx.start(inp);
    expect(
      a.action.kind === 'jsapi' && b.action.kind === 'jsapi' && a.action.params.package === b.action.params.package,
    ).toBe(true);
    const e = await providerError(wx.start({ ...inp, amount: 999 }));
    expect([e.code, e.status]).toEqual(['OUT_TRADE_NO_USED', 403]);
  });

  it('declined and insufficient funds end failed with their reason', async () => {
    const a = input();
    await wx.start(a);
    fake.pay(MCH, a.outTradeNo, 'declined');
    expect(await wx.status(a.outTradeNo, a.outTradeNo)).toMatchObject({ state: 'failed', failureCode: 'declined' });
    const b = input();
    await wx.start(b);
    fake.pay(MCH, b.outTradeNo, 'insufficient_funds');
    expect(await wx.status(b.outTradeNo, b.outTradeNo)).toMatchObject({
      state: 'failed',
      failureCode: 'insufficient_funds',
    });
  });

  it('no answer: the order stays pending, void closes it (cancelled) and it can no longer be ordered', async () => {
    const inp = input();
    const r = await wx.start(inp);
    expect((await wx.status(r.ref, inp.outTradeNo)).state).toBe('pending');
    await wx.voidPayment!(r.ref, { idempotencyKey: 'close1' });
    expect((await wx.status(r.ref, inp.outTradeNo)).state).toBe('cancelled');
    const e = await providerError(wx.start(inp));
    expect([e.code, e.status]).toEqual(['ORDER_CLOSED', 400]);
  });

  it('refunds part, once per key; more than is left is refused', async () => {
    const inp = input({ amount: 1250 });
    const r = await wx.start(inp);
    fake.pay(MCH, inp.outTradeNo);
    await wx.refundPayment(r.ref, 500, { idempotencyKey: 'refund_a' });
    await wx.refundPayment(r.ref, 500, { idempotencyKey: 'refund_a' }); // a retry
    const refunds = fake.refundsOf(inp.outTradeNo);
    expect(refunds.map((x) => [x.amount.refund, x.amount.total])).toEqual([[500, 1250]]);
    const e = await providerError(wx.refundPayment(r.ref, 751, { idempotencyKey: 'refund_b' }));
    expect([e.code, e.status]).toEqual(['INVALID_REQUEST', 400]);
    await wx.refundPayment(r.ref, 750, { idempotencyKey: 'refund:with:colons' });
    expect(fake.refundsOf(inp.outTradeNo).reduce((s, x) => s + x.amount.refund, 0)).toBe(1250);
    expect((await wx.status(r.ref, inp.outTradeNo)).state).toBe('paid');
  });

  it('a refund of an unpaid order is refused', async () => {
    const inp = input();
    const r = await wx.start(inp);
    const e = await providerError(wx.refundPayment(r.ref, 100, { idempotencyKey: 'refund_unpaid' }));
    expect([e.code, e.status]).toEqual(['RESOURCE_NOT_EXISTS', 404]);
  });

  it('capture of a JSAPI payment is refused (it is charged at once)', async () => {
    const inp = input();
    const r = await wx.start(inp);
    expect((await providerError(wx.capturePayment!(r.ref, 100, { idempotencyKey: 'c' }))).code).toBe('not_supported');
  });

  it('only CNY', async () => {
    expect((await providerError(wx.start(input({ currency: 'USD' })))).code).toBe('currency_not_supported');
  });
});

describe("wechatpay: H5 payment from a phone's browser (WeChat_H5)", () => {
  it("orders with the payer's IP and the Wap scene, and sends the browser to h5_url coming back to our return URL", async () => {
    const inp = input({ payType: 'WeChat_H5', payer: { userId: 7, ip: '203.0.113.9' } });
    const r = await wx.start(inp);
    expect(r).toMatchObject({ ref: inp.outTradeNo, state: 'pending', action: { kind: 'redirect' } });
    if (r.action.kind !== 'redirect') throw new Error('not a redirect');
    const url = new URL(r.action.url);
    expect(url.origin + url.pathname).toBe('https://wx.tenpay.com/cgi-bin/mmpayweb-bin/checkmweb');
    expect(url.searchParams.get('redirect_url')).toBe(inp.returnUrl);
    const sent = JSON.parse(fake.requests.at(-1)!.body) as Record<string, unknown>;
    expect(fake.requests.at(-1)!.url).toContain('/v3/pay/transactions/h5');
    expect(sent).toMatchObject({
      appid: APP,
      mchid: MCH,
      out_trade_no: inp.outTradeNo,
      amount: { total: 1250, currency: 'CNY' },
      scene_info: { payer_client_ip: '203.0.113.9', h5_info: { type: 'Wap' } },
    });
    expect(sent.payer).toBeUndefined();
    expect((await wx.status(r.ref, inp.outTradeNo)).state).toBe('pending');
    fake.pay(MCH, inp.outTradeNo);
    expect(await wx.status(r.ref, inp.outTradeNo)).toEqual({
      ref: inp.outTradeNo,
      state: 'paid',
      amount: 1250,
      currency: 'CNY',
    });
  });

  it("needs the payer's IP; charges at once (no hold); offered only in a phone's browser, never as a hold", async () => {
    expect((await providerError(wx.start(input({ payType: 'WeChat_H5', payer: { userId: 7 } })))).code).toBe(
      'missing_ip',
    );
    expect((await providerError(wx.start(input({ payType: 'WeChat_H5', capture: 'manual' })))).code).toBe(
      'not_supported',
    );
    expect(wechatpayDefinition.payTypes.find((t) => t.type === 'WeChat_H5')).toMatchObject({
      kind: 'redirect',
      platforms: ['mobile'],
      hold: false,
    });
  });
});

describe('wechatpay: signatures and transport', () => {
  it('a request signed with another key is refused by WeChat Pay (401 SIGN_ERROR)', async () => {
    const other = merchantKeys();
    const bad = wechatpayDefinition.create({ ...config, privateKey: other.privateKeyPem }, deps);
    const e = await providerError(bad.start(input()));
    expect([e.code, e.status]).toEqual(['SIGN_ERROR', 401]);
  });

  it('a wrong merchant certificate serial is refused', async () => {
    const bad = wechatpayDefinition.create({ ...config, serialNo: 'ABCDEF' }, deps);
    expect((await providerError(bad.start(input()))).code).toBe('SIGN_ERROR');
  });

  it('an answer not signed by the platform key is not believed', async () => {
    fake.forgeNext = 1;
    const e = await providerError(wx.start(input()));
    expect(e.code).toBe('bad_signature');
    // the same with a platform serial the merchant does not know
    const other = wechatpayDefinition.create({ ...config, platformSerial: 'PUB_KEY_ID_OTHER' }, deps);
    expect((await providerError(other.start(input()))).code).toBe('bad_signature');
  });

  it('a network failure is ProviderError(network)', async () => {
    const down = wechatpayDefinition.create({ ...config, apiBase: 'http://127.0.0.1:1' }, deps);
    expect((await providerError(down.status('x', 'PW1'))).code).toBe('network');
  });

  it('a system error keeps WeChat Pay code and status', async () => {
    fake.failNext = 1;
    const e = await providerError(wx.start(input()));
    expect([e.code, e.status]).toEqual(['SYSTEM_ERROR', 500]);
  });
});

describe('wechatpay: notifications', () => {
  it('a genuine TRANSACTION.SUCCESS is read and acknowledged as WeChat expects', async () => {
    const outTradeNo = await paidOrder();
    const d = fake.notification(MCH, { kind: 'transaction', outTradeNo });
    const id = (JSON.parse(d.rawBody) as { id: string }).id;
    const got = await wx.readNotification(d);
    expect(got).toMatchObject({
      eventId: id,
      outTradeNo,
      ref: outTradeNo,
      state: 'paid',
      amount: 880,
      currency: 'CNY',
    });
    expect(got!.ack).toEqual({
      status: 200,
      contentType: 'application/json',
      body: '{"code":"SUCCESS","message":"成功"}',
    });
  });

  it('a redelivery carries the same eventId', async () => {
    const outTradeNo = await paidOrder();
    const d = fake.notification(MCH, { kind: 'transaction', outTradeNo });
    const again = fake.redeliver(d.rawBody);
    expect(again.headers['wechatpay-nonce']).not.toBe(d.headers['wechatpay-nonce']);
    expect((await wx.readNotification(again))!.eventId).toBe((await wx.readNotification(d))!.eventId);
  });

  it('a tampered body, another signer, an old delivery or another APIv3 key is refused (null)', async () => {
    const outTradeNo = await paidOrder();
    const d = fake.notification(MCH, { kind: 'transaction', outTradeNo });
    expect(
      await wx.readNotification({ ...d, rawBody: d.rawBody.replace('"summary":"支付成功"', '"summary":"x"') }),
    ).toBeNull();
    const forger = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
    expect(
      await wx.readNotification(fake.notification(MCH, { kind: 'transaction', outTradeNo }, { signWith: forger })),
    ).toBeNull();
    expect(
      await wx.readNotification(
        fake.notification(
          MCH,
          { kind: 'transaction', outTradeNo },
          { timestamp: Math.floor(Date.now() / 1000) - 3600 },
        ),
      ),
    ).toBeNull();
    expect(
      await wx.readNotification(
        fake.notification(MCH, { kind: 'transaction', outTradeNo }, { apiV3Key: 'b'.repeat(32) }),
      ),
    ).toBeNull();
    expect(await wx.readNotification({ ...d, headers: { ...d.headers, 'wechatpay-signature': undefined } })).toBeNull();
    expect(await wx.readNotification(d)).not.toBeNull();
  });

  it('a refund notification is acknowledged without a payment state', async () => {
    const outTradeNo = await paidOrder();
    await wx.refundPayment(outTradeNo, 80, { idempotencyKey: 'rn1' });
    const got = await wx.readNotification(fake.notification(MCH, { kind: 'refund', outRefundNo: 'rn1' }));
    expect(got).toMatchObject({ outTradeNo, ack: { status: 200 } });
    expect(got!.state).toBeUndefined();
  });
});

describe('wechatpay: pay score (deposit-free rental) as the hold', () => {
  it('start makes a service order with a DEPOSIT risk fund and answers a signed wxpayScoreUse view', async () => {
    const { inp, r } = await held();
    expect(r).toMatchObject({
      ref: `score:${inp.outTradeNo}`,
      state: 'pending',
      action: { kind: 'jsapi', bridge: 'wechat', params: { businessType: 'wxpayScoreUse' } },
    });
    const sent = JSON.parse(fake.requests.at(-1)!.body) as Record<string, unknown>;
    expect(sent).toMatchObject({
      out_order_no: inp.outTradeNo,
      service_id: SERVICE,
      appid: APP,
      risk_fund: { name: 'DEPOSIT', amount: 9900 },
      need_user_confirm: true,
    });
    if (r.action.kind !== 'jsapi') throw new Error('not jsapi');
    const q = r.action.params.queryString!;
    expect(q).toMatch(
      /^mch_id=1900009191&package=[^&]+&timestamp=\d+&nonce_str=\w+&sign_type=HMAC-SHA256&sign=[0-9A-F]{64}$/,
    );
    expect(checkScoreQuery(q, V2KEY)).toBe(true);
    expect(checkScoreQuery(q, V3KEY)).toBe(false);
    expect(await wx.status(r.ref, inp.outTradeNo)).toMatchObject({ state: 'pending' });
  });

  it('the customer confirms: authorized for the deposit; capture less completes it, WeChat deducts: paid', async () => {
    const { inp, r } = await held();
    fake.confirmScore(MCH, inp.outTradeNo);
    expect(await wx.status(r.ref, inp.outTradeNo)).toEqual({
      ref: r.ref,
      state: 'authorized',
      amount: 9900,
      currency: 'CNY',
    });
    await wx.capturePayment!(r.ref, 350, { idempotencyKey: 'cap1' });
    expect(await wx.status(r.ref, inp.outTradeNo)).toEqual({ ref: r.ref, state: 'paid', amount: 350, currency: 'CNY' });
  });

  it('capture above the risk fund is refused before WeChat is asked; capture before confirmation is refused by WeChat', async () => {
    const { inp, r } = await held(5000);
    expect((await providerError(wx.capturePayment!(r.ref, 100, { idempotencyKey: 'cap_early' }))).code).toBe(
      'INVALID_REQUEST',
    );
    fake.confirmScore(MCH, inp.outTradeNo);
    const before = fake.requests.length;
    const e = await providerError(wx.capturePayment!(r.ref, 5001, { idempotencyKey: 'cap_over' }));
    expect([e.code, e.status]).toEqual(['amount_too_large', 400]);
    expect(fake.requests.slice(before).some((x) => x.url.endsWith('/complete'))).toBe(false);
    expect((await wx.status(r.ref, inp.outTradeNo)).state).toBe('authorized');
    await wx.capturePayment!(r.ref, 5000, { idempotencyKey: 'cap_all' });
    expect(await wx.status(r.ref, inp.outTradeNo)).toMatchObject({ state: 'paid', amount: 5000 });
  });

  it('a completed order WeChat has not collected yet stays authorized until the deduction', async () => {
    const { inp, r } = await held(3000);
    fake.confirmScore(MCH, inp.outTradeNo);
    fake.autoDeduct = false;
    try {
      await wx.capturePayment!(r.ref, 800, { idempotencyKey: 'cap_later' });
    } finally {
      fake.autoDeduct = true;
    }
    expect((await wx.status(r.ref, inp.outTradeNo)).state).toBe('authorized');
    expect((await providerError(wx.voidPayment!(r.ref, { idempotencyKey: 'v_late' }))).code).toBe('INVALID_REQUEST');
    fake.deduct(MCH, inp.outTradeNo);
    expect(await wx.status(r.ref, inp.outTradeNo)).toMatchObject({ state: 'paid', amount: 800 });
  });

  it('void cancels the order (no charge); no answer lets it expire (cancelled)', async () => {
    const a = await held();
    fake.confirmScore(MCH, a.inp.outTradeNo);
    await wx.voidPayment!(a.r.ref, { idempotencyKey: 'v1' });
    expect((await wx.status(a.r.ref, a.inp.outTradeNo)).state).toBe('cancelled');
    expect((await providerError(wx.capturePayment!(a.r.ref, 100, { idempotencyKey: 'cap_void' }))).code).toBe(
      'INVALID_REQUEST',
    );
    const b = await held();
    fake.expireScore(MCH, b.inp.outTradeNo);
    expect((await wx.status(b.r.ref, b.inp.outTradeNo)).state).toBe('cancelled');
  });

  it('a completed order is refunded through its deduction; over-refund refused', async () => {
    const { inp, r } = await held();
    fake.confirmScore(MCH, inp.outTradeNo);
    await wx.capturePayment!(r.ref, 600, { idempotencyKey: 'cap2' });
    await wx.refundPayment(r.ref, 200, { idempotencyKey: 'sr1' });
    expect(fake.scoreRefunds(MCH, inp.outTradeNo).map((x) => [x.amount.refund, x.amount.total])).toEqual([[200, 600]]);
    const e = await providerError(wx.refundPayment(r.ref, 401, { idempotencyKey: 'sr2' }));
    expect([e.code, e.status]).toEqual(['INVALID_REQUEST', 400]);
    const e2 = await providerError(wx.refundPayment(r.ref, 601, { idempotencyKey: 'sr3' }));
    expect(e2.code).toBe('INVALID_REQUEST');
  });

  it('PAYSCORE.USER_CONFIRM and USER_PAID notifications are read (authorized, then paid)', async () => {
    const { inp, r } = await held();
    fake.confirmScore(MCH, inp.outTradeNo);
    const c = await wx.readNotification(
      fake.notification(MCH, { kind: 'payscore', outOrderNo: inp.outTradeNo, eventType: 'PAYSCORE.USER_CONFIRM' }),
    );
    expect(c).toMatchObject({ outTradeNo: inp.outTradeNo, ref: r.ref, state: 'authorized', amount: 9900 });
    await wx.capturePayment!(r.ref, 1200, { idempotencyKey: 'cap3' });
    const p = await wx.readNotification(
      fake.notification(MCH, { kind: 'payscore', outOrderNo: inp.outTradeNo, eventType: 'PAYSCORE.USER_PAID' }),
    );
    expect(p).toMatchObject({ ref: r.ref, state: 'paid', amount: 1200, ack: { status: 200 } });
  });

  it('without serviceId / apiV2Key the hold is not available', async () => {
    const plain = wechatpayDefinition.create({ ...config, serviceId: undefined, apiV2Key: undefined }, deps);
    expect((await providerError(plain.start(input({ capture: 'manual' })))).code).toBe('not_configured');
  });
});
